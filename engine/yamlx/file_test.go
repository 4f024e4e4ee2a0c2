package yamlx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/diag"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("a", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, path string
		limit      int64
		wantLen    int
		wantErr    string // substring; "" = no error
	}{
		{"under the limit", write("small", 10), 100, 10, ""},
		{"at the limit", write("exact", 100), 100, 100, ""},
		{"one byte over", write("over", 101), 100, 0, "too large: a test file holds at most 100 bytes"},
		{"in MiB", write("big", 1<<20+1), 1 << 20, 0, "too large: a test file holds at most 1 MiB"},
		{"an endless device", "/dev/zero", 8 << 20, 0, "/dev/zero: a device, not a file: a test file must be a file"},
		{"a directory", dir, 100, 0, ": a directory, not a file"},
		{"missing", filepath.Join(dir, "nope"), 100, 0, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path == "/dev/zero" && runtime.GOOS == "windows" {
				t.Skip("no /dev/zero")
			}
			data, err := ReadFile(tc.path, "a test file", tc.limit)
			if tc.wantErr == "" {
				if err != nil || len(data) != tc.wantLen {
					t.Fatalf("got %d bytes, %v; want %d bytes", len(data), err, tc.wantLen)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want %q", err, tc.wantErr)
			}
			var de *diag.Error
			if refused := !strings.Contains(tc.wantErr, "no such file"); refused != errors.As(err, &de) {
				t.Fatalf("got %T, want *diag.Error for a file refused, and the open's error else", err)
			}
			if tc.name == "missing" && !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("got %v, want fs.ErrNotExist", err)
			}
		})
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{100: "100 bytes", 1024: "1 KiB", 64 << 10: "64 KiB", 8 << 20: "8 MiB", 1<<20 + 1: "1048577 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
