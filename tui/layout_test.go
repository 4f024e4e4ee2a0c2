package tui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// checkScreen checks that a frame is exactly w x h.
func checkScreen(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Fatalf("%dx%d: frame has %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("%dx%d: line %d is %d columns wide: %q", w, h, i, got, l)
		}
	}
}

// TestEverySize resizes the workbench from 1x1 to 200x60, in every state: each frame is
// exactly the terminal's size, and nothing panics.
func TestEverySize(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{Badge: "DEMO"})
	states := []func(){
		func() {},
		func() { press(m, "type:a draft that is long enough to wrap at the narrowest sizes of all") },
		func() { press(m, "tab", "up", "enter") },
		func() { press(m, "alt+i") },
		func() { press(m, "f1") },
	}
	for _, st := range states {
		st()
		for w := 1; w <= 200; w += 9 {
			for h := 1; h <= 60; h += 7 {
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				checkScreen(t, m.View(), w, h)
			}
		}
		for _, sz := range [][2]int{{59, 16}, {60, 15}, {60, 16}, {99, 30}, {100, 30}, {119, 30}, {120, 30}, {200, 60}} {
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			checkScreen(t, m.View(), sz[0], sz[1])
		}
	}
}

// TestTooSmall: below 60x16 the screen says so.
func TestTooSmall(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 59, 20, Options{})
	for _, sz := range [][2]int{{59, 20}, {80, 15}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		if !strings.Contains(m.View(), "terminal too small") {
			t.Errorf("%dx%d: no 'terminal too small'", sz[0], sz[1])
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 16})
	if strings.Contains(m.View(), "terminal too small") {
		t.Error("60x16 is big enough")
	}
}

// TestInspectorWidth: about 40% at 120 columns and more, a bit less from 100, hidden
// below (alt+i shows it instead of the transcript).
func TestInspectorWidth(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 120, 30, Options{})
	tests := []struct {
		w, want int
		alt     bool
	}{{200, 80, false}, {120, 48, false}, {110, 38, false}, {100, 35, false}, {99, 0, false}, {80, 80, true}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.w), func(t *testing.T) {
			m.showInspector = tt.alt
			m.Update(tea.WindowSizeMsg{Width: tt.w, Height: 30})
			m.View()
			if m.inW != tt.want {
				t.Errorf("inspector is %d columns at %d, want %d", m.inW, tt.w, tt.want)
			}
			if tt.alt && m.trW != 0 {
				t.Errorf("alt+i at %d columns: the transcript is still shown", tt.w)
			}
		})
	}
}

// TestNarrowKeepsTheInspector: narrowed below 100 columns while the inspector has the
// focus, the workbench shows the inspector (as alt+i would) instead of a hidden pane.
func TestNarrowKeepsTheInspector(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 120, 30, Options{})
	m.setFocus(areaInspector)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.View()
	if m.focus != areaInspector || m.inW != 80 || m.trW != 0 {
		t.Errorf("at 80 columns: focus %v, inspector %d and transcript %d columns, want the inspector full width", m.focus, m.inW, m.trW)
	}
	press(m, "alt+i")
	m.View()
	if m.focus == areaInspector || m.trW != 80 {
		t.Errorf("after alt+i: focus %v, transcript %d columns, want the transcript focused full width", m.focus, m.trW)
	}
}

// TestIdleIsIdle: with nothing streaming, a spinner tick schedules nothing: no timer
// runs while the workbench waits for the user.
func TestIdleIsIdle(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 120, 40, Options{})
	if cmd := m.Init(); cmd == nil {
		t.Fatal("Init loads the chat in a Cmd")
	}
	_, cmd := m.Update(m.spin.Tick())
	if cmd != nil {
		t.Error("a spinner tick while idle scheduled another")
	}
	press(m, "type:hello")
	_, cmd = m.Update(m.spin.Tick())
	if cmd != nil {
		t.Error("a spinner tick while typing scheduled another")
	}
}

// TestMouse: the wheel scrolls the pane under the pointer; a click selects a turn.
func TestMouse(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{})
	m.View()
	top, off := m.tr.top, m.tr.off
	m.Update(tea.MouseMsg{X: 10, Y: 5, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	m.View()
	if m.tr.top == top && m.tr.off == off {
		t.Error("the wheel over the transcript did not scroll it")
	}
	m.Update(tea.MouseMsg{X: 10, Y: 2, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	want := m.tr.rows[1]
	if !m.tr.Explicit() || m.tr.Current() != want || m.focus != areaTranscript {
		t.Errorf("a click on row 2 selected turn %d (explicit %v), want %d", m.tr.Current(), m.tr.Explicit(), want)
	}
}

// TestRandomKeys presses random keys at random sizes in a scripted chat: no panic, and
// every frame is exactly the terminal's size.
func TestRandomKeys(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{})
	keys := []string{"enter", "esc", "tab", "shift+tab", "alt+i", "f1", "?", "up", "down", "home", "end",
		"pgup", "pgdown", "s", "j", "k", "g", "G", "1", "2", "3", "4", "5", "alt+1", "alt+4", "alt+enter",
		"backspace", "type:hello", "type:why did it fail?", "space", "d"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 600 {
		if i%25 == 0 {
			w, h := 1+rng.IntN(200), 1+rng.IntN(60)
			m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		}
		press(m, keys[rng.IntN(len(keys))])
		checkScreen(t, m.View(), m.width, m.hgt)
	}
	t.Logf("%d turns after the random keys", m.tr.Len())
}
