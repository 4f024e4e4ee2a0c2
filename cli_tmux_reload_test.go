package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWorkbenchReloadEndToEnd: the real binary in tmux on a saved chat; the context file
// is edited on disk (sed -i, as an editor would) while it runs; the workbench reloads it
// by itself, and the Why tab of a past turn shows the decision that changed, was → now;
// ctrl+o lists the chat; quitting leaves the chat on the edited file.
func TestWorkbenchReloadEndToEnd(t *testing.T) {
	bin, dir := tmuxBinary(t)
	isolateCtxlabEnv(t)
	demo := filepath.Join(dir, "demo")
	if err := os.CopyFS(demo, os.DirFS("testdata/demo")); err != nil {
		t.Fatal(err)
	}
	ctxPath := filepath.Join(demo, "support.ctx.yaml")
	db := filepath.Join(dir, "reload.db")
	if r := runCtxlab(t, "--db", db, "run", filepath.Join(demo, "support.script.yaml"), "--context", ctxPath); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	var env []string
	for _, k := range []string{"CTXLAB_CONFIG", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PATH"} {
		env = append(env, k+"="+os.Getenv(k))
	}
	command := fmt.Sprintf("env -i %s TERM=xterm-256color %s --db %s --chat demo-1 --context %s --theme mono; sleep 30",
		strings.Join(env, " "), bin, db, ctxPath)
	tm := startTmux(t, command)
	tm.waitFor("Support demo", "support.ctx.yaml", "SCRIPTED")
	// Turn 2 selected: `concise` (every 3 turns) did not fire there.
	tm.keys("Tab", "Up", "Up")
	tm.waitFor("turn 2 · main", "✗ concise")

	if out, err := exec.Command("sed", "-i", "s/everyNTurns(3)/everyNTurns(2)/", ctxPath).CombinedOutput(); err != nil {
		t.Fatalf("sed: %v: %s", err, out)
	}
	s := tm.waitFor("reload: support.ctx.yaml · ", "was ✗ predicate_false → now ✓ fired", "support.ctx.yaml (changed)")
	if !strings.Contains(s, "decisions changed in") {
		t.Errorf("no summary of the change in the status line:\n%s", s)
	}
	tm.keys("C-o")
	tm.waitFor("chats · 1 of 1", "Support demo (open)")
	tm.keys("Escape", "C-c")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(tm.screen(), "Support demo") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	// What the workbench showed is what replay --context says.
	r := runCtxlab(t, "replay", "--db", db, "--json", "--context", ctxPath, "demo-1")
	if r.code != 0 {
		t.Fatalf("replay: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `"was":{"fired":false,"reason":"predicate_false"}`) {
		t.Errorf("replay --context shows no changed decision:\n%.2000s", r.stdout)
	}
}
