package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// RenameChat sets a chat's title (chat.CheckTitle rules; its updated time is kept, so
// renaming does not reorder the chat list). ErrNotFound if there is no such chat.
func (d *DB) RenameChat(ctx context.Context, id, title string) error {
	if err := chat.CheckTitle(title); err != nil {
		return invalidf("chat %q: %v", id, err)
	}
	return d.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE chats SET title = ? WHERE id = ?", title, id)
		if err != nil {
			return dbErr(ctx, err, fmt.Sprintf("rename chat %q", id))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFoundf("chat %q not found", id)
		}
		return nil
	})
}

// DeleteChat removes a chat and everything of it (messages and their search index,
// branches, checkpoints, turns and their decisions) in one transaction: either all of it
// goes, or nothing. Other chats are untouched. ErrNotFound if there is no such chat. The
// pieces its decision lists shared with other turns (predicate expressions, reminder
// texts, the JSON between them: see pieces.go) stay, as every chat may use them.
func (d *DB) DeleteChat(ctx context.Context, id string) error {
	return d.write(ctx, func(tx *sql.Tx) error {
		var n int
		err := tx.QueryRowContext(ctx, "SELECT count(*) FROM chats WHERE id = ?", id).Scan(&n)
		if err != nil {
			return dbErr(ctx, err, fmt.Sprintf("delete chat %q", id))
		}
		if n == 0 {
			return notFoundf("chat %q not found", id)
		}
		for _, q := range []string{
			"DELETE FROM turn_decisions WHERE turn_pk IN (SELECT pk FROM turns WHERE chat_id = ?1)",
			"DELETE FROM turns WHERE chat_id = ?1",
			"DELETE FROM checkpoints WHERE chat_id = ?1",
			"DELETE FROM branches WHERE chat_id = ?1",
			// Only the messages indexed are in the search index (fts.go).
			"DELETE FROM messages_fts WHERE rowid IN (SELECT pk FROM messages WHERE chat_id = ?1 AND pk <= (SELECT indexed_pk FROM fts_state))",
			"DELETE FROM messages WHERE chat_id = ?1",
			"DELETE FROM chats WHERE id = ?1",
			// A pk above the greatest one left will be given again, to a message not indexed.
			"UPDATE fts_state SET indexed_pk = min(indexed_pk, coalesce((SELECT max(pk) FROM messages), 0))",
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return dbErr(ctx, err, fmt.Sprintf("delete chat %q", id))
			}
		}
		d.fts.forget() // indexed_pk may have gone down
		return nil
	})
}

// SetChatContext records the context file a chat was last used with (path as the user
// gave it; "" forgets it). ErrNotFound if there is no such chat.
func (d *DB) SetChatContext(ctx context.Context, id, path string) error {
	return d.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE chats SET context_path = ? WHERE id = ?", path, id)
		if err != nil {
			return dbErr(ctx, err, fmt.Sprintf("chat %q: record the context file", id))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFoundf("chat %q not found", id)
		}
		return nil
	})
}

// ChatContext returns the context file recorded for a chat by SetChatContext, "" when
// none is. ErrNotFound if there is no such chat.
func (d *DB) ChatContext(ctx context.Context, id string) (string, error) {
	var path string
	err := d.read(ctx, func(q querier) error {
		err := q.QueryRowContext(ctx, "SELECT context_path FROM chats WHERE id = ?", id).Scan(&path)
		if err == sql.ErrNoRows {
			return notFoundf("chat %q not found", id)
		}
		return dbErr(ctx, err, fmt.Sprintf("chat %q: read the context file", id))
	})
	return path, err
}

// PricedUsageByChat is PricedUsageByModel for every chat at once, by chat id (chats with
// nothing priced are left out): one query for a whole chat list.
func (d *DB) PricedUsageByChat(ctx context.Context) (map[string]map[string]chat.Usage, error) {
	out := map[string]map[string]chat.Usage{}
	err := d.read(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT chat_id, coalesce(json_extract(request, '$.model'), ''),
			sum(CASE WHEN rep_total IS NULL THEN est_prompt ELSE rep_prompt END),
			sum(CASE WHEN rep_total IS NULL THEN est_completion ELSE rep_completion END),
			sum(CASE WHEN rep_total IS NULL THEN est_total ELSE rep_total END),
			sum(CASE WHEN rep_total IS NULL THEN est_cached ELSE rep_cached END),
			sum(CASE WHEN rep_total IS NULL THEN est_reasoning ELSE rep_reasoning END)
			FROM turns WHERE rep_total IS NOT NULL OR json_extract(request, '$.scripted') IS NOT 1
			GROUP BY 1, 2`)
		if err != nil {
			return dbErr(ctx, err, "load usage by chat")
		}
		defer rows.Close()
		for rows.Next() {
			var id, model string
			var u chat.Usage
			if err := rows.Scan(&id, &model, &u.PromptTokens, &u.CompletionTokens, &u.TotalTokens, &u.CachedTokens, &u.ReasoningTokens); err != nil {
				return dbErr(ctx, err, "load usage by chat")
			}
			if u.TotalTokens == 0 {
				u.TotalTokens = u.PromptTokens + u.CompletionTokens
			}
			if out[id] == nil {
				out[id] = map[string]chat.Usage{}
			}
			out[id][model] = u
		}
		return dbErr(ctx, rows.Err(), "load usage by chat")
	})
	return out, err
}
