package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestMemStoreOverlay checks a MemStore over a base store: it reads the saved chat through,
// keeps every write to itself, and the pipeline continues the chat's counters.
func TestMemStoreOverlay(t *testing.T) {
	const src = `reminders: [{id: r, text: R., max_per_chat: 3}, {id: o, text: O., when: "once('o')"}]`
	h := newHarness(t, src)
	h.sendN(2)
	if err := h.s.Checkpoint(h.ctx, "cp"); err != nil {
		t.Fatal(err)
	}
	baseUsage := h.s.Usage()

	overlay := NewMemStore(h.store)
	e, err := New(Options{Context: h.file, Store: overlay, Now: h.eng.now, NewID: h.ids.next})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Open(h.ctx, "chat-1")
	if err != nil {
		t.Fatal(err)
	}
	if s.TurnCount() != 2 || s.Usage() != baseUsage {
		t.Fatalf("got %d turns, usage %+v, want 2 turns and the base's %+v", s.TurnCount(), s.Usage(), baseUsage)
	}
	res, err := s.Send(h.ctx, UserInput{Text: "three", At: at(3)}, &Scripted{Text: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Plan.Decisions {
		got = append(got, summary(d))
	}
	if want := []string{"r:fired", "o:predicate_false"}; !reflect.DeepEqual(got, want) {
		t.Errorf("turn 3 over the base: got %v, want %v", got, want)
	}
	// Regenerating a base turn, restoring a base checkpoint, editing: all in the overlay.
	if _, err := s.Regenerate(h.ctx, &Scripted{Text: "again"}, at(4)); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(h.ctx, "cp"); err != nil {
		t.Fatal(err)
	}
	if s.TurnCount() != 2 {
		t.Errorf("restored a base checkpoint: got %d turns, want 2", s.TurnCount())
	}
	if _, err := s.Edit(h.ctx, 1, UserInput{Text: "edit", At: at(5)}, &Scripted{Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	list, err := overlay.Branches(h.ctx, "chat-1")
	if err != nil {
		t.Fatal(err)
	}
	turns := map[string]int{}
	for _, b := range list {
		turns[b.Name] = b.Turns
	}
	if want := map[string]int{"main": 3, "main-v2": 3, "main-v2-v2": 2, "main-v2-v2-v2": 1}; !reflect.DeepEqual(turns, want) {
		t.Errorf("overlay branches: got %v, want %v", turns, want)
	}

	// The base is untouched.
	h.reopen()
	if h.s.TurnCount() != 2 || h.s.Branch() != "main" || h.s.Usage() != baseUsage {
		t.Errorf("base: got branch %s, %d turns, usage %+v; want main, 2 turns, %+v", h.s.Branch(), h.s.TurnCount(), h.s.Usage(), baseUsage)
	}
	if got := branchNames(t, h); !reflect.DeepEqual(got, map[string]int{"main": 2}) {
		t.Errorf("base branches: got %v, want only main", got)
	}
}

// TestDecisionJSONRoundTrip checks that recorded decisions read back equal.
func TestDecisionJSONRoundTrip(t *testing.T) {
	h := newHarness(t, `
modes: [{name: M, if: "contentIncludes(['m'])"}]
instructions:
  - {id: i, mode: M, prompt: P., when: [a, "!b"], if: firstN(2)}
  - {id: j, prompt: Q., enabled: false}
reminders:
  - {id: r, text: R., when: "and(once('x'), firstN(1))", placement: part, tier: safety}
  - {id: s, template: "{{.Turn}}", max_per_chat: 1}
`)
	res := h.send("m", at(1))
	var back []Decision
	if err := json.Unmarshal(res.Turn.Decisions, &back); err != nil {
		t.Fatal(err)
	}
	a := marshalDecisions(res.Plan.Decisions)
	b := marshalDecisions(back)
	if string(a) != string(b) {
		t.Errorf("got\n%s\nwant\n%s", b, a)
	}
	if string(a) != string(res.Turn.Decisions) {
		t.Errorf("got recorded\n%s\nwant\n%s", res.Turn.Decisions, a)
	}
	if !reflect.DeepEqual(back[0].Latches(), []string{"x"}) {
		t.Errorf("got latches %v, want [x]", back[0].Latches())
	}
}

// TestMemStoreRefusesLongNames checks that a MemStore refuses the ids and names the
// database store refuses (chat.CheckName), so that a dry run finds them, and that a turn
// whose new branch cannot be saved leaves the session on its branch as it was.
func TestMemStoreRefusesLongNames(t *testing.T) {
	h := newHarness(t, `reminders: [{id: r, text: R.}]`)
	long := strings.Repeat("b", chat.MaxNameLen-len("-v2")+1) // its next branch is one byte too long
	s, err := h.eng.Create(h.ctx, chat.Chat{ID: "long", ActiveBranch: long})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(h.ctx, UserInput{Text: "hi", At: at(1)}, &Scripted{Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Regenerate(h.ctx, &Scripted{Text: "again"}, at(2))
	wantErrIs(t, err, ErrInvalid)
	// Exactly the refusal of the new branch's name, wrapped by the step.
	if want := fmt.Sprintf("save turn: chat %q: %v", "long", chat.CheckName("branch name", long+"-v2")); err.Error() != want {
		t.Errorf("got error %q, want %q", err, want)
	}
	_, err = s.Edit(h.ctx, 1, UserInput{Text: "edited", At: at(3)}, &Scripted{Text: "ok"})
	wantErrIs(t, err, ErrInvalid)
	wantErrIs(t, s.Checkpoint(h.ctx, strings.Repeat("c", chat.MaxNameLen+1)), ErrInvalid)
	if s.Branch() != long || s.TurnCount() != 1 || len(s.Messages()) != 2 {
		t.Errorf("after the refused steps: got branch %.8s…, %d turns, %d messages; want the branch as it was", s.Branch(), s.TurnCount(), len(s.Messages()))
	}
	if list, err := h.store.Branches(h.ctx, "long"); err != nil || len(list) != 1 {
		t.Errorf("got branches %v (%v), want the one", list, err)
	}
	_, err = h.eng.Create(h.ctx, chat.Chat{ID: strings.Repeat("x", chat.MaxNameLen+1)})
	wantErrIs(t, err, ErrInvalid)
}

// TestMemStoreRefusesTitles checks that a MemStore refuses the chat titles the database
// store refuses (chat.CheckTitle), whether the chat is created alone or with its first
// turn, and saves nothing of it.
func TestMemStoreRefusesTitles(t *testing.T) {
	h := newHarness(t, `reminders: [{id: r, text: R.}]`)
	for _, title := range []string{strings.Repeat("t", chat.MaxTitleLen+1), "bell\a"} {
		_, err := h.eng.Create(h.ctx, chat.Chat{ID: "created", Title: title})
		wantErrIs(t, err, ErrInvalid)
		_, err = h.eng.Start(chat.Chat{ID: "started", Title: title}).Send(h.ctx, UserInput{Text: "hi", At: at(1)}, &Scripted{Text: "ok"})
		wantErrIs(t, err, ErrInvalid)
		for _, id := range []string{"created", "started"} {
			if _, err := h.store.Chat(h.ctx, id); !isNotFound(err) {
				t.Errorf("title %.20q: chat %s: got %v, want it not saved", title, id, err)
			}
		}
	}
	if _, err := h.eng.Create(h.ctx, chat.Chat{ID: "tab", Title: "a\ttab\nand lines"}); err != nil {
		t.Errorf("a title with a tab and line breaks: %v", err)
	}
}
