package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// ReasonNotInFile is the Was reason of a decision whose reminder or instruction the
// recorded turn's context file did not have.
const ReasonNotInFile = "not_in_file"

// Replay walks the active branch of a saved chat, turn by turn, and calls fn with each
// turn's trace rebuilt from what was recorded: the request sent, the decisions, the reply
// and the usage. With reevaluate, the decisions are those of the engine's context file,
// evaluated offline on the same messages, clocks and usage, with counters and latches
// following what the new file would have fired; each decision that differs from the
// recorded one carries Was. Replay never writes to the chat.
func (e *Engine) Replay(ctx context.Context, chatID string, reevaluate bool, fn func(*Trace) error) error {
	c, err := e.store.Chat(ctx, chatID)
	if err != nil {
		return fmt.Errorf("replay chat %q: %w", chatID, err)
	}
	b, err := e.store.Branch(ctx, chatID, c.ActiveBranch)
	if err != nil {
		return fmt.Errorf("replay chat %q: %w", chatID, err)
	}
	path, turns, _, err := e.store.PathWithTurns(ctx, chatID, b.Head, nil)
	if err != nil {
		return fmt.Errorf("replay chat %q: %w", chatID, err)
	}
	// A session over the growing prefix of the branch gives the request form of the
	// history and, when re-evaluating, the counters of what the new file fires.
	s := &Session{e: e, chat: c, view: newBranchView(b.Name, nil, nil)}
	next := 0
	for _, light := range turns {
		uidx, aidx := -1, -1
		for i := next; i < len(path); i++ {
			switch path[i].ID {
			case light.UserMessageID:
				uidx = i
			case light.AssistantMessageID:
				aidx = i
			}
		}
		if uidx < 0 || aidx < 0 {
			continue // a turn without a reply on this branch
		}
		for ; next < uidx; next++ {
			s.view.append(&path[next])
		}
		t, err := e.store.Turn(ctx, chatID, light.ID)
		if err != nil {
			return fmt.Errorf("replay turn %d: %w", light.Number, err)
		}
		user, asst := &path[uidx], &path[aidx]
		tr, err := s.recordedTrace(&t, user, asst)
		if err != nil {
			return err
		}
		fired := t.Fired
		if reevaluate {
			fired = s.reevaluate(tr, &t, user)
		}
		for ; next <= aidx; next++ {
			s.view.append(&path[next])
		}
		s.view.addTurn(&chat.Turn{Number: t.Number, AssistantMessageID: asst.ID, Fired: fired})
		if err := fn(tr); err != nil {
			return err
		}
	}
	return nil
}

// recordedTrace rebuilds the trace of a recorded turn; the session's view holds the
// history before the user message.
func (s *Session) recordedTrace(t *chat.Turn, user, asst *chat.Message) (*Trace, error) {
	var ds []Decision
	if len(t.Decisions) > 0 {
		if err := json.Unmarshal(t.Decisions, &ds); err != nil {
			return nil, fmt.Errorf("turn %d: recorded decisions: %w", t.Number, err)
		}
	}
	return &Trace{
		ChatID: s.chat.ID, Turn: t.Number, Branch: t.Branch, At: FormatTime(t.At),
		UserMessageID: user.ID, AssistantMessageID: asst.ID,
		SystemPrompt: t.Request.SystemPrompt, Request: s.rebuild(t, user), Decisions: ds,
		Assistant: assistantTrace(asst, t.FinishReason),
		Usage:     s.e.usageWithCost(t),
		Latency:   LatencyTrace{TTFT: t.TTFT.Milliseconds(), Total: t.Latency.Milliseconds()},
		Error:     t.Error,
	}, nil
}

// reevaluate replaces the trace's decisions with those of the engine's file for the same
// turn, marks the changes, and returns what the new file fires (for the counters).
func (s *Session) reevaluate(tr *Trace, t *chat.Turn, saved *chat.Message) []chat.Fired {
	user := stripReminders(saved)
	wc := s.whenContext(&user)
	wc.Turn = t.Number
	wc.Branch = t.Branch
	wc.Now = t.At
	wc.Usage = t.Request.ChatUsage
	ev := turnEval{file: s.e.file, cache: s.e.cache, wc: wc, fires: s.view.fires}
	ds := ev.decide()
	was := make(map[string]Decision, len(tr.Decisions))
	for _, d := range tr.Decisions {
		was[d.Source+"\x00"+d.ID] = d
	}
	all := ds.all()
	for i := range all {
		d := &all[i]
		old, ok := was[d.Source+"\x00"+d.ID]
		switch {
		case !ok:
			d.Was = &Was{Fired: false, Reason: ReasonNotInFile}
		case old.Fired != d.Fired || old.Reason != d.Reason:
			d.Was = &Was{Fired: old.Fired, Reason: old.Reason}
		}
	}
	tr.Decisions = all
	return ds.fired()
}

// stripReminders returns the user message as the user wrote it: the baked reminder spans
// removed, and the parts they added dropped.
func stripReminders(m *chat.Message) chat.Message {
	out := *m
	out.Reminders = nil
	if len(m.Reminders) == 0 {
		return out
	}
	parts := append([]chat.Part(nil), m.Parts...)
	drop := map[int]bool{}
	// Remove spans from the end of each part first, so offsets stay valid.
	for i := len(m.Reminders) - 1; i >= 0; i-- {
		sp := m.Reminders[i]
		if sp.Part < 0 || sp.Part >= len(parts) {
			continue
		}
		if sp.Mode == chat.SpanPart {
			drop[sp.Part] = true
			continue
		}
		text := parts[sp.Part].Text
		if sp.Start >= 0 && sp.End <= len(text) && sp.Start <= sp.End {
			parts[sp.Part].Text = text[:sp.Start] + text[sp.End:]
		}
	}
	out.Parts = out.Parts[:0:0]
	for i, p := range parts {
		if !drop[i] {
			out.Parts = append(out.Parts, p)
		}
	}
	return out
}
