package store

import (
	"github.com/ctxlab/ctxlab/engine/chat"
)

// A decision list is planned element by element. Its long strings (stringCuts) are pieces
// of their own and the JSON between them others; a piece known is a reference, a piece
// of the previous list in its place a new piece, another is written as it is (match).
//
// From one turn to the next, about half the elements of a decision list (one decision
// each) are the very same bytes as the element in the same place of the list before: the
// reminders that decided the same way for the same reason. planList plans such an
// element as the list before was planned, without scanning or comparing its pieces again:
// its bytes were checked then, and its pieces found. An element that is the same bytes a
// third time running becomes one piece (whole), then one reference a list. Only the other
// elements are scanned and their pieces matched.

// listElem is an element of the list planned last by planList: its bounds in prevRaw,
// its pieces (all of them in prevAll[allFrom:allTo]; those of at least minPiece bytes in
// prev[nextFrom:nextTo]), and whether it was the same bytes as the element in its place in
// the list before.
type listElem struct {
	start, end       int
	allFrom, allTo   int
	nextFrom, nextTo int
	same             bool
}

// listPlanner plans one list for planList.
type listPlanner struct {
	c    *pieceCache
	raw  []byte
	hint *chat.EncodedList // nil, or raw as the engine's encoder made it
	plan *packPlan
	// next and all are the pieces of the list, to be the cache's prev and prevAll; elems
	// its elements, to be prevElems.
	next, all []packSeg
	elems     []listElem
	j         int // the piece of c.prev the next piece is compared with first
	packed    bool
	cuts      []int
}

// planList cuts raw, a decision list, into pieces to pack, scanning only the elements
// that are not the same bytes as in the list before (see above), and none when hint, the
// list as the engine encoded it, says where its elements and strings are. It reports
// false, having planned nothing, when raw is not a compact JSON array: Commit then checks
// and compacts it. The plan is nil when nothing would be packed.
func (c *pieceCache) planList(raw []byte, hint *chat.EncodedList) (*packPlan, bool) {
	if len(raw) < 2 || raw[0] != '[' {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	c.lists++
	cuts := cutsPool.Get().(*[]int)
	defer cutsPool.Put(cuts)
	l := listPlanner{c: c, raw: raw, hint: hint, plan: planPool.Get().(*packPlan),
		next: c.spare[:0], all: c.spareAll[:0], elems: c.spareElems[:0], cuts: (*cuts)[:0]}
	l.plan.raw, l.plan.segs, l.plan.store = raw, l.plan.segs[:0], l.plan.store[:0]
	ok := l.walk()
	*cuts = l.cuts
	if !ok {
		l.plan.raw = nil
		planPool.Put(l.plan)
		return nil, false
	}
	c.spare, c.prev = c.prev, l.next
	c.spareAll, c.prevAll = c.prevAll, l.all
	c.spareElems, c.prevElems = c.prevElems, l.elems
	c.spareRaw, c.prevRaw = c.prevRaw, append(c.spareRaw[:0], raw...)
	if !l.packed && len(l.plan.store) == 0 {
		l.plan.raw = nil
		planPool.Put(l.plan)
		return nil, true
	}
	l.plan.build()
	return l.plan, true
}

// walk plans the elements of the array l.raw in order; false when it is not a compact
// JSON array.
func (l *listPlanner) walk() bool {
	raw, prevElems, prevRaw := l.raw, l.c.prevElems, l.c.prevRaw
	l.push(packSeg{start: 0, end: 1}) // [
	pos := 1
	if raw[pos] == ']' {
		l.push(packSeg{start: 1, end: 2})
		return len(raw) == 2
	}
	for i := 0; ; i++ {
		e := listElem{start: pos, allFrom: len(l.all), nextFrom: len(l.next)}
		same := false
		if i < len(prevElems) {
			pe := prevElems[i]
			end := pos + pe.end - pe.start
			same = end < len(raw) && (raw[end] == ',' || raw[end] == ']') && string(raw[pos:end]) == string(prevRaw[pe.start:pe.end])
			switch {
			case same && pe.same && pe.allTo-pe.allFrom > 1 && end-pos >= minPiece:
				l.whole(pos, end, pe)
				pos = end
			case same:
				l.reuse(pos, pe)
				pos = end
			default:
				l.j = pe.nextFrom
			}
		}
		e.same = same
		if !same {
			var end int
			var cuts []int
			if h := l.hint; h != nil {
				// The encoder made it valid and compact, and says where it ends.
				if i >= len(h.Ends) || h.Ends[i] <= pos || h.Ends[i] >= len(raw) {
					return false
				}
				end, cuts = h.Ends[i], h.ElementStrings(i)
			} else {
				l.cuts = l.cuts[:0]
				var valid, compact bool
				end, valid, compact = chat.ScanJSONValue(raw, pos, stringCuts(&l.cuts))
				if !valid || !compact || end >= len(raw) {
					return false
				}
				cuts = l.cuts
			}
			l.fresh(pos, end, cuts)
			pos = end
		}
		e.end, e.allTo, e.nextTo = pos, len(l.all), len(l.next)
		l.elems = append(l.elems, e)
		switch raw[pos] {
		case ',':
			l.push(packSeg{start: pos, end: pos + 1})
			pos++
		case ']':
			l.push(packSeg{start: pos, end: pos + 1})
			return pos+1 == len(raw)
		default:
			return false
		}
	}
}

// push appends a piece planned: to the plan (a run of text written as it is is one
// segment; a new piece is written as it is and stored) and to the pieces of the list.
func (l *listPlanner) push(seg packSeg) {
	l.all = append(l.all, seg)
	if seg.end-seg.start >= minPiece {
		l.next = append(l.next, seg)
	}
	if seg.id < 0 {
		l.plan.store = append(l.plan.store, seg)
		seg.id = 0
	}
	segs := l.plan.segs
	if seg.id != 0 {
		l.packed = true
	} else if n := len(segs); n > 0 && segs[n-1].id == 0 {
		segs[n-1].end = seg.end
		return
	}
	l.plan.segs = append(segs, seg)
}

// fresh plans raw[from:to], an element scanned, its long strings at cuts.
func (l *listPlanner) fresh(from, to int, cuts []int) {
	add := func(start, end int) {
		seg := packSeg{start: start, end: end}
		if end-start >= minPiece {
			seg.id = l.c.match(l.raw[start:end], l.c.prev, l.c.prevRaw, &l.j)
		}
		l.push(seg)
	}
	for k := 0; k+1 < len(cuts); k += 2 {
		if cuts[k] > from {
			add(from, cuts[k])
		}
		add(cuts[k], cuts[k+1])
		from = cuts[k+1]
	}
	if from < to {
		add(from, to)
	}
}

// whole plans the element raw[start:end], the same bytes in the last three lists, as one
// piece: a reminder that decides the same way for the same reason turn after turn is one
// reference, not one a piece of it. The element before was pe, planned in pieces.
func (l *listPlanner) whole(start, end int, pe listElem) {
	id, ok := l.c.ids[string(l.raw[start:end])]
	if !ok {
		// New: stored for the lists after this one, which refer to it; this one has
		// the element in its pieces, which are much shorter than the element written
		// as it is.
		l.plan.store = append(l.plan.store, packSeg{start: start, end: end, id: -1})
		l.reuse(start, pe)
		return
	}
	l.push(packSeg{start: start, end: end, id: id})
	l.j = pe.nextTo
}

// reuse plans the element at start, the same bytes as pe of the list before, with the
// pieces pe was cut into: what match finds for a piece in its place in the list before
// (its id; a piece written as it is, or new, then is a piece now).
func (l *listPlanner) reuse(start int, pe listElem) {
	shift := start - pe.start
	for _, q := range l.c.prevAll[pe.allFrom:pe.allTo] {
		seg := packSeg{start: q.start + shift, end: q.end + shift}
		if seg.end-seg.start >= minPiece {
			if seg.id = q.id; seg.id <= 0 {
				seg.id = -1
				if id, ok := l.c.ids[string(l.raw[seg.start:seg.end])]; ok {
					seg.id = id
				}
			}
		}
		l.push(seg)
	}
	l.j = pe.nextTo
}
