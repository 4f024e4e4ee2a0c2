package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWorkbenchTmuxBranching: the real binary in tmux on a new scripted chat: one turn
// sent, turn 1 edited in the workbench and sent (a new branch: the header and the
// Branches tab say so, the turn shows ‹2/2›), then `left` steps back to the first
// version; what the workbench showed last is what replay --json says.
func TestWorkbenchTmuxBranching(t *testing.T) {
	bin, dir := tmuxBinary(t)
	isolateCtxlabEnv(t)
	db := filepath.Join(dir, "branching.db")
	var env []string
	for _, k := range []string{"CTXLAB_CONFIG", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PATH"} {
		env = append(env, k+"="+os.Getenv(k))
	}
	command := fmt.Sprintf("env -i %s TERM=xterm-256color %s --db %s --context testdata/demo/support.ctx.yaml --theme mono; sleep 30",
		strings.Join(env, " "), bin, db)
	tm := startTmux(t, command)
	tm.waitFor("SCRIPTED", "message")
	tm.keys("where is my order", "Enter")
	tm.waitFor("reply as the model to")
	tm.keys("first answer", "Enter")
	tm.waitFor("first answer", "branch main (1 branch)")
	tm.waitGone("streaming: esc") // the reply shows before its turn is saved

	// Edit turn 1 from the transcript.
	tm.keys("Tab", "Home", "e")
	tm.waitFor("editing turn 1: sending makes a new branch")
	tm.keys(" please", "Enter")
	tm.waitFor("reply as the model to edited turn 1")
	tm.keys("second answer", "Enter")
	tm.waitFor("second answer", "branch main-v2 (2 branches)", "‹2/2›", "edited turn 1 on new branch main-v2 (2 branches)")
	tm.waitGone("streaming: esc")
	tm.keys("Tab", "4")
	tm.waitFor("2 branches · active main-v2", "from main")

	// Back to the first version.
	tm.keys("Home", "Left")
	s := tm.waitFor("branch main (2 branches)", "‹1/2›", "first answer", "turn 1: version 1/2, on branch main")
	if strings.Contains(s, "second answer") {
		t.Errorf("the first version still shows the second answer:\n%s", s)
	}
	tm.keys("C-c")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(tm.screen(), "SCRIPTED") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	r := runCtxlab(t, "replay", "--db", db, "--json", chatIDIn(t, db))
	if r.code != 0 {
		t.Fatalf("replay: exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(strings.TrimSpace(r.stdout), "\n") + 1; n != 1 || !strings.Contains(r.stdout, `"branch":"main"`) ||
		!strings.Contains(r.stdout, "first answer") {
		t.Errorf("replay of the active branch: want turn 1 of main, first answer:\n%.2000s", r.stdout)
	}
	r = runCtxlab(t, "branches", "--db", db, chatIDIn(t, db))
	if r.code != 0 || !strings.Contains(r.stdout, "main-v2") {
		t.Errorf("branches: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
}

// TestWorkbenchTmuxPresent: ctxlab demo --present in tmux starts with an empty
// transcript; space plays turn 1 (its reply typed out), space again turn 2, and
// backspace takes it back off the screen.
func TestWorkbenchTmuxPresent(t *testing.T) {
	bin, _ := tmuxBinary(t)
	isolateCtxlabEnv(t)
	var env []string
	for _, k := range []string{"CTXLAB_CONFIG", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PATH"} {
		env = append(env, k+"="+os.Getenv(k))
	}
	tm := startTmux(t, fmt.Sprintf("env -i %s TERM=xterm-256color %s demo --present --theme mono; sleep 30", strings.Join(env, " "), bin))
	s := tm.waitFor("DEMO", "presentation · space play the next turn")
	if strings.Contains(s, "turn 1") {
		t.Fatalf("the transcript does not start empty:\n%s", s)
	}
	tm.keys("Space")
	tm.waitFor("turn 1", "Hi! Let me check the customers table.")
	tm.keys("Space")
	tm.waitFor("turn 2", "The first query was refused; the second returned 2 rows.")
	tm.keys("BSpace")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(tm.screen(), "turn 2 ·") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if s := tm.screen(); strings.Contains(s, "turn 2 ·") || !strings.Contains(s, "turn 1") {
		t.Errorf("backspace did not take turn 2 back:\n%s", s)
	}
	tm.keys("C-c")
}
