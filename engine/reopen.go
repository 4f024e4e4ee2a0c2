package engine

import (
	"context"
	"fmt"

	"github.com/ctxlab/ctxlab/predicates"
)

// Reopen opens the chat of a saved session on engine e (one built for a reloaded context
// file), as Open does, but reusing what from holds in memory of the chat's branches: the
// chat's record, its active branch's head and its usage are read again, and, as on a
// branch switch, only messages another writer added since are read. What from computed
// with its engine (the request form of its history and its token estimates) is dropped,
// to be computed again. The two sessions share what they hold: keep using one of them.
func (e *Engine) Reopen(ctx context.Context, from *Session) (*Session, error) {
	if from.draft {
		return nil, fmt.Errorf("reopen chat %q: it is not saved yet", from.chat.ID)
	}
	c, err := e.store.Chat(ctx, from.chat.ID)
	if err != nil {
		return nil, fmt.Errorf("open chat %q: %w", from.chat.ID, err)
	}
	s := &Session{e: e, chat: c, views: from.views, decisions: from.decisions}
	for _, v := range s.views {
		v.wire, v.wireEnd, v.tokensTo, v.memo = nil, nil, nil, predicates.NewMemo()
	}
	if err := s.load(ctx, c.ActiveBranch); err != nil {
		return nil, err
	}
	u, err := e.store.ChatUsage(ctx, c.ID)
	if err != nil {
		return nil, fmt.Errorf("open chat %q: usage: %w", c.ID, err)
	}
	s.usage = u
	return s, nil
}
