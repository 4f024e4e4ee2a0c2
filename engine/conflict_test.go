package engine

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// interloper is a store where another writer gets in first: its next write runs the other
// writer's step before its own.
type interloper struct {
	*MemStore
	other func()
}

func (s *interloper) first() {
	if f := s.other; f != nil {
		s.other = nil
		f()
	}
}

func (s *interloper) Commit(ctx context.Context, c chat.Commit) error {
	s.first()
	return s.MemStore.Commit(ctx, c)
}

func (s *interloper) CreateBranch(ctx context.Context, chatID string, b chat.Branch, activate bool) error {
	s.first()
	return s.MemStore.CreateBranch(ctx, chatID, b, activate)
}

// raceHarness is a harness whose session (h.s) writes through an interloper, and a
// second session (other) of the same chat writing to the store directly.
type raceHarness struct {
	*harness
	race  *interloper
	other *Session
}

func newRaceHarness(t *testing.T, turns int) *raceHarness {
	h := newHarness(t, `reminders: [{id: r, text: R., max_per_chat: 9}]`)
	h.sendN(turns)
	race := &interloper{MemStore: h.store}
	e := h.engine(h.file, func(o *Options) { o.Store = race })
	s, err := e.Open(h.ctx, "chat-1")
	if err != nil {
		t.Fatal(err)
	}
	other := h.s
	h.s = s
	return &raceHarness{harness: h, race: race, other: other}
}

// TestConflictSavesAside checks that a turn whose branch another writer moved before it
// was saved is not lost: it is saved as it was sent on a new branch made where it was
// planned, the session switches to it, and the result says so.
func TestConflictSavesAside(t *testing.T) {
	h := newRaceHarness(t, 1)
	h.race.other = func() {
		if _, err := h.other.Send(h.ctx, UserInput{Text: "from the other", At: at(2)}, &Scripted{Text: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	planned := h.s.Preview(UserInput{Text: "mine", At: at(2)})
	res, err := h.s.Send(h.ctx, UserInput{Text: "mine", At: at(2)}, &Scripted{Text: "saved"})
	if err != nil {
		t.Fatal(err)
	}
	if res.PlannedOn != "main" || res.Turn.Branch != "main-v2" || h.s.Branch() != "main-v2" || res.Trace("chat-1").PlannedOn != "main" {
		t.Errorf("got planned on %q, saved on %s, session on %s; want planned on main, saved on main-v2, switched", res.PlannedOn, res.Turn.Branch, h.s.Branch())
	}
	if res.Plan.Turn != 2 || res.Plan.User.ParentID != h.other.Messages()[1].ID {
		t.Errorf("got turn %d after %s, want turn 2 after turn 1's reply", res.Plan.Turn, res.Plan.User.ParentID)
	}
	a, _ := json.Marshal(res.Plan.Request)
	b, _ := json.Marshal(planned.Request)
	if string(a) != string(b) {
		t.Errorf("saved with request\n%s\nwant the one planned on main\n%s", a, b)
	}
	if got, want := branchNames(t, h.harness), map[string]int{"main": 2, "main-v2": 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("got branches %v, want %v", got, want)
	}
	if got, want := pathTexts(h.s), []string{"u:turn 1" + tag("R."), "a:ok", "u:mine" + tag("R."), "a:saved"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got path %q, want %q", got, want)
	}
	// The next turn goes on main-v2 as usual, and counts the fires of its path.
	next, err := h.s.Send(h.ctx, UserInput{Text: "next", At: at(3)}, &Scripted{Text: "ok"})
	if err != nil || next.PlannedOn != "" || next.Turn.Branch != "main-v2" || next.Plan.Turn != 3 || h.s.view.fires["r"].count != 3 {
		t.Errorf("next turn: %v, planned on %q, branch %s, turn %d, r fired %d times; want main-v2, turn 3, 3 fires",
			err, next.PlannedOn, next.Turn.Branch, next.Plan.Turn, h.s.view.fires["r"].count)
	}
}

// TestConflictTakesNextName checks that a step making a new branch whose name another
// writer took first uses the next free name: a regenerated reply, a rewind.
func TestConflictTakesNextName(t *testing.T) {
	h := newRaceHarness(t, 2)
	h.race.other = func() {
		if _, err := h.other.Regenerate(h.ctx, &Scripted{Text: "other answer"}, at(3)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := h.s.Regenerate(h.ctx, &Scripted{Text: "my answer"}, at(3))
	if err != nil {
		t.Fatal(err)
	}
	if res.PlannedOn != "main-v2" || h.s.Branch() != "main-v3" || res.Turn.Number != 2 {
		t.Errorf("got planned on %q, saved on %s, turn %d; want planned on main-v2, saved on main-v3, turn 2", res.PlannedOn, h.s.Branch(), res.Turn.Number)
	}
	h.race.other = func() {
		if err := h.other.Switch(h.ctx, "main-v3"); err != nil {
			t.Fatal(err)
		}
		if err := h.other.Rewind(h.ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.s.Rewind(h.ctx, 1); err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v3-v3" || h.other.Branch() != "main-v3-v2" || h.s.TurnCount() != 1 {
		t.Errorf("rewound onto %s with %d turns (the other onto %s), want main-v3-v3 with 1 (main-v3-v2)", h.s.Branch(), h.s.TurnCount(), h.other.Branch())
	}
	want := map[string]int{"main": 2, "main-v2": 2, "main-v3": 2, "main-v3-v2": 1, "main-v3-v3": 1}
	if got := branchNames(t, h.harness); !reflect.DeepEqual(got, want) {
		t.Errorf("got branches %v, want %v", got, want)
	}
}
