package main

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// burstText is a burst of words that spell the workbench's keys.
const burstText = "press enter now, use tab here, the word down, then esc, q, ? and ctrl+c spelled out"

// TestWorkbenchTmuxBursts types bursts of words into the real binary in tmux, as a paste
// without bracketed paste, dictation or a slow link deliver them (send-keys -l writes
// each in one go): in the composer the burst is text, inserted whole, and only the enter
// key sends it; in the transcript a burst fires nothing, not even its one-letter words;
// real keys still act.
func TestWorkbenchTmuxBursts(t *testing.T) {
	s := setupE2E(t)
	p := startPane(t, s.tmux, s.bin, 160, 45, s.env, s.args()...)
	waitFor(t, p, "ctxlab · new chat", e2eTimeout)

	p.typeText(burstText)
	screen := waitFor(t, p, "spelled out", e2eTimeout)
	if !strings.Contains(screen, "press enter now, use tab here") || !strings.Contains(screen, "no turns yet") {
		t.Fatalf("the burst did not land whole in the composer, or sent something:\n%s", screen)
	}
	if !strings.Contains(screen, " composer · ") {
		t.Errorf("the burst moved the focus out of the composer:\n%s", screen)
	}
	p.keys("Enter") // the real key sends
	waitFor(t, p, "Burst received whole.", e2eTimeout)
	waitIdle(t, p)

	// A long burst, over many reads of the terminal, with characters of several bytes
	// that a read may cut: saved exactly as typed.
	p.typeText(longBurst)
	p.keys("Enter")
	waitFor(t, p, "Long burst received whole.", e2eTimeout)
	waitIdle(t, p)

	p.keys("Tab") // a real key moves the focus
	waitFor(t, p, " transcript · ", e2eTimeout)
	p.typeText("q ? e x w r enter tab down ctrl+c")
	screen = waitFor(t, p, "text is not a key", e2eTimeout)
	for _, acted := range []string{"ctxlab exited", "editing turn", "checkpoint", "regenerat", "rewind", " composer · ", "help"} {
		if strings.Contains(screen, acted) {
			t.Errorf("a word of the burst acted (%q on screen):\n%s", acted, screen)
		}
	}
	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)

	e := savedChatOnly(t, s.db)
	if len(e.Turns) != 2 || len(e.Messages) != 4 {
		t.Fatalf("saved %d turns and %d messages; want the two bursts and their replies", len(e.Turns), len(e.Messages))
	}
	var users []string
	for _, m := range e.Messages {
		if m.Role == chat.RoleUser {
			users = append(users, m.PlainText())
		}
	}
	if !slices.Contains(users, burstText) || !slices.Contains(users, longBurst) {
		t.Errorf("the messages saved are %q, want %q and %q", users, burstText, longBurst)
	}
}

// longBurst is a burst of about 1,400 bytes: emoji of several code points (a ZWJ
// sequence, a skin tone), CJK and accents, which reads of the terminal cut anywhere.
var longBurst = "a long burst " + strings.Repeat("👨‍💻 👍🏽 漢字 é ", 40) + "end"

// TestWorkbenchTmuxSignalsEndIt: SIGTERM, SIGHUP (a closed terminal) and SIGINT end the
// workbench, every time. Bubble Tea's own signal handler raced the command's context for
// them: when the context won, the handler blocked for ever and the process never ended.
func TestWorkbenchTmuxSignalsEndIt(t *testing.T) {
	tmux := needTmux(t)
	bin := buildCtxlab(t)
	isolateCtxlabEnv(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGTERM} {
		p := startPane(t, tmux, bin, 100, 30, []string{"NO_COLOR=1"}, "--db", filepath.Join(t.TempDir(), "w.db"))
		waitFor(t, p, "SCRIPTED", e2eTimeout)
		time.Sleep(time.Second) // idle, as a workbench left open is
		p.signal(sig)
		waitFor(t, p, "ctxlab exited:", 5*time.Second)
	}
}
