package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Replier produces the assistant's reply to a planned turn: a Scripted reply, or a Live
// model.
type Replier interface {
	reply(ctx context.Context, s *Session, p *Plan) (*outcome, error)
}

// outcome is the assistant side of a turn.
type outcome struct {
	parts       []chat.Part
	reported    *chat.Usage
	finish      string
	ttft, total time.Duration
	interrupted bool
	scripted    bool // the reply was written in the script, not asked of a model
	at          time.Time
	err         error // recorded with the turn
	// extraPrompt estimates the prompt tokens of a tool loop's later requests (each sends
	// the whole prompt again, plus the tool round so far).
	extraPrompt int
}

// Scripted is a reply written in a script: text, tool calls with their outcomes, and the
// usage to report.
type Scripted struct {
	Text         string
	Tools        []ScriptedTool
	Usage        *chat.Usage
	FinishReason string // "stop" when empty
}

// ScriptedTool is one tool call of a scripted reply, with its output or its error.
type ScriptedTool struct {
	Name   string
	Input  json.RawMessage
	Output string
	Error  string
	Failed bool
}

func (r *Scripted) reply(_ context.Context, s *Session, p *Plan) (*outcome, error) {
	out := &outcome{reported: r.Usage, finish: r.FinishReason, at: p.At, scripted: true}
	if out.finish == "" {
		out.finish = "stop"
	}
	for _, t := range r.Tools {
		part := chat.Part{Type: chat.PartTool, ToolCallID: "call_" + shortID(s.e.newID()), ToolName: t.Name,
			State: chat.ToolOutputAvailable, Input: t.Input, Output: t.Output}
		if len(part.Input) == 0 {
			part.Input = json.RawMessage("{}")
		}
		if t.Failed {
			part.State, part.Output, part.ErrorText = chat.ToolOutputError, "", t.Error
		}
		out.parts = append(out.parts, part)
	}
	if r.Text != "" || len(out.parts) == 0 {
		out.parts = append(out.parts, chat.TextPart(r.Text))
	}
	return out, nil
}

// shortID keeps the last 12 characters of an id, enough to tell tool calls apart.
func shortID(id string) string {
	if len(id) > 12 {
		return id[len(id)-12:]
	}
	return id
}

// TurnResult is a turn that was sent and saved.
type TurnResult struct {
	Plan      *Plan
	Assistant chat.Message
	Turn      chat.Turn
	// PlannedOn names the branch the turn was planned on when another writer wrote to it
	// before the turn was saved (moved its head, or made it first): the turn was then saved
	// on a new branch made at the same place (Turn.Branch), and the session switched to
	// it. It is empty otherwise.
	PlannedOn string

	cost *float64
}

// priced returns the USD cost of a turn (chat.Turn.Priced), or nil when it has none or
// the price is unknown.
func (e *Engine) priced(t *chat.Turn) *float64 {
	if e.cost == nil {
		return nil
	}
	u, ok := t.Priced()
	if !ok {
		return nil
	}
	usd, ok := e.cost(t.Request.Model, u)
	if !ok {
		return nil
	}
	return &usd
}

// Send plans the turn, gets the reply and saves user message, assistant message and turn
// record in one step. If the reply failed with nothing to save, nothing is saved and the
// error is returned. A reply cut short is saved, marked interrupted, and its error is
// returned with the result.
func (s *Session) Send(ctx context.Context, in UserInput, r Replier) (*TurnResult, error) {
	p := s.plan(in)
	return s.finish(ctx, p, r, nil, false)
}

// finish gets the reply to a plan and commits the turn, creating newBranch in the same
// step when it is set; userSaved says the plan's user message is already stored (a
// regenerated reply).
func (s *Session) finish(ctx context.Context, p *Plan, r Replier, newBranch *chat.Branch, userSaved bool) (*TurnResult, error) {
	out, err := r.reply(ctx, s, p)
	if out == nil || (err != nil && len(out.parts) == 0) {
		if err == nil {
			err = errors.New("no reply")
		}
		return nil, err
	}
	if out.err == nil {
		out.err = err
	}
	res := s.record(p, out)
	user := p.User
	msgs := []chat.Message{user, res.Assistant}
	if userSaved {
		msgs = msgs[1:]
	}
	commit := chat.Commit{ChatID: s.chat.ID, Branch: s.view.name, ExpectHead: s.view.head,
		NewHead: res.Assistant.ID, NewBranch: newBranch, Messages: msgs, Turns: []chat.Turn{res.Turn}, Activate: newBranch != nil}
	if s.draft {
		c := s.chat
		commit.NewChat = &c
	}
	// A cancelled turn is still saved (its reply marked interrupted): commit past ctx.
	ctx = context.WithoutCancel(ctx)
	err = s.e.store.Commit(ctx, commit)
	if errors.Is(err, chat.ErrConflict) {
		err = s.saveAside(ctx, &commit, res)
	}
	if err != nil {
		return nil, fmt.Errorf("save turn: %w", err)
	}
	s.draft = false
	for i := range msgs {
		m := msgs[i]
		s.view.append(&m)
	}
	t := res.Turn
	s.view.addTurn(&t)
	s.usage = s.usage.Add(t.Counted())
	s.chat.UpdatedAt = res.Assistant.CreatedAt
	return res, out.err
}

// saveAside saves a turn that another writer got in the way of (it moved the head of the
// branch, or made the new branch or the chat first) on a new branch made where the turn
// was planned: from the same branch, at the same head. The turn is saved as it was sent,
// and the session switches to the new branch; res.PlannedOn names the branch the turn was
// planned on. Nothing is saved if the names of new branches keep being taken.
func (s *Session) saveAside(ctx context.Context, c *chat.Commit, res *TurnResult) error {
	fork := chat.Branch{Head: c.ExpectHead, Parent: c.Branch, CreatedAt: res.Assistant.CreatedAt}
	if c.NewBranch != nil {
		fork = *c.NewBranch
	}
	if c.NewChat != nil { // the other writer saved the chat first: this is its chat now
		saved, err := s.e.store.Chat(ctx, c.ChatID)
		if err != nil {
			return err
		}
		s.chat, s.draft, c.NewChat = saved, false, nil
	}
	err := s.onNewBranch(ctx, fork.Parent, func(name string) error {
		fork.Name = name
		c.Branch, c.NewBranch, c.Activate = name, &fork, true
		c.Turns[0].Branch = name
		return s.e.store.Commit(ctx, *c)
	})
	if err != nil {
		return err
	}
	res.PlannedOn, res.Turn.Branch = s.view.name, fork.Name
	s.setView(s.view.prefix(fork.Name, len(s.view.path)))
	return nil
}

// record builds the assistant message and the turn record of a reply.
func (s *Session) record(p *Plan, out *outcome) *TurnResult {
	e := s.e
	at := out.at
	if at.IsZero() {
		at = e.now()
	}
	asst := chat.Message{ID: e.newID(), ParentID: p.User.ID, Role: chat.RoleAssistant, Parts: out.parts,
		CreatedAt: at, Interrupted: out.interrupted}
	decisions := marshalDecisions(p.Decisions)
	completion := e.tokens.Count(asst.PlainText())
	for _, tp := range asst.ToolParts() {
		completion += e.tokens.Count(tp.ToolName) + e.tokens.Count(string(tp.Input)) + 3
	}
	turn := chat.Turn{
		ID: e.newID(), ChatID: s.chat.ID, Branch: p.Branch, Number: p.Turn,
		UserMessageID: p.User.ID, AssistantMessageID: asst.ID, At: p.At,
		Request: chat.SentRequest{Model: p.Request.Model, SystemPrompt: p.SystemPrompt, SystemInject: p.SystemInject,
			Tools: p.Request.Tools, Temperature: p.Request.Temperature, TopP: p.Request.TopP,
			MaxTokens: p.Request.MaxTokens, Seed: p.Request.Seed, Scripted: out.scripted, ChatUsage: p.chatUsage},
		Fired:     p.fired,
		Decisions: decisions,
		Reported:  out.reported,
		Estimated: chat.Usage{PromptTokens: p.Estimate.Total + out.extraPrompt, CompletionTokens: completion,
			TotalTokens: p.Estimate.Total + out.extraPrompt + completion},
		TTFT: out.ttft, Latency: out.total, FinishReason: out.finish,
	}
	if out.err != nil {
		turn.Error = out.err.Error()
	}
	if r := turn.Reported; r != nil && r.TotalTokens == 0 {
		fixed := *r
		fixed.TotalTokens = r.PromptTokens + r.CompletionTokens
		turn.Reported = &fixed
	}
	return &TurnResult{Plan: p, Assistant: asst, Turn: turn, cost: e.priced(&turn)}
}
