package app

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// Versions returns the versions of turn n of the active branch (edits and regenerates),
// oldest first, each with a branch that holds it, and the position of the active one
// (engine.Session.Versions).
func (c *Chat) Versions(ctx context.Context, n int) ([]engine.Version, int, error) {
	return c.sess.Versions(ctx, n)
}

// RegenerateTurn asks again for turn n's reply: a sibling on a new branch made from the
// active one, which ends with it, switched to. The reply comes from the live model, or is
// reply when it is not nil (the user's). It delivers the turn's events to emit (nil:
// none).
func (c *Chat) RegenerateTurn(ctx context.Context, n int, reply *string, emit func(engine.Event)) (*engine.TurnResult, error) {
	r, err := c.replier(reply)
	if err != nil {
		return nil, err
	}
	return c.recordAfter(ctx)(c.sess.RegenerateTurn(ctx, n, r, time.Time{}, engine.WithEvents(emit)))
}

// Checkpoints lists the chat's checkpoints in the order they were first set (none before
// the chat is saved).
func (c *Chat) Checkpoints(ctx context.Context) ([]chat.Checkpoint, error) {
	if !c.sess.Saved() {
		return nil, nil
	}
	cps, err := c.w.db.Checkpoints(ctx, c.ID())
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	return cps, nil
}

// AllVersions returns the versions of every turn of the active branch that has more than
// one, by turn number (engine.Session.AllVersions).
func (c *Chat) AllVersions(ctx context.Context) (map[int][]engine.Version, error) {
	return c.sess.AllVersions(ctx)
}

// CheckpointTurn names turn n's reply: restoring the checkpoint makes a branch that ends
// with turn n.
func (c *Chat) CheckpointTurn(ctx context.Context, n int, name string) error {
	return c.sess.CheckpointTurn(ctx, n, name)
}
