package app

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
)

// LightTraces is Traces without the decisions: each trace's Decisions is nil, and they
// are not read (engine.Engine.ReplayRecorded). Everything else is as Traces gives it.
// Opening a long chat, a viewer reads these, then the decisions of the few turns it
// shows with TurnDetail.
func (c *Chat) LightTraces(ctx context.Context) ([]engine.Trace, error) {
	if !c.sess.Saved() {
		return nil, nil
	}
	e, err := c.w.replayEngine(nil)
	if err != nil {
		return nil, err
	}
	var out []engine.Trace
	var shared sharedTurn
	err = e.ReplayRecorded(ctx, c.ID(), func(t *engine.Trace) error {
		shared.share(t)
		out = append(out, *t)
		return nil
	})
	return out, err
}

// sharedTurn is what consecutive traces of a chat usually have in common, decoded again
// from each turn's record: the system prompt, the model and the tools. A long chat's
// traces share one copy of each (one of a 10,000-message chat's largest costs in memory).
type sharedTurn struct {
	system, model string
	tools         []chat.WireTool
}

// share makes t use the copies of s where they are equal, and keeps t's otherwise.
func (s *sharedTurn) share(t *engine.Trace) {
	if t.SystemPrompt == s.system {
		t.SystemPrompt = s.system
	} else {
		s.system = t.SystemPrompt
	}
	first := t.Request.Head // the request's own system message (Shared is never written)
	if len(first) == 0 && len(t.Request.Shared) == 0 {
		first = t.Request.Messages
	}
	if len(first) > 0 && first[0].Role == chat.RoleSystem && first[0].Content == s.system {
		first[0].Content = s.system
	}
	if t.Request.Model == s.model {
		t.Request.Model = s.model
	} else {
		s.model = t.Request.Model
	}
	if sameTools(t.Request.Tools, s.tools) {
		t.Request.Tools = s.tools
	} else {
		s.tools = t.Request.Tools
	}
}

// sameTools reports whether two tool lists are equal.
func sameTools(a, b []chat.WireTool) bool {
	return slices.EqualFunc(a, b, func(x, y chat.WireTool) bool {
		return x.Type == y.Type && x.Function.Name == y.Function.Name && x.Function.Description == y.Function.Description &&
			bytes.Equal(x.Function.Parameters, y.Function.Parameters)
	})
}

// TurnDetail is what a viewer shows of one turn beyond its light trace.
type TurnDetail struct {
	// Decisions are the turn's recorded decisions, as Traces gives them (empty, not nil,
	// when it recorded none).
	Decisions []engine.Decision
	// Requests are the requests the turn sent, in order: the trace's request, then one
	// for each tool round sent back to the model in a live tool loop
	// (engine.TurnRequest.LoopRequest). A turn without a tool loop has one.
	Requests []chat.Request
}

// TurnDetail reads the decisions of the turn whose light trace is t and rebuilds the
// requests of its tool loop, from the turn's record and its reply in the database. It
// reads only the database (t names the chat): it may run while the chat sends a turn.
func (c *Chat) TurnDetail(ctx context.Context, t *engine.Trace) (TurnDetail, error) {
	d := TurnDetail{Decisions: []engine.Decision{}, Requests: []chat.Request{t.Request}}
	if t.NotRecorded || t.ChatID == "" {
		return d, nil
	}
	at := t.AssistantMessageID
	if at == "" {
		at = t.UserMessageID
	}
	turns, err := c.w.db.TurnsAt(ctx, t.ChatID, at, store.DetailStats|store.DetailRequest|store.DetailDecisions)
	if err != nil {
		return d, fmt.Errorf("turn %d: %w", t.Turn, err)
	}
	var rec *chat.Turn // where several turns share the message, the last committed
	for i := range turns {
		if turns[i].AssistantMessageID == t.AssistantMessageID && turns[i].UserMessageID == t.UserMessageID {
			rec = &turns[i]
		}
	}
	if rec == nil {
		return d, fmt.Errorf("turn %d: no record of it in the chat", t.Turn)
	}
	if d.Decisions, err = engine.DecodeDecisions(rec); err != nil {
		return d, err
	}
	var reply *chat.Message
	if t.AssistantMessageID != "" {
		m, err := c.w.db.Message(ctx, t.ChatID, t.AssistantMessageID)
		if err != nil {
			return d, fmt.Errorf("turn %d: %w", t.Turn, err)
		}
		reply = &m
	}
	d.Requests = LoopRequests(t.Request, rec.Request.SystemInject, reply, rec.FinishReason)
	return d, nil
}

// LoopRequests rebuilds the requests of a turn from its first request (with inject, its
// system-placement reminders, "" for none) and its reply: first, then the request that
// sent each answered round of tool calls of a live tool loop back (engine.LoopRounds,
// engine.TurnRequest.LoopRequest).
func LoopRequests(first chat.Request, inject string, reply *chat.Message, finish string) []chat.Request {
	reqs := []chat.Request{first}
	if reply == nil {
		return reqs
	}
	tr := engine.TurnRequest{Plan: &engine.Plan{Request: first, SystemInject: inject}}
	for _, n := range engine.LoopRounds(reply, finish) {
		reqs = append(reqs, tr.LoopRequest(reply.Parts[:n]))
	}
	return reqs
}
