package engine

import (
	"testing"
	"time"
)

// TestReplayRecordedLight checks that ReplayRecorded gives Replay's traces without their
// decisions, and that DecodeDecisions on each turn's record gives them back.
func TestReplayRecordedLight(t *testing.T) {
	h := newHarness(t, replaySrc)
	h.send("hello", at(1))
	h.send("count them", at(2))
	if _, err := h.s.Regenerate(h.ctx, &Scripted{Text: "again"}, at(2).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	full := h.replayed(h.eng, false)
	var light []Trace
	if err := h.eng.ReplayRecorded(h.ctx, "chat-1", func(tr *Trace) error {
		light = append(light, *tr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(light) != len(full) || len(full) != 2 {
		t.Fatalf("got %d light traces and %d traces, want 2 of each", len(light), len(full))
	}
	turns := h.s.Turns()
	for i, tr := range light {
		if tr.Decisions != nil {
			t.Errorf("turn %d: got %d decisions, want none read", tr.Turn, len(tr.Decisions))
		}
		rec, err := h.eng.store.Turn(h.ctx, "chat-1", turns[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Decisions, err = DecodeDecisions(&rec); err != nil {
			t.Fatal(err)
		}
		if len(tr.Decisions) == 0 {
			t.Errorf("turn %d: decoded no decisions", tr.Turn)
		}
		if a, b := traceJSON(t, tr), traceJSON(t, *full[i]); a != b {
			t.Errorf("turn %d: light trace with its decisions\n%s\nwant\n%s", tr.Turn, a, b)
		}
	}
}
