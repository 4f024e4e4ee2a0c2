package store_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/predicates"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

// turnDecisions is a decision list like the engine's for turn n: reminders with long
// expressions and texts that every turn repeats, and reasons that change with the turn.
func turnDecisions(n, reminders int) json.RawMessage {
	return decisionList(n, reminders, func(int) bool { return true })
}

// decisionList is turnDecisions where only the reminders i for which changing(i) holds
// decide and give their reason by the turn; the others decide the same way, for the same
// reason, every turn.
func decisionList(n, reminders int, changing func(i int) bool) json.RawMessage {
	return decision.AppendList(nil, decisionStructs(n, reminders, changing))
}

// decisionStructs is decisionList as decisions.
func decisionStructs(n, reminders int, changing func(i int) bool) []decision.Decision {
	ds := make([]decision.Decision, reminders)
	for i := range ds {
		turn := 0
		if changing(i) {
			turn = n
		}
		fired := (turn+i)%7 == 0
		reason := "predicate_false"
		if fired {
			reason = "fired"
		}
		ds[i] = decision.Decision{ID: fmt.Sprintf("r%03d", i), Source: "reminder", Fired: fired, Reason: reason,
			Placement: "inline", Tier: "guidance", Text: fmt.Sprintf("r%03d: Keep answers about the topic %d short, \"quoted\" and <tagged>.", i, i),
			Tokens: 9 + i%3, Trace: &predicates.Result{
				Expr:  fmt.Sprintf("contentMatches(['sprint dependency refund %d', 'regional vendor monitor', 'queue payroll archive'])", i),
				Value: fired, Why: fmt.Sprintf("turn %d %% %d == %d", turn, 3+i%5, turn%(3+i%5))}}
	}
	return ds
}

// TestDecisionsReadBackExactly commits decision lists, packed or not, and reads each back
// byte for byte through every read that returns decisions, from the database that wrote
// them and from another one that knows none of its pieces.
func TestDecisionsReadBackExactly(t *testing.T) {
	lists := []json.RawMessage{
		turnDecisions(1, 30),
		turnDecisions(2, 30),
		turnDecisions(3, 30),
		json.RawMessage(`[{"id":"concise","fired":true}]`),
		turnDecisions(4, 30),
		// Not compact: stored compacted, then packed against the pieces above.
		json.RawMessage(strings.ReplaceAll(string(turnDecisions(5, 30)), `,"detail"`, ",\n  \"detail\"")),
		// Escapes, non-ASCII text, a string that ends in a backslash, nothing but strings.
		json.RawMessage(`["a long string with \"quotes\" and \\ backslash \\","\u00e9t\u00e9 — « long » string ✓✓✓✓","\\","x"]`),
		json.RawMessage(`["a long string with \"quotes\" and \\ backslash \\","\u00e9t\u00e9 — « long » string ✓✓✓✓","\\","y"]`),
		turnDecisions(6, 30),
	}
	path := filepath.Join(t.TempDir(), "pieces.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cb := newChat(t, db, "c")
	head := ""
	want := make([]string, len(lists))
	for i, l := range lists {
		cb.decisions = l
		head = cb.turn("main", head, "question")
		var buf bytes.Buffer
		if err := json.Compact(&buf, l); err != nil {
			t.Fatal(err)
		}
		want[i] = buf.String()
	}
	other, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, d := range []struct {
		name string
		db   *store.DB
	}{{"writer", db}, {"another", other}} {
		t.Run(d.name, func(t *testing.T) {
			check := func(what string, got []chat.Turn) {
				t.Helper()
				if len(got) != len(want) {
					t.Fatalf("%s: %d turns, want %d", what, len(got), len(want))
				}
				for i := range got {
					if string(got[i].Decisions) != want[i] {
						t.Errorf("%s: turn %d decisions:\n got %s\nwant %s", what, i+1, got[i].Decisions, want[i])
					}
				}
			}
			a, err := d.db.ExportChat(ctx, "c")
			if err != nil {
				t.Fatal(err)
			}
			check("ExportChat", a.Turns)
			s, err := d.db.Load(ctx, "c", "", store.DetailAll)
			if err != nil {
				t.Fatal(err)
			}
			check("Load", s.Turns)
			ts, err := d.db.CompleteTurns(ctx, "c", s.Messages)
			if err != nil {
				t.Fatal(err)
			}
			check("CompleteTurns", ts)
			for i := range want {
				id := fmt.Sprintf("c-t%d", i+1)
				tr, err := d.db.Turn(ctx, "c", id)
				if err != nil || string(tr.Decisions) != want[i] {
					t.Errorf("Turn(%s): %s, %v", id, tr.Decisions, err)
				}
				dec, err := d.db.TurnDecisions(ctx, "c", id)
				if err != nil || string(dec) != want[i] {
					t.Errorf("TurnDecisions(%s): %s, %v", id, dec, err)
				}
			}
		})
	}
	if err := db.Check(ctx); err != nil {
		t.Error(err)
	}
}

// TestDecisionsTwoWriters has two databases on one file commit the same pieces: each
// stores the pieces it does not know, finds those the other stored, and every list reads
// back as it was.
func TestDecisionsTwoWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.db")
	a, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ca, cb := newChat(t, a, "a"), newChat(t, b, "b")
	ha, hb := "", ""
	for n := 1; n <= 6; n++ {
		ca.decisions, cb.decisions = turnDecisions(n, 20), turnDecisions(n, 20)
		ha = ca.turn("main", ha, "question")
		hb = cb.turn("main", hb, "question")
	}
	for _, d := range []*store.DB{a, b} {
		for _, id := range []string{"a", "b"} {
			e, err := d.ExportChat(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for i, tr := range e.Turns {
				if want := turnDecisions(i+1, 20); !bytes.Equal(tr.Decisions, want) {
					t.Errorf("chat %s turn %d: decisions differ:\n got %s\nwant %s", id, i+1, tr.Decisions, want)
				}
			}
		}
	}
	if err := a.Check(ctx); err != nil {
		t.Error(err)
	}
}

// TestDecisionsAfterFailedCommit checks that a commit refused inside its transaction (the
// head moved) leaves no piece behind that a later commit would refer to.
func TestDecisionsAfterFailedCommit(t *testing.T) {
	db := openFile(t)
	cb := newChat(t, db, "c")
	cb.decisions = turnDecisions(1, 20)
	head := cb.turn("main", "", "question")
	// The second list would store new pieces, but the commit expects a stale head.
	bad := storetest.TurnCommit("c", "x", 2, "main", "", "question", turnDecisions(2, 20))
	bad.ExpectHead = "c-u1"
	if err := db.Commit(ctx, bad); err == nil {
		t.Fatal("commit with a stale head succeeded")
	}
	for n := 2; n <= 4; n++ {
		cb.decisions = turnDecisions(n, 20)
		head = cb.turn("main", head, "question")
	}
	e, err := db.ExportChat(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range e.Turns {
		if want := turnDecisions(i+1, 20); !bytes.Equal(tr.Decisions, want) {
			t.Errorf("turn %d: decisions differ:\n got %s\nwant %s", i+1, tr.Decisions, want)
		}
	}
	if err := db.Check(ctx); err != nil {
		t.Error(err)
	}
}

// TestImportPacksDecisions imports a chat whose turns repeat their decisions' pieces and
// exports it again unchanged.
func TestImportPacksDecisions(t *testing.T) {
	e := linearChat(50)
	for i := range e.Turns {
		e.Turns[i].Decisions = turnDecisions(i+1, 100)
	}
	db := openFile(t)
	if err := db.ImportChat(ctx, e.Archive); err != nil {
		t.Fatal(err)
	}
	got, err := db.ExportChat(ctx, "grow")
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range got.Turns {
		if !bytes.Equal(tr.Decisions, e.Turns[i].Decisions) {
			t.Fatalf("turn %d: decisions differ", i+1)
		}
	}
	if err := db.Check(ctx); err != nil {
		t.Error(err)
	}
}
