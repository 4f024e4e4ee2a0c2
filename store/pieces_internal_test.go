package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// storedDecisions returns the decisions column of each turn of chat id, in commit order.
func storedDecisions(t *testing.T, d *DB, id string) []string {
	t.Helper()
	rows, err := d.db.Query(`SELECT d.decisions FROM turn_decisions d JOIN turns t ON t.pk = d.turn_pk
		WHERE t.chat_id = ? ORDER BY t.pk`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// commitLists commits one turn a list to a new chat id and returns the lists as stored.
func commitLists(t *testing.T, d *DB, id string, lists []string) []string {
	t.Helper()
	return commitListsWay(t, d, id, lists, commitWays[0].commit)
}

// list is a decision list of n reminders for a turn: what changes from turn to turn is
// the reason.
func list(turn, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"r%d","text":"Reminder %d: keep it short and cite sources.","trace":{"expr":"contentMatches(['alpha beta %d', 'gamma delta'])","why":"turn %d of %d"}}`,
			i, i, i, turn, i)
	}
	b.WriteByte(']')
	return b.String()
}

// TestPackedForm checks what the store writes: the first list as it is; the second with
// the pieces it repeats written as they are, this once, and stored; the next ones packed,
// in under a third of the room.
func TestPackedForm(t *testing.T) {
	d, err := Open(Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	lists := []string{list(1, 50), list(2, 50), list(3, 50), `[1,2]`, list(4, 50)}
	stored := commitLists(t, d, "c", lists)
	if stored[0] != lists[0] || stored[3] != lists[3] {
		t.Errorf("a list with no piece seen before is stored as it is: got %q", stored[0][:40])
	}
	if stored[1] != "\x01"+lists[1] {
		t.Errorf("list 2 refers to pieces no list stored before it: %q", stored[1][:40])
	}
	var pieces int
	if err := d.db.QueryRow("SELECT count(*) FROM json_pieces").Scan(&pieces); err != nil || pieces < 50 {
		t.Errorf("list 2 stored %d pieces (%v), want one at least for each reminder", pieces, err)
	}
	// Each element is cut on its own (planList), so the brackets and the comma between two
	// elements stay inline: a few bytes each.
	for _, i := range []int{2, 4} {
		if !isPacked([]byte(stored[i])) || len(stored[i])*10 > len(lists[i])*3 {
			t.Errorf("list %d: stored in %d bytes, packed %v; want packed in under 30%% of %d",
				i+1, len(stored[i]), isPacked([]byte(stored[i])), len(lists[i]))
		}
	}
	// The changing reasons stay inline.
	if !strings.Contains(stored[2], `"turn 3 of 7"`) {
		t.Errorf("list 3: the reason of turn 3 is not inline: %q", stored[2])
	}
}

func TestUnpackRefusesDamage(t *testing.T) {
	texts := map[int64]string{1: `{"a":1}`, 2: `"a long piece"`}
	tests := []struct {
		packed, want, err string
	}{
		{"\x01[\x021\x03,\x022\x03]", `[{"a":1},"a long piece"]`, ""},
		{"\x01[1,2]", `[1,2]`, ""},
		{"\x01[\x023\x03]", "", "piece 3 not found"},
		{"\x01[\x021", "", "unterminated reference"},
		{"\x01[\x02x\x03]", "", `bad reference "x"`},
		{"\x01[\x020\x03]", "", `bad reference "0"`},
	}
	for _, tt := range tests {
		got, err := unpack([]byte(tt.packed), texts)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("unpack(%q): error %v, want %q", tt.packed, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("unpack(%q) = %q, %v; want %q", tt.packed, got, err, tt.want)
		}
	}
}

// TestCheckFindsMissingPieces damages a packed list and a piece and expects Check and the
// reads to say so rather than return other bytes.
func TestCheckFindsMissingPieces(t *testing.T) {
	d, err := Open(Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	commitLists(t, d, "c", []string{list(1, 5), list(2, 5), list(3, 5)})
	if err := d.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.db.Exec("DELETE FROM json_pieces WHERE id = (SELECT min(id) FROM json_pieces)"); err != nil {
		t.Fatal(err)
	}
	d.pieces = pieceCache{} // forget the pieces, as another process would not know them
	err = d.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), `chat "c": turn "t2": decisions: piece 1 not found`) {
		t.Errorf("Check after deleting a piece: %v", err)
	}
	if _, err := d.TurnDecisions(ctx, "c", "t2"); err == nil || !strings.Contains(err.Error(), "piece 1 not found") {
		t.Errorf("TurnDecisions after deleting a piece: %v", err)
	}
}

// TestStableElementsPackWhole checks that an element which is the same bytes in three
// lists running is stored as one piece, then referred to as one: a reminder that decides
// the same way for the same reason costs one reference a turn. An element that changes
// stays cut at its long strings.
func TestStableElementsPackWhole(t *testing.T) {
	stable := `{"id":"r1","fired":false,"reason":"predicate-false","trace":{"expr":"contentIncludes(['deploy'])","why":"no term found in the message"}}`
	changing := func(n int) string {
		return fmt.Sprintf(`{"id":"r2","fired":true,"reason":"fired","trace":{"expr":"everyNTurns(1)","why":"turn %d %% 1 == 0, every turn"}}`, n)
	}
	var c pieceCache
	var plan *packPlan
	for n := 1; n <= 4; n++ {
		raw := []byte("[" + stable + "," + changing(n) + "]")
		var ok bool
		if plan, ok = c.planList(raw, nil); !ok || plan == nil && n > 1 {
			t.Fatalf("list %d: not planned", n)
		}
		if plan == nil { // the first list: nothing known, nothing seen twice
			continue
		}
		added := newPieces{}
		storesWhole := false
		for _, seg := range plan.store {
			text := string(raw[seg.start:seg.end])
			storesWhole = storesWhole || text == stable
			if added[text] == 0 {
				added[text] = int64(len(c.ids) + len(added) + 1)
			}
		}
		c.learn(added)
		if want := n == 3; storesWhole != want {
			t.Errorf("list %d: stores the stable element as a piece = %v, want %v", n, storesWhole, want)
		}
		whole := false
		for _, seg := range plan.segs {
			whole = whole || seg.start == 1 && seg.end == 1+len(stable) && seg.id > 0
		}
		if want := n == 4; whole != want {
			t.Errorf("list %d: stable element referred to whole = %v, want %v", n, whole, want)
		}
		for _, seg := range plan.segs {
			if seg.id > 0 && seg.end-seg.start > len(stable) {
				t.Errorf("list %d: a piece spans more than an element: %q", n, raw[seg.start:seg.end])
			}
		}
		if got, err := unpack([]byte(plan.packed), c.texts); err != nil || string(got) != string(raw) {
			t.Errorf("list %d: packed form unpacks to %q, %v", n, got, err)
		}
	}
	if got := string(plan.raw[plan.segs[len(plan.segs)-2].start:plan.segs[len(plan.segs)-2].end]); got == changing(4) {
		t.Errorf("the changing element was planned whole: %q", got)
	}
}
