package engine

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestSendUnanswered checks that a user message saved without a reply is a turn with no
// assistant message: saved with its record (and, for a new chat, the chat), replayed as
// it was planned, counting no reminder, and followed by the next turn as a failed turn is.
func TestSendUnanswered(t *testing.T) {
	for _, stored := range []bool{false, true} {
		name := "new chat"
		if stored {
			name = "saved chat"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, "reminders:\n  - {id: every, text: Every., max_per_chat: 2}\n")
			if !stored {
				h.s = h.eng.Start(chat.Chat{ID: "chat-new"})
			}
			res, err := h.s.SendUnanswered(h.ctx, UserInput{Text: "anyone?", At: at(1)})
			if err != nil {
				t.Fatalf("SendUnanswered: %v", err)
			}
			if !h.s.Saved() || h.s.TurnCount() != 1 || len(h.s.Messages()) != 1 || h.s.Head() != res.Plan.User.ID {
				t.Fatalf("got saved %v, %d turns, %d messages, want the chat saved with the user message alone",
					h.s.Saved(), h.s.TurnCount(), len(h.s.Messages()))
			}
			if res.Assistant.ID != "" || res.Turn.AssistantMessageID != "" || res.Turn.Error != Unanswered {
				t.Errorf("got assistant %q, turn assistant %q, error %q, want none and %q", res.Assistant.ID,
					res.Turn.AssistantMessageID, res.Turn.Error, Unanswered)
			}
			usage := h.s.Usage()
			if usage.PromptTokens != res.Plan.Estimate.Total || usage.CompletionTokens != 0 {
				t.Errorf("got usage %+v, want the estimated prompt %d and no completion", usage, res.Plan.Estimate.Total)
			}

			// Replayed as a turn with no reply, as its result traces it.
			id := h.s.Chat().ID
			var traces []*Trace
			if err := h.eng.Replay(h.ctx, id, false, func(tr *Trace) error { traces = append(traces, tr); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(traces) != 1 {
				t.Fatalf("replayed %d turns, want 1", len(traces))
			}
			if got, want := traceJSON(t, *traces[0]), traceJSON(t, res.Trace(id)); got != want {
				t.Errorf("replayed\n%s\nwant the trace of the result\n%s", got, want)
			}
			if traces[0].Assistant != nil || traces[0].Error != Unanswered {
				t.Errorf("got replayed assistant %+v error %q, want none and %q", traces[0].Assistant, traces[0].Error, Unanswered)
			}

			// The unanswered turn counts no reminder: the cap of 2 lets the next two fire.
			reopened, err := h.eng.Open(h.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if reopened.Usage() != usage || reopened.TurnCount() != 1 {
				t.Errorf("reopened: got usage %+v and %d turns, want %+v and 1", reopened.Usage(), reopened.TurnCount(), usage)
			}
			for _, s := range []*Session{h.s, reopened} {
				p := s.Preview(UserInput{Text: "hello?", At: at(2)})
				if got := summary(decision(t, p.Decisions, "every")); p.Turn != 2 || got != "every:fired" {
					t.Errorf("turn %d: got %s, want turn 2 fired", p.Turn, got)
				}
			}
			h.s = reopened
			h.send("hello?", at(2))
			if got := summary(decision(t, h.send("still there?", at(3)).Plan.Decisions, "every")); got != "every:fired" {
				t.Errorf("turn 3: got %s, want fired (the second answered turn)", got)
			}
			if got := summary(decision(t, h.preview("more").Decisions, "every")); got != "every:cap_reached (emitted 2 of 2)" {
				t.Errorf("after two answered turns: got %s, want the cap reached", got)
			}
		})
	}
}
