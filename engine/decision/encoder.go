package decision

import (
	"slices"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/predicates"
)

// Encoder encodes the decision list of each turn of a chat as AppendList does, copying
// the bytes of the previous list's decisions that did not change instead of encoding
// them again: from one turn to the next, most reminders decide the same way for the same
// reason, with the same trace. The zero Encoder is ready to use; it is not safe for
// concurrent use.
type Encoder struct {
	prev []Decision // the list encoded last
	last *List      // its encoding, handed out: read, never written again
}

// List is a decision list as an Encoder wrote it (see chat.EncodedList).
type List = chat.EncodedList

// Encode returns the JSON array of ds, byte for byte what AppendList(nil, ds) returns, in
// a new slice. The encoder reads that slice and ds on the next call: neither may change
// after the call (the engine makes a new list, with new traces, for each turn).
func (e *Encoder) Encode(ds []Decision) []byte { return e.EncodeList(ds).JSON }

// EncodeList is Encode that also says where the list's elements and strings are.
func (e *Encoder) EncodeList(ds []Decision) *List {
	var prevJSON []byte
	l := &List{Ends: make([]int, 0, len(ds)), Firsts: make([]int, 0, len(ds))}
	if last := e.last; last != nil {
		prevJSON = last.JSON
		l.Strings = make([]int, 0, len(last.Strings)+len(last.Strings)/8)
	} else {
		l.Strings = make([]int, 0, 16*len(ds))
	}
	out := make([]byte, 0, max(512*len(ds)+2, len(prevJSON)+len(prevJSON)/8))
	out = append(out, '[')
	prev := e.prev
	if len(ds) > 0 && len(prev) > 0 && &ds[0] == &prev[0] {
		prev = nil // the same list again, perhaps changed since: nothing to compare with
	}
	str := func(start, end int) {
		if end-start >= chat.EncodedListMinString {
			l.Strings = append(l.Strings, start, end)
		}
	}
	for i := range ds {
		if i > 0 {
			out = append(out, ',')
		}
		l.Firsts = append(l.Firsts, len(l.Strings))
		if i < len(prev) && sameJSON(&prev[i], &ds[i]) {
			last := e.last
			start := 1
			if i > 0 {
				start = last.Ends[i-1] + 1
			}
			shift := len(out) - start
			for _, b := range last.ElementStrings(i) {
				l.Strings = append(l.Strings, b+shift)
			}
			out = append(out, prevJSON[start:last.Ends[i]]...)
		} else {
			out = ds[i].appendJSON(out, str)
		}
		l.Ends = append(l.Ends, len(out))
	}
	l.JSON = append(out, ']')
	e.prev, e.last = ds, l
	return l
}

// sameJSON reports whether a and b encode to the same JSON: every field AppendJSON writes
// is equal. Strings a turn copies from the context file share their memory, so comparing
// them is quick.
func sameJSON(a, b *Decision) bool {
	return a.Fired == b.Fired && a.Tokens == b.Tokens && a.Reason == b.Reason && a.ID == b.ID &&
		a.Source == b.Source && a.Kind == b.Kind && a.Scope == b.Scope && a.Detail == b.Detail &&
		a.Placement == b.Placement && a.Tier == b.Tier && a.Text == b.Text &&
		slices.Equal(a.When, b.When) && slices.Equal(a.OnceLatches, b.OnceLatches) &&
		sameWas(a.Was, b.Was) && sameTrace(a.Trace, b.Trace)
}

func sameWas(a, b *Was) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// sameTrace reports whether two traces encode to the same JSON (Result.AppendJSON): the
// same expressions, values, reasons, errors and children, all the way down.
func sameTrace(a, b *predicates.Result) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a == b {
		return true
	}
	if a.Value != b.Value || len(a.Children) != len(b.Children) || a.Why != b.Why || a.Expr != b.Expr || a.Error != b.Error {
		return false
	}
	for i := range a.Children {
		if !sameTrace(&a.Children[i], &b.Children[i]) {
			return false
		}
	}
	return true
}
