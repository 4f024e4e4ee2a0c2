package engine

import (
	"context"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// ReplayRecorded is Replay as recorded (no re-evaluation), without the decisions: each
// trace's Decisions is nil, and the store is not asked for them (on a long chat they are
// most of what a replay reads and decodes). Everything else is as Replay gives it. A
// viewer reads the decisions of the turns it shows with DecodeDecisions on the turn's
// record.
func (e *Engine) ReplayRecorded(ctx context.Context, chatID string, fn func(*Trace) error) error {
	return e.replay(ctx, chatID, false, false, fn)
}

// DecodeDecisions returns the decisions recorded with a turn (t.Decisions, which a store
// reads with DetailDecisions), as Replay gives them: empty, not nil, when it recorded
// none.
func DecodeDecisions(t *chat.Turn) ([]Decision, error) {
	ds := []Decision{}
	if err := decodeRecorded(t, &ds); err != nil {
		return nil, err
	}
	return ds, nil
}
