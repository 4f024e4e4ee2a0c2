package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"unsafe"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// A turn's decision list repeats, turn after turn, the same predicate expressions, reminder
// texts and JSON between them: of the 120 KB that 200 reminders' decisions take, a few KB
// change from one turn to the next. The store keeps each repeated piece once, in the table
// json_pieces (migration 0005), and the list packed: the list with each such piece replaced
// by a reference. Reading unpacks it to the very bytes that were committed.
//
// The packed form begins with packMark; a reference is refStart, the piece's id in decimal,
// refEnd. Valid JSON holds no byte below 0x20 outside escapes, and the store keeps decision
// lists compact (no white space), so these bytes can mean nothing else.
const (
	packMark = 0x01
	refStart = 0x02
	refEnd   = 0x03
)

// The cut of a decision list into pieces: a string of at least minLiteral bytes (quotes
// included) is a piece of its own, the text between two of them another; a piece shorter
// than minPiece is always written as it is, since a reference would save little.
const (
	minLiteral = chat.EncodedListMinString
	minPiece   = 16
	// lookahead is how many pieces of the previous list a piece is compared with; only a
	// piece of at least minResync bytes (a reminder's opening fields with its id, its text
	// or expression) may match past the first, so that a short piece every reminder has
	// (`,"value":false,"why":`) never takes the comparison to another reminder's.
	lookahead = 32
	minResync = 32
	// maxSeen bounds the pieces seen once and remembered in case they come again.
	maxSeen = 1 << 16
)

// pieceCache is a database's memory of its pieces. Pieces are never changed or deleted, so
// what it knows stays true whatever other processes write: it only ever lacks the pieces
// they added.
type pieceCache struct {
	mu sync.Mutex
	// ids maps the text of each piece this process committed or read to its id.
	ids map[string]int64
	// texts maps ids to texts, for reads.
	texts map[int64]string
	// prev is the last list planned (a copy, prevRaw) and its pieces of at least minPiece
	// bytes: a piece of the next list that comes again is stored, one that changes from
	// turn to turn stays inline. spare and spareRaw are the buffers of the list before.
	prev, spare       []packSeg
	prevRaw, spareRaw []byte
	// prevAll and prevElems are all the pieces of that list and its elements
	// (planlist.go); spareAll and spareElems are the buffers of the list before.
	prevAll, spareAll     []packSeg
	prevElems, spareElems []listElem
	// seen holds the other pieces of JSON between strings seen in one list (a reminder's
	// fields when it fires, which the list before may not have had), with the number of
	// that list (lists): they too are stored when another list has them, but not when one
	// list has them twice. A string (a reason such as "turn 12 % 6 == 0") is stored only
	// when the previous list had it in the same place: the others change with the turn.
	seen  map[string]uint32
	lists uint32
}

// packSeg is one piece of a decision list to pack: raw[start:end], written as it is
// (id 0), as a reference to piece id (id > 0), or as a new piece (id < 0): written as it
// is in this list, and stored by the transaction for the lists after it.
type packSeg struct {
	start, end int
	id         int64
}

// packPlan is a decision list packed before the transaction: packed is its packed form,
// which refers only to pieces stored already, and store the pieces of raw the transaction
// adds to the table. The transaction thus has no list to build, only a few pieces to
// store (none in most turns).
type packPlan struct {
	raw    []byte
	segs   []packSeg // the list's pieces, while it is planned
	store  []packSeg
	packed string
}

// cutsPool and planPool hold the buffers of earlier commits: a list of 200 reminders has
// thousands of strings and pieces, and allocating for them every turn costs more than
// cutting.
var (
	cutsPool = sync.Pool{New: func() any { return new([]int) }}
	planPool = sync.Pool{New: func() any { return new(packPlan) }}
)

// releasePlans gives the plans of turns back to planPool once their transaction is over.
func releasePlans(turns []encodedTurn) {
	for i := range turns {
		if p := turns[i].packed; p != nil {
			turns[i].packed = nil
			p.raw, p.packed = nil, ""
			planPool.Put(p)
		}
	}
}

// stringCuts returns a function for chat.ScanJSONStrings that appends to *cuts the bounds
// of the strings long enough to be pieces of their own.
func stringCuts(cuts *[]int) func(start, end int) {
	return func(start, end int) {
		if end-start >= minLiteral {
			*cuts = append(*cuts, start, end)
		}
	}
}

// match returns the id of piece s: the id of a known piece, -1 for a new piece (s is
// among the next pieces of prev, from *j, which it moves past s, or it is JSON between
// strings seen in an earlier list), 0 to write s as it is.
func (c *pieceCache) match(s []byte, prev []packSeg, prevRaw []byte, j *int) int64 {
	for w := *j; w < len(prev) && w < *j+lookahead; w++ {
		if w > *j && len(s) < minResync {
			break
		}
		q := prev[w]
		if q.end-q.start == len(s) && bytes.Equal(prevRaw[q.start:q.end], s) {
			*j = w + 1
			if q.id > 0 {
				return q.id
			}
			if id, ok := c.ids[string(s)]; ok {
				return id
			}
			return -1
		}
	}
	if id, ok := c.ids[string(s)]; ok {
		return id
	}
	if s[0] == '"' {
		return 0
	}
	if list, ok := c.seen[string(s)]; ok {
		if list != c.lists {
			return -1
		}
		return 0
	}
	if len(c.seen) >= maxSeen {
		clear(c.seen)
	}
	c.seen[string(s)] = c.lists
	return 0
}

// init makes the maps of an unused cache.
func (c *pieceCache) init() {
	if c.ids == nil {
		c.ids = make(map[string]int64)
		c.texts = make(map[int64]string)
		c.seen = make(map[string]uint32)
	}
}

// refLen is the length of a reference to id.
func refLen(id int64) int {
	n := 3
	for id >= 10 {
		id /= 10
		n++
	}
	return n
}

// newPieces gathers the pieces a transaction adds, kept from the cache until it commits.
type newPieces map[string]int64

// build sets p.packed from p.segs.
func (p *packPlan) build() {
	size := 1
	for _, seg := range p.segs {
		if seg.id == 0 {
			size += seg.end - seg.start
		} else {
			size += refLen(seg.id)
		}
	}
	// Written in place, digits and all: a list of 200 decisions has 1,500 references.
	buf := make([]byte, size)
	buf[0] = packMark
	n := 1
	for _, seg := range p.segs {
		if seg.id == 0 {
			n += copy(buf[n:], p.raw[seg.start:seg.end])
			continue
		}
		end := n + refLen(seg.id) - 1
		buf[n], buf[end] = refStart, refEnd
		for i, v := end-1, seg.id; i > n; i-- {
			buf[i] = byte('0' + v%10)
			v /= 10
		}
		n = end + 1
	}
	p.packed = unsafe.String(&buf[0], len(buf)) // buf is not written again
}

// storePieces stores, through st, the new pieces of p that c does not know: a list
// planned while the transaction before it was committing may name again pieces that
// transaction stored.
func (p *packPlan) storePieces(ctx context.Context, st *txStmts, c *pieceCache, added newPieces) error {
	for _, seg := range p.store {
		s := p.raw[seg.start:seg.end]
		if c.known(s) {
			continue
		}
		if _, err := added.id(ctx, st, s); err != nil {
			return err
		}
	}
	return nil
}

// known reports whether c knows the id of piece s.
func (c *pieceCache) known(s []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.ids[string(s)]
	return ok
}

// id returns the id of the piece s, adding it to the table if another process has not.
func (a newPieces) id(ctx context.Context, st *txStmts, s []byte) (int64, error) {
	if id, ok := a[string(s)]; ok {
		return id, nil
	}
	text := string(s)
	ins, err := st.stmt(ctx, sInsPiece)
	if err != nil {
		return 0, dbErr(ctx, err, "store a piece of decisions")
	}
	var id int64
	res, err := ins.ExecContext(ctx, text)
	if err == nil {
		if n, _ := res.RowsAffected(); n == 1 {
			id, err = res.LastInsertId()
		} else { // another process stored it meanwhile
			var sel *sql.Stmt
			if sel, err = st.stmt(ctx, sPieceID); err == nil {
				err = sel.QueryRowContext(ctx, text).Scan(&id)
			}
		}
	}
	if err != nil {
		return 0, dbErr(ctx, err, "store a piece of decisions")
	}
	a[text] = id
	return id, nil
}

// learn adds the pieces of a committed transaction to the cache, and gives the new
// pieces of the last list planned their ids.
func (c *pieceCache) learn(a newPieces) {
	if len(a) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	for text, id := range a {
		c.ids[text] = id
		c.texts[id] = text
		delete(c.seen, text)
	}
	for i := range c.prev {
		q := &c.prev[i]
		if q.id < 0 {
			if id, ok := a[string(c.prevRaw[q.start:q.end])]; ok {
				q.id = id
			}
		}
	}
}

// isPacked reports whether a stored decision list is packed.
func isPacked(b []byte) bool { return len(b) > 0 && b[0] == packMark }

// refs calls fn with each id packed references, and reports a malformed reference.
func refs(packed []byte, fn func(id int64)) error {
	b := packed[1:]
	for {
		i := bytes.IndexByte(b, refStart)
		if i < 0 {
			return nil
		}
		b = b[i+1:]
		j := bytes.IndexByte(b, refEnd)
		if j < 0 {
			return fmt.Errorf("packed decisions: unterminated reference")
		}
		id, err := strconv.ParseInt(string(b[:j]), 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("packed decisions: bad reference %q", b[:j])
		}
		fn(id)
		b = b[j+1:]
	}
}

// unpack returns the decision list packed stands for, with the pieces of texts.
func unpack(packed []byte, texts map[int64]string) (json.RawMessage, error) {
	b := packed[1:]
	n := len(b)
	if err := refs(packed, func(id int64) { n += len(texts[id]) }); err != nil {
		return nil, err
	}
	out := make([]byte, 0, n)
	for {
		i := bytes.IndexByte(b, refStart)
		if i < 0 {
			return append(out, b...), nil
		}
		out = append(out, b[:i]...)
		b = b[i+1:]
		j := bytes.IndexByte(b, refEnd)
		id, _ := strconv.ParseInt(string(b[:j]), 10, 64) // checked by refs
		text, ok := texts[id]
		if !ok {
			return nil, fmt.Errorf("packed decisions: piece %d not found", id)
		}
		out = append(out, text...)
		b = b[j+1:]
	}
}

// unpackTurns unpacks the decision lists of turns (read as they are stored), reading the
// pieces the cache lacks through q, in one query.
func (c *pieceCache) unpackTurns(ctx context.Context, q querier, turns []chat.Turn) error {
	var missing []int64
	c.mu.Lock()
	for i := range turns {
		t := &turns[i]
		if !isPacked(t.Decisions) {
			continue
		}
		err := refs(t.Decisions, func(id int64) {
			if _, ok := c.texts[id]; !ok {
				missing = append(missing, id)
			}
		})
		if err != nil {
			c.mu.Unlock()
			return &storeError{msg: fmt.Sprintf("turn %q: decisions: %v", t.ID, err)}
		}
	}
	c.mu.Unlock()
	if len(missing) > 0 {
		got, err := readPieces(ctx, q, missing)
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.init()
		for id, text := range got {
			c.texts[id] = text
			c.ids[text] = id
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range turns {
		t := &turns[i]
		if !isPacked(t.Decisions) {
			continue
		}
		out, err := unpack(t.Decisions, c.texts)
		if err != nil {
			return &storeError{msg: fmt.Sprintf("turn %q: decisions: %v", t.ID, err)}
		}
		t.Decisions = out
	}
	return nil
}

// readPieces reads the pieces ids.
func readPieces(ctx context.Context, q querier, ids []int64) (map[int64]string, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, "SELECT id, text FROM json_pieces WHERE id IN (SELECT value FROM json_each(?))", string(list))
	if err != nil {
		return nil, dbErr(ctx, err, "read pieces of decisions")
	}
	defer rows.Close()
	out := make(map[int64]string, len(ids))
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, dbErr(ctx, err, "read pieces of decisions")
		}
		out[id] = text
	}
	return out, dbErr(ctx, rows.Err(), "read pieces of decisions")
}
