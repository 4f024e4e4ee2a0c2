package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// Replier produces the assistant's reply to a planned turn: a Scripted reply, a Live
// model, or one an embedder brings. Reply reports what happens through emit (never nil;
// the session adds EventPlanned before and EventSaved or EventFailed after). It returns
// the reply with its error: a reply that failed with no part is not saved (EventFailed);
// one with parts is saved, marked interrupted when Outcome.Interrupted is set.
type Replier interface {
	Reply(ctx context.Context, t *TurnRequest, emit func(Event)) (*Outcome, error)
}

// TurnRequest is what a Replier gets: the planned turn and what the engine offers to
// answer it.
type TurnRequest struct {
	Plan *Plan
	// File is the engine's context file (its tools' canned results and errors).
	File *ctxfile.File
	// Tokens is the engine's token counter.
	Tokens TokenCounter
	// MaxToolSteps bounds the requests of a tool loop.
	MaxToolSteps int
	// NewID makes an id (for tool calls a replier makes up).
	NewID func() string
}

// AnswerTool answers a tool call with the context file's canned result, its canned
// error, or an error for a tool the file does not declare.
func (t *TurnRequest) AnswerTool(call chat.WireToolCall) chat.Part { return answerTool(t.File, call) }

// LoopRequest is the request after a tool round: the planned request with the
// assistant's parts so far (text, tool calls and their results) after the user message,
// and the system reminders moved after the last tool message.
func (t *TurnRequest) LoopRequest(parts []chat.Part) chat.Request { return loopRequest(t.Plan, parts) }

// Outcome is the assistant side of a turn, as a Replier returns it.
type Outcome struct {
	// Parts is the reply: text and tool parts, in order.
	Parts []chat.Part
	// Reported is the usage the model reported for the whole turn; nil when it reported
	// none (the turn is then counted by its estimate).
	Reported     *chat.Usage
	FinishReason string
	// TTFT is the time to the first token; Total the time the reply took.
	TTFT, Total time.Duration
	// Interrupted marks a reply cut short.
	Interrupted bool
	// Scripted marks a reply that was written, not asked of a model.
	Scripted bool
	// At is the clock of the reply; zero means the engine's now.
	At time.Time
	// Err is recorded with the turn (the send's error when nil).
	Err error
	// ExtraPrompt estimates the prompt tokens of a tool loop's later requests (each sends
	// the whole prompt again, plus the tool round so far).
	ExtraPrompt int
	// Responses is the response side of each request sent, in order (see
	// chat.Response); a scripted reply has one.
	Responses []chat.Response
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

// Reply returns the scripted reply. It reports it as one step, in the order of its parts:
// EventToolAnswered for each tool call, EventText with the whole text (none when empty),
// then EventUsage when Usage is set, then EventResponse: its one response (the finish
// reason, the script's usage, no time). Nothing is sent, so there is no EventRequest. A reply
// of more than chat.MaxToolCalls tool calls is refused (chat.ErrInvalid), nothing saved.
func (r *Scripted) Reply(_ context.Context, t *TurnRequest, emit func(Event)) (*Outcome, error) {
	if len(r.Tools) > chat.MaxToolCalls {
		return nil, fmt.Errorf("scripted reply of %d tool calls: %w: a reply holds at most %d tool calls",
			len(r.Tools), chat.ErrInvalid, chat.MaxToolCalls)
	}
	out := &Outcome{Reported: r.Usage, FinishReason: r.FinishReason, At: t.Plan.At, Scripted: true}
	if out.FinishReason == "" {
		out.FinishReason = "stop"
	}
	for _, st := range r.Tools {
		part := chat.Part{Type: chat.PartTool, ToolCallID: "call_" + shortID(t.NewID()), ToolName: st.Name,
			State: chat.ToolOutputAvailable, Input: st.Input, Output: st.Output}
		if len(part.Input) == 0 {
			part.Input = json.RawMessage("{}")
		}
		if st.Failed {
			part.State, part.Output, part.ErrorText = chat.ToolOutputError, "", st.Error
		}
		emit(EventToolAnswered{Step: 1, Part: part})
		out.Parts = append(out.Parts, part)
	}
	if r.Text != "" {
		emit(EventText{Step: 1, Text: r.Text})
	}
	if r.Text != "" || len(out.Parts) == 0 {
		out.Parts = append(out.Parts, chat.TextPart(r.Text))
	}
	if r.Usage != nil {
		emit(EventUsage{Step: 1, Usage: *r.Usage})
	}
	resp := chat.Response{FinishReason: out.FinishReason, Usage: withTotal(r.Usage), EstimatedPrompt: t.Plan.Estimate.Total}
	out.Responses = []chat.Response{resp}
	emit(EventResponse{Step: 1, Response: resp})
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

// CostUSD returns the turn's cost in USD (as its trace gives it), or nil when it has none
// (a scripted reply without usage) or its model's price is unknown.
func (r *TurnResult) CostUSD() *float64 { return r.cost }

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
//
// opts may deliver the turn's events (WithEvents).
func (s *Session) Send(ctx context.Context, in UserInput, r Replier, opts ...SendOption) (*TurnResult, error) {
	p := s.takeAhead(in)
	if p == nil {
		p = s.planToSend(in)
	}
	return s.finish(ctx, p, r, nil, false, sendOptions(opts))
}

// finish gets the reply to a plan and commits the turn, creating newBranch in the same
// step when it is set; userSaved says the plan's user message is already stored (a
// regenerated reply).
func (s *Session) finish(ctx context.Context, p *Plan, r Replier, newBranch *chat.Branch, userSaved bool, cfg sendConfig) (*TurnResult, error) {
	emit := cfg.emit
	emit(EventPlanned{Plan: p})
	if err := s.checkBeforeSending(p, userSaved); err != nil {
		emit(EventFailed{Err: err})
		return nil, err
	}
	e := s.e
	decisions := p.encoded
	if decisions == nil {
		decisions = s.encoder().start(p.Decisions, e.store)
	}
	out, err := r.Reply(ctx, &TurnRequest{Plan: p, File: e.file, Tokens: e.tokens, MaxToolSteps: e.steps, NewID: e.newID}, emit)
	if out == nil || (err != nil && len(out.Parts) == 0) {
		if err == nil {
			err = errors.New("no reply")
		}
		emit(EventFailed{Err: err})
		return nil, err
	}
	if out.Err == nil {
		out.Err = err
	}
	res := s.record(p, out, nil) // its decision list may still be being prepared: see commitTurn
	user := p.User
	msgs := []chat.Message{user, res.Assistant}
	if userSaved {
		msgs = msgs[1:]
	}
	commit := chat.Commit{ChatID: s.chat.ID, Branch: s.view.name, ExpectHead: s.view.head,
		NewHead: res.Assistant.ID, NewBranch: newBranch, Messages: msgs, Turns: []chat.Turn{res.Turn}, Activate: newBranch != nil}
	if s.draft {
		commit.NewChat = s.firstSave(&p.User)
	}
	// A cancelled turn is still saved (its reply marked interrupted): commit past ctx.
	ctx = context.WithoutCancel(ctx)
	applied := false
	if cfg.next != nil {
		applied, err = s.commitPlanningNext(ctx, &commit, decisions, res, *cfg.next)
	} else {
		err = s.commitTurn(ctx, &commit, decisions)
	}
	res.Turn.Decisions = commit.Turns[0].Decisions
	if errors.Is(err, chat.ErrConflict) {
		err = s.saveAside(ctx, &commit, res)
	}
	if err != nil {
		// The reply came and is not lost: the error holds it, to show and save again.
		u := &UnsavedError{Result: res, Err: err, replyErr: out.Err, commit: commit, session: s}
		emit(EventFailed{Err: u})
		return nil, u
	}
	if !applied {
		s.apply(&commit, res)
	}
	emit(EventSaved{Result: res, Err: out.Err})
	return res, out.Err
}

// checkBeforeSending refuses a turn the store would refuse to save, before the model is
// asked (and paid): its user message (the parts the reminders add, their spans) and, for
// a chat's first turn, the chat record it saves.
func (s *Session) checkBeforeSending(p *Plan, userSaved bool) error {
	if !userSaved {
		if err := chat.CheckMessage(&p.User); err != nil {
			return fmt.Errorf("the message cannot be saved, so it is not sent: %w", err)
		}
	}
	if s.draft {
		c := s.firstSave(&p.User)
		if err := chat.CheckChat(c); err != nil {
			return fmt.Errorf("the chat cannot be saved, so the message is not sent: %w", err)
		}
	}
	return nil
}

// UnsavedError is a turn whose reply arrived but could not be saved (a database that is
// read-only, full or locked longer than its busy timeout): Result holds the turn as it
// would have been saved, its reply included, so that a front end shows the reply with
// the error, and can try again (Session.SaveAgain). The session is left as before the
// turn.
type UnsavedError struct {
	Result *TurnResult
	Err    error // why it could not be saved

	replyErr error // the reply's own error (a reply cut short), returned once it is saved
	commit   chat.Commit
	session  *Session
}

func (e *UnsavedError) Error() string { return "save turn: " + e.Err.Error() }

func (e *UnsavedError) Unwrap() error { return e.Err }

// ErrMovedOn is SaveAgain's error when the session is no longer where the turn was sent
// from (another turn was sent or saved, or the branch was switched): the reply would not
// follow the messages it answered.
var ErrMovedOn = errors.New("the chat has moved on since this reply came: it can no longer be saved in its place")

// SaveAgain saves a turn whose save failed (an *UnsavedError of this session), as it
// would have been saved then; on a new branch made where it was sent when another writer
// moved the branch meanwhile, as Send does. It fails with ErrMovedOn when this session
// moved since, and with another *UnsavedError when saving fails again. The reply's own
// error (a reply cut short) is returned with the result, as Send returns it.
func (s *Session) SaveAgain(ctx context.Context, u *UnsavedError) (*TurnResult, error) {
	if u == nil || u.session != s {
		return nil, errors.New("save again: the turn is not one of this chat's")
	}
	c := u.commit
	if s.view.name != c.Branch || s.view.head != c.ExpectHead || (c.NewChat != nil) != s.draft {
		return nil, ErrMovedOn
	}
	res := u.Result
	err := s.e.store.Commit(ctx, c)
	if errors.Is(err, chat.ErrConflict) {
		err = s.saveAside(ctx, &c, res)
	}
	if err != nil {
		return nil, &UnsavedError{Result: res, Err: err, replyErr: u.replyErr, commit: u.commit, session: s}
	}
	s.apply(&c, res)
	return res, u.replyErr
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

// record builds the assistant message and the turn record of a reply, with the JSON of
// the plan's decisions.
func (s *Session) record(p *Plan, out *Outcome, decisions json.RawMessage) *TurnResult {
	e := s.e
	at := out.At
	if at.IsZero() {
		at = e.now()
	}
	asst := chat.Message{ID: e.newID(), ParentID: p.User.ID, Role: chat.RoleAssistant, Parts: out.Parts,
		CreatedAt: at, Interrupted: out.Interrupted}
	// Counted through the cache: the history counts the same texts again on the next turn.
	count := e.cache.count
	completion := count(asst.PlainText())
	for _, tp := range asst.ToolParts() {
		completion += count(tp.ToolName) + count(string(tp.Input)) + 3
	}
	turn := chat.Turn{
		ID: e.newID(), ChatID: s.chat.ID, Branch: p.Branch, Number: p.Turn,
		UserMessageID: p.User.ID, AssistantMessageID: asst.ID, At: p.At, ContextDigest: p.contextDigest,
		Request: chat.SentRequest{Model: p.Request.Model, SystemPrompt: p.SystemPrompt, SystemInject: p.SystemInject,
			Tools: p.Request.Tools, Temperature: p.Request.Temperature, TopP: p.Request.TopP,
			MaxTokens: p.Request.MaxTokens, Seed: p.Request.Seed, Scripted: out.Scripted, ChatUsage: p.chatUsage,
			Estimate: p.recordedEstimate()},
		Fired:     p.fired,
		Decisions: decisions,
		Reported:  out.Reported,
		Estimated: chat.Usage{PromptTokens: p.Estimate.Total + out.ExtraPrompt, CompletionTokens: completion,
			TotalTokens: p.Estimate.Total + out.ExtraPrompt + completion},
		TTFT: out.TTFT, Latency: out.Total, FinishReason: out.FinishReason, Responses: out.Responses,
	}
	if out.Err != nil {
		turn.Error = out.Err.Error()
	}
	if r := turn.Reported; r != nil && r.TotalTokens == 0 {
		fixed := *r
		fixed.TotalTokens = r.PromptTokens + r.CompletionTokens
		turn.Reported = &fixed
	}
	return &TurnResult{Plan: p, Assistant: asst, Turn: turn, cost: e.priced(&turn)}
}

// firstSave is the record a chat not saved yet is saved with by its first turn: an
// untitled chat takes its title from the first user message (what the user typed, without
// the reminders baked into it), as a script's chat does.
func (s *Session) firstSave(user *chat.Message) *chat.Chat {
	c := s.chat
	if c.Title == "" {
		typed := stripReminders(user)
		c.Title = chat.TitleFrom(typed.PlainText())
	}
	return &c
}
