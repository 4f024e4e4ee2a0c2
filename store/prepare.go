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

// maxPrepared bounds the lists prepared and not committed yet (a turn whose reply failed
// with nothing to save): the oldest is forgotten first.
const maxPrepared = 4

// preparedList is the work done ahead on one decision list.
type preparedList struct {
	// data and n identify the list (the address and length of its bytes), sum checks that
	// its bytes did not change since; a list the engine encoded (PrepareList) is not
	// checked (encoded): the engine hands it to the commit as it made it, and a sum of
	// its 100 KB took 20 µs of every commit.
	data    *byte
	n       int
	sum     uint64
	encoded bool
	// plan is the list cut into pieces; nil when nothing is to be packed.
	plan *packPlan
}

// preparedLists holds the lists prepared for commits to come.
type preparedLists struct {
	seed maphash.Seed // of the sums of lists, made with the DB
	mu   sync.Mutex
	list []preparedList
}

// PrepareDecisions does now the work that Commit does on a turn's decision list before
// its transaction: it checks that the list is valid, compact JSON and plans its packing
// (planList). A Commit of a turn whose Decisions is this very list (the same bytes in the
// same memory) then uses that work; the list must not change in between. A list changed
// anyway, or not a compact JSON array, is simply done again by Commit, which reports what
// is wrong with it. PrepareDecisions is safe for concurrent use; lists are best prepared
// in the order of their turns (each is compared with the one before).
func (d *DB) PrepareDecisions(list json.RawMessage) { d.prepare(list, nil) }

// PrepareList is PrepareDecisions(l.JSON) for a list ctxlab's encoder made
// (decision.Encoder): the bounds of its elements and strings are taken from l, not
// scanned again, and the commit takes the work without checking that the list did not
// change: it must not.
func (d *DB) PrepareList(l *chat.EncodedList) {
	if l != nil {
		d.prepare(l.JSON, l)
	}
}

// prepare prepares list, which the encoder's hint describes when not nil.
func (d *DB) prepare(list json.RawMessage, hint *chat.EncodedList) {
	plan, ok := d.pieces.planList(list, hint)
	if !ok {
		return
	}
	p := &d.ahead
	pl := preparedList{data: &list[0], n: len(list), encoded: hint != nil, plan: plan}
	if !pl.encoded {
		pl.sum = maphash.Bytes(p.seed, list)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.list) == maxPrepared {
		p.list = append(p.list[:0], p.list[1:]...)
	}
	p.list = append(p.list, pl)
}

// take returns the work prepared on list and forgets it; ok is false when there is none,
// or when a list given as JSON changed since it was prepared.
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
	if !ok || !pl.encoded && maphash.Bytes(p.seed, list) != pl.sum {
		return nil, false
	}
	return pl.plan, true
}
