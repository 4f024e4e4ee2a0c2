package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Unanswered is the error recorded with a turn saved without a reply (SendUnanswered).
const Unanswered = "not answered: the user message was saved without a reply"

// SendUnanswered saves a user message with no reply: the user message and the record of
// its turn (planned as Send would, with no assistant message and the error Unanswered),
// as a turn that failed before any reply is kept. Nothing is asked of a model. Replay
// shows the turn with no assistant; like a failed turn it counts no reminder, so the next
// turn's counters and latches are those it would have had without it. The result's
// Assistant is empty.
func (s *Session) SendUnanswered(ctx context.Context, in UserInput) (*TurnResult, error) {
	p := s.plan(in)
	res := s.record(p, &Outcome{Scripted: true, At: p.At, Err: errors.New(Unanswered)}, s.encoder().start(p.Decisions, s.e.store)())
	res.Assistant = chat.Message{CreatedAt: p.At} // saveAside dates a new branch by it
	res.Turn.AssistantMessageID = ""
	res.Turn.Estimated = chat.Usage{PromptTokens: p.Estimate.Total, TotalTokens: p.Estimate.Total}
	res.cost = s.e.priced(&res.Turn)
	commit := chat.Commit{ChatID: s.chat.ID, Branch: s.view.name, ExpectHead: s.view.head, NewHead: p.User.ID,
		Messages: []chat.Message{p.User}, Turns: []chat.Turn{res.Turn}}
	if s.draft {
		commit.NewChat = s.firstSave(&p.User)
	}
	ctx = context.WithoutCancel(ctx)
	err := s.e.store.Commit(ctx, commit)
	if errors.Is(err, chat.ErrConflict) {
		err = s.saveAside(ctx, &commit, res)
	}
	if err != nil {
		return nil, fmt.Errorf("save message: %w", err)
	}
	if s.draft && commit.NewChat != nil {
		s.chat.Title = commit.NewChat.Title
	}
	s.draft = false
	user := p.User
	s.view.append(&user)
	s.usage = s.usage.Add(res.Turn.Counted())
	s.chat.UpdatedAt = p.At
	res.Assistant = chat.Message{}
	return res, nil
}
