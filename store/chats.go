package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// DefaultBranch is the active branch of a chat created without one.
const DefaultBranch = "main"

// CreateChat saves a new chat with no message, and its active branch (DefaultBranch when
// c.ActiveBranch is empty) with an empty head. Zero times are set from d.Now. A chat with
// the same id gives ErrConflict.
func (d *DB) CreateChat(ctx context.Context, c chat.Chat) error {
	meta, err := d.prepareChat(&c)
	if err != nil {
		return err
	}
	return d.write(ctx, func(tx *sql.Tx) error { return createChat(ctx, tx, &c, meta) })
}

// prepareChat checks a new chat, fills its defaults and encodes its metadata.
func (d *DB) prepareChat(c *chat.Chat) (meta any, err error) {
	if err := checkName("chat id", c.ID); err != nil {
		return nil, err
	}
	if c.ActiveBranch == "" {
		c.ActiveBranch = DefaultBranch
	}
	if err := checkChat(c); err != nil {
		return nil, err
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = d.now()
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = c.CreatedAt
	}
	if meta, err = encMetadata(c.Metadata); err != nil {
		return nil, invalidf("chat %q: metadata: %v", c.ID, err)
	}
	return meta, nil
}

// createChat inserts a prepared chat and its empty active branch.
func createChat(ctx context.Context, tx *sql.Tx, c *chat.Chat, meta any) error {
	if err := insertChat(ctx, tx, c, meta, chat.Usage{}, 0); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO branches (chat_id, name, created_at) VALUES (?, ?, ?)",
		c.ID, c.ActiveBranch, encTime(c.CreatedAt))
	return dbErr(ctx, err, fmt.Sprintf("chat %q: create branch %q", c.ID, c.ActiveBranch))
}

func insertChat(ctx context.Context, tx *sql.Tx, c *chat.Chat, meta any, u chat.Usage, messages int) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO chats (id, title, metadata, active_branch, created_at, updated_at,
		message_count, prompt_tokens, completion_tokens, total_tokens, cached_tokens, reasoning_tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.Title, meta, c.ActiveBranch, encTime(c.CreatedAt), encTime(c.UpdatedAt),
		messages, u.PromptTokens, u.CompletionTokens, u.TotalTokens, u.CachedTokens, u.ReasoningTokens)
	if err != nil {
		err = dbErr(ctx, err, fmt.Sprintf("create chat %q", c.ID))
		if isConflict(err) {
			return conflictf("chat %q already exists", c.ID)
		}
	}
	return err
}

func encMetadata(m map[string]any) (any, error) {
	if m == nil {
		return nil, nil
	}
	return marshalJSON(m)
}

// decMetadata decodes metadata with numbers as json.Number, so that they round-trip
// exactly.
func decMetadata(b []byte) (map[string]any, error) {
	if b == nil {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	err := dec.Decode(&m)
	return m, err
}

// chatCols are the columns scanChat reads, in order.
const chatCols = `c.id, c.title, c.metadata, c.active_branch, c.created_at, c.updated_at, c.message_count,
	c.prompt_tokens, c.completion_tokens, c.total_tokens, c.cached_tokens, c.reasoning_tokens`

type rowScanner interface{ Scan(dest ...any) error }

func scanChat(s rowScanner, extra ...any) (chat.Chat, chat.Usage, int, error) {
	var (
		c                chat.Chat
		u                chat.Usage
		meta             []byte
		created, updated string
		messages         int
	)
	dest := append([]any{&c.ID, &c.Title, &meta, &c.ActiveBranch, &created, &updated, &messages,
		&u.PromptTokens, &u.CompletionTokens, &u.TotalTokens, &u.CachedTokens, &u.ReasoningTokens}, extra...)
	if err := s.Scan(dest...); err != nil {
		return c, u, 0, err
	}
	var err error
	if c.Metadata, err = decMetadata(meta); err != nil {
		return c, u, 0, fmt.Errorf("chat %q: metadata: %w", c.ID, err)
	}
	if c.CreatedAt, err = decTime(created); err != nil {
		return c, u, 0, fmt.Errorf("chat %q: %w", c.ID, err)
	}
	if c.UpdatedAt, err = decTime(updated); err != nil {
		return c, u, 0, fmt.Errorf("chat %q: %w", c.ID, err)
	}
	return c, u, messages, nil
}

func loadChat(ctx context.Context, q querier, id string) (chat.Chat, chat.Usage, error) {
	c, u, _, err := scanChat(q.QueryRowContext(ctx, "SELECT "+chatCols+" FROM chats c WHERE c.id = ?", id))
	if err == sql.ErrNoRows {
		return c, u, notFoundf("chat %q not found", id)
	}
	return c, u, dbErr(ctx, err, fmt.Sprintf("load chat %q", id))
}

// Chat returns a chat; ErrNotFound if there is none.
func (d *DB) Chat(ctx context.Context, id string) (chat.Chat, error) {
	c, _, err := loadChat(ctx, d.db, id)
	return c, err
}

// ChatUsage returns the token usage of a chat: the sum, with chat.Usage.Add, of
// Turn.Counted() over every turn of the chat, on every branch. It is kept up to date by
// each Commit, so this is one row read.
func (d *DB) ChatUsage(ctx context.Context, id string) (chat.Usage, error) {
	_, u, err := loadChat(ctx, d.db, id)
	return u, err
}

// ListOptions selects the chats ListChats returns.
type ListOptions struct {
	// Search, when not blank, keeps the chats with a message whose text (text parts, baked
	// reminders left out) holds every word of Search, each as a word prefix, in any order
	// and case. Words are taken literally: quotes and FTS operators have no meaning.
	Search string
	// Limit is the most chats returned; 0 or less is no limit.
	Limit int
}

// ChatSummary is a chat as listed by ListChats.
type ChatSummary struct {
	chat.Chat
	Branches int        // number of branches
	Turns    int        // user messages on the active branch
	Usage    chat.Usage // as ChatUsage
	Messages int        // messages of the chat, on every branch
}

// ListChats returns the chats, most recently updated first.
func (d *DB) ListChats(ctx context.Context, opt ListOptions) ([]ChatSummary, error) {
	// The chats are chosen and sorted first (no index keeps them in updated order: see
	// migration 0007), then only those get their branches read.
	inner := "SELECT * FROM chats"
	var args []any
	var q querier = d.db
	if strings.TrimSpace(opt.Search) != "" {
		match := ftsQuery(opt.Search)
		if match == "" {
			return nil, nil // nothing searchable: no word characters
		}
		inner += ` WHERE id IN (SELECT m.chat_id FROM messages_fts f JOIN messages m ON m.pk = f.rowid
			WHERE messages_fts MATCH ?1`
		args = append(args, match)
		if d.readOnly {
			// The messages the index waits for are indexed in memory, on one connection.
			conn, err := d.db.Conn(ctx)
			if err != nil {
				return nil, dbErr(ctx, err, "list chats")
			}
			defer conn.Close()
			pending, err := indexPendingTemp(ctx, conn)
			if pending {
				defer conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+pendingFTS)
			}
			if err != nil {
				return nil, err
			}
			if pending {
				inner += ` UNION SELECT m.chat_id FROM ` + pendingFTS + ` f JOIN messages m ON m.pk = f.rowid
					WHERE pending_fts MATCH ?1`
			}
			q = conn
		} else if err := d.indexForSearch(ctx); err != nil {
			return nil, err
		}
		inner += ")"
	}
	inner += " ORDER BY updated_at DESC, id"
	if opt.Limit > 0 {
		inner += " LIMIT ?"
		args = append(args, opt.Limit)
	}
	query := `SELECT ` + chatCols + `,
		(SELECT count(*) FROM branches b WHERE b.chat_id = c.id),
		coalesce((SELECT m.user_turns FROM branches b JOIN messages m ON m.chat_id = b.chat_id AND m.id = b.head
			WHERE b.chat_id = c.id AND b.name = c.active_branch), 0)
		FROM (` + inner + `) c ORDER BY c.updated_at DESC, c.id`
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbErr(ctx, err, "list chats")
	}
	defer rows.Close()
	var out []ChatSummary
	for rows.Next() {
		var s ChatSummary
		var err error
		s.Chat, s.Usage, s.Messages, err = scanChat(rows, &s.Branches, &s.Turns)
		if err != nil {
			return nil, dbErr(ctx, err, "list chats")
		}
		out = append(out, s)
	}
	return out, dbErr(ctx, rows.Err(), "list chats")
}

// ftsQuery turns user text into an FTS5 query: every whitespace-separated word as a quoted
// string (quotes doubled) with a prefix star, all required. Words without a letter or digit
// are dropped: the tokenizer would find nothing in them.
func ftsQuery(s string) string {
	var terms []string
	for _, w := range strings.Fields(s) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
			continue
		}
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"*`)
	}
	return strings.Join(terms, " ")
}

// touchChat sets the chat's updated time, and its active branch when active is not "".
func touchChat(ctx context.Context, tx *sql.Tx, chatID string, at time.Time, active string) error {
	res, err := tx.ExecContext(ctx, `UPDATE chats SET updated_at = ?1,
		active_branch = CASE WHEN ?2 IS NULL THEN active_branch ELSE ?2 END WHERE id = ?3`,
		encTime(at), nullStr(active), chatID)
	if err != nil {
		return dbErr(ctx, err, fmt.Sprintf("update chat %q", chatID))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFoundf("chat %q not found", chatID)
	}
	return nil
}

// PricedUsageByModel returns the usage a chat's cost is priced from, per model name (the
// model each turn's request named), every branch included: each turn counts its reported
// usage, or its estimate when the server reported none, as ChatUsage does; a scripted
// reply without reported usage, never sent to a model, is left out (chat.Turn.Priced).
func (d *DB) PricedUsageByModel(ctx context.Context, chatID string) (map[string]chat.Usage, error) {
	out := map[string]chat.Usage{}
	err := d.read(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT coalesce(json_extract(request, '$.model'), ''),
			sum(CASE WHEN rep_total IS NULL THEN est_prompt ELSE rep_prompt END),
			sum(CASE WHEN rep_total IS NULL THEN est_completion ELSE rep_completion END),
			sum(CASE WHEN rep_total IS NULL THEN est_total ELSE rep_total END),
			sum(CASE WHEN rep_total IS NULL THEN est_cached ELSE rep_cached END),
			sum(CASE WHEN rep_total IS NULL THEN est_reasoning ELSE rep_reasoning END)
			FROM turns WHERE chat_id = ? AND (rep_total IS NOT NULL OR json_extract(request, '$.scripted') IS NOT 1)
			GROUP BY 1`, chatID)
		if err != nil {
			return dbErr(ctx, err, "load usage by model")
		}
		defer rows.Close()
		for rows.Next() {
			var model string
			var u chat.Usage
			if err := rows.Scan(&model, &u.PromptTokens, &u.CompletionTokens, &u.TotalTokens, &u.CachedTokens, &u.ReasoningTokens); err != nil {
				return dbErr(ctx, err, "load usage by model")
			}
			if u.TotalTokens == 0 {
				u.TotalTokens = u.PromptTokens + u.CompletionTokens
			}
			out[model] = u
		}
		return dbErr(ctx, rows.Err(), "load usage by model")
	})
	return out, err
}
