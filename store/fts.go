package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// The full-text index (messages_fts) is written in batches, not by each commit: an FTS5
// insert writes a new segment, its structure record and the document's size at the end of
// every transaction, about a quarter of the pages a turn's commit wrote. fts_state holds
// indexed_pk: every message whose pk is at most indexed_pk is in the index, the ones above
// it are waiting. A search indexes the waiting messages before it runs (ListChats), so it
// finds every committed message; a commit that finds ftsBatch or more waiting indexes them
// too, so that a search never has a long chat's worth to catch up.

// ftsBatch is how many messages may wait for the full-text index before a commit indexes
// them: a search catches up with at most that many (about 17 ms for 1,000 messages of a
// scripted chat), and a scripted run of 500 turns leaves its messages to the next search
// rather than spend its commits on them.
const ftsBatch = 1024

// ftsChunk is how many waiting messages are read at a time while indexing.
const ftsChunk = 512

// ftsIndexed caches fts_state.indexed_pk as this process last saw it, -1 before it has
// read it. Commits use it only to decide when to look at the real value. It also keeps
// the search text of the messages this process committed and the index still waits
// for, so that indexing them does not decode the JSON it wrote (bounded: the others are
// read back). Its zero value is ready: it stores pk+1, so 0 is -1.
type ftsIndexed struct {
	pk1 atomic.Int64

	mu      sync.Mutex
	waiting map[int64]searchDoc
}

// searchDoc is the search text (searchText) of message id of chat chatID.
type searchDoc struct{ chatID, id, text string }

// maxWaitingDocs bounds the texts kept for the index.
const maxWaitingDocs = 4 * ftsBatch

// keep notes the search texts of messages a transaction committed.
func (f *ftsIndexed) keep(docs map[int64]searchDoc) {
	if len(docs) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.waiting == nil {
		f.waiting = make(map[int64]searchDoc)
	}
	for pk, d := range docs {
		if len(f.waiting) >= maxWaitingDocs {
			return
		}
		f.waiting[pk] = d
	}
}

// text returns the search text kept for the message at pk, if it is still message id of
// chat chatID: a pk that now holds another message (another process deleted a chat, and
// its pks were given again) has no text here.
func (f *ftsIndexed) text(pk int64, chatID, id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.waiting[pk]
	return d.text, ok && d.chatID == chatID && d.id == id
}

// indexedTo drops the texts of the messages up to pk, which the index now holds.
func (f *ftsIndexed) indexedTo(pk int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k := range f.waiting {
		if k <= pk {
			delete(f.waiting, k)
		}
	}
}

// seen returns the cached indexed_pk, -1 when unknown.
func (f *ftsIndexed) seen() int64 { return f.pk1.Load() - 1 }

// forget drops the cached value and the texts kept.
func (f *ftsIndexed) forget() {
	f.pk1.Store(0)
	f.mu.Lock()
	clear(f.waiting)
	f.mu.Unlock()
}

// saw records indexed_pk as a committed transaction left it; -1 leaves the cache as it is.
func (f *ftsIndexed) saw(pk int64) {
	if pk >= 0 {
		f.pk1.Store(pk + 1)
		f.indexedTo(pk)
	}
}

// indexedPK reads fts_state.indexed_pk.
func indexedPK(ctx context.Context, q querier) (int64, error) {
	var pk int64
	if err := q.QueryRowContext(ctx, "SELECT indexed_pk FROM fts_state").Scan(&pk); err != nil {
		return 0, dbErr(ctx, err, "read the search index state")
	}
	return pk, nil
}

// indexPending writes the full-text rows of the messages waiting for them and moves
// indexed_pk past them. It returns the new indexed_pk. tx must be a write transaction.
// known gives the search text of a message when it is known already (a message this
// process committed); the others' are read back.
func indexPending(ctx context.Context, tx querier, known func(pk int64, chatID, id string) (string, bool)) (int64, error) {
	return indexWaiting(ctx, tx, known, "messages_fts")
}

// pendingFTS is the temporary index of a search on a database opened read-only: the
// messages waiting for the full-text index, which it cannot write.
const pendingFTS = "temp.pending_fts"

// indexWaiting writes the full-text rows of the messages waiting for them into the index
// table into: messages_fts, whose indexed_pk it moves past them, or pendingFTS.
func indexWaiting(ctx context.Context, tx querier, known func(pk int64, chatID, id string) (string, bool), into string) (int64, error) {
	from, err := indexedPK(ctx, tx)
	if err != nil {
		return 0, err
	}
	last := from
	type row struct {
		pk   int64
		text string
	}
	var batch []row
	var m chat.Message
	for {
		batch = batch[:0]
		rows, err := tx.QueryContext(ctx, "SELECT pk, chat_id, id, parts, reminders FROM messages WHERE pk > ? ORDER BY pk LIMIT ?", last, ftsChunk)
		if err != nil {
			return 0, dbErr(ctx, err, "index messages")
		}
		n := 0
		for rows.Next() {
			var pk int64
			var chatID, id string
			var parts, reminders sql.RawBytes
			if err := rows.Scan(&pk, &chatID, &id, &parts, &reminders); err != nil {
				rows.Close()
				return 0, dbErr(ctx, err, "index messages")
			}
			n++
			last = pk
			if text, ok := known(pk, chatID, id); ok {
				if text != "" {
					batch = append(batch, row{pk, text})
				}
				continue
			}
			m.Parts, m.Reminders = nil, nil
			if err := decodeParts(parts, &m.Parts); err != nil {
				rows.Close()
				return 0, fmt.Errorf("index message %d: parts: %w", pk, err)
			}
			if len(reminders) > 0 {
				if err := decodeReminders(reminders, &m.Reminders); err != nil {
					rows.Close()
					return 0, fmt.Errorf("index message %d: reminders: %w", pk, err)
				}
			}
			if text := searchText(&m); text != "" {
				batch = append(batch, row{pk, text})
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return 0, dbErr(ctx, err, "index messages")
		}
		for _, r := range batch {
			if _, err := tx.ExecContext(ctx, "INSERT INTO "+into+" (rowid, text) VALUES (?, ?)", r.pk, r.text); err != nil {
				return 0, dbErr(ctx, err, "index messages")
			}
		}
		if n < ftsChunk {
			break
		}
	}
	if last != from && into == "messages_fts" {
		if _, err := tx.ExecContext(ctx, "UPDATE fts_state SET indexed_pk = ?", last); err != nil {
			return 0, dbErr(ctx, err, "index messages")
		}
	}
	return last, nil
}

// indexForSearch indexes the messages waiting for the full-text index, if any, so that a
// search finds every committed message.
func (d *DB) indexForSearch(ctx context.Context) error {
	var waiting bool
	err := d.db.QueryRowContext(ctx, `SELECT coalesce((SELECT max(pk) FROM messages), 0) >
		(SELECT indexed_pk FROM fts_state)`).Scan(&waiting)
	if err != nil {
		return dbErr(ctx, err, "read the search index state")
	}
	if !waiting {
		return nil
	}
	var pk int64
	err = d.write(ctx, func(tx *sql.Tx) error {
		pk, err = indexPending(ctx, tx, d.fts.text)
		return err
	})
	if err == nil {
		d.fts.saw(pk)
	}
	return err
}

// indexPendingTemp, on a connection to a database opened read-only, indexes the
// messages waiting for the full-text index into pendingFTS, made on the connection (the
// caller drops it), and reports whether any did wait.
func indexPendingTemp(ctx context.Context, conn *sql.Conn) (bool, error) {
	var waiting bool
	err := conn.QueryRowContext(ctx, `SELECT coalesce((SELECT max(pk) FROM messages), 0) >
		(SELECT indexed_pk FROM fts_state)`).Scan(&waiting)
	if err != nil || !waiting {
		return false, dbErr(ctx, err, "read the search index state")
	}
	// As messages_fts (migration 0001), in memory (temp_store).
	_, err = conn.ExecContext(ctx, "CREATE VIRTUAL TABLE "+pendingFTS+
		" USING fts5 (text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2')")
	if err != nil {
		return false, dbErr(ctx, err, "index messages")
	}
	_, err = indexWaiting(ctx, conn, func(int64, string, string) (string, bool) { return "", false }, pendingFTS)
	return true, err
}

// indexIfBehind, inside a commit whose last message has pk last, indexes the waiting
// messages when ftsBatch or more wait; w wrote the commit's messages. It returns
// indexed_pk as the transaction leaves it, or -1 when it did not read it.
func (d *DB) indexIfBehind(ctx context.Context, tx querier, w *msgWriter) (int64, error) {
	last := w.lastPK
	if seen := d.fts.seen(); seen >= 0 && last-seen < ftsBatch {
		return -1, nil
	}
	pk, err := indexedPK(ctx, tx)
	if err != nil || last-pk < ftsBatch {
		return pk, err
	}
	return indexPending(ctx, tx, func(pk int64, chatID, id string) (string, bool) {
		if doc, ok := w.docs[pk]; ok && doc.chatID == chatID && doc.id == id {
			return doc.text, true
		}
		return d.fts.text(pk, chatID, id)
	})
}
