package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestReloadProgress: while a reload re-evaluates the chat, the status line counts the
// turns done, and the screen is usable: the composer takes text, the focus moves, the
// inspector's tabs change. The ticks stop with the reload.
func TestReloadProgress(t *testing.T) {
	copyDemo(t)
	v := newEnvAt(t, "support.ctx.yaml")
	v.playAt(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{})
	replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
	_, cmd := m.Update(ctrlR)
	batch, ok := cmd().(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("ctrl+r gave %T, want the reload and its progress tick", cmd())
	}
	// The reload runs off the UI loop; the UI goes on meanwhile.
	done := make(chan tea.Msg, 1)
	go func() { done <- batch[0]() }()
	press(m, "type:typed meanwhile", "alt+3")
	if m.comp.Value() != "typed meanwhile" || m.insp.Tab() != tabRequest {
		t.Errorf("during the reload: composer %q, tab %v; want the text typed and the Request tab", m.comp.Value(), m.insp.Tab())
	}
	if f := m.View(); !strings.Contains(f, "reloading support.ctx.yaml…") {
		t.Errorf("the status line does not say a reload runs:\n%s", f)
	}
	result := <-done // the re-evaluation has counted every turn
	n := m.chat.Session().TurnCount()
	_, next := m.Update(reloadTickMsg{seq: m.rl.seq})
	if next == nil {
		t.Error("a progress tick during the reload asks for no next tick")
	}
	want := "reloading support.ctx.yaml… re-evaluating turn 4 of 4"
	if n != 4 {
		t.Fatalf("the demo chat has %d turns, want 4", n)
	}
	if f := m.View(); !strings.Contains(f, want) {
		t.Errorf("the status line lacks %q:\n%s", want, f)
	}
	_, after := m.Update(result)
	drive(m, after)
	if m.rl.running || m.rl.reeval == nil || strings.Contains(m.View(), "re-evaluating") {
		t.Errorf("after the reload: running %v, re-evaluation shown %v", m.rl.running, m.rl.reeval != nil)
	}
	if _, next := m.Update(reloadTickMsg{seq: m.rl.seq}); next != nil {
		t.Error("a progress tick after the reload asks for another")
	}
	if m.comp.Value() != "typed meanwhile" {
		t.Errorf("the draft changed: %q", m.comp.Value())
	}
}
