package store

import (
	"encoding/json"
	"hash/maphash"
	"sync"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// A turn's decision list is the bulk of its commit: a hundred KB of JSON for 200
// reminders, which Commit checks, cuts at its long strings and plans to pack against the
// pieces it knows (pieces.go) before the transaction. PrepareDecisions lets the engine
// have that work done as soon as the decisions are made, on a goroutine of its own, while
// the turn is answered and its messages written: the Commit of the turn then takes the
// result instead of doing the work again.

// maxPrepared bounds the lists prepared and not committed yet (a turn that failed, a
// preview that was never sent): the oldest is forgotten first.
const maxPrepared = 4

// preparedList is the work done ahead on one decision list.
type preparedList struct {
	// data and n identify the list (the address and length of its bytes), sum checks that
	// its bytes did not change since.
	data *byte
	n    int
	sum  uint64
	// plan is the list cut into pieces; nil when nothing is to be packed.
	plan *packPlan
}

// preparedLists holds the lists prepared for commits to come, and what cutting the last
// one found, for the next.
type preparedLists struct {
	mu   sync.Mutex
	seed maphash.Seed
	once sync.Once
	list []preparedList
	// cut is the last list cut; cutting is one list at a time.
	cutMu sync.Mutex
	cut   listCuts
}

// listCuts cuts decision lists element by element: from one turn to the next, most
// elements (one decision each) are the same bytes, whose cuts need no scan.
type listCuts struct {
	// last is the list cut last; spare the buffers of the one before.
	last, spare cutList
}

// cutList is a decision list cut.
type cutList struct {
	raw  []byte // a copy of the list
	cuts []int  // the bounds of its long strings (stringCuts)
	// elems are its elements: their bounds in raw and their range of cuts.
	elems []elemCuts
}

type elemCuts struct {
	start, end     int
	cutFrom, cutTo int
}

// PrepareDecisions does now the work that Commit does on a turn's decision list before
// its transaction: it checks that the list is valid, compact JSON, finds its long strings
// and plans its packing. A Commit of a turn whose Decisions is this very list (the same
// bytes in the same memory) then uses that work; the list must not change in between. A
// list changed anyway, or not valid and compact, is simply done again by Commit, which
// reports what is wrong with it. PrepareDecisions is safe for concurrent use; lists are
// best prepared in the order of their turns (each is compared with the one before).
func (d *DB) PrepareDecisions(list json.RawMessage) {
	if len(list) == 0 {
		return
	}
	p := &d.ahead
	p.once.Do(func() { p.seed = maphash.MakeSeed() })
	p.cutMu.Lock()
	cuts, ok := p.cut.next(list)
	var pl preparedList
	if ok {
		pl = preparedList{data: &list[0], n: len(list), sum: maphash.Bytes(p.seed, list), plan: d.pieces.plan(list, cuts)}
	}
	p.cutMu.Unlock()
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.list) == maxPrepared {
		p.list = append(p.list[:0], p.list[1:]...)
	}
	p.list = append(p.list, pl)
}

// next cuts list, taking the cuts of each element of the array that is the same bytes as
// the element in the same place of the list cut before, and scanning the others. It
// reports false for a list that is not valid, compact JSON. The cuts returned are valid
// until the next call.
func (c *listCuts) next(list []byte) ([]int, bool) {
	cur := &c.spare
	cur.cuts, cur.elems = cur.cuts[:0], cur.elems[:0]
	cuts, ok := cur.cut(list, &c.last)
	if !ok { // the next list is compared with none
		cur.cuts, cur.elems = cur.cuts[:0], cur.elems[:0]
	}
	cur.raw = append(cur.raw[:0], list...)
	c.last, c.spare = c.spare, c.last
	return cuts, ok
}

// cut cuts list into c, with prev the list cut before.
func (c *cutList) cut(list []byte, prev *cutList) ([]int, bool) {
	add := stringCuts(&c.cuts)
	if len(list) < 2 || list[0] != '[' {
		valid, compact := chat.ScanJSONStrings(list, add)
		return c.cuts, valid && compact
	}
	pos := 1
	if list[pos] == ']' {
		return c.cuts, len(list) == 2
	}
	for i := 0; ; i++ {
		e := elemCuts{start: pos, cutFrom: len(c.cuts)}
		if i < len(prev.elems) {
			pe := prev.elems[i]
			if end := pos + pe.end - pe.start; end < len(list) && (list[end] == ',' || list[end] == ']') &&
				string(list[pos:end]) == string(prev.raw[pe.start:pe.end]) {
				for _, cut := range prev.cuts[pe.cutFrom:pe.cutTo] {
					c.cuts = append(c.cuts, cut-pe.start+pos)
				}
				pos = end
			}
		}
		if pos == e.start {
			end, valid, compact := chat.ScanJSONValue(list, pos, add)
			if !valid || !compact || end >= len(list) {
				return nil, false
			}
			pos = end
		}
		e.end, e.cutTo = pos, len(c.cuts)
		c.elems = append(c.elems, e)
		switch list[pos] {
		case ',':
			pos++
		case ']':
			return c.cuts, pos+1 == len(list)
		default:
			return nil, false
		}
	}
}

// take returns the work prepared on list and forgets it; ok is false when there is none,
// or when the list changed since it was prepared.
func (p *preparedLists) take(list json.RawMessage) (plan *packPlan, ok bool) {
	if len(list) == 0 {
		return nil, false
	}
	p.mu.Lock()
	var pl preparedList
	for i := range p.list {
		if p.list[i].data == &list[0] && p.list[i].n == len(list) {
			pl, ok = p.list[i], true
			p.list = append(p.list[:i], p.list[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
	if !ok || maphash.Bytes(p.seed, list) != pl.sum {
		return nil, false
	}
	return pl.plan, true
}
