package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportToFolder: export --out FOLDER writes a new file in it named after the chat's
// title (and the end of its id), never over another, prints its path, and writes what
// the standard output would have.
func TestExportToFolder(t *testing.T) {
	db := expScriptDB(t)
	dir := t.TempDir()
	want := mustRunCtxlab(t, "export", "export-1", "--db", db, "--format", "markdown")
	for _, name := range []string{"orders-refunds-export1.md", "orders-refunds-export1-1.md"} {
		out := mustRunCtxlab(t, "export", "export-1", "--db", db, "--format", "markdown", "--out", dir)
		if path := filepath.Join(dir, name); out != path+"\n" {
			t.Errorf("export --out %s printed %q, want %q", dir, out, path+"\n")
		}
		if got := expReadFile(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s holds other bytes than the standard output", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the folder holds %d files, want 2", len(entries))
	}
	r := runCtxlab(t, "export", "nope", "--db", db, "--out", dir)
	if r.code != exitFailure || !strings.Contains(r.stderr, `chat "nope" not found`) {
		t.Errorf("an unknown chat to a folder: exit %d, stderr %q", r.code, r.stderr)
	}
}
