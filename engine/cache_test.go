package engine

import (
	"testing"
)

// TestSwitchBackSeesOtherWriters checks that a branch kept in memory from an earlier visit
// is not trusted when another writer moved its head meanwhile.
func TestSwitchBackSeesOtherWriters(t *testing.T) {
	h := newHarness(t, "reminders:\n  - {id: every, text: Every., max_per_chat: 3}\n")
	h.sendN(2)
	if err := h.s.Rewind(h.ctx, 1); err != nil { // main-v2, active
		t.Fatal(err)
	}
	if err := h.s.Switch(h.ctx, "main"); err != nil { // main is now kept in memory
		t.Fatal(err)
	}
	if err := h.s.Switch(h.ctx, "main-v2"); err != nil {
		t.Fatal(err)
	}

	// Another session (another process) adds a turn to main.
	other, err := h.eng.Open(h.ctx, "chat-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Switch(h.ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Send(h.ctx, UserInput{Text: "from elsewhere", At: t0.Add(10 * 60e9)}, &Scripted{Text: "ok"}); err != nil {
		t.Fatal(err)
	}

	if err := h.s.Switch(h.ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if got := h.s.TurnCount(); got != 3 {
		t.Fatalf("after switching back to main: got %d turns, want 3 (the other writer's turn)", got)
	}
	if got := h.s.Messages()[len(h.s.Messages())-2].PlainText(); got != "from elsewhere<system-reminder>Every.</system-reminder>" {
		t.Errorf("got last user message %q", got)
	}
	// The cap counts the other writer's turn: every fired on turns 1, 2 and 3.
	if got := summary(decision(t, h.preview("next").Decisions, "every")); got != "every:cap_reached (emitted 3 of 3)" {
		t.Errorf("got %s, want the cap reached after the other writer's turn", got)
	}
}
