package store

import (
	"context"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TurnsAt returns the turns placed at a message, with the parts detail selects, in commit
// order: those whose assistant message it is or, when none, those without an assistant
// message whose user message it is (a turn that failed before any reply). A viewer reads
// the one turn it shows this way; each lookup uses one of the turns' message indexes,
// where TurnsByMessage's OR of the two scans the chat's turns.
func (d *DB) TurnsAt(ctx context.Context, chatID, messageID string, detail Detail) ([]chat.Turn, error) {
	ts, err := queryTurns(ctx, d.db, &d.pieces, chatID, detail, "t.assistant_message_id = ?", messageID)
	if err != nil || len(ts) > 0 {
		return ts, err
	}
	return queryTurns(ctx, d.db, &d.pieces, chatID, detail, "t.user_message_id = ? AND t.assistant_message_id IS NULL", messageID)
}
