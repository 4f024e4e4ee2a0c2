package tui

import (
	"errors"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
)

// TestStreamCoalesces: deltas emitted faster than frames are merged (at most about 30
// batches a second), in order, and the last event is never dropped.
func TestStreamCoalesces(t *testing.T) {
	s := &stream{notify: make(chan struct{}, 1), cancel: func() {}}
	go func() {
		for range 300 {
			s.emit(engine.EventText{Step: 1, Text: "x"})
			time.Sleep(time.Millisecond)
		}
		s.emit(engine.EventFailed{Err: errors.New("the last event")})
		s.finish(nil)
	}()
	var text string
	batches := 0
	var last engine.Event
	start := time.Now()
	for {
		msg := s.wait()().(streamMsg)
		batches++
		for _, ev := range msg.events {
			if tx, ok := ev.(engine.EventText); ok {
				text += tx.Text
			}
			last = ev
		}
		if msg.done {
			break
		}
	}
	elapsed := time.Since(start)
	if len(text) != 300 {
		t.Errorf("got %d characters of text, want 300", len(text))
	}
	if f, ok := last.(engine.EventFailed); !ok || f.Err.Error() != "the last event" {
		t.Errorf("last event %#v, want the EventFailed", last)
	}
	if most := int(elapsed/frameEvery) + 2; batches > most {
		t.Errorf("%d batches in %v, want at most %d (one a frame)", batches, elapsed, most)
	}
}
