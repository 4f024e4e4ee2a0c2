package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// ExportChat returns the whole of a chat, read in one snapshot: messages in the order they
// were written (parents before children), branches and checkpoints in the order they were
// made, turn records with every part, in commit order. The lists are empty, not nil, when
// the chat has none. ErrNotFound if there is no such chat.
func (d *DB) ExportChat(ctx context.Context, id string) (chat.Archive, error) {
	var a chat.Archive
	err := d.read(ctx, func(q querier) error {
		var err error
		if a.Chat, _, err = loadChat(ctx, q, id); err != nil {
			return err
		}
		rows, err := q.QueryContext(ctx, "SELECT "+msgCols+" FROM messages WHERE chat_id = ? ORDER BY pk", id)
		if err != nil {
			return dbErr(ctx, err, "export messages")
		}
		if a.Messages, err = scanMessages(ctx, rows, 0, nil); err != nil {
			return err
		}
		bs, err := loadBranchInfos(ctx, q, id)
		if err != nil {
			return err
		}
		a.Branches = make([]chat.Branch, len(bs))
		for i := range bs {
			a.Branches[i] = bs[i].Branch
		}
		if a.Checkpoints, err = loadCheckpoints(ctx, q, id); err != nil {
			return err
		}
		a.Turns, err = queryTurns(ctx, q, &d.pieces, id, DetailAll, "1")
		return err
	})
	if err != nil {
		return chat.Archive{}, err
	}
	// Empty lists, not null, so an export reads the same whatever it holds.
	if a.Messages == nil {
		a.Messages = []chat.Message{}
	}
	if a.Checkpoints == nil {
		a.Checkpoints = []chat.Checkpoint{}
	}
	if a.Turns == nil {
		a.Turns = []chat.Turn{}
	}
	return a, nil
}

// ImportChat stores a whole chat under a.Chat.ID in one transaction: the chat, its
// messages, branches, checkpoints and turn records; the chat's message count and usage
// totals are derived from them. Each record is checked as CreateChat and Commit check
// theirs (ErrInvalid); each message's parent must come before it in a.Messages
// (ErrNotFound otherwise); a chat id that exists gives ErrConflict. Nothing is written
// when it fails.
//
// It does not check that the whole is a chat the engine could have made (turns numbered
// and linked as the engine writes them, branch heads at replies): package format checks an
// import file completely before it calls ImportChat.
func (d *DB) ImportChat(ctx context.Context, a chat.Archive) error {
	c := &a.Chat
	if err := checkChat(c); err != nil {
		return err
	}
	meta, err := encMetadata(c.Metadata)
	if err != nil {
		return invalidf("chat %q: metadata: %v", c.ID, err)
	}
	for i := range a.Messages {
		if err := checkMessage(&a.Messages[i]); err != nil {
			return fmt.Errorf("chat %q: %w", c.ID, err)
		}
	}
	for _, b := range a.Branches {
		if err := checkName("branch name", b.Name); err != nil {
			return fmt.Errorf("chat %q: %w", c.ID, err)
		}
		if err := checkTime(b.CreatedAt, "branch "+quote(b.Name)); err != nil {
			return fmt.Errorf("chat %q: %w", c.ID, err)
		}
	}
	for _, k := range a.Checkpoints {
		if err := checkName("checkpoint name", k.Name); err != nil {
			return fmt.Errorf("chat %q: %w", c.ID, err)
		}
		if err := checkTime(k.CreatedAt, "checkpoint "+quote(k.Name)); err != nil {
			return fmt.Errorf("chat %q: %w", c.ID, err)
		}
	}
	turns := make([]encodedTurn, len(a.Turns))
	defer releasePlans(turns)
	var usage chat.Usage
	for i := range a.Turns {
		t := &a.Turns[i]
		if t.ChatID != c.ID {
			return invalidf("chat %q: turn %q belongs to chat %q", c.ID, t.ID, t.ChatID)
		}
		var err error
		if turns[i], err = d.encodeTurn(t); err != nil {
			return fmt.Errorf("chat %q: %w", c.ID, err)
		}
		usage = usage.Add(t.Counted())
	}
	set := d.prepared(ctx)
	added := newPieces{}
	indexed := int64(-1)
	var docs map[int64]searchDoc
	err = d.write(ctx, func(tx *sql.Tx) error {
		clear(added)
		st := &txStmts{tx: tx, set: set}
		if err := insertChat(ctx, tx, c, meta, usage, len(a.Messages)); err != nil {
			return err
		}
		byMsg := turnsByMessage(a.Messages, turns)
		w := msgWriter{st: st, chatID: c.ID, turns: turns, byMsg: byMsg}
		if err := w.insertAll(ctx, a.Messages); err != nil {
			return err
		}
		docs = w.docs
		if w.lastPK > 0 {
			var err error
			if indexed, err = d.indexIfBehind(ctx, tx, &w); err != nil {
				return err
			}
		}
		for _, b := range a.Branches {
			_, err := tx.ExecContext(ctx, "INSERT INTO branches (chat_id, name, head, parent, created_at) VALUES (?, ?, ?, ?, ?)",
				c.ID, b.Name, nullStr(b.Head), nullStr(b.Parent), encTime(b.CreatedAt))
			if err != nil {
				return dbErr(ctx, err, fmt.Sprintf("import chat %q: branch %q", c.ID, b.Name))
			}
		}
		for _, k := range a.Checkpoints {
			_, err := tx.ExecContext(ctx, "INSERT INTO checkpoints (chat_id, name, message_id, created_at) VALUES (?, ?, ?, ?)",
				c.ID, k.Name, k.MessageID, encTime(k.CreatedAt))
			if err != nil {
				return dbErr(ctx, err, fmt.Sprintf("import chat %q: checkpoint %q", c.ID, k.Name))
			}
		}
		tw := turnWriter{st: st, chatID: c.ID, pieces: &d.pieces, added: added, byMsg: byMsg}
		for i := range turns {
			if err := tw.insert(ctx, &turns[i]); err != nil {
				return err
			}
			if err := tw.insertDecisions(ctx, &turns[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		d.pieces.learn(added)
		d.fts.keep(docs)
		d.fts.saw(indexed)
	}
	return err
}
