package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkbenchNeedsTerminal: without a terminal the workbench says which commands work
// instead, on one line, exit 2; nothing is written.
func TestWorkbenchNeedsTerminal(t *testing.T) {
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	for _, args := range [][]string{{"--db", db}, {"demo"}, {"demo", "--present"}, {"--db", db, "--present"},
		{"--db", db, "--context", "testdata/demo/support.ctx.yaml"}} {
		r := runCtxlab(t, args...)
		if r.code != 2 {
			t.Errorf("ctxlab %v: exit %d, want 2", args, r.code)
		}
		if got := strings.TrimSpace(r.stderr); strings.Count(got, "\n") != 0 || !strings.Contains(got, "headless commands") ||
			!strings.Contains(got, "run, replay") {
			t.Errorf("ctxlab %v: stderr %q, want one line naming the headless commands", args, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("ctxlab %v: stdout %q", args, r.stdout)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the workbench without a terminal created the database")
	}
}

// TestWorkbenchContextErrors: a context file with errors is reported as
// FILE:LINE:COL: message, exit 2, before the workbench opens.
func TestWorkbenchContextErrors(t *testing.T) {
	isolateCtxlabEnv(t)
	r := runCtxlab(t, "--db", ":memory:", "--context", "testdata/demo/broken.ctx.yaml")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2; stderr %q", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, "testdata/demo/broken.ctx.yaml:") {
		t.Errorf("stderr %q, want FILE:LINE:COL: message lines", r.stderr)
	}
}

// TestDemoFilesComplete: the embedded demo holds every file its context references, so
// the demo context loads from the temp copy.
func TestDemoFilesComplete(t *testing.T) {
	dir, err := writeDemo()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var files []string
	if err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("demo files: %v", files)
	}
	r := runCtxlab(t, "prompt", "--context", filepath.Join(dir, "support.ctx.yaml"), "--user", "hello")
	if r.code != 0 {
		t.Fatalf("the demo context does not load from its copy: exit %d, %s", r.code, r.stderr)
	}
}
