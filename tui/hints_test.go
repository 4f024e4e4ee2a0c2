package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestBurstInOverlays: a burst is text in the inputs of the chats overlay and the
// branching actions, and a word of it never answers a question (delete? y/n).
func TestBurstInOverlays(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	c := v.chat(t, "demo-1", nil)
	m := newModel(t, v, c, 120, 40, Options{Library: v.library(t.TempDir())})
	press(m, "tab", "end", "x") // a checkpoint at the last turn: the composer asks its name
	if m.br.op != opCheckpoint {
		t.Fatalf("x did not ask for a checkpoint name (op %d)", m.br.op)
	}
	if f := m.View(); !strings.Contains(f, "the checkpoint's name (enter saves, esc cancels)") || strings.Contains(f, "message (enter sends") {
		t.Errorf("the checkpoint's name is asked with the message's placeholder:\n%s", f)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("before enter"), Paste: true})
	if m.comp.Value() != "before enter" || m.br.op != opCheckpoint {
		t.Errorf("the burst in the checkpoint's name: %q, op %d", m.comp.Value(), m.br.op)
	}
	press(m, "esc")
	if f := m.View(); strings.Contains(f, "checkpoint's name") || !strings.Contains(f, "message (enter sends") {
		t.Errorf("after esc the composer keeps the action's placeholder:\n%s", f)
	}

	press(m, "ctrl+o")
	if !m.chats.open {
		t.Fatal("ctrl+o did not open the chats")
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("enter esc"), Paste: true})
	if !m.chats.open || m.chats.filter != "enter esc" {
		t.Errorf("a burst in the chats' filter: open %v, filter %q", m.chats.open, m.chats.filter)
	}
	m.chats.filter = ""
	m.chats.refilter()
	press(m, "ctrl+d") // delete? y/n
	if m.chats.mode != chatsConfirm {
		t.Fatalf("ctrl+d did not ask (mode %d)", m.chats.mode)
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("yes"), Paste: true})
	if cmd != nil || m.chats.mode != chatsConfirm {
		t.Errorf("the word yes of a burst answered delete? (mode %d, cmd %v)", m.chats.mode, cmd != nil)
	}
}

// TestPresentEmptySays: presentation mode has no composer: before the first turn plays,
// the transcript says how to play it, not to type a message.
func TestPresentEmptySays(t *testing.T) {
	m := presentModel(t)
	f := m.View()
	if strings.Contains(f, "type a message") || !strings.Contains(f, "space plays the first turn") {
		t.Errorf("presentation mode's empty transcript:\n%s", f)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("enter now"), Paste: true})
	if m.comp.Value() != "" || m.tr.Len() != 0 {
		t.Errorf("a burst in presentation mode reached the hidden composer (%q) or played a turn (%d)", m.comp.Value(), m.tr.Len())
	}
}

// TestHeaderKeepsWhatItMustShow: at every width from 80 columns the header shows the
// branch and its count, the model's name and the context file; the title, the word
// ctxlab and the model's host give way first.
func TestHeaderKeepsWhatItMustShow(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	for _, w := range []int{80, 90, 100, 120, 160} {
		m := newModel(t, v, v.chat(t, "demo-1", &streamModel{}), w, 30, Options{ContextName: "support-bot.ctx.yaml"})
		head := strings.SplitN(m.View(), "\n", 2)[0]
		for _, want := range []string{"branch main (1 branch)", "test-model", "support-bot.ctx.yaml"} {
			if !strings.Contains(head, want) {
				t.Errorf("%d columns: the header lacks %q: %q", w, want, head)
			}
		}
		if w >= 160 && !strings.Contains(head, "test-model @ 127.0.0.1") {
			t.Errorf("%d columns: the header drops the model's host with room to spare: %q", w, head)
		}
	}
}
