package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDatabasePathsSayWhatTheyAre is issue 22 item 9: --db /proc/self/status, whose size
// is 0 though it reads as text, was "an empty file"; a file that is not a database said
// only "file is not a database". Each says what the file is, read-only command or not.
func TestDatabasePathsSayWhatTheyAre(t *testing.T) {
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	text, binary := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "image.png")
	if err := os.WriteFile(text, []byte("Shopping list: eggs, flour, milk and a long enough line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binary, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2048)...), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
	}{
		{text, `not a database file: it holds text ("Shopping list: eggs, flo…")`},
		{binary, "not a database file: it does not start as a SQLite database does"},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct{ path, want string }{"/proc/self/status",
			`not a database file: it holds text ("Name:\t`})
		tests = append(tests, struct{ path, want string }{"/proc/self/status",
			"though its size is 0 (a file made as it is read, as in /proc)"})
	}
	for _, tt := range tests {
		for _, args := range [][]string{{"chats"}, {"replay", "x"}, {"export", "x"}, {"run", "testdata/demo/support.script.yaml"}} {
			r := runCtxlab(t, append(args, "--db", tt.path)...)
			if r.code != 1 || !strings.Contains(r.stderr, "open database "+tt.path+": ") || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("%s --db %s: exit %d, stderr %q; want 1 and %q", args[0], tt.path, r.code, r.stderr, tt.want)
			}
		}
	}
	before, _ := os.ReadFile(text)
	if after, _ := os.ReadFile(text); !bytes.Equal(before, after) {
		t.Error("the text file changed")
	}
}
