package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// downReplier fails before any reply, as a server that cannot be reached.
type downReplier struct{}

func (downReplier) reply(context.Context, *Session, *Plan) (*outcome, error) {
	return nil, errors.New("model: connection refused")
}

// TestStartSavesWithFirstTurn checks that a chat opened with Start is saved with its first
// turn: a first turn that fails leaves no chat, and the chat then saved is whole.
func TestStartSavesWithFirstTurn(t *testing.T) {
	h := newHarness(t, `reminders: [{id: r, text: R.}]`)
	s := h.eng.Start(chat.Chat{ID: "new", Title: "New"})
	if s.Saved() {
		t.Error("a started chat is saved before its first turn")
	}
	if err := s.Switch(h.ctx, "main"); err != nil {
		t.Errorf("switch to the active branch of an unsaved chat: %v", err)
	}
	if err := s.Switch(h.ctx, "other"); !errors.Is(err, ErrNotFound) {
		t.Errorf("switch to another branch of an unsaved chat: got %v, want ErrNotFound", err)
	}
	if _, err := s.Send(h.ctx, UserInput{Text: "hello", At: at(1)}, downReplier{}); err == nil {
		t.Fatal("the failing turn succeeded")
	}
	if _, err := h.store.Chat(h.ctx, "new"); !errors.Is(err, chat.ErrNotFound) {
		t.Fatalf("after a failed first turn: got %v, want no chat saved", err)
	}
	if _, err := s.Send(h.ctx, UserInput{Text: "hello", At: at(2)}, &Scripted{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if !s.Saved() {
		t.Error("the chat is not marked saved after its first turn")
	}
	saved, err := h.eng.Open(h.ctx, "new")
	if err != nil {
		t.Fatal(err)
	}
	if c := saved.Chat(); c.Title != "New" || saved.TurnCount() != 1 || len(saved.Messages()) != 2 {
		t.Errorf("got chat %q with %d turns, %d messages; want New, 1, 2", c.Title, saved.TurnCount(), len(saved.Messages()))
	}
	// A second chat started with a taken id fails at its first turn and changes nothing.
	dup := h.eng.Start(chat.Chat{ID: "new", Title: "Dup"})
	if _, err := dup.Send(h.ctx, UserInput{Text: "again", At: at(3)}, &Scripted{Text: "no"}); !errors.Is(err, chat.ErrConflict) {
		t.Errorf("first turn of a chat whose id is taken: got %v, want ErrConflict", err)
	}
	if again, err := h.eng.Open(h.ctx, "new"); err != nil || again.Chat().Title != "New" || again.TurnCount() != 1 {
		t.Errorf("the taken chat changed: %v", err)
	}
}
