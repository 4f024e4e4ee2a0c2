package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// BranchInfo is a branch as listed by Branches: the branch, the user messages (turns) and
// the messages on its path.
type BranchInfo = chat.BranchInfo

const branchCols = `b.name, coalesce(b.head, ''), coalesce(b.parent, ''), b.created_at,
	coalesce(m.user_turns, 0), coalesce(m.depth + 1, 0)`

const branchFrom = ` FROM branches b LEFT JOIN messages m ON m.chat_id = b.chat_id AND m.id = b.head`

func scanBranch(s rowScanner) (BranchInfo, error) {
	var b BranchInfo
	var created string
	if err := s.Scan(&b.Name, &b.Head, &b.Parent, &created, &b.Turns, &b.Messages); err != nil {
		return b, err
	}
	var err error
	b.CreatedAt, err = decTime(created)
	return b, err
}

// Branches returns the branches of a chat in the order they were made, with their turn
// counts. ErrNotFound if the chat does not exist.
func (d *DB) Branches(ctx context.Context, chatID string) ([]BranchInfo, error) {
	out, err := loadBranchInfos(ctx, d.db, chatID)
	if err == nil && len(out) == 0 { // every chat has its active branch
		return nil, notFoundf("chat %q not found", chatID)
	}
	return out, err
}

func loadBranchInfos(ctx context.Context, q querier, chatID string) ([]BranchInfo, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+branchCols+branchFrom+" WHERE b.chat_id = ? ORDER BY b.rowid", chatID)
	if err != nil {
		return nil, dbErr(ctx, err, "list branches")
	}
	defer rows.Close()
	var out []BranchInfo
	for rows.Next() {
		b, err := scanBranch(rows)
		if err != nil {
			return nil, dbErr(ctx, err, fmt.Sprintf("chat %q: list branches", chatID))
		}
		out = append(out, b)
	}
	return out, dbErr(ctx, rows.Err(), "list branches")
}

func loadBranch(ctx context.Context, q querier, chatID, name string) (BranchInfo, error) {
	b, err := scanBranch(q.QueryRowContext(ctx, "SELECT "+branchCols+branchFrom+" WHERE b.chat_id = ? AND b.name = ?", chatID, name))
	if err == sql.ErrNoRows {
		return b, notFoundf("chat %q: branch %q not found", chatID, name)
	}
	return b, dbErr(ctx, err, fmt.Sprintf("chat %q: load branch %q", chatID, name))
}

// Branch returns one branch of a chat; ErrNotFound if there is none.
func (d *DB) Branch(ctx context.Context, chatID, name string) (chat.Branch, error) {
	b, err := loadBranch(ctx, d.db, chatID, name)
	return b.Branch, err
}

// CreateBranch adds branch b to a chat, at b.Head ("" for a branch with no message yet),
// and makes it the active branch if activate is set. b.Head must be a message of the chat
// and b.Parent, when set, one of its branches (ErrNotFound otherwise); a zero b.CreatedAt
// is set from d.Now. A branch of that name gives ErrConflict.
//
// To fork and write the first step of the new branch at once, use Commit with
// CreateBranch instead.
func (d *DB) CreateBranch(ctx context.Context, chatID string, b chat.Branch, activate bool) error {
	if err := checkName("branch name", b.Name); err != nil {
		return err
	}
	if b.CreatedAt.IsZero() {
		b.CreatedAt = d.now()
	}
	if err := checkTime(b.CreatedAt, "branch "+quote(b.Name)); err != nil {
		return err
	}
	active := ""
	if activate {
		active = b.Name
	}
	return d.write(ctx, func(tx *sql.Tx) error {
		if err := insertBranch(ctx, tx, chatID, &b); err != nil {
			return err
		}
		return touchChat(ctx, tx, chatID, d.now(), active)
	})
}

// insertBranch checks the references of b and inserts it.
func insertBranch(ctx context.Context, tx *sql.Tx, chatID string, b *chat.Branch) error {
	if _, _, err := loadChat(ctx, tx, chatID); err != nil {
		return err
	}
	if b.Parent != "" {
		if _, err := loadBranch(ctx, tx, chatID, b.Parent); err != nil {
			return err
		}
	}
	if b.Head != "" {
		if _, err := parentInfo(ctx, tx, chatID, b.Head); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO branches (chat_id, name, head, parent, created_at) VALUES (?, ?, ?, ?, ?)",
		chatID, b.Name, nullStr(b.Head), nullStr(b.Parent), encTime(b.CreatedAt))
	if err != nil {
		err = dbErr(ctx, err, fmt.Sprintf("chat %q: create branch %q", chatID, b.Name))
		if isConflict(err) {
			return conflictf("chat %q: branch %q already exists", chatID, b.Name)
		}
	}
	return err
}

// SetActiveBranch makes branch name the active branch of a chat; ErrNotFound if the chat
// or the branch does not exist.
func (d *DB) SetActiveBranch(ctx context.Context, chatID, name string) error {
	return d.write(ctx, func(tx *sql.Tx) error {
		if _, err := loadBranch(ctx, tx, chatID, name); err != nil {
			return err
		}
		return touchChat(ctx, tx, chatID, d.now(), name)
	})
}

// SetCheckpoint names a message of a chat; a checkpoint of the same name is overwritten
// (it keeps its place in Checkpoints). ErrNotFound if the message does not exist.
func (d *DB) SetCheckpoint(ctx context.Context, chatID, name, messageID string) error {
	if err := checkName("checkpoint name", name); err != nil {
		return err
	}
	now := d.now()
	return d.write(ctx, func(tx *sql.Tx) error {
		if _, err := parentInfo(ctx, tx, chatID, messageID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (chat_id, name, message_id, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (chat_id, name) DO UPDATE SET message_id = excluded.message_id, created_at = excluded.created_at`,
			chatID, name, messageID, encTime(now))
		if err != nil {
			return dbErr(ctx, err, fmt.Sprintf("chat %q: set checkpoint %q", chatID, name))
		}
		return touchChat(ctx, tx, chatID, now, "")
	})
}

// Checkpoint returns a checkpoint of a chat; ErrNotFound if there is none.
func (d *DB) Checkpoint(ctx context.Context, chatID, name string) (chat.Checkpoint, error) {
	var c chat.Checkpoint
	var created string
	err := d.db.QueryRowContext(ctx, "SELECT name, message_id, created_at FROM checkpoints WHERE chat_id = ? AND name = ?",
		chatID, name).Scan(&c.Name, &c.MessageID, &created)
	if err == sql.ErrNoRows {
		return c, notFoundf("chat %q: checkpoint %q not found", chatID, name)
	}
	if err != nil {
		return c, dbErr(ctx, err, fmt.Sprintf("chat %q: load checkpoint %q", chatID, name))
	}
	c.CreatedAt, err = decTime(created)
	return c, err
}

// Checkpoints returns the checkpoints of a chat in the order they were first set.
func (d *DB) Checkpoints(ctx context.Context, chatID string) ([]chat.Checkpoint, error) {
	return loadCheckpoints(ctx, d.db, chatID)
}

func loadCheckpoints(ctx context.Context, q querier, chatID string) ([]chat.Checkpoint, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, message_id, created_at FROM checkpoints WHERE chat_id = ? ORDER BY rowid", chatID)
	if err != nil {
		return nil, dbErr(ctx, err, "list checkpoints")
	}
	defer rows.Close()
	var out []chat.Checkpoint
	for rows.Next() {
		var c chat.Checkpoint
		var created string
		if err := rows.Scan(&c.Name, &c.MessageID, &created); err != nil {
			return nil, dbErr(ctx, err, "list checkpoints")
		}
		if c.CreatedAt, err = decTime(created); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, dbErr(ctx, rows.Err(), "list checkpoints")
}
