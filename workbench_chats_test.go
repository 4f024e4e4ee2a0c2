package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// savedDemo plays the demo script into a database in a temporary directory and returns
// the database.
func savedDemo(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "x.db")
	if r := runCtxlab(t, "--db", db, "run", "testdata/demo/support.script.yaml", "--context", "testdata/demo/support.ctx.yaml"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	return db
}

// TestWorkbenchRecordedContext: --chat (and --continue) without --context open the chat on
// the context file recorded for it; --context wins over it; a recorded file that is gone
// is not used.
func TestWorkbenchRecordedContext(t *testing.T) {
	isolateCtxlabEnv(t)
	db := savedDemo(t)
	broken := filepath.Join(t.TempDir(), "recorded.ctx.yaml")
	b, err := os.ReadFile("testdata/demo/broken.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := ctxapp.Open(context.Background(), ctxapp.Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Store().SetChatContext(context.Background(), "demo-1", broken); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	// The recorded file loads first: its errors show it is the one used.
	for _, args := range [][]string{{"--db", db, "--chat", "demo-1"}, {"--db", db, "--continue"}} {
		r := runCtxlab(t, args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, broken+":") {
			t.Errorf("ctxlab %v: exit %d, stderr %q; want the recorded file's errors", args, r.code, r.stderr)
		}
	}
	r := runCtxlab(t, "--db", db, "--chat", "demo-1", "--context", "testdata/demo/support.ctx.yaml")
	if r.code != 2 || !strings.Contains(r.stderr, "headless commands") {
		t.Errorf("--context given: exit %d, stderr %q; want the terminal error (the file loads)", r.code, r.stderr)
	}
	os.Remove(broken)
	r = runCtxlab(t, "--db", db, "--chat", "demo-1")
	if r.code != 2 || !strings.Contains(r.stderr, "headless commands") {
		t.Errorf("recorded file gone: exit %d, stderr %q; want the terminal error", r.code, r.stderr)
	}
}

// TestWorkbenchExport: the chats overlay exports exactly what ctxlab export writes.
func TestWorkbenchExport(t *testing.T) {
	isolateCtxlabEnv(t)
	db := savedDemo(t)
	ctx := context.Background()
	ws, err := ctxapp.Open(ctx, ctxapp.Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	file, err := ctxfile.Load("testdata/demo/support.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lib := workbenchLibrary(ws, ctxapp.Settings{}, nil, file)
	dir := t.TempDir()
	for _, format := range []string{"json", "markdown", "openai"} {
		path, err := lib.ExportFile(ctx, dir, format, "demo-1")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		r := runCtxlab(t, "--db", db, "export", "demo-1", "--format", format)
		if r.code != 0 {
			t.Fatalf("export: %s", r.stderr)
		}
		if string(got) != r.stdout {
			t.Errorf("%s: the overlay's export differs from ctxlab export", format)
		}
	}
}
