package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// TestInit: init writes a commented starter context file that loads and shows a
// fragment, an instruction and a reminder with a condition, which every command then
// finds; it never overwrites a file (exit 2, the file unchanged), takes a folder, and is
// offered by the shell completion.
func TestInit(t *testing.T) {
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	t.Chdir(dir)

	out := mustRunCtxlab(t, "init")
	if !strings.HasPrefix(out, "wrote ctxlab.ctx.yaml: ") || !strings.Contains(out, `ctxlab prompt --user "hello"`) ||
		!strings.Contains(out, "CONTEXT-FILE.md") {
		t.Errorf("init printed:\n%s", out)
	}
	f, err := ctxfile.Load(ctxapp.DefaultContextFile)
	if err != nil {
		t.Fatalf("the starter file does not load: %v", err)
	}
	if len(f.System) == 0 || len(f.Instructions) == 0 || len(f.Reminders) == 0 || f.Reminders[0].When == nil {
		t.Errorf("the starter file has %d fragments, %d instructions, %d reminders; want one of each, the reminder with a when",
			len(f.System), len(f.Instructions), len(f.Reminders))
	}
	data, _ := os.ReadFile(ctxapp.DefaultContextFile)
	for _, want := range []string{"# ", "CONTEXT-FILE.md", "PREDICATES.md"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the starter file lacks %q", want)
		}
	}
	if prompt := mustRunCtxlab(t, "prompt", "--user", "it failed with an error"); !strings.Contains(prompt, "fired:           ask-for-the-error") {
		t.Errorf("prompt does not use the file init wrote:\n%s", prompt)
	}

	if err := os.WriteFile(ctxapp.DefaultContextFile, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCtxlab(t, "init")
	if kept, _ := os.ReadFile(ctxapp.DefaultContextFile); r.code != exitInvalid || string(kept) != "mine\n" ||
		!strings.Contains(r.stderr, "ctxlab.ctx.yaml already exists: init never overwrites a file") {
		t.Errorf("init over a file: exit %d, stderr %q, file %q; want 2, the file kept", r.code, r.stderr, kept)
	}

	if err := os.Mkdir("sub", 0o700); err != nil {
		t.Fatal(err)
	}
	out = mustRunCtxlab(t, "init", "sub")
	if _, err := ctxfile.Load(filepath.Join("sub", ctxapp.DefaultContextFile)); err != nil ||
		!strings.Contains(out, "ctxlab prompt --context sub/ctxlab.ctx.yaml") {
		t.Errorf("init into a folder: %v; printed\n%s", err, out)
	}
	if r := runCtxlab(t, "init", "a", "b"); r.code != exitInvalid {
		t.Errorf("init with two paths: exit %d, want 2", r.code)
	}
	if r := runCtxlab(t, "__complete", "in"); !strings.Contains(r.stdout, "init\t") {
		t.Errorf("completion of in: %q, want init offered", r.stdout)
	}
}
