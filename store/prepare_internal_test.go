package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// commitWays commits lists, one turn each, to a new chat id of d, in one of the ways
// the engine can, and returns the lists as stored.
type commitWay func(ctx context.Context, d *DB, c chat.Commit, list json.RawMessage) error

var commitWays = []struct {
	name   string
	commit commitWay
}{
	{"commit", func(ctx context.Context, d *DB, c chat.Commit, list json.RawMessage) error {
		c.Turns[0].Decisions = list
		return d.Commit(ctx, c)
	}},
	{"prepared", func(ctx context.Context, d *DB, c chat.Commit, list json.RawMessage) error {
		d.PrepareDecisions(list)
		c.Turns[0].Decisions = list
		return d.Commit(ctx, c)
	}},
	{"late", func(ctx context.Context, d *DB, c chat.Commit, list json.RawMessage) error {
		return d.CommitLate(ctx, c, func() json.RawMessage { return list })
	}},
	{"prepared late", func(ctx context.Context, d *DB, c chat.Commit, list json.RawMessage) error {
		d.PrepareDecisions(list)
		return d.CommitLate(ctx, c, func() json.RawMessage { return list })
	}},
}

// commitListsWay is commitLists, committing each list in the given way.
func commitListsWay(t *testing.T, d *DB, id string, lists []string, way commitWay) []string {
	t.Helper()
	ctx := context.Background()
	if err := d.CreateChat(ctx, chat.Chat{ID: id, Title: id}); err != nil {
		t.Fatal(err)
	}
	head := ""
	for i, l := range lists {
		u := chat.Message{ID: fmt.Sprintf("u%d", i), ParentID: head, Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("q")}}
		tr := chat.Turn{ID: fmt.Sprintf("t%d", i), Number: i + 1, UserMessageID: u.ID}
		err := way(ctx, d, chat.Commit{ChatID: id, Branch: "main", ExpectHead: head, NewHead: u.ID,
			Messages: []chat.Message{u}, Turns: []chat.Turn{tr}}, json.RawMessage(l))
		if err != nil {
			t.Fatalf("list %d: %v", i, err)
		}
		head = u.ID
	}
	return storedDecisions(t, d, id)
}

// changingLists returns n decision lists of the engine's shape where, from one list to
// the next, some elements stay the same bytes and others change, grow or shrink, and
// lists gain and lose elements.
func changingLists(n int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	var out []string
	for turn := range n {
		var b strings.Builder
		b.WriteByte('[')
		size := 20 + r.IntN(4)
		for i := range size {
			if i > 0 {
				b.WriteByte(',')
			}
			why := "always the same reason for this one"
			if i%3 == 0 || r.IntN(5) == 0 {
				why = fmt.Sprintf("turn %d %% %d == %d, and then some more", turn, i+2, turn%(i+2))
			}
			fmt.Fprintf(&b, `{"id":"r%d","fired":%v,"text":"Reminder %d: keep it short and cite \"sources\".","trace":{"expr":"contentMatches(['alpha beta %d', 'gamma delta'])","why":%q,"children":[1,2.5e3,null,true]}}`,
				i, (turn+i)%4 == 0, i, i, why)
		}
		b.WriteByte(']')
		out = append(out, b.String())
	}
	return out
}

// TestPreparedCommitsStoreTheSame checks that a list committed after PrepareDecisions,
// or given late (CommitLate), or both, is stored exactly as Commit alone stores it: the
// same packed form, read back as the same bytes.
func TestPreparedCommitsStoreTheSame(t *testing.T) {
	lists := changingLists(12)
	lists = append(lists, `[]`, `[1]`, `{"not":"an array, but a long enough string"}`, lists[3], lists[3], `["x"]`)
	var want []string
	for _, w := range commitWays {
		t.Run(w.name, func(t *testing.T) {
			d := openTemp(t)
			got := commitListsWay(t, d, "c", lists, w.commit)
			if want == nil {
				want = got
			} else if !slices.Equal(got, want) {
				t.Errorf("stored lists differ from Commit's")
			}
			for _, i := range []int{0, 5, 13, len(lists) - 1} {
				turns, err := d.TurnsAt(context.Background(), "c", fmt.Sprintf("u%d", i), chat.DetailAll)
				if err != nil || len(turns) != 1 {
					t.Fatalf("TurnsAt(u%d): %v, %d turns", i, err, len(turns))
				}
				if string(turns[0].Decisions) != lists[i] {
					t.Errorf("turn %d read back as %.80s, want %.80s", i+1, turns[0].Decisions, lists[i])
				}
			}
		})
	}
}

// TestPreparedListChangedOrInvalid checks that a list changed after it was prepared is
// done again (stored as it is at the commit), and that a list that is not valid JSON is
// refused with ErrInvalid, nothing written, whether prepared, given late, or both.
func TestPreparedListChangedOrInvalid(t *testing.T) {
	ctx := context.Background()
	d := openTemp(t)
	lists := changingLists(3)
	commitListsWay(t, d, "c", lists[:2], commitWays[1].commit)

	changed := json.RawMessage(lists[2])
	d.PrepareDecisions(changed)
	copy(changed[strings.Index(lists[2], "Reminder 5"):], "Reminder X")
	u := chat.Message{ID: "u2", ParentID: "u1", Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("q")}}
	step := chat.Commit{ChatID: "c", Branch: "main", ExpectHead: "u1", NewHead: u.ID,
		Messages: []chat.Message{u}, Turns: []chat.Turn{{ID: "t2", Number: 3, UserMessageID: u.ID, Decisions: changed}}}
	if err := d.Commit(ctx, step); err != nil {
		t.Fatal(err)
	}
	turns, err := d.TurnsAt(ctx, "c", "u2", chat.DetailAll)
	if err != nil || len(turns) != 1 {
		t.Fatalf("TurnsAt: %v, %d turns", err, len(turns))
	}
	if string(turns[0].Decisions) != string(changed) || !strings.Contains(string(changed), "Reminder X") {
		t.Errorf("a list changed after it was prepared was stored as %.200s", turns[0].Decisions)
	}

	for _, bad := range []string{`[{"id":"r1",}]`, `[1,2`, `[1] x`, "[\"a\"\n]x", `[{"a":1},{"b":]`} {
		for _, w := range commitWays {
			u := chat.Message{ID: "bad", ParentID: "u2", Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("q")}}
			err := w.commit(ctx, d, chat.Commit{ChatID: "c", Branch: "main", ExpectHead: "u2", NewHead: u.ID,
				Messages: []chat.Message{u}, Turns: []chat.Turn{{ID: "tbad", Number: 4, UserMessageID: u.ID}}}, json.RawMessage(bad))
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s of %q: err = %v, want ErrInvalid", w.name, bad, err)
			}
		}
	}
	if b, err := d.Branch(ctx, "c", "main"); err != nil || b.Head != "u2" {
		t.Errorf("after the refused commits the head is %q (%v), want u2", b.Head, err)
	}
}

// TestPlanListCoversTheList checks planList on lists that share elements with the one
// before in every way (the same, changed, moved, added, removed, broken): it takes what a
// scan takes (a compact JSON array), and its plan covers the list exactly, each piece it
// refers to a piece of the same text.
func TestPlanListCoversTheList(t *testing.T) {
	lists := changingLists(30)
	lists = append(lists, `[]`, `[ ]`, `[1,2]`, `[1,2,3]`, `[1, 2]`, `[1,2`, `[1,2]]`, `["a long string here!",{"b":"another long string"}]`,
		`["a long string here!",{"b":"another long string"}]`, `["a long string here!",{"b":"another long string"},]`,
		`"just a long string, not an array"`, `[{"a":"x"}]`, `[{"a":"x"}`, `[{"a":"x"}]`, `[{"a":"x"},{"a":"x"}]`)
	lists = append(lists, changingLists(5)...)
	var c pieceCache
	for i, l := range lists {
		raw := []byte(l)
		valid, compact := chat.ScanJSON(raw)
		want := valid && compact && l[0] == '['
		plan, ok := c.planList(raw, nil)
		if ok != want {
			t.Errorf("list %d %.60q: ok = %v, want %v", i, l, ok, want)
			continue
		}
		if plan == nil {
			continue
		}
		pos := 0
		for _, seg := range plan.segs {
			if seg.start != pos || seg.end <= seg.start {
				t.Fatalf("list %d: segment %d..%d after %d", i, seg.start, seg.end, pos)
			}
			if seg.id > 0 && c.texts[seg.id] != l[seg.start:seg.end] {
				t.Errorf("list %d: piece %d is %q, the list has %q", i, seg.id, c.texts[seg.id], l[seg.start:seg.end])
			}
			pos = seg.end
		}
		if pos != len(l) {
			t.Errorf("list %d: the plan ends at %d of %d", i, pos, len(l))
		}
		if got, err := unpack([]byte(plan.packed), c.texts); err != nil || string(got) != l {
			t.Errorf("list %d: the packed form unpacks to %.60q, %v", i, got, err)
		}
		// What a commit does: the new pieces get their ids.
		added := newPieces{}
		for _, seg := range plan.store {
			if seg.start < 0 || seg.end > len(l) || seg.end <= seg.start {
				t.Fatalf("list %d: piece to store %d..%d", i, seg.start, seg.end)
			}
			text := l[seg.start:seg.end]
			if _, ok := c.ids[text]; !ok && added[text] == 0 {
				added[text] = int64(len(c.ids) + len(added) + 1)
			}
		}
		c.learn(added)
	}
	if len(c.ids) == 0 {
		t.Error("no piece was ever planned")
	}
}

// TestPreparedListIsTaken checks that a prepared list waits for its commit and is taken
// by it, that a list which is not valid, compact JSON is not prepared, and that the lists
// never committed are forgotten past maxPrepared.
func TestPreparedListIsTaken(t *testing.T) {
	d := openTemp(t)
	pending := func() int {
		d.ahead.mu.Lock()
		defer d.ahead.mu.Unlock()
		return len(d.ahead.list)
	}
	lists := changingLists(maxPrepared + 3)
	for _, l := range []string{`[1, 2]`, `[1,`, ""} {
		d.PrepareDecisions(json.RawMessage(l))
	}
	if n := pending(); n != 0 {
		t.Fatalf("%d lists prepared of three that cannot be", n)
	}
	raws := make([]json.RawMessage, len(lists))
	for i, l := range lists {
		raws[i] = json.RawMessage(l)
		d.PrepareDecisions(raws[i])
	}
	if n := pending(); n != maxPrepared {
		t.Fatalf("%d lists wait, want %d", n, maxPrepared)
	}
	if _, ok := d.ahead.take(raws[0]); ok {
		t.Error("the oldest list was not forgotten")
	}
	if _, ok := d.ahead.take(json.RawMessage(lists[len(lists)-1])); ok {
		t.Error("a copy of a prepared list was taken for it")
	}
	if _, ok := d.ahead.take(raws[len(raws)-1]); !ok {
		t.Error("the last list prepared was not taken")
	}
	if _, ok := d.ahead.take(raws[len(raws)-1]); ok {
		t.Error("a list was taken twice")
	}
	if n := pending(); n != maxPrepared-1 {
		t.Errorf("%d lists wait after one was taken, want %d", n, maxPrepared-1)
	}
}

// FuzzPlanList checks planList against a scan of the whole list, on a list planned after
// another (whose elements it may take as they are): the same verdict, and a plan that
// covers the list exactly, each piece it refers to a piece of the same text.
func FuzzPlanList(f *testing.F) {
	// Small seeds: the fuzzer minimises each new input it finds, which is slow for long ones.
	a := `[{"id":"r1","why":"turn 1 % 2 == 1 != 0"},{"id":"r2","why":"the same reason each turn"}]`
	b := `[{"id":"r1","why":"turn 2 % 2 == 0"},{"id":"r2","why":"the same reason each turn"},{"id":"r3"}]`
	f.Add([]byte(a), []byte(b))
	f.Add([]byte(b), []byte(b))
	f.Add([]byte(`[{"a":"a long string, long enough"},1]`), []byte(`[{"a":"a long string, long enough"},1,]`))
	f.Add([]byte(`["x",{"b":[1,2]}]`), []byte(`["x",{"b":[1,2]}`))
	f.Add([]byte(`[1,2]`), []byte(`[1,2] `))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var c pieceCache
		for _, raw := range [][]byte{a, b, b} {
			valid, compact := chat.ScanJSON(raw)
			want := valid && compact && len(raw) > 0 && raw[0] == '['
			plan, ok := c.planList(raw, nil)
			if ok != want {
				t.Fatalf("planList(%q) = %v, scan says %v", raw, ok, want)
			}
			if plan == nil {
				continue
			}
			pos := 0
			added := newPieces{}
			for _, seg := range plan.segs {
				if seg.start != pos || seg.end <= seg.start {
					t.Fatalf("%q: segment %d..%d after %d", raw, seg.start, seg.end, pos)
				}
				if text := string(raw[seg.start:seg.end]); seg.id > 0 && c.texts[seg.id] != text {
					t.Fatalf("%q: piece %d is %q, the list has %q", raw, seg.id, c.texts[seg.id], text)
				}
				pos = seg.end
			}
			if pos != len(raw) {
				t.Fatalf("%q: the plan ends at %d", raw, pos)
			}
			if got, err := unpack([]byte(plan.packed), c.texts); err != nil || string(got) != string(raw) {
				t.Fatalf("%q: the packed form %q unpacks to %q, %v", raw, plan.packed, got, err)
			}
			// What a commit does: the new pieces get their ids.
			for _, seg := range plan.store {
				if text := string(raw[seg.start:seg.end]); c.ids[text] == 0 && added[text] == 0 {
					added[text] = int64(len(c.ids) + len(added) + 1)
				}
			}
			c.learn(added)
		}
	})
}
