package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkbenchTmuxCopy copies a reply (c) and its request (y) from the real binary in
// tmux against aimock. With set-clipboard on (the test servers' setting), the plain OSC 52
// lands in tmux's paste buffer and the status line says so; with it off (and
// allow-passthrough off, tmux's default), nothing is sent: the status line says how to
// enable it and where the text is saved instead. The API key is in neither.
func TestWorkbenchTmuxCopy(t *testing.T) {
	s := setupE2E(t)
	const reply = "Hello from aimock, turn one."

	t.Run("set-clipboard on", func(t *testing.T) {
		p := startPane(t, s.tmux, s.bin, 160, 45, s.env, s.args()...)
		waitFor(t, p, "ctxlab · new chat", e2eTimeout)
		send(t, p, "hello workbench")
		waitFor(t, p, reply, e2eTimeout)
		waitIdle(t, p)
		p.keys("Tab", "c")
		waitForWords(t, p, "copied the reply (28 bytes) into tmux's paste buffer")
		if buf := p.run("show-buffer"); buf != reply {
			t.Errorf("tmux's buffer holds %q, want the reply %q", buf, reply)
		}
		p.keys("y")
		waitForWords(t, p, "copied the request JSON")
		buf := p.run("show-buffer")
		if !strings.Contains(buf, `"content":"hello workbench"`) || strings.Contains(buf, liveKey) {
			t.Errorf("tmux's buffer holds %q, want the request without the API key", buf)
		}
		p.keys("C-c")
		waitFor(t, p, "ctxlab exited: 0", e2eTimeout)
	})

	t.Run("set-clipboard off", func(t *testing.T) {
		tmp := t.TempDir()
		p := startPane(t, s.tmux, s.bin, 160, 45, append(s.env, "TMPDIR="+tmp), s.args()...)
		p.run("set-option", "-g", "set-clipboard", "off")
		waitFor(t, p, "ctxlab · new chat", e2eTimeout)
		send(t, p, "hello workbench")
		waitFor(t, p, reply, e2eTimeout)
		waitIdle(t, p)
		p.keys("Tab", "c")
		screen := waitForWords(t, p, "the reply is saved in")
		for _, want := range []string{"tmux takes no OSC 52 here (set-clipboard off, allow-passthrough off), so nothing was copied",
			"`tmux set -g set-clipboard on` enables it", "the reply is saved in " + tmp} {
			if !strings.Contains(screen, want) {
				t.Errorf("the status line lacks %q:\n%s", want, screen)
			}
		}
		if bufs := strings.TrimSpace(p.run("list-buffers")); bufs != "" {
			t.Errorf("tmux has buffers %q, want none", bufs)
		}
		p.keys("y")
		waitForWords(t, p, "the request JSON is saved in")
		for pattern, want := range map[string]string{"ctxlab-turn-1-reply-*.md": reply, "ctxlab-turn-1-request-*.json": `"content":"hello workbench"`} {
			files, _ := filepath.Glob(filepath.Join(tmp, pattern))
			if len(files) != 1 {
				t.Fatalf("%s: saved %v, want one file", pattern, files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), want) || strings.Contains(string(b), liveKey) {
				t.Errorf("%s holds %q, want %q and no API key", files[0], b, want)
			}
			if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v (%v), want 0600", files[0], fi.Mode().Perm(), err)
			}
		}
		p.keys("C-c")
		waitFor(t, p, "ctxlab exited: 0", e2eTimeout)
	})
}

// waitForWords waits until the screen holds text, wherever its lines break (a status line
// wraps), and returns the screen's words joined by single spaces.
func waitForWords(t *testing.T, p *pane, text string) string {
	t.Helper()
	s := waitUntil(t, p, fmt.Sprintf("%q on screen", text), e2eTimeout, func(s string) bool {
		return strings.Contains(strings.Join(strings.Fields(s), " "), text)
	})
	return strings.Join(strings.Fields(s), " ")
}
