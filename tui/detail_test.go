package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// TestTracesReadAfterFirstFrame: with Options.FirstFrame, Init's read of the traces waits
// until the first frame is drawn; the first frame already shows the chat's turns.
func TestTracesReadAfterFirstFrame(t *testing.T) {
	v := newEnv(t)
	c := v.chat(t, "", nil)
	for i := range 3 {
		if _, err := c.SendScripted(context.Background(), fmt.Sprintf("question %d", i), "an answer", nil); err != nil {
			t.Fatal(err)
		}
	}
	drawn := make(chan struct{})
	m := New(Options{Chat: c, FirstFrame: drawn, Now: v.clock.Now, Location: time.UTC, ContextName: "support.ctx.yaml"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	init := m.Init()
	if init == nil {
		t.Fatal("Init gave no command")
	}
	// Init's commands run as Bubble Tea runs them, each on a goroutine of its own.
	loaded := make(chan loadedMsg, 1)
	var run func(cmd tea.Cmd)
	run = func(cmd tea.Cmd) {
		switch msg := cmd().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				if c != nil {
					go run(c)
				}
			}
		case loadedMsg:
			loaded <- msg
		}
	}
	go run(init)
	select {
	case <-loaded:
		t.Fatal("the traces were read before the first frame")
	case <-time.After(50 * time.Millisecond): // well under firstFrameWait
	}
	frameHas(t, m, "turn 3", "question 2")
	close(drawn)
	select {
	case msg := <-loaded:
		if !msg.withTraces || len(msg.traces) != 3 {
			t.Errorf("the load read %d traces (with traces: %v), want 3", len(msg.traces), msg.withTraces)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the traces were never read after the first frame")
	}
}
