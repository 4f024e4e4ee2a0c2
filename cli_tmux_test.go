package main

// End to end: the real binary in a terminal (tmux) against aimock. Skipped when tmux or
// aimock is not installed (.ci/run installs both; with CTXLAB_AIMOCK_REQUIRED=1 a missing
// one fails).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/llm/aimocktest"
)

// tmuxTerm is a tmux server of the test's own (its own socket, so it starts with the
// test's environment) running one command in a 160x45 window.
type tmuxTerm struct {
	t      *testing.T
	socket string
	start  time.Time
}

func startTmux(t *testing.T, command string) *tmuxTerm {
	t.Helper()
	requireTmux(t)
	tm := &tmuxTerm{t: t, socket: fmt.Sprintf("ctxlab-test-%d", time.Now().UnixNano()), start: time.Now()}
	tm.run("new-session", "-d", "-s", "w", "-x", "160", "-y", "45", command)
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *tmuxTerm) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (tm *tmuxTerm) screen() string { return tm.run("capture-pane", "-p", "-t", "w") }

func (tm *tmuxTerm) keys(keys ...string) {
	tm.run(append([]string{"send-keys", "-t", "w"}, keys...)...)
}

// waitGone waits until the screen no longer shows text.
func (tm *tmuxTerm) waitGone(text string) {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if !strings.Contains(tm.screen(), text) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("the screen kept showing %q:\n%s", text, tm.screen())
}

// waitFor waits until the screen shows every text.
func (tm *tmuxTerm) waitFor(texts ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var s string
	for time.Now().Before(deadline) {
		s = tm.screen()
		ok := true
		for _, text := range texts {
			ok = ok && strings.Contains(s, text)
		}
		if ok {
			tm.t.Logf("%s: %q", time.Since(tm.start), texts)
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	tm.t.Fatalf("the screen never showed %q:\n%s", texts, s)
	return ""
}

// TestWorkbenchEndToEnd sends two turns, one with tool calls, sees the reminder the
// failed tool fired in Why and the reported usage in Usage, quits, and finds both turns
// in the database.
func TestWorkbenchEndToEnd(t *testing.T) {
	bin, dir := tmuxBinary(t) // before liveEnv moves HOME, so the build cache is the usual one
	liveEnv(t)
	srv := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock/live.json"})
	db := filepath.Join(dir, "e2e.db")
	var env []string
	for _, k := range []string{"OPENAI_API_KEY", "CTXLAB_CONFIG", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PATH"} {
		env = append(env, k+"="+os.Getenv(k))
	}
	command := fmt.Sprintf("env -i %s TERM=xterm-256color %s --db %s --base-url %s --context testdata/live/live.ctx.yaml --theme mono; sleep 30",
		strings.Join(env, " "), bin, db, srv.BaseURL())
	tm := startTmux(t, command)
	tm.waitFor("gpt-4o-mini @ 127.0.0.1", "message")

	tm.keys("run the report", "Enter")
	tm.waitFor("The report: 42 users; the export was refused.", "tool export_csv")
	tm.waitGone("streaming: esc") // the reply shows before its turn is saved
	tm.keys("what failed", "Enter")
	tm.waitFor("The export: permission denied.")
	s := tm.waitFor("FIRED (2)", "✓ export-failed")
	if strings.Contains(s, liveKey) {
		t.Fatal("the API key is on the screen")
	}
	tm.keys("M-5")
	tm.waitFor("[Usage]", "reported", "prompt             50")
	tm.keys("C-c")
	// The program has quit: the shell's sleep holds the window with the main screen back.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(tm.screen(), "[Usage]") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}

	r := runCtxlab(t, "replay", "--db", db, "--json", chatIDIn(t, db))
	if r.code != 0 {
		t.Fatalf("replay: exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(strings.TrimSpace(r.stdout), "\n") + 1; n != 2 {
		t.Errorf("the database holds %d turns, want 2:\n%s", n, r.stdout)
	}
	if strings.Contains(r.stdout, liveKey) {
		t.Error("the API key is in the database")
	}
}

// chatIDIn returns the one chat of a database.
func chatIDIn(t *testing.T, db string) string {
	t.Helper()
	r := runCtxlab(t, "chats", "--db", db)
	if r.code != 0 {
		t.Fatalf("chats: exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 2 {
		t.Fatalf("chats printed %q", r.stdout)
	}
	return strings.Fields(lines[len(lines)-1])[0]
}

// requireTmux skips a test without tmux, or fails it under CTXLAB_TMUX_REQUIRED=1 (CI).
func requireTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CTXLAB_TMUX_REQUIRED") == "1" {
			t.Fatal("tmux is required (apt-get install tmux)")
		}
		t.Skip("tmux is not installed")
	}
}

// tmuxBinary builds the binary a tmux test runs, into a temporary folder it returns too;
// without tmux the test is skipped (see requireTmux).
func tmuxBinary(t *testing.T) (bin, dir string) {
	t.Helper()
	requireTmux(t)
	dir = t.TempDir()
	bin = filepath.Join(dir, "ctxlab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	return bin, dir
}
