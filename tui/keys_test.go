package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/tui/keybind"
)

// namedKey is the key press Bubble Tea names s ("ctrl+s", "alt+enter", "f2", "x").
func namedKey(s string) tea.KeyMsg {
	alt := false
	if strings.HasPrefix(s, "alt+") && len(s) > 4 {
		alt, s = true, s[4:]
	}
	for i := -200; i < 200; i++ {
		if t := tea.KeyType(i); t != tea.KeyRunes && t.String() == s {
			return tea.KeyMsg{Type: t, Alt: alt}
		}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Alt: alt}
}

// pressNamed sends key presses named as Bubble Tea names them.
func pressNamed(m *Model, keys ...string) {
	for _, k := range keys {
		_, cmd := m.Update(namedKey(k))
		drive(m, cmd)
	}
}

// rebound is a workbench on a scripted chat of two turns with rebindings.
func rebound(t *testing.T, w, h int, bs ...keybind.Binding) *Model {
	t.Helper()
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), w, h, Options{Keys: bs})
	for i := 1; i <= 2; i++ {
		press(m, "type:"+fmt.Sprintf("q%d", i))
		pressNamed(m, m.keys.Send.Keys()[0])
		press(m, "type:"+fmt.Sprintf("a%d", i))
		pressNamed(m, m.keys.SaveReply.Keys()[0])
	}
	return m
}

// TestReboundKeysAct: through Update, a rebound key does the action and the key it
// replaced no longer does.
func TestReboundKeysAct(t *testing.T) {
	bs := []keybind.Binding{
		{Action: "send", Keys: []string{"ctrl+s"}},
		{Action: "save_reply", Keys: []string{"ctrl+t"}},
		{Action: "no_reply", Keys: []string{"ctrl+u"}},
		{Action: "edit", Keys: []string{"E"}},
		{Action: "regenerate", Keys: []string{"r", "ctrl+g"}},
		{Action: "help", Keys: []string{"f2"}},
		{Action: "toggle_reminders", Keys: []string{"S"}},
		{Action: "next_area", Keys: []string{"ctrl+n"}},
		{Action: "inspector_down", Keys: []string{"J"}},
	}
	tests := []struct {
		name  string
		keys  []string
		check func(*Model) string
	}{
		{"enter no longer sends", []string{"q", "enter"}, func(m *Model) string {
			if m.comp.mode != composeMessage || m.tr.Len() != 2 {
				return fmt.Sprintf("enter sent (mode %v, %d turns)", m.comp.mode, m.tr.Len())
			}
			return ""
		}},
		{"ctrl+s sends", []string{"q", "ctrl+s"}, func(m *Model) string {
			if m.comp.mode != composeReply {
				return "ctrl+s did not send: no scripted-reply step"
			}
			return ""
		}},
		{"esc no longer leaves the message unanswered", []string{"q", "ctrl+s", "esc"}, func(m *Model) string {
			if m.comp.mode != composeReply {
				return "esc ended the scripted step"
			}
			return ""
		}},
		{"the rebound no_reply does", []string{"q", "ctrl+s", "ctrl+u"}, func(m *Model) string {
			if m.comp.mode != composeMessage || m.tr.Len() != 3 {
				return fmt.Sprintf("ctrl+u: mode %v, %d turns, want the message saved unanswered", m.comp.mode, m.tr.Len())
			}
			return ""
		}},
		{"enter no longer saves the reply", []string{"q", "ctrl+s", "a", "enter"}, func(m *Model) string {
			if m.comp.mode != composeReply {
				return "enter saved the reply"
			}
			return ""
		}},
		{"tab no longer moves focus", []string{"tab"}, func(m *Model) string {
			if m.focus != areaComposer {
				return "tab moved the focus"
			}
			return ""
		}},
		{"ctrl+n moves focus", []string{"ctrl+n"}, func(m *Model) string {
			if m.focus != areaTranscript {
				return "ctrl+n did not move the focus"
			}
			return ""
		}},
		{"e no longer edits", []string{"ctrl+n", "e"}, func(m *Model) string {
			if m.br.op != opNone {
				return "e started an edit"
			}
			return ""
		}},
		{"E edits", []string{"ctrl+n", "E"}, func(m *Model) string {
			if m.br.op != opEdit {
				return "E did not start an edit"
			}
			return ""
		}},
		{"a regenerated reply is saved with save_reply, not enter", []string{"ctrl+n", "ctrl+g", "x", "enter"}, func(m *Model) string {
			if m.br.op == opNone || m.comp.mode != composeReply {
				return fmt.Sprintf("enter ended the regenerate (op %v, mode %v)", m.br.op, m.comp.mode)
			}
			pressNamed(m, "ctrl+t")
			if m.br.op != opNone || m.branch == "main" {
				return fmt.Sprintf("ctrl+t did not save the regenerated reply (op %v, branch %s)", m.br.op, m.branch)
			}
			return ""
		}},
		{"f1 no longer helps", []string{"f1"}, func(m *Model) string {
			if m.help {
				return "f1 opened the help"
			}
			return ""
		}},
		{"f2 helps", []string{"f2"}, func(m *Model) string {
			if !m.help {
				return "f2 did not open the help"
			}
			return ""
		}},
		{"S toggles the reminders, s no longer", []string{"ctrl+n", "s"}, func(m *Model) string {
			if !m.tr.showSpans {
				return "s toggled the reminders"
			}
			pressNamed(m, "S")
			if m.tr.showSpans {
				return "S did not toggle the reminders"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := rebound(t, 120, 40, bs...)
			pressNamed(m, tt.keys...)
			if msg := tt.check(m); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestReboundKeysShown: the help, the status line and the composer's placeholder show
// the keys in force.
func TestReboundKeysShown(t *testing.T) {
	m := rebound(t, 120, 40, keybind.Binding{Action: "send", Keys: []string{"ctrl+s"}},
		keybind.Binding{Action: "regenerate", Keys: []string{"r", "ctrl+g"}},
		keybind.Binding{Action: "new_line", Keys: []string{"ctrl+j"}})
	f := m.View()
	for _, want := range []string{"ctrl+s send", "ctrl+j new line", "message (ctrl+s sends, ctrl+j new line, ctrl+x $EDITOR)"} {
		if !strings.Contains(f, want) {
			t.Errorf("the composer's frame lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "also ctrl+j") {
		t.Errorf("the frame names the replaced default key:\n%s", f)
	}
	pressNamed(m, "tab")
	if l := m.statusLines(400)[0]; !strings.Contains(l, "r/ctrl+g regenerate the reply") {
		t.Errorf("the transcript's status line lacks the rebound regenerate:\n%s", l)
	}
}

// TestReboundHelpGolden: the help overlay with rebindings.
func TestReboundHelpGolden(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 120, 40, Options{Keys: []keybind.Binding{
		{Action: "send", Keys: []string{"ctrl+s"}},
		{Action: "regenerate", Keys: []string{"r", "ctrl+g"}},
		{Action: "present_next", Keys: []string{"space", "l"}},
		{Action: "inspector_up", Keys: []string{"K"}},
		{Action: "chats_new", Keys: []string{"ctrl+t"}},
	}})
	pressNamed(m, "f1")
	goldenFrame(t, "help_rebound_120x40", m.View())
}

// TestRefusedKeys: rebindings Check refuses (only a program embedding the workbench can
// pass them) leave the defaults in force and say why.
func TestRefusedKeys(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 120, 40, Options{Keys: []keybind.Binding{{Action: "send", Keys: []string{"ctrl+o"}}}})
	if got := m.keys.Send.Keys(); len(got) != 1 || got[0] != "enter" {
		t.Errorf("send is on %q, want the default enter", got)
	}
	frameHas(t, m, "error: keys: send: ctrl+o collides with chats in the composer (the default keys are in force)")
}
