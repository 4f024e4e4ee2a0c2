package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// lateStore is a MemStore that takes decision lists ahead and late, as store.DB does,
// and notes what it was given.
type lateStore struct {
	*MemStore
	mu       sync.Mutex
	prepared []string
	late     int
}

func (s *lateStore) PrepareDecisions(list json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prepared = append(s.prepared, string(list))
}

func (s *lateStore) CommitLate(ctx context.Context, c chat.Commit, list func() json.RawMessage) error {
	s.mu.Lock()
	s.late++
	s.mu.Unlock()
	if err := s.MemStore.Commit(ctx, c); err != nil { // the rest of the step first
		return err
	}
	c.Turns[0].Decisions = list()
	return nil
}

// TestDecisionsEncodedAhead checks that a turn's decision list, encoded while the turn is
// answered, is the list of its decisions: prepared with a store that prepares, given late
// to one that takes it late, and in the turn's result. With a plain store the turn is
// committed with the list in it.
func TestDecisionsEncodedAhead(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("late=%v", late), func(t *testing.T) {
			ls := &lateStore{MemStore: NewMemStore(nil)}
			var st Store = ls.MemStore
			if late {
				st = ls
			}
			h := newHarness(t, replaySrc, func(o *Options) { o.Store = st })
			s, err := h.eng.Create(h.ctx, chat.Chat{ID: "chat-2", Title: "ahead"})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				res, err := s.Send(h.ctx, UserInput{Text: fmt.Sprintf("message %d", i), At: at(i + 1)}, &Scripted{Text: "ok"})
				if err != nil {
					t.Fatal(err)
				}
				want := string(marshalDecisions(res.Plan.Decisions))
				if string(res.Turn.Decisions) != want {
					t.Errorf("turn %d: result's decisions %.100s, want %.100s", i+1, res.Turn.Decisions, want)
				}
				if late && (len(ls.prepared) != i+1 || ls.prepared[i] != want || ls.late != i+1) {
					t.Errorf("turn %d: %d lists prepared (the last one right: %v), %d late commits", i+1,
						len(ls.prepared), len(ls.prepared) > i && ls.prepared[i] == want, ls.late)
				}
			}
			if !late && (len(ls.prepared) > 0 || ls.late > 0) {
				t.Error("a plain store was given lists ahead or late")
			}
		})
	}
}

// TestListsPreparedOnceInOrder checks that each list is prepared exactly once and in the
// order of the turns, whether its goroutine or the commit that needs it gets to it first
// (the commit does it itself when both cores were busy).
func TestListsPreparedOnceInOrder(t *testing.T) {
	ls := &lateStore{MemStore: NewMemStore(nil)}
	var l listEncoder
	var want []string
	for i := range 300 {
		ds := []Decision{{ID: fmt.Sprintf("r%d", i)}}
		list := l.start(ds, ls)
		want = append(want, string(marshalDecisions(ds)))
		if i%3 != 0 { // the others are left to their goroutines until the next turn's
			if got := string(list()); got != want[i] {
				t.Fatalf("list %d: got %s, want %s", i, got, want[i])
			}
		}
	}
	l.start(nil, ls)() // the last turn's list waits for every one before it
	ls.mu.Lock()
	defer ls.mu.Unlock()
	got := ls.prepared[:len(ls.prepared)-1]
	if len(got) != len(want) {
		t.Fatalf("prepared %d lists, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("list %d prepared as %s, want %s (out of order or twice)", i, got[i], want[i])
		}
	}
}
