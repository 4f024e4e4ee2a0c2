package store

import (
	"context"
	"database/sql"
	"sync"
)

// The statements of a commit, prepared once per database (prepared).
const (
	// qBranchHead reads a branch's head with what the head's child needs (msgInfo).
	qBranchHead = `SELECT b.head, m.pk, m.depth, m.user_turns FROM branches b
			LEFT JOIN messages m ON m.chat_id = b.chat_id AND m.id = b.head
			WHERE b.chat_id = ? AND b.name = ?`
	qParentInfo = "SELECT pk, depth, user_turns FROM messages WHERE chat_id = ? AND id = ?"
	qInsMessage = `INSERT INTO messages
			(chat_id, id, parent_id, parent_pk, depth, user_turns, role, parts, locale, reminders, interrupted, created_at,
			turn_id, turn_number, turn_fired)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// qTurnOnMessage writes a turn's columns on its assistant message stored before.
	qTurnOnMessage = "UPDATE messages SET turn_id = ?, turn_number = ?, turn_fired = ? WHERE chat_id = ? AND id = ?"
	qInsTurn       = `INSERT INTO turns (chat_id, id, branch, number,
			user_message_id, assistant_message_id, at, request, fired,
			rep_prompt, rep_completion, rep_total, rep_cached, rep_reasoning,
			est_prompt, est_completion, est_total, est_cached, est_reasoning,
			ttft_ns, latency_ns, finish_reason, error, responses, context_digest)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qInsDecisions = "INSERT INTO turn_decisions (turn_pk, decisions) VALUES (?, ?)"
	qInsPiece     = "INSERT INTO json_pieces (text) VALUES (?) ON CONFLICT (text) DO NOTHING"
	qPieceID      = "SELECT id FROM json_pieces WHERE text = ?"
	qMoveHead     = "UPDATE branches SET head = ? WHERE chat_id = ? AND name = ? AND head IS ?"
	qUpdateChat   = `UPDATE chats SET updated_at = ?1, message_count = message_count + ?2,
		prompt_tokens = prompt_tokens + ?3, completion_tokens = completion_tokens + ?4, total_tokens = total_tokens + ?5,
		cached_tokens = cached_tokens + ?6, reasoning_tokens = reasoning_tokens + ?7,
		active_branch = coalesce(?8, active_branch)
		WHERE id = ?9`
)

// The indexes of the prepared statements in stmtQueries.
const (
	sBranchHead = iota
	sParentInfo
	sInsMessage
	sInsTurn
	sTurnOnMessage
	sInsDecisions
	sInsPiece
	sPieceID
	sMoveHead
	sUpdateChat
)

// stmtQueries lists the prepared statements, by index.
var stmtQueries = [...]string{qBranchHead, qParentInfo, qInsMessage, qInsTurn, qTurnOnMessage, qInsDecisions, qInsPiece, qPieceID, qMoveHead, qUpdateChat}

// stmtSet holds the statements of stmtQueries prepared on the database. A transaction
// takes them with Tx.StmtContext, which reuses the statement each connection prepared
// before: SQLite parses each query once per connection instead of once per commit.
type stmtSet struct {
	list [len(stmtQueries)]*sql.Stmt
}

// stmtCache prepares the statement set on first use.
type stmtCache struct {
	mu     sync.Mutex
	set    *stmtSet
	closed bool
}

// prepared returns the database's statement set, preparing it on the first call; nil if
// preparing failed or the database is closed (the callers then prepare in their
// transaction, and a later call tries again). It must be
// called outside any transaction: with one connection (Memory), preparing waits for it.
func (d *DB) prepared(ctx context.Context) *stmtSet {
	c := &d.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set != nil || c.closed {
		return c.set
	}
	s := &stmtSet{}
	for i, q := range stmtQueries {
		st, err := d.db.PrepareContext(ctx, q)
		if err != nil {
			s.close()
			return nil
		}
		s.list[i] = st
	}
	c.set = s
	return s
}

// close closes the prepared statements.
func (s *stmtSet) close() {
	if s == nil {
		return
	}
	for _, st := range s.list {
		if st != nil {
			st.Close()
		}
	}
}

// closeStmts closes the statement set before the database closes.
func (d *DB) closeStmts() {
	d.stmts.mu.Lock()
	defer d.stmts.mu.Unlock()
	d.stmts.set.close()
	d.stmts.set, d.stmts.closed = nil, true
}

// txStmts gives a transaction its statements: the prepared set's, or statements
// prepared in the transaction when there is no set. Statements are taken on first use and
// closed with the transaction.
type txStmts struct {
	tx  *sql.Tx
	set *stmtSet
	got [len(stmtQueries)]*sql.Stmt
}

// stmt returns the transaction's statement of stmtQueries[i].
func (t *txStmts) stmt(ctx context.Context, i int) (*sql.Stmt, error) {
	if t.got[i] != nil {
		return t.got[i], nil
	}
	var st *sql.Stmt
	if t.set != nil {
		st = t.tx.StmtContext(ctx, t.set.list[i])
	} else {
		var err error
		if st, err = t.tx.PrepareContext(ctx, stmtQueries[i]); err != nil {
			return nil, err
		}
	}
	t.got[i] = st
	return st, nil
}
