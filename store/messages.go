package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// msgCols are the columns scanMessages reads, in order; pathCols are the same for a path
// walk, which knows each parent without reading it.
const (
	msgCols  = "id, parent_id, role, parts, locale, reminders, interrupted, created_at"
	pathCols = "m.id, NULL, m.role, m.parts, m.locale, m.reminders, m.interrupted, m.created_at"
)

// Message returns one message of a chat; ErrNotFound if there is none.
func (d *DB) Message(ctx context.Context, chatID, id string) (chat.Message, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT "+msgCols+" FROM messages WHERE chat_id = ? AND id = ?", chatID, id)
	if err != nil {
		return chat.Message{}, dbErr(ctx, err, "load message")
	}
	ms, err := scanMessages(ctx, rows, 1, nil)
	if err != nil {
		return chat.Message{}, err
	}
	if len(ms) == 0 {
		return chat.Message{}, notFoundf("chat %q: message %q not found", chatID, id)
	}
	return ms[0], nil
}

// Messages returns the messages of a chat with the given ids, in the order of ids (to
// rebuild a request from SentRequest.MessageIDs). An id that does not exist gives
// ErrNotFound.
func (d *DB) Messages(ctx context.Context, chatID string, ids []string) ([]chat.Message, error) {
	var out []chat.Message
	err := d.read(ctx, func(q querier) error {
		var err error
		out, err = messagesByID(ctx, q, chatID, ids)
		return err
	})
	return out, err
}

func messagesByID(ctx context.Context, q querier, chatID string, ids []string) ([]chat.Message, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT `+msgCols+` FROM messages
		WHERE chat_id = ? AND id IN (SELECT value FROM json_each(?))`, chatID, string(list))
	if err != nil {
		return nil, dbErr(ctx, err, "load messages")
	}
	ms, err := scanMessages(ctx, rows, len(ids), nil)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]int, len(ms))
	for i := range ms {
		byID[ms[i].ID] = i
	}
	out := make([]chat.Message, len(ids))
	for i, id := range ids {
		j, ok := byID[id]
		if !ok {
			return nil, notFoundf("chat %q: message %q not found", chatID, id)
		}
		out[i] = ms[j]
	}
	return out, nil
}

// Children returns the messages whose parent is parentID ("" for the roots), oldest first:
// the alternatives an edit or a regenerate left beside each other.
func (d *DB) Children(ctx context.Context, chatID, parentID string) ([]chat.Message, error) {
	query := "SELECT " + msgCols + " FROM messages WHERE chat_id = ? AND parent_id = ? ORDER BY pk"
	args := []any{chatID, parentID}
	if parentID == "" {
		query = "SELECT " + msgCols + " FROM messages WHERE chat_id = ? AND parent_id IS NULL ORDER BY pk"
		args = args[:1]
	}
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbErr(ctx, err, "load messages")
	}
	return scanMessages(ctx, rows, 0, nil)
}

// Path returns the messages from the root of the graph to head, in order. An empty head
// gives none; a head that does not exist gives ErrNotFound.
func (d *DB) Path(ctx context.Context, chatID, head string) ([]chat.Message, error) {
	if head == "" {
		return nil, nil
	}
	var out []chat.Message
	err := d.read(ctx, func(q querier) error {
		var err error
		out, err = loadPath(ctx, q, chatID, head)
		return err
	})
	return out, err
}

// loadPath returns the path from the root to head.
func loadPath(ctx context.Context, q querier, chatID, head string) ([]chat.Message, error) {
	ms, _, err := walkPath(ctx, q, chatID, head, nil)
	return ms, err
}

// A run shorter than shortRun messages is read with others, at most batchMessages
// messages a query.
const (
	shortRun      = 32
	batchMessages = 512
)

// maxWalkReserve bounds the room a path walk reserves ahead from the depth the head
// message records (a longer path grows its slice as it is read).
const maxWalkReserve = 1 << 16

// run is a stretch of a path whose messages have consecutive pks, first to last: each is
// the parent of the next (see migration 0003).
type run struct{ first, last int64 }

// pathRuns returns the runs that make up the path from the root to the message with pk
// head, head's run first. depth, head's number of ancestors, bounds the walk, so that a
// corrupt graph cannot loop.
func pathRuns(ctx context.Context, q querier, head int64, depth int) ([]run, error) {
	const start = "(SELECT max(s.pk) FROM messages s WHERE s.pk <= %s AND (s.parent_pk IS NULL OR s.parent_pk <> s.pk - 1))"
	rows, err := q.QueryContext(ctx, `WITH RECURSIVE r(n, first, last) AS (
			SELECT 0, `+fmt.Sprintf(start, "?1")+`, ?1
			UNION ALL
			SELECT r.n + 1, `+fmt.Sprintf(start, "m.parent_pk")+`, m.parent_pk
			FROM r JOIN messages m ON m.pk = r.first
			WHERE m.parent_pk IS NOT NULL AND r.n < ?2
		)
		SELECT first, last FROM r`, head, depth)
	if err != nil {
		return nil, dbErr(ctx, err, "load path")
	}
	defer rows.Close()
	var runs []run
	for rows.Next() {
		var r run
		if err := rows.Scan(&r.first, &r.last); err != nil {
			return nil, dbErr(ctx, err, "load path")
		}
		runs = append(runs, r)
	}
	return runs, dbErr(ctx, rows.Err(), "load path")
}

// walkPath walks from head towards the root and returns the messages walked, in path
// order. With known set, the walk stops before the first message for which known is true
// (the fork), which it returns; what lies before the fork is never read.
func walkPath(ctx context.Context, q querier, chatID, head string, known func(id string) bool) ([]chat.Message, string, error) {
	ms, _, fork, err := walk(ctx, q, chatID, head, known, false)
	return ms, fork, err
}

// walk is walkPath that also returns, with withTurns, the light turn record of each
// assistant message walked (joined in the same query: one pass instead of a scan of the
// chat's turns), in path order.
func walk(ctx context.Context, q querier, chatID, head string, known func(id string) bool, withTurns bool) ([]chat.Message, []chat.Turn, string, error) {
	if head == "" {
		return nil, nil, "", nil
	}
	var pk int64
	var depth int
	err := q.QueryRowContext(ctx, "SELECT pk, depth FROM messages WHERE chat_id = ? AND id = ?", chatID, head).Scan(&pk, &depth)
	if err == sql.ErrNoRows {
		return nil, nil, "", notFoundf("chat %q: message %q not found", chatID, head)
	}
	if err != nil {
		return nil, nil, "", dbErr(ctx, err, "load path")
	}
	// depth is a number read from the file: untrusted. It bounds the walk and is checked
	// against it, but what is reserved for the walk is bounded too, so that a depth of
	// 2,000,000,000 is reported rather than allocated.
	if depth < 0 {
		return nil, nil, "", corruptf("chat %q: message %q has depth %d", chatID, head, depth)
	}
	runs, err := pathRuns(ctx, q, pk, depth)
	if err != nil {
		return nil, nil, "", err
	}
	cols := pathCols
	if withTurns {
		cols += ", m.turn_id, m.turn_number, m.turn_fired" // see migration 0002
	}
	// The path is read newest first, so that the walk can stop at the fork without reading
	// what lies before it: a long run with one range scan, short runs (a chat written turn
	// by turn while another one was too) together, by pk, so that such a path costs a few
	// queries rather than one a turn.
	rangeQuery := "SELECT " + cols + " FROM messages m WHERE m.pk BETWEEN ? AND ? ORDER BY m.pk DESC"
	listQuery := "SELECT " + cols + " FROM json_each(?) j JOIN messages m ON m.pk = j.value ORDER BY j.key"
	fork := ""
	var stop func(m *chat.Message) bool
	if known != nil {
		stop = func(m *chat.Message) bool {
			if known(m.ID) {
				fork = m.ID
				return true
			}
			return false
		}
	}
	// Room for what the walk will likely read: the whole path, or, when it may stop at a
	// fork, the head's run (a branch made from another starts a run at its fork). Growing
	// the slices of big structs costs more than reserving them.
	want := min(depth, maxWalkReserve) + 1
	if known != nil && len(runs) > 0 {
		want = min(want, int(runs[0].last-runs[0].first)+1)
	}
	var turns []chat.Turn
	if withTurns {
		turns = make([]chat.Turn, 0, want/2+1) // a turn for every other message, usually
	}
	var extra func(m *chat.Message, rows *sql.Rows) ([]any, func() error)
	if withTurns {
		var tid sql.NullString
		var num sql.NullInt64
		var fired sql.RawBytes
		extra = func(m *chat.Message, _ *sql.Rows) ([]any, func() error) {
			return []any{&tid, &num, &fired}, func() error {
				if !tid.Valid {
					return nil
				}
				t := chat.Turn{ID: tid.String, ChatID: chatID, Number: int(num.Int64), AssistantMessageID: m.ID}
				if fired != nil {
					if err := decodeFired(fired, &t.Fired); err != nil {
						return fmt.Errorf("turn %q: fired: %w", t.ID, err)
					}
				}
				turns = append(turns, t)
				return nil
			}
		}
	}
	ms := make([]chat.Message, 0, want)
	for i := 0; i < len(runs); {
		var rows *sql.Rows
		if r := runs[i]; r.last-r.first+1 >= shortRun {
			rows, err = q.QueryContext(ctx, rangeQuery, r.first, r.last)
			i++
		} else {
			list, n := []byte{'['}, 0
			for ; i < len(runs) && runs[i].last-runs[i].first+1 < shortRun && n < batchMessages; i++ {
				for pk := runs[i].last; pk >= runs[i].first; pk-- {
					if n > 0 {
						list = append(list, ',')
					}
					list = strconv.AppendInt(list, pk, 10)
					n++
				}
			}
			rows, err = q.QueryContext(ctx, listQuery, string(append(list, ']')))
		}
		if err != nil {
			return nil, nil, "", dbErr(ctx, err, "load path")
		}
		var stopped bool
		if ms, stopped, err = scanInto(ctx, rows, ms, stop, extra); err != nil {
			return nil, nil, "", err
		}
		if stopped {
			break
		}
	}
	if fork == "" && len(ms)-1 != depth {
		return nil, nil, "", corruptf("chat %q: message %q has depth %d, but its path has %d messages", chatID, head, depth, len(ms))
	}
	// The walk yields head first. Each parent is the message before it on the path (the
	// walk followed parent_pk), so the query leaves parent_id out.
	for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
		ms[i], ms[j] = ms[j], ms[i]
	}
	for i, j := 0, len(turns)-1; i < j; i, j = i+1, j-1 {
		turns[i], turns[j] = turns[j], turns[i]
	}
	if len(ms) > 0 {
		ms[0].ParentID = fork
	}
	for i := 1; i < len(ms); i++ {
		ms[i].ParentID = ms[i-1].ID
	}
	if withTurns {
		// A turn's user message is its assistant message's parent.
		at := make(map[string]string, len(turns))
		for i := 1; i < len(ms); i++ {
			if ms[i].Role == chat.RoleAssistant {
				at[ms[i].ID] = ms[i].ParentID
			}
		}
		if len(ms) > 0 && ms[0].Role == chat.RoleAssistant {
			at[ms[0].ID] = ms[0].ParentID
		}
		for i := range turns {
			turns[i].UserMessageID = at[turns[i].AssistantMessageID]
		}
	}
	return ms, turns, fork, nil
}

// PathWithTurns is PathTail (known may be nil: then it is Path) that also returns the
// light turn records (ID, Number, UserMessageID, AssistantMessageID, Fired) of the
// assistant messages it walked, in path order, read in the same pass: what the engine
// needs to open a chat or switch branch. Turns that failed before any reply are not
// among them.
func (d *DB) PathWithTurns(ctx context.Context, chatID, head string, known func(id string) bool) ([]chat.Message, []chat.Turn, string, error) {
	var ms []chat.Message
	var turns []chat.Turn
	var fork string
	err := d.read(ctx, func(q querier) error {
		var err error
		ms, turns, fork, err = walk(ctx, q, chatID, head, known, true)
		return err
	})
	return ms, turns, fork, err
}

// PathTail returns the end of the path to head that a caller holding another path in
// memory lacks: the walk from head towards the root stops at the first message for which
// known is true (the fork, usually "is it on my current path?"). It returns the messages
// after the fork, in path order, and the fork's id ("" if the walk reached the root, and
// then the messages are the whole path). A branch switch between branches sharing a long
// prefix reads only what differs.
func (d *DB) PathTail(ctx context.Context, chatID, head string, known func(id string) bool) ([]chat.Message, string, error) {
	var ms []chat.Message
	var fork string
	err := d.read(ctx, func(q querier) error {
		var err error
		ms, fork, err = walkPath(ctx, q, chatID, head, known)
		return err
	})
	return ms, fork, err
}

// scanMessages reads rows of msgCols and closes them. If stop is set and returns true for
// a message, that message is left out and the rest is not read.
func scanMessages(ctx context.Context, rows *sql.Rows, capHint int, stop func(m *chat.Message) bool) ([]chat.Message, error) {
	out, _, err := scanInto(ctx, rows, make([]chat.Message, 0, capHint), stop, nil)
	return out, err
}

// scanInto is scanMessages appending to out, for rows that may have more columns after
// msgCols: extra gives their destinations and a function that reads them once the message
// is decoded. It reports whether stop ended the scan.
func scanInto(ctx context.Context, rows *sql.Rows, out []chat.Message, stop func(m *chat.Message) bool,
	extra func(m *chat.Message, rows *sql.Rows) ([]any, func() error)) ([]chat.Message, bool, error) {
	defer rows.Close()
	var (
		id                                      string
		parent                                  sql.NullString
		role, parts, locale, reminders, created sql.RawBytes
		interrupted                             bool
	)
	var m chat.Message
	dest := []any{&id, &parent, &role, &parts, &locale, &reminders, &interrupted, &created}
	var after func() error
	if extra != nil {
		more, fn := extra(&m, rows)
		dest, after = append(dest, more...), fn
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, false, dbErr(ctx, err, "read message")
		}
		m = chat.Message{ID: id, ParentID: parent.String, Role: internRole(role), Interrupted: interrupted}
		if err := decodeParts(parts, &m.Parts); err != nil {
			return nil, false, fmt.Errorf("message %q: parts: %w", id, err)
		}
		if locale != nil {
			m.Locale = new(chat.Locale)
			if err := json.Unmarshal(locale, m.Locale); err != nil {
				return nil, false, fmt.Errorf("message %q: locale: %w", id, err)
			}
		}
		if reminders != nil {
			if err := decodeReminders(reminders, &m.Reminders); err != nil {
				return nil, false, fmt.Errorf("message %q: reminders: %w", id, err)
			}
		}
		var err error
		if m.CreatedAt, err = decTime(string(created)); err != nil {
			return nil, false, fmt.Errorf("message %q: %w", id, err)
		}
		if stop != nil && stop(&m) {
			return out, true, nil
		}
		if after != nil {
			if err := after(); err != nil {
				return nil, false, err
			}
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, false, dbErr(ctx, err, "read messages")
	}
	return out, false, nil
}

// msgInfo is what a child needs of its parent: its pk, depth and user turns.
type msgInfo struct {
	pk        int64
	depth     int
	userTurns int
}

// child returns the msgInfo of m, child of p (nil for a root), but for its pk.
func (p *msgInfo) child(m *chat.Message) msgInfo {
	var c msgInfo
	if p != nil {
		c = msgInfo{depth: p.depth + 1, userTurns: p.userTurns}
	}
	if m.Role == chat.RoleUser {
		c.userTurns++
	}
	return c
}

// msgWriter inserts messages inside one transaction. Their full-text rows are written
// later, in batches (fts.go).
type msgWriter struct {
	st     *txStmts
	chatID string
	// known is the msgInfo of the stored message knownID, when the caller read it already.
	known   msgInfo
	knownID string
	// lastPK is the pk of the last message inserted, 0 before the first.
	lastPK int64
	// docs are the search texts of the messages inserted, by pk (fts.go).
	docs map[int64]searchDoc
	// turns are the turns of the transaction and byMsg the one of them whose columns an
	// assistant message of the transaction holds (turnsByMessage).
	turns []encodedTurn
	byMsg map[string]int
}

// turnsByMessage maps the id of each message of msgs that is the assistant message of one
// of turns to the last such turn: the message is inserted with that turn's columns
// (turn_id, turn_number, turn_fired), as migration 0002 keeps them. It is nil without
// turns.
func turnsByMessage(msgs []chat.Message, turns []encodedTurn) map[string]int {
	if len(turns) == 0 {
		return nil
	}
	ids := make(map[string]bool, len(msgs))
	for i := range msgs {
		ids[msgs[i].ID] = true
	}
	by := make(map[string]int, len(turns))
	for i := range turns {
		if a := turns[i].t.AssistantMessageID; a != "" && ids[a] {
			by[a] = i
		}
	}
	return by
}

// insert writes m, whose parent is described by parent (nil for a root), and returns what
// m's children need. m must have been checked with checkMessage.
func (w *msgWriter) insert(ctx context.Context, m *chat.Message, parent *msgInfo) (msgInfo, error) {
	info := parent.child(m)
	parts, err := encodeParts(m.Parts)
	if err != nil {
		return info, invalidf("message %q: parts: %v", m.ID, err)
	}
	var locale, reminders any
	if m.Locale != nil {
		if locale, err = marshalJSON(m.Locale); err != nil {
			return info, invalidf("message %q: locale: %v", m.ID, err)
		}
	}
	if len(m.Reminders) > 0 {
		reminders = encodeReminders(m.Reminders)
	}
	ins, err := w.st.stmt(ctx, sInsMessage)
	if err != nil {
		return info, dbErr(ctx, err, "insert message")
	}
	var parentPK any
	if parent != nil {
		parentPK = parent.pk
	}
	var turnID, turnNumber, turnFired any
	if i, ok := w.byMsg[m.ID]; ok {
		t := &w.turns[i]
		turnID, turnNumber, turnFired = t.t.ID, t.t.Number, t.fired
	}
	res, err := ins.ExecContext(ctx, w.chatID, m.ID, nullStr(m.ParentID), parentPK, info.depth, info.userTurns,
		string(m.Role), parts, locale, reminders, m.Interrupted, encTime(m.CreatedAt), turnID, turnNumber, turnFired)
	if err != nil {
		err = dbErr(ctx, err, fmt.Sprintf("chat %q: message %q", w.chatID, m.ID))
		if isConflict(err) {
			return info, conflictf("chat %q: message %q already exists", w.chatID, m.ID)
		}
		return info, err
	}
	if info.pk, err = res.LastInsertId(); err != nil {
		return info, dbErr(ctx, err, "insert message")
	}
	w.lastPK = info.pk
	if w.docs == nil {
		w.docs = make(map[int64]searchDoc, 2)
	}
	w.docs[info.pk] = searchDoc{chatID: w.chatID, id: m.ID, text: searchText(m)}
	return info, nil
}

// insertAll writes msgs in order. Each parent is an earlier one of msgs or a message of
// the chat already stored (ErrNotFound otherwise).
func (w *msgWriter) insertAll(ctx context.Context, msgs []chat.Message) error {
	infos := make(map[string]msgInfo, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		var parent *msgInfo
		if m.ParentID != "" {
			p, ok := infos[m.ParentID]
			if !ok && w.knownID != "" && m.ParentID == w.knownID {
				p, ok = w.known, true
			}
			if !ok {
				var err error
				if p, err = w.parentInfo(ctx, m.ParentID); err != nil {
					return fmt.Errorf("chat %q: message %q: parent: %w", w.chatID, m.ID, err)
				}
			}
			parent = &p
		}
		in, err := w.insert(ctx, m, parent)
		if err != nil {
			return err
		}
		infos[m.ID] = in
	}
	return nil
}

// parentInfo is the package's parentInfo, with the transaction's prepared statement.
func (w *msgWriter) parentInfo(ctx context.Context, id string) (msgInfo, error) {
	st, err := w.st.stmt(ctx, sParentInfo)
	if err != nil {
		return msgInfo{}, dbErr(ctx, err, "load message")
	}
	var info msgInfo
	err = st.QueryRowContext(ctx, w.chatID, id).Scan(&info.pk, &info.depth, &info.userTurns)
	if err == sql.ErrNoRows {
		return info, notFoundf("chat %q: message %q not found", w.chatID, id)
	}
	return info, dbErr(ctx, err, "load message")
}

// parentInfo returns the msgInfo of a stored message; ErrNotFound if there is none.
func parentInfo(ctx context.Context, q querier, chatID, id string) (msgInfo, error) {
	var info msgInfo
	err := q.QueryRowContext(ctx, qParentInfo, chatID, id).
		Scan(&info.pk, &info.depth, &info.userTurns)
	if err == sql.ErrNoRows {
		return info, notFoundf("chat %q: message %q not found", chatID, id)
	}
	return info, dbErr(ctx, err, "load message")
}

// searchText is the text indexed for full-text search: the text parts, without the
// reminders baked into them.
func searchText(m *chat.Message) string {
	var b strings.Builder
	var only string // the text, while there is one
	for i, p := range m.Parts {
		if p.Type != chat.PartText {
			continue
		}
		text := p.Text
		var cut [][2]int
		skip := false
		for _, s := range m.Reminders {
			if s.Part != i {
				continue
			}
			if s.Mode == chat.SpanPart {
				skip = true
			}
			if s.Start >= 0 && s.Start <= s.End && s.End <= len(text) {
				cut = append(cut, [2]int{s.Start, s.End})
			}
		}
		if skip {
			continue
		}
		if len(cut) > 0 {
			sort.Slice(cut, func(a, b int) bool { return cut[a][0] < cut[b][0] })
			var t strings.Builder
			at := 0
			for _, c := range cut {
				if c[0] > at {
					t.WriteString(text[at:c[0]])
				}
				at = max(at, c[1])
			}
			t.WriteString(text[at:])
			text = t.String()
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if only == "" && b.Len() == 0 {
			only = text // the one text so far: not copied unless another follows
			continue
		}
		if b.Len() == 0 {
			b.WriteString(only)
		}
		b.WriteByte('\n')
		b.WriteString(text)
	}
	if b.Len() == 0 {
		return only
	}
	return b.String()
}
