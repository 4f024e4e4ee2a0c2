package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// encodedTurn is a turn with its JSON columns encoded before the transaction begins, so
// that the write lock is held as briefly as possible.
type encodedTurn struct {
	t         *chat.Turn
	request   string
	fired     any
	decisions any
	// responses is the JSON of the turn's responses, nil (NULL) for none.
	responses any
	// packed, when set, is the decision list packed, with the pieces the transaction
	// stores (pieces.go); decisions is then unused.
	packed *packPlan
	// late, when set, gives the decision list in the transaction (CommitLate).
	late func() json.RawMessage
	// pk is the row of the turn, once inserted.
	pk int64
}

// encodeTurn checks t and encodes its JSON columns, its decision list packed against the
// pieces the database knows. A list prepared ahead (PrepareDecisions) is taken as it was
// prepared.
func (d *DB) encodeTurn(t *chat.Turn) (encodedTurn, error) {
	e := encodedTurn{t: t}
	if err := d.encodeDecisions(&e); err != nil {
		return e, err
	}
	request, err := t.Request.AppendJSON(nil)
	if err != nil {
		return e, invalidf("turn %q: request: %v", t.ID, err)
	}
	e.request = string(request)
	if len(t.Fired) > 0 {
		e.fired = encodeFired(t.Fired)
	}
	if len(t.Responses) > 0 {
		e.responses = string(chat.AppendResponsesJSON(nil, t.Responses))
	}
	return e, nil
}

// encodeDecisions checks e.t and sets the decision list e writes: compact JSON with its
// repeated pieces planned (planList). A list that is not a compact JSON array is checked
// whole (the error chat.CheckTurn gives) and compacted first.
func (d *DB) encodeDecisions(e *encodedTurn) error {
	t := e.t
	raw := []byte(t.Decisions)
	plan, ok := d.ahead.take(t.Decisions)
	if !ok {
		plan, ok = d.pieces.planList(raw, nil)
	}
	if !ok {
		if err := checkTurn(t); err != nil || len(raw) == 0 {
			return err
		}
		s, err := compactJSON(raw)
		if err != nil {
			return invalidf("turn %q: decisions: %v", t.ID, err)
		}
		raw = []byte(s)
		plan, _ = d.pieces.planList(raw, nil) // valid JSON that is not an array is stored as it is
	} else {
		light := *t
		light.Decisions = nil
		if err := checkTurn(&light); err != nil {
			return err
		}
	}
	e.packed = plan
	if plan == nil {
		e.decisions = string(raw)
	}
	return nil
}

// Commit writes one step of a chat in one transaction: either all of it is visible, or
// nothing. In order:
//
//   - With c.NewBranch set, the branch c.Branch is created (named c.Branch; NewBranch.Name
//     must be empty or the same), forked at NewBranch.Head from NewBranch.Parent, and
//     c.ExpectHead is taken as NewBranch.Head; ErrConflict if the branch exists. Otherwise
//     the head of c.Branch must still be c.ExpectHead: if it moved, another process wrote
//     this chat, nothing is written and the error is ErrConflict (reload and retry).
//   - c.Messages are inserted in order; each parent is a message of the chat or an earlier
//     one of c.Messages (ErrNotFound otherwise; ErrConflict for an id that exists).
//   - c.Turns are inserted (an empty ChatID or Branch is taken from the commit).
//   - The head moves to c.NewHead; c.Activate makes the branch the active one.
//   - The chat's updated time becomes the latest CreatedAt of c.Messages and At of c.Turns
//     (the clock of the step, as scripts set it), or d.Now() for a step with neither; the
//     turns' Counted() usage is added to the chat's totals.
//
// Invalid input (empty ids, unknown roles or part types, invalid JSON) gives ErrInvalid
// before the transaction starts.
func (d *DB) Commit(ctx context.Context, c chat.Commit) error {
	return d.commit(ctx, c, nil)
}

// CommitLate is Commit for a step whose first turn's decision list is still being made
// (prepared on another goroutine, say): list gives it, and is called once, in the
// transaction, when the rest of the step is written. c.Turns[0].Decisions is ignored. A
// list that is not valid JSON fails the step as in Commit (ErrInvalid, nothing written).
// Prepare the list (PrepareDecisions) as soon as it is made, and the transaction only
// writes it.
func (d *DB) CommitLate(ctx context.Context, c chat.Commit, list func() json.RawMessage) error {
	if len(c.Turns) == 0 {
		return invalidf("chat %q: a commit with decisions to come has no turn", c.ChatID)
	}
	return d.commit(ctx, c, list)
}

// commit is Commit, with the decision list of the first turn given by late when set.
func (d *DB) commit(ctx context.Context, c chat.Commit, late func() json.RawMessage) error {
	if err := checkName("chat id", c.ChatID); err != nil {
		return err
	}
	var newChat *chat.Chat
	var newMeta any
	if c.NewChat != nil {
		nc := *c.NewChat
		if nc.ID != c.ChatID {
			return invalidf("chat %q: commit creates chat %q", c.ChatID, nc.ID)
		}
		var err error
		if newMeta, err = d.prepareChat(&nc); err != nil {
			return err
		}
		newChat = &nc
	}
	if c.NewBranch != nil {
		if c.Branch == "" {
			c.Branch = c.NewBranch.Name
		}
		if c.NewBranch.Name != "" && c.NewBranch.Name != c.Branch {
			return invalidf("chat %q: commit to branch %q creates branch %q", c.ChatID, c.Branch, c.NewBranch.Name)
		}
		c.ExpectHead = c.NewBranch.Head
	}
	if err := checkName("branch name", c.Branch); err != nil {
		return invalidf("chat %q: %v", c.ChatID, err)
	}
	var at time.Time
	seen := make(map[string]bool, len(c.Messages))
	for i := range c.Messages {
		m := &c.Messages[i]
		if err := checkMessage(m); err != nil {
			return fmt.Errorf("chat %q: %w", c.ChatID, err)
		}
		if seen[m.ID] {
			return invalidf("chat %q: message %q twice in one commit", c.ChatID, m.ID)
		}
		seen[m.ID] = true
		if m.CreatedAt.After(at) {
			at = m.CreatedAt
		}
	}
	turns := make([]encodedTurn, len(c.Turns))
	defer releasePlans(turns)
	var usage chat.Usage
	for i := range c.Turns {
		t := c.Turns[i] // a copy: the caller's slice is left as it was
		if t.ChatID == "" {
			t.ChatID = c.ChatID
		}
		if t.Branch == "" {
			t.Branch = c.Branch
		}
		if t.ChatID != c.ChatID {
			return invalidf("chat %q: turn %q belongs to chat %q", c.ChatID, t.ID, t.ChatID)
		}
		lateList := late != nil && i == 0
		if lateList {
			t.Decisions = nil // given in the transaction
		}
		var err error
		if turns[i], err = d.encodeTurn(&t); err != nil {
			return fmt.Errorf("chat %q: %w", c.ChatID, err)
		}
		if lateList {
			turns[i].late = late
		}
		usage = usage.Add(t.Counted())
		if t.At.After(at) {
			at = t.At
		}
	}
	if at.IsZero() {
		at = d.now()
	}
	set := d.prepared(ctx)
	added := newPieces{}
	indexed := int64(-1)
	var docs map[int64]searchDoc
	err := d.write(ctx, func(tx *sql.Tx) error {
		clear(added) // a retried transaction starts again
		if newChat != nil {
			if err := createChat(ctx, tx, newChat, newMeta); err != nil {
				return err
			}
		}
		return d.commitTx(ctx, &txStmts{tx: tx, set: set}, &c, turns, added, usage, at, &indexed, &docs)
	})
	if err == nil {
		d.pieces.learn(added)
		d.fts.keep(docs)
		d.fts.saw(indexed)
	}
	return err
}

// commitTx writes c in the transaction of st. indexed is set to the search index's
// indexed_pk when the transaction reads or moves it, docs to the search texts of the
// messages it writes (fts.go).
func (d *DB) commitTx(ctx context.Context, st *txStmts, c *chat.Commit, turns []encodedTurn, added newPieces, usage chat.Usage,
	at time.Time, indexed *int64, docs *map[int64]searchDoc) error {
	tx := st.tx
	var headInfo *msgInfo
	// The head check comes first: a writer that lost the race fails before any insert.
	if c.NewBranch != nil {
		b := *c.NewBranch
		b.Name = c.Branch
		if b.CreatedAt.IsZero() {
			b.CreatedAt = at
		}
		if err := checkTime(b.CreatedAt, "branch "+quote(b.Name)); err != nil {
			return err
		}
		if err := insertBranch(ctx, tx, c.ChatID, &b); err != nil {
			return err
		}
	} else {
		var head sql.NullString
		var pk, depth, userTurns sql.NullInt64
		q, err := st.stmt(ctx, sBranchHead)
		if err == nil {
			err = q.QueryRowContext(ctx, c.ChatID, c.Branch).Scan(&head, &pk, &depth, &userTurns)
		}
		if err == sql.ErrNoRows {
			if _, _, err := loadChat(ctx, tx, c.ChatID); err != nil {
				return err
			}
			return notFoundf("chat %q: branch %q not found", c.ChatID, c.Branch)
		}
		if err != nil {
			return dbErr(ctx, err, fmt.Sprintf("chat %q: load branch %q", c.ChatID, c.Branch))
		}
		if head.String != c.ExpectHead {
			return conflictf("chat %q: branch %q head moved (expected %q, found %q)", c.ChatID, c.Branch, c.ExpectHead, head.String)
		}
		if pk.Valid {
			// The step usually continues from the head: its parent needs no lookup.
			headInfo = &msgInfo{pk: pk.Int64, depth: int(depth.Int64), userTurns: int(userTurns.Int64)}
		}
	}

	byMsg := turnsByMessage(c.Messages, turns)
	w := msgWriter{st: st, chatID: c.ChatID, turns: turns, byMsg: byMsg}
	if headInfo != nil {
		w.known, w.knownID = *headInfo, c.ExpectHead
	}
	if err := w.insertAll(ctx, c.Messages); err != nil {
		return err
	}
	*docs = w.docs
	if w.lastPK > 0 {
		var err error
		if *indexed, err = d.indexIfBehind(ctx, tx, &w); err != nil {
			return err
		}
	}

	tw := turnWriter{st: st, chatID: c.ChatID, pieces: &d.pieces, added: added, byMsg: byMsg}
	for i := range turns {
		if err := tw.insert(ctx, &turns[i]); err != nil {
			return err
		}
	}

	move, err := st.stmt(ctx, sMoveHead)
	var res sql.Result
	if err == nil {
		res, err = move.ExecContext(ctx, nullStr(c.NewHead), c.ChatID, c.Branch, nullStr(c.ExpectHead))
	}
	if err != nil {
		return dbErr(ctx, err, fmt.Sprintf("chat %q: branch %q: move head to %q", c.ChatID, c.Branch, c.NewHead))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return conflictf("chat %q: branch %q head moved", c.ChatID, c.Branch)
	}

	active := any(nil)
	if c.Activate {
		active = c.Branch
	}
	upd, err := st.stmt(ctx, sUpdateChat)
	if err == nil {
		res, err = upd.ExecContext(ctx, encTime(at), len(c.Messages), usage.PromptTokens, usage.CompletionTokens, usage.TotalTokens,
			usage.CachedTokens, usage.ReasoningTokens, active, c.ChatID)
	}
	if err != nil {
		return dbErr(ctx, err, fmt.Sprintf("update chat %q", c.ChatID))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return notFoundf("chat %q not found", c.ChatID)
	}
	// The decision lists last: one given late is being prepared meanwhile.
	for i := range turns {
		e := &turns[i]
		if e.late != nil {
			e.t.Decisions = e.late()
			if err := d.encodeDecisions(e); err != nil {
				return fmt.Errorf("chat %q: %w", c.ChatID, err)
			}
		}
		if err := tw.insertDecisions(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// turnWriter inserts turns and their decisions inside one transaction.
type turnWriter struct {
	st     *txStmts
	chatID string
	pieces *pieceCache
	// added gathers the pieces of decision lists the transaction stores.
	added newPieces
	// byMsg is the msgWriter's: the assistant messages inserted with a turn's columns.
	byMsg map[string]int
}

// insert writes the record of a turn, without its decision list (insertDecisions).
func (w *turnWriter) insert(ctx context.Context, e *encodedTurn) error {
	t := e.t
	var rep [5]any
	if r := t.Reported; r != nil {
		rep = [5]any{r.PromptTokens, r.CompletionTokens, r.TotalTokens, r.CachedTokens, r.ReasoningTokens}
	}
	est := t.Estimated
	ins, err := w.st.stmt(ctx, sInsTurn)
	if err != nil {
		return dbErr(ctx, err, "insert turn")
	}
	res, err := ins.ExecContext(ctx, w.chatID, t.ID, t.Branch, t.Number,
		nullStr(t.UserMessageID), nullStr(t.AssistantMessageID), encTime(t.At), e.request, e.fired,
		rep[0], rep[1], rep[2], rep[3], rep[4],
		est.PromptTokens, est.CompletionTokens, est.TotalTokens, est.CachedTokens, est.ReasoningTokens,
		int64(t.TTFT), int64(t.Latency), t.FinishReason, t.Error, e.responses, nullDigest(t.ContextDigest))
	if err != nil {
		err = dbErr(ctx, err, fmt.Sprintf("chat %q: turn %q", w.chatID, t.ID))
		if isConflict(err) {
			return conflictf("chat %q: turn %q already exists", w.chatID, t.ID)
		}
		return err
	}
	if a := t.AssistantMessageID; a != "" {
		if _, inserted := w.byMsg[a]; !inserted {
			// A message stored before: it takes this turn's columns, the last turn's when
			// several name it.
			upd, err := w.st.stmt(ctx, sTurnOnMessage)
			if err == nil {
				_, err = upd.ExecContext(ctx, t.ID, t.Number, e.fired, w.chatID, a)
			}
			if err != nil {
				return dbErr(ctx, err, fmt.Sprintf("chat %q: turn %q: its message", w.chatID, t.ID))
			}
		}
	}
	e.pk, err = res.LastInsertId()
	return dbErr(ctx, err, "insert turn")
}

// insertDecisions writes the decision list of a turn inserted.
func (w *turnWriter) insertDecisions(ctx context.Context, e *encodedTurn) error {
	decisions := e.decisions
	if e.packed != nil {
		if err := e.packed.storePieces(ctx, w.st, w.pieces, w.added); err != nil {
			return err
		}
		decisions = e.packed.packed
	}
	if decisions == nil {
		return nil
	}
	dec, err := w.st.stmt(ctx, sInsDecisions)
	if err != nil {
		return dbErr(ctx, err, "insert turn decisions")
	}
	_, err = dec.ExecContext(ctx, e.pk, decisions)
	return dbErr(ctx, err, fmt.Sprintf("chat %q: turn %q: decisions", w.chatID, e.t.ID))
}

func isConflict(err error) bool { return errors.Is(err, ErrConflict) }
