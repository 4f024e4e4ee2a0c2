package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctxlab/ctxlab/llm/aimocktest"
)

// sneakyReply is what aimock answers "be sneaky" with (testdata/aimock/paste.json): on
// screen one harmless line, but ESC[201~ ends a bracketed paste and each carriage return
// presses enter, so pasted raw into a shell it runs touch pwned. It also holds a
// right-to-left override, a C1 CSI and DEL, and joiners that do their job.
const sneakyReply = "echo harmless\x1b[201~\rtouch pwned\r # \u202etxt.exe \u009b201~\x7f, क्\u200dष 👨\u200d💻"

// checkPasteBytes fails unless tmux's buffer is safe to paste: no ESC, no other control
// character but newline and tab (C0, DEL, C1), no right-to-left override unshown.
func checkPasteBytes(t *testing.T, what, buf string) {
	t.Helper()
	if !utf8.ValidString(buf) {
		t.Errorf("%s: invalid UTF-8 in %+q", what, buf)
	}
	for i, r := range buf {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e {
			t.Errorf("%s: %U at byte %d of tmux's buffer %+q", what, r, i, buf)
			return
		}
	}
}

// TestWorkbenchTmuxCopyPastesNothing copies a hostile reply (c) and a request that holds
// it (y) from the real binary in tmux, with set-clipboard on, and pastes tmux's buffer
// into bash in another window (bracketed, as tmux pastes into a program that asks for
// it): the buffer holds no control byte, the shell runs nothing, and the JSON copied is
// the request's exact value. The transcript shows the override as ⟨U+202E⟩.
func TestWorkbenchTmuxCopyPastesNothing(t *testing.T) {
	tmux := needTmux(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash is not installed: %v", err)
	}
	srv := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock/paste.json", APIKeys: []string{liveKey}})
	bin := buildCtxlab(t)
	liveEnv(t)
	s := &e2eSetup{tmux: tmux, bin: bin, db: filepath.Join(t.TempDir(), "w.db"), srv: srv,
		env: []string{e2eKeyEnv + "=" + liveKey, "OPENAI_API_KEY=", "NO_COLOR=1"}}

	p := startPane(t, s.tmux, s.bin, 160, 45, s.env, s.args()...)
	waitFor(t, p, "ctxlab · new chat", e2eTimeout)
	send(t, p, "be sneaky")
	screen := waitFor(t, p, "txt.exe", e2eTimeout)
	waitIdle(t, p)
	if !strings.Contains(screen, "echo harmlesstouch pwned # ⟨U+202E⟩txt.exe") {
		t.Errorf("the transcript does not show the reply as it is pasted, with its override shown:\n%s", screen)
	}

	// paste pastes tmux's buffer into bash, started for it in a window of its own (named
	// so that the workbench's target, "s", does not match it) in a directory where the
	// reply's second command, run, would leave a file. Once bash shows the end of the
	// paste, whatever the paste ran has run: it must have run nothing (one prompt on
	// screen, no file).
	windows := 0
	paste := func(what, end string) string {
		t.Helper()
		windows++
		dir, target := t.TempDir(), fmt.Sprintf("s:paste%d", windows)
		p.run("new-window", "-d", "-t", "s:", "-n", target[2:], "-c", dir, "env PS1='sh$ ' "+shellQuote(bash)+" --norc --noprofile -i")
		pwned := func() bool { _, err := os.Stat(filepath.Join(dir, "pwned")); return err == nil }
		wait := func(what string, ok func(string) bool) string {
			t.Helper()
			deadline := time.Now().Add(e2eTimeout)
			for {
				sc := p.run("capture-pane", "-p", "-J", "-t", target) // -J: wrapped lines joined
				if ok(sc) {
					return sc
				}
				if time.Now().After(deadline) {
					t.Fatalf("waited %v for %s; the shell's screen:\n%s", e2eTimeout, what, sc)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		wait("bash's prompt", func(sc string) bool { return strings.Contains(sc, "sh$") })
		p.run("paste-buffer", "-p", "-t", target)
		sc := wait("the end of the paste", func(sc string) bool {
			return strings.Contains(sc, end) || strings.Count(sc, "sh$") > 1 || pwned()
		})
		if pwned() {
			t.Errorf("%s: pasting the copy into bash ran `touch pwned`; the shell:\n%s", what, sc)
		} else if strings.Count(sc, "sh$") > 1 {
			t.Errorf("%s: pasting the copy into bash ran a command; the shell:\n%s", what, sc)
		}
		return sc
	}

	p.keys("Tab", "c")
	waitUntil(t, p, "the copy's notice", e2eTimeout, func(s string) bool {
		w := strings.Join(strings.Fields(s), " ")
		return strings.Contains(w, "copied the reply") || strings.Contains(w, "the reply is saved in")
	})
	buf := p.run("show-buffer")
	checkPasteBytes(t, "c", buf)
	if want := "echo harmlesstouch pwned # ⟨U+202E⟩txt.exe 201~, क्\u200dष 👨\u200d💻"; buf != want {
		t.Errorf("c: tmux's buffer holds %+q, want %+q", buf, want)
	}
	if sc := paste("c", "txt.exe 201~,"); !strings.Contains(sc, "sh$ echo harmlesstouch pwned # ⟨U+202E⟩txt.exe 201~,") {
		t.Errorf("c: bash's line is not the copy as the transcript shows it:\n%s", sc)
	}

	p.keys("Escape")
	waitFor(t, p, "composer · enter send", e2eTimeout) // else the next keys would be alt+…
	send(t, p, "and now")
	waitFor(t, p, "Nothing else.", e2eTimeout)
	waitIdle(t, p)
	p.keys("Tab", "y")
	waitUntil(t, p, "the copy's notice", e2eTimeout, func(s string) bool {
		w := strings.Join(strings.Fields(s), " ")
		return strings.Contains(w, "copied the request JSON") || strings.Contains(w, "the request JSON is saved in")
	})
	buf = p.run("show-buffer")
	checkPasteBytes(t, "y", buf)
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	if err := json.Unmarshal([]byte(buf), &req); err != nil {
		t.Fatalf("y: tmux's buffer is not JSON: %v\n%s", err, buf)
	}
	exact := false
	for _, m := range req.Messages {
		exact = exact || m.Role == "assistant" && m.Content == sneakyReply
	}
	if !exact || strings.Contains(buf, liveKey) {
		t.Errorf("y: tmux's buffer %s\nwant the request with the reply's exact value and no API key", buf)
	}
	paste("y", buf[max(len(buf)-16, 0):])

	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)
}
