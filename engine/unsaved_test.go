package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// failAlways is a store whose commits fail while fail is set.
type failAlways struct {
	*MemStore
	fail bool
}

func (s *failAlways) Commit(ctx context.Context, c chat.Commit) error {
	if s.fail {
		return errors.New("attempt to write a readonly database")
	}
	return s.MemStore.Commit(ctx, c)
}

// TestUnsavedReplyIsKept: a reply that arrives but cannot be saved is returned with the
// error, not lost; the session stays as before; SaveAgain saves it once the store takes
// it, exactly as Send would have; a session that moved on refuses to.
func TestUnsavedReplyIsKept(t *testing.T) {
	for _, first := range []bool{true, false} {
		h := newHarness(t, `reminders: [{id: every, text: Each turn.}]`)
		store := &failAlways{MemStore: h.store}
		e := h.engine(h.file, func(o *Options) { o.Store = store })
		var s *Session
		if first {
			s = e.Start(chat.Chat{ID: "fresh"})
		} else {
			h.sendN(1)
			var err error
			if s, err = e.Open(h.ctx, "chat-1"); err != nil {
				t.Fatal(err)
			}
		}
		before := len(s.Messages())
		store.fail = true
		var events []Event
		res, err := s.Send(h.ctx, UserInput{Text: "question", At: at(2)}, &Scripted{Text: "the paid-for answer"},
			WithEvents(func(ev Event) { events = append(events, ev) }))
		var u *UnsavedError
		if res != nil || !errors.As(err, &u) || u.Result == nil || u.Result.Assistant.PlainText() != "the paid-for answer" {
			t.Fatalf("first %v: got %v, %v; want an *UnsavedError holding the reply", first, res, err)
		}
		if !strings.Contains(err.Error(), "save turn: attempt to write a readonly database") {
			t.Errorf("first %v: error %q", first, err)
		}
		if f, ok := events[len(events)-1].(EventFailed); !ok || !errors.As(f.Err, new(*UnsavedError)) {
			t.Errorf("first %v: last event %T, want EventFailed with the unsaved turn", first, events[len(events)-1])
		}
		if len(s.Messages()) != before || s.Saved() != !first {
			t.Fatalf("first %v: the failed save changed the session (%d messages, want %d)", first, len(s.Messages()), before)
		}
		// Still failing: another UnsavedError, the same reply.
		if _, err := s.SaveAgain(h.ctx, u); !errors.As(err, new(*UnsavedError)) {
			t.Fatalf("first %v: save again on a failing store: %v", first, err)
		}
		store.fail = false
		saved, err := s.SaveAgain(h.ctx, u)
		if err != nil || saved != u.Result {
			t.Fatalf("first %v: save again: %v, %v", first, saved, err)
		}
		if len(s.Messages()) != before+2 || s.Messages()[len(s.Messages())-1].PlainText() != "the paid-for answer" || !s.Saved() {
			t.Errorf("first %v: after saving again the session has %d messages", first, len(s.Messages()))
		}
		again, err := e.Open(h.ctx, s.Chat().ID)
		if err != nil || len(again.Messages()) != before+2 || len(again.Turns()) != len(s.Turns()) {
			t.Errorf("first %v: reopened: %v, %d messages", first, err, len(again.Messages()))
		}
		// Saved once: a second save of the same turn is refused, the session moved on.
		if _, err := s.SaveAgain(h.ctx, u); !errors.Is(err, ErrMovedOn) {
			t.Errorf("first %v: saving the same turn twice: %v, want ErrMovedOn", first, err)
		}
	}
}

// askedModel is a model that records whether it was asked.
type askedModel struct{ asked bool }

func (m *askedModel) Reply(ctx context.Context, t *TurnRequest, emit func(Event)) (*Outcome, error) {
	m.asked = true
	return (&Scripted{Text: "paid"}).Reply(ctx, t, emit)
}

// TestNothingSentThatCannotBeSaved: a turn the store would refuse (here a new chat whose
// id is too long) is refused before the model is asked and paid.
func TestNothingSentThatCannotBeSaved(t *testing.T) {
	h := newHarness(t, ``)
	m := &askedModel{}
	s := h.eng.Start(chat.Chat{ID: strings.Repeat("x", 2000)})
	_, err := s.Send(h.ctx, UserInput{Text: "hi", At: at(1)}, m)
	if err == nil || m.asked || !strings.Contains(err.Error(), "cannot be saved, so the message is not sent") {
		t.Errorf("a chat with a 2000-byte id: asked %v, error %v; want refused before sending", m.asked, err)
	}
}
