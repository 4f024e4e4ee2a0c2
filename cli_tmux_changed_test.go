package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkbenchTmuxReopenedChanged: the real binary in tmux, with no model configured
// (SCRIPTED): a turn is sent and answered as the model, and the workbench quits. The
// context file is edited while the workbench is closed; reopened with --continue (on the
// file the chat recorded), the header marks the file `(changed)` on that turn and the
// Why tab shows was → now, with the status line's summary, before any key is pressed.
func TestWorkbenchTmuxReopenedChanged(t *testing.T) {
	tmux := needTmux(t)
	bin := buildCtxlab(t)
	isolateCtxlabEnv(t) // no model: the tmux server inherits this environment
	dir := t.TempDir()
	demo := filepath.Join(dir, "demo")
	if err := os.CopyFS(demo, os.DirFS("testdata/demo")); err != nil {
		t.Fatal(err)
	}
	ctxPath := filepath.Join(demo, "support.ctx.yaml")
	db := filepath.Join(dir, "changed.db")
	env := []string{"NO_COLOR=1", "OPENAI_API_KEY=", "OPENAI_BASE_URL="}

	p := startPane(t, tmux, bin, 160, 45, env, "--db", db, "--context", ctxPath, "--theme", "mono")
	waitFor(t, p, "SCRIPTED", e2eTimeout)
	p.typeText("how many customers do we have?")
	p.keys("Enter")
	waitFor(t, p, "reply as the model", e2eTimeout)
	p.typeText("Forty-two.")
	p.keys("Enter")
	s := waitUntil(t, p, "the turn saved", e2eTimeout, func(s string) bool {
		return strings.Contains(s, "turn 1 ·") && strings.Contains(s, "Forty-two.") && !strings.Contains(s, "reply as the model") &&
			!strings.Contains(s, "streaming: ") // until it is saved, ctrl+c would cancel it rather than quit
	})
	if strings.Contains(s, "(changed)") {
		t.Fatalf("a turn just sent is marked changed:\n%s", s)
	}
	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)

	// `concise` fired every 3 turns: turn 1 did not have it. Now it fires on every turn.
	if out, err := exec.Command("sed", "-i", "s/everyNTurns(3)/everyNTurns(1)/", ctxPath).CombinedOutput(); err != nil {
		t.Fatalf("sed: %v: %s", err, out)
	}
	p = startPane(t, tmux, bin, 160, 45, env, "--db", db, "--continue", "--theme", "mono")
	s = waitUntil(t, p, "the mark, was → now and the summary", e2eTimeout, func(s string) bool {
		return strings.Contains(s, "support.ctx.yaml (changed)") && strings.Contains(s, "was ✗ predicate_false → now ✓ fired") &&
			strings.Contains(s, "support.ctx.yaml changed since 1 of 1 turn was sent · 1 decision changed in 1 of 1 turn")
	})
	if !strings.Contains(inspectorColumn(s), "re-evaluated under support.ctx.yaml") {
		t.Errorf("the Why tab does not say it shows a re-evaluation:\n%s", s)
	}

	// Put back as it was, the file is the one the turn was sent with: no mark.
	if out, err := exec.Command("sed", "-i", "s/everyNTurns(1)/everyNTurns(3)/", ctxPath).CombinedOutput(); err != nil {
		t.Fatalf("sed: %v: %s", err, out)
	}
	waitUntil(t, p, "the mark gone after the file is put back", e2eTimeout, func(s string) bool {
		return strings.Contains(s, "reload: support.ctx.yaml · 0 decisions changed") && !strings.Contains(s, "(changed)")
	})
}
