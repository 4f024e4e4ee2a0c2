package engine

import (
	"context"
	"encoding/json"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// A script knows its next user message before the turn before it is saved. WithNext lets
// Send plan that next turn while the turn before commits, on the other core: planning is
// computation on what the session holds, and the commit is mostly SQLite's. Nothing of the
// next turn is sent, shown or saved before the turn before it is committed: only its plan
// is made early, and thrown away when the commit fails or anything changes in between.

// WithNext tells Send the user input of the turn that the next Send will send: the
// session plans it while this turn commits, and that Send takes the plan when it sends
// the same input on the session as this turn left it (planned again otherwise). The
// clock of an input without one is taken when it is planned.
func WithNext(in UserInput) SendOption {
	return func(c *sendConfig) { c.next = &in }
}

// plannedAhead is a plan made while the turn before committed, and the session state it
// was made on.
type plannedAhead struct {
	in   UserInput
	plan *Plan
	at   sessionState
}

// sessionState is what a turn's plan depends on in the session, and what a committed
// turn changes in it.
type sessionState struct {
	view  *branchView
	n     int // the length of the view's path
	head  string
	chat  chat.Chat
	usage chat.Usage
	draft bool
}

func (s *Session) state() sessionState {
	return sessionState{view: s.view, n: len(s.view.path), head: s.view.head, chat: s.chat, usage: s.usage, draft: s.draft}
}

// same reports whether the session is still in state st: on the same branch view, at
// the same head (every step that changes the session changes one or the other).
func (st *sessionState) same(s *Session) bool {
	return st.view == s.view && st.head == s.view.head
}

// restore puts the session back in state st, taken before a turn was applied to it: the
// view's first st.n messages, its fired counts rebuilt from the turns on them.
func (s *Session) restore(st sessionState) {
	s.chat, s.usage, s.draft = st.chat, st.usage, st.draft
	s.setView(st.view.prefix(st.view.name, st.n))
}

// takeAhead returns the plan made ahead for in, or nil when there is none or the session
// changed since it was made; the plan is forgotten either way.
func (s *Session) takeAhead(in UserInput) *Plan {
	a := s.ahead
	s.ahead = nil
	if a == nil || !a.at.same(s) || !sameInput(&a.in, &in) {
		return nil
	}
	return a.plan
}

func sameInput(a, b *UserInput) bool {
	if a.Text != b.Text || !a.At.Equal(b.At) || (a.Locale == nil) != (b.Locale == nil) {
		return false
	}
	return a.Locale == nil || *a.Locale == *b.Locale
}

// commitPlanningNext commits c as commitTurn does while it plans the turn that sends next
// on the session as the commit leaves it: the step's messages and turn are applied to the
// session at once, and taken back if the commit fails. It reports whether they stay
// applied.
func (s *Session) commitPlanningNext(ctx context.Context, c *chat.Commit, list func() json.RawMessage, res *TurnResult,
	next UserInput) (applied bool, err error) {
	before := s.state()
	s.apply(c, res)
	planned := make(chan *plannedAhead, 1)
	go func() { planned <- &plannedAhead{in: next, plan: s.planToSend(next), at: s.state()} }()
	err = s.commitTurn(ctx, c, list)
	ahead := <-planned
	if err != nil {
		s.restore(before)
		return false, err
	}
	s.ahead = ahead
	return true, nil
}

// apply brings the session up to a committed step: its messages on the path, its turn
// counted, the chat as the commit saved it.
func (s *Session) apply(c *chat.Commit, res *TurnResult) {
	if s.draft && c.NewChat != nil {
		s.chat.Title = c.NewChat.Title
	}
	s.draft = false
	for i := range c.Messages {
		m := c.Messages[i]
		s.view.append(&m)
	}
	t := res.Turn
	// The view keeps turns without their decisions (see Turns), as a branch loads them:
	// a chat of thousands of turns does not hold a hundred KB of JSON for each.
	t.Decisions = nil
	s.view.addTurn(&t)
	s.usage = s.usage.Add(t.Counted())
	s.chat.UpdatedAt = res.Assistant.CreatedAt
}
