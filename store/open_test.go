package store

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirState lists the files of dir with their contents, to tell that nothing changed.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e.Name() + "=" + string(data) + "\n")
	}
	return b.String()
}

// TestOpenExisting is issue 12 item 8: read-only commands wrote a schema into a 0-byte
// file. OpenExisting refuses a path with no ctxlab database (ErrNoDatabase) and leaves it
// as it was, and opens one that has a schema.
func TestOpenExisting(t *testing.T) {
	for _, tc := range []struct {
		name    string
		make    func(t *testing.T, path string)
		want    string // "" for opened
		noDBErr bool
	}{
		{"missing", func(*testing.T, string) {}, "the file does not exist", true},
		{"empty", func(t *testing.T, p string) {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "the file is empty", true},
		{"a SQLite database with no table", func(t *testing.T, p string) {
			d, err := sql.Open("sqlite", p)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if _, err := d.Exec("PRAGMA user_version = 0; VACUUM"); err != nil {
				t.Fatal(err)
			}
		}, "the file holds no schema yet", true},
		{"not a database", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("hello, world: not a database at all, long enough to be looked at"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a database", false},
		{"a ctxlab database", func(t *testing.T, p string) {
			d, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			d.Close()
		}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ctxlab.db")
			tc.make(t, path)
			before := dirState(t, dir)
			d, err := OpenExisting(path)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("OpenExisting: %v", err)
				}
				d.Close()
				return
			}
			if err == nil {
				d.Close()
				t.Fatalf("OpenExisting succeeded, want an error with %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) || errors.Is(err, ErrNoDatabase) != tc.noDBErr {
				t.Errorf("got %v, want an error naming %s with %q (ErrNoDatabase %v)", err, path, tc.want, tc.noDBErr)
			}
			if after := dirState(t, dir); after != before {
				t.Errorf("the folder changed:\n%s\nwant\n%s", after, before)
			}
		})
	}
}
