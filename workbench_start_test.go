package main

import (
	"runtime/debug"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// viewModel is a model whose frame is what its field says.
type viewModel struct{ frame string }

func (v *viewModel) Init() tea.Cmd                       { return nil }
func (v *viewModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return v, nil }
func (v *viewModel) View() string                        { return v.frame }

// TestFirstFrameTurnsCollectorBackOn checks that the collector is off while the workbench
// opens and back on, as it was, once the first frame is drawn, and that GOGC, when set,
// is left alone.
func TestFirstFrameTurnsCollectorBackOn(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	t.Setenv("GOGC", "")
	collect := pauseCollector()
	inner := &viewModel{}
	var m tea.Model = &firstFrame{Model: inner, drawn: collect}
	m, _ = m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if _, ok := m.(*firstFrame); !ok {
		t.Fatalf("Update returned %T, want the wrapper kept", m)
	}
	m.View() // no size yet: an empty frame
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("before the first frame the collector is at %d%%, want off", got)
	}
	inner.frame = "ctxlab"
	if m.View() != "ctxlab" {
		t.Fatal("the wrapper changed the frame")
	}
	if got := debug.SetGCPercent(50); got != 100 {
		t.Errorf("after the first frame the collector is at %d%%, want 100%% as before", got)
	}
	collect() // again: nothing
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("a second call set the collector to %d%%, want it left alone", got)
	}

	t.Setenv("GOGC", "100")
	pauseCollector()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, the collector is at %d%%, want it left alone", got)
	}
}
