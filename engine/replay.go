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

// Replay walks the active branch of a saved chat, turn by turn (a user message and its
// reply), and calls fn with each turn's trace rebuilt from what was recorded: the request
// sent, the decisions, the reply and the usage. A turn the chat holds no record of (a chat
// imported from OpenAI messages) gets a trace rebuilt from its messages, marked
// NotRecorded.
//
// With reevaluate, each turn is planned again under the engine's context file, offline, on
// the same messages, clocks and usage: the decisions, the system prompt and the request
// are those the new file would have produced, with earlier turns' reminders as it would
// have injected them and counters and latches following what it fires. Each decision that
// differs from the recorded one carries Was, and recorded decisions the new file no
// longer has are listed in Removed. The reply, reported usage, cost and latency stay as
// recorded. Replay never writes to the chat.
func (e *Engine) Replay(ctx context.Context, chatID string, reevaluate bool, fn func(*Trace) error) error {
	return e.replay(ctx, chatID, reevaluate, true, fn)
}

// replay is Replay; without decisions, a replay as recorded reads no decisions and leaves
// each trace's Decisions nil (ReplayRecorded).
func (e *Engine) replay(ctx context.Context, chatID string, reevaluate, decisions bool, fn func(*Trace) error) error {
	c, err := e.store.Chat(ctx, chatID)
	if err != nil {
		return fmt.Errorf("replay chat %q: %w", chatID, err)
	}
	b, err := e.store.Branch(ctx, chatID, c.ActiveBranch)
	if err != nil {
		return fmt.Errorf("replay chat %q: %w", chatID, err)
	}
	path, err := e.store.Path(ctx, chatID, b.Head)
	if err != nil {
		return fmt.Errorf("replay chat %q: %w", chatID, err)
	}
	return e.replayPath(ctx, c, b.Name, path, reevaluate, decisions, fn)
}

// ReplayPath is Replay over a path the caller has already read: the messages of branch
// of chat c from the root to its head (a session's Messages). Only the turn records are
// read.
//
// When re-evaluating, the recorded decisions of the turns, which only the comparison needs
// and whose decoding does not depend on the new file, are decoded on another goroutine
// ahead of the turn being planned: the planning itself stays in order, since each turn's
// counters and latches follow what the new file fired on the turns before it.
func (e *Engine) ReplayPath(ctx context.Context, c chat.Chat, branch string, path []chat.Message, reevaluate bool, fn func(*Trace) error) error {
	return e.replayPath(ctx, c, branch, path, reevaluate, true, fn)
}

// replayPath is ReplayPath; without decisions (and not re-evaluating), a store that can
// leaves the decisions out of the turn records, and each trace's Decisions is nil.
func (e *Engine) replayPath(ctx context.Context, c chat.Chat, branch string, path []chat.Message, reevaluate, decisions bool, fn func(*Trace) error) error {
	var turns []chat.Turn
	var pre *predecoded
	var err error
	pr, parts := e.store.(partReader)
	switch {
	case reevaluate && parts:
		// The decisions are read and decoded on another goroutine, the rest here.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		pre = predecode(func() ([]chat.Turn, error) { return pr.PathTurnsWith(ctx, c.ID, path, chat.DetailDecisions) })
		turns, err = pr.PathTurnsWith(ctx, c.ID, path, chat.DetailStats|chat.DetailRequest)
	case reevaluate:
		if turns, err = e.store.CompleteTurns(ctx, c.ID, path); err == nil {
			pre = predecode(func() ([]chat.Turn, error) { return turns, nil })
		}
	case !decisions && parts:
		turns, err = pr.PathTurnsWith(ctx, c.ID, path, chat.DetailStats|chat.DetailRequest)
	default:
		turns, err = e.store.CompleteTurns(ctx, c.ID, path)
	}
	if pre != nil {
		defer pre.stop()
	}
	if err != nil {
		return fmt.Errorf("replay chat %q: %w", c.ID, err)
	}
	// Turns by the message they are placed at: where several share one, the last committed.
	recorded := make(map[string]int, len(turns))
	for i := range turns {
		recorded[turnMessage(&turns[i])] = i
	}
	// A session over the growing prefix of the branch gives the request form of the
	// history and, when re-evaluating, the counters of what the new file fires.
	s := &Session{e: e, chat: c, view: newBranchView(branch, nil, nil)}
	var usage chat.Usage // the chat's usage before each turn, for unrecorded turns
	for i := 0; i < len(path); i++ {
		user := &path[i]
		if user.Role != chat.RoleUser {
			s.view.append(user)
			continue
		}
		if err := ctx.Err(); err != nil { // a long replay answers a signal at the next turn
			return fmt.Errorf("replay chat %q: %w", c.ID, err)
		}
		// A user message no reply answers (a turn that failed, the end of an imported
		// request) is a turn too, with no assistant message.
		reply, key := replyTo(path, i), user.ID
		var asst *chat.Message
		if reply >= 0 {
			asst, key = &path[reply], path[reply].ID
		}
		ri, isRec := recorded[key]
		var t chat.Turn
		if isRec {
			t = turns[ri]
		} else {
			t = s.unrecordedTurn(len(s.view.users)+1, user, asst, usage)
		}
		tr := s.recordedTrace(&t, user, asst)
		tr.NotRecorded = !isRec
		tr.Sent = isRec && !t.Request.Scripted
		if isRec {
			tr.Responses = responseTraces(RecordedResponses(&t, asst))
		}
		sent, fired := user, t.Fired
		if reevaluate {
			var was []Removed // an unrecorded turn has nothing to compare with
			if isRec {
				if was, err = pre.get(turns[ri].ID); err != nil {
					return fmt.Errorf("replay chat %q: %w", c.ID, err)
				}
			}
			sent, fired = s.reevaluate(tr, &t, user, was)
		} else {
			tr.Request = s.rebuild(&t, user)
			if decisions {
				tr.Decisions = []Decision{}
				if err := decodeRecorded(&t, &tr.Decisions); err != nil {
					return err
				}
			}
		}
		if tr.NotRecorded {
			s.estimateUnrecorded(&t, tr, asst, reevaluate)
		}
		s.view.append(sent)
		if asst != nil {
			for i++; i <= reply; i++ {
				s.view.append(&path[i])
			}
			i--
			// As on a live branch, only an answered turn counts its reminders.
			s.view.addTurn(&chat.Turn{Number: t.Number, AssistantMessageID: asst.ID, Fired: fired})
		}
		usage = usage.Add(t.Counted())
		if err := fn(tr); err != nil {
			return err
		}
	}
	return nil
}

// partReader reads only some parts of turn records (store.DB is one): a re-evaluation
// reads the recorded decisions, the bulk of a chat's records, beside the rest.
type partReader interface {
	PathTurnsWith(ctx context.Context, chatID string, path []chat.Message, detail chat.Detail) ([]chat.Turn, error)
}

// predecoded are the recorded decisions of a path's turns (as much of each as a
// re-evaluation compares), read and decoded in path order on a goroutine of their own.
type predecoded struct {
	read  chan struct{} // closed when the turns are read: index and err are set
	index map[string]int
	err   error
	out   [][]Removed
	errs  []error
	ready []chan struct{} // closed when out[i] and errs[i] are set
	quit  chan struct{}
}

// predecode starts reading the turns with load and decoding their decisions.
func predecode(load func() ([]chat.Turn, error)) *predecoded {
	p := &predecoded{read: make(chan struct{}), quit: make(chan struct{})}
	go func() {
		turns, err := load()
		p.err = err
		p.index = make(map[string]int, len(turns))
		p.out, p.errs, p.ready = make([][]Removed, len(turns)), make([]error, len(turns)), make([]chan struct{}, len(turns))
		for i := range turns {
			p.index[turns[i].ID] = i
			p.ready[i] = make(chan struct{})
		}
		close(p.read)
		for i := range turns {
			select {
			case <-p.quit:
				return
			default:
			}
			p.errs[i] = decodeRecorded(&turns[i], &p.out[i])
			close(p.ready[i])
		}
	}()
	return p
}

// get waits for the decisions of the turn with this id.
func (p *predecoded) get(id string) ([]Removed, error) {
	<-p.read
	if p.err != nil {
		return nil, p.err
	}
	i, ok := p.index[id]
	if !ok {
		return nil, fmt.Errorf("turn %s: its recorded decisions were not found", id)
	}
	<-p.ready[i]
	return p.out[i], p.errs[i]
}

// stop ends the decoding (the replay ended, maybe early).
func (p *predecoded) stop() { close(p.quit) }

// turnMessage returns the id of the message a turn is placed at on a path: its assistant
// message, or its user message when it has none (it failed before a reply).
func turnMessage(t *chat.Turn) string {
	if t.AssistantMessageID != "" {
		return t.AssistantMessageID
	}
	return t.UserMessageID
}

// replyTo returns the index of the assistant message that answers the user message at i
// (the next message, skipping tool and system messages), or -1.
func replyTo(path []chat.Message, i int) int {
	for j := i + 1; j < len(path); j++ {
		switch path[j].Role {
		case chat.RoleAssistant:
			return j
		case chat.RoleUser:
			return -1
		}
	}
	return -1
}

// recordedTrace rebuilds the trace of a recorded turn, but for its request and
// decisions: the caller adds them, as recorded or as re-evaluated.
// asst is nil for a turn no reply answers.
func (s *Session) recordedTrace(t *chat.Turn, user, asst *chat.Message) *Trace {
	tr := &Trace{
		ChatID: s.chat.ID, Turn: t.Number, Branch: t.Branch, At: FormatTime(t.At),
		UserMessageID: user.ID, SystemPrompt: t.Request.SystemPrompt,
		Usage:   s.e.usageWithCost(t),
		Latency: LatencyTrace{TTFT: t.TTFT.Milliseconds(), Total: t.Latency.Milliseconds()},
		Error:   t.Error,
	}
	tr.ContextDigest = t.ContextDigest
	if asst != nil {
		tr.AssistantMessageID, tr.Assistant = asst.ID, assistantTrace(asst, t.FinishReason)
	}
	return tr
}

// estimateUnrecorded gives a turn the chat holds no record of what a recorded turn
// carries: the estimates of its request (unless re-evaluation set the new file's) and of
// its reply. It has no cost: what it was sent to, and what that cost, is not known.
func (s *Session) estimateUnrecorded(t *chat.Turn, tr *Trace, asst *chat.Message, reevaluated bool) {
	count := s.e.cache.count
	t.Estimated.PromptTokens = tr.Usage.Estimated.PromptTokens
	if !reevaluated {
		// requestTokens of the request, with the history's size taken from the view's
		// running total rather than counted again on every turn.
		req := &tr.Request
		around := make([]chat.WireMessage, 0, 3)
		sys := 0
		if req.Len() > 0 && req.At(0).Role == chat.RoleSystem {
			around, sys = append(around, req.At(0)), 1
		}
		for i := sys + len(s.view.wire); i < req.Len(); i++ {
			around = append(around, req.At(i))
		}
		t.Estimated.PromptTokens = s.view.historyTokens() + wireTokens(count, around) + toolTokens(count, req.Tools) + 3
	}
	if asst != nil {
		t.Estimated.CompletionTokens = count(asst.PlainText())
	}
	t.Estimated.TotalTokens = t.Estimated.PromptTokens + t.Estimated.CompletionTokens
	tr.Usage.Estimated.PromptTokens = t.Estimated.PromptTokens
	tr.Usage.Estimated.CompletionTokens = t.Estimated.CompletionTokens
	tr.Usage.CostUSD = nil
}

// decodeRecorded decodes a turn's recorded decisions into ds: a *[]Decision, or a
// *[]Removed when only what a comparison needs is wanted.
func decodeRecorded(t *chat.Turn, ds any) error {
	if len(t.Decisions) == 0 {
		return nil
	}
	if rs, ok := ds.(*[]Removed); ok { // the common case of a re-evaluation, made fast
		if got, err := scanRemoved(t.Decisions); err == nil {
			*rs = got
			return nil
		}
	}
	if err := json.Unmarshal(t.Decisions, ds); err != nil {
		return fmt.Errorf("turn %d: recorded decisions: %w", t.Number, err)
	}
	return nil
}

// reevaluate plans the turn again under the engine's file: it sets the trace's
// decisions, system prompt, request and estimate, marks what changed from the recorded
// decisions (as much of each as the comparison needs), and returns the user message as the
// new file would have sent it and what the new file fires (for the counters). The history
// is the session view's.
func (s *Session) reevaluate(tr *Trace, t *chat.Turn, saved *chat.Message, recorded []Removed) (*chat.Message, []chat.Fired) {
	user := stripReminders(saved)
	// The clock is the user message's, as when the turn was planned: a regenerated reply
	// (whose record has the clock of the regenerate) re-sent the request of that plan.
	wc := s.whenContext(&user)
	wc.Turn = t.Number
	wc.Branch = t.Branch
	wc.Usage = t.Request.ChatUsage
	ev := turnEval{file: s.e.file, cache: s.e.cache, wc: wc, fires: s.view.fires}
	ds := ev.decide()
	p := &Plan{Turn: t.Number, Branch: t.Branch, At: t.At, Decisions: ds.all(), chatUsage: wc.Usage}
	s.render(p, &user, ds)
	// The model and its parameters are the context of the send, not of the file: kept.
	if sr := t.Request; sr.Model != "" {
		p.Request.Model, p.Request.Temperature, p.Request.TopP = sr.Model, sr.Temperature, sr.TopP
		p.Request.MaxTokens, p.Request.Seed = sr.MaxTokens, sr.Seed
	}

	// Usually the new file decides what was recorded, in the same order (the file's):
	// compared pair by pair. The new decisions' keys are unique (a context file's ids
	// are), so when the orders match, so are the recorded ones, and pairs give what
	// compare gives.
	if sameOrder(p.Decisions, recorded) {
		comparePairs(p.Decisions, recorded, tr.NotRecorded)
	} else {
		tr.Removed = compare(p.Decisions, recorded, tr.NotRecorded)
	}
	tr.Decisions = p.Decisions
	tr.SystemPrompt = p.SystemPrompt
	tr.Request = p.Request
	tr.Usage.Estimated = EstimatedUsage{PromptTokens: p.Estimate.Total, CompletionTokens: t.Estimated.CompletionTokens, BySource: &p.Estimate}
	tr.Usage.Difference = nil // the report was for the request recorded, not this one
	// A copy: a pointer into p would keep its request (the whole history) alive with the
	// view, for every turn.
	sent := p.User
	return &sent, p.fired
}

// compare marks each decision that differs from the recorded one of its source and id
// (one the recorded turn did not have: not_in_file), unless the turn was not recorded,
// and returns the recorded decisions the new ones do not have, in recorded order.
func compare(ds []Decision, recorded []Removed, notRecorded bool) []Removed {
	type decisionKey struct{ source, id string } // no string built per decision
	was := make(map[decisionKey]Removed, len(recorded))
	for _, d := range recorded {
		was[decisionKey{d.Source, d.ID}] = d
	}
	for i := range ds {
		d := &ds[i]
		key := decisionKey{d.Source, d.ID}
		old, ok := was[key]
		delete(was, key)
		switch {
		case notRecorded: // nothing recorded to compare with
		case !ok:
			d.Was = &Was{Fired: false, Reason: ReasonNotInFile}
		case old.Fired != d.Fired || old.Reason != d.Reason:
			d.Was = &Was{Fired: old.Fired, Reason: old.Reason}
		}
	}
	var removed []Removed
	for _, d := range recorded { // in recorded order
		if _, gone := was[decisionKey{d.Source, d.ID}]; gone {
			removed = append(removed, d)
		}
	}
	return removed
}

// comparePairs is compare for decisions that are the recorded ones in order (sameOrder):
// nothing is removed.
func comparePairs(ds []Decision, recorded []Removed, notRecorded bool) {
	for i := range ds {
		d, old := &ds[i], recorded[i]
		if !notRecorded && (old.Fired != d.Fired || old.Reason != d.Reason) {
			d.Was = &Was{Fired: old.Fired, Reason: old.Reason}
		}
	}
}

// sameOrder reports whether the decisions are the recorded ones, one for one, in order
// (by source and id).
func sameOrder(ds []Decision, recorded []Removed) bool {
	if len(ds) != len(recorded) {
		return false
	}
	for i := range ds {
		if ds[i].ID != recorded[i].ID || ds[i].Source != recorded[i].Source {
			return false
		}
	}
	return true
}

// Removed is a recorded decision whose reminder or instruction the re-evaluating context
// file no longer has.
type Removed struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Fired  bool   `json:"fired"`
	Reason string `json:"reason"`
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
