package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// quits reports whether cmd, run, asks the program to quit (through batches too).
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if quits(c) {
				return true
			}
		}
	}
	return false
}

// burstWords are words of a burst that spell keys the workbench binds.
var burstWords = []string{"enter", "tab", "down", "up", "esc", "q", "ctrl+c", "ctrl+o", "shift+tab", "alt+1", "alt+i", "home", "pgdown", "f1", "?", "1", "j", "e", "x"}

// burstEvents are the ways a burst reaches the workbench: bracketed as a paste (by the
// terminal, or by tui/burst), and, read without either, as Bubble Tea v1 splits it at
// its spaces: one event a word, named by its characters.
func burstEvents(text string) map[string][]tea.KeyMsg {
	var words []tea.KeyMsg
	for i, w := range strings.Split(text, " ") {
		if i > 0 {
			words = append(words, tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		}
		words = append(words, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(w)})
	}
	return map[string][]tea.KeyMsg{
		"paste": {{Type: tea.KeyRunes, Runes: []rune(text), Paste: true}},
		"words": words,
	}
}

// TestBurstIsText types bursts of words that spell keys into each area: in the composer
// they are text, inserted whole; elsewhere they fire nothing (spec/tui.md, Keys).
func TestBurstIsText(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	for _, word := range burstWords {
		text := "press " + word + " now"
		for how, events := range burstEvents(text) {
			if how == "words" && len([]rune(word)) == 1 {
				continue // one character read alone is a key: tui/burst brackets it with its burst
			}
			for _, focus := range []area{areaComposer, areaTranscript, areaInspector} {
				c := v.chat(t, "demo-1", nil)
				m := newModel(t, v, c, 120, 40, Options{})
				m.setFocus(focus)
				turns, sel, tab := m.tr.Len(), m.tr.Current(), m.insp.Tab()
				quit := false
				for _, k := range events {
					_, cmd := m.Update(k)
					quit = quit || quits(cmd)
					drive(m, cmd)
				}
				name := how + " " + strings.ReplaceAll(text, " ", "_") + " in " + [...]string{"composer", "transcript", "inspector"}[focus]
				switch {
				case quit:
					t.Errorf("%s: the program quits", name)
				case m.focus != focus || m.insp.Tab() != tab || m.help || m.chats.open:
					t.Errorf("%s: focus %d tab %d help %v chats %v; want nothing changed", name, m.focus, m.insp.Tab(), m.help, m.chats.open)
				case m.tr.Len() != turns || m.comp.mode != composeMessage || m.br.op != opNone:
					t.Errorf("%s: %d turns (want %d), composer mode %d, op %d: something was sent or started", name, m.tr.Len(), turns, m.comp.mode, m.br.op)
				case focus == areaComposer && m.comp.Value() != text:
					t.Errorf("%s: the composer holds %q, want %q", name, m.comp.Value(), text)
				case focus != areaComposer && (m.comp.Value() != "" || m.tr.Current() != sel):
					t.Errorf("%s: composer %q, selection %d (want %d): the burst acted", name, m.comp.Value(), m.tr.Current(), sel)
				case focus != areaComposer && !strings.Contains(m.notice, "not a key"):
					t.Errorf("%s: the status line does not say why nothing happened: %q", name, m.notice)
				}
			}
		}
	}
}
