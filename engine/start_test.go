package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// downReplier fails before any reply, as a server that cannot be reached.
type downReplier struct{}

func (downReplier) Reply(context.Context, *TurnRequest, func(Event)) (*Outcome, error) {
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
	// A second chat started with a taken id (another writer saved it first) saves its
	// first turn in that chat, on a new branch from the root; main is left as it was.
	dup := h.eng.Start(chat.Chat{ID: "new", Title: "Dup"})
	res, err := dup.Send(h.ctx, UserInput{Text: "again", At: at(3)}, &Scripted{Text: "yes"})
	if err != nil {
		t.Fatal(err)
	}
	if !dup.Saved() || dup.Branch() != "main-v2" || res.PlannedOn != "main" || dup.TurnCount() != 1 || dup.Chat().Title != "New" {
		t.Errorf("got saved %v, branch %s (planned on %s), %d turns, title %q; want saved on main-v2, 1 turn, the chat's title New",
			dup.Saved(), dup.Branch(), res.PlannedOn, dup.TurnCount(), dup.Chat().Title)
	}
	if again, err := h.eng.Open(h.ctx, "new"); err != nil || again.Branch() != "main-v2" || again.Chat().Title != "New" || pathTexts(again)[0] != "u:again"+tag("R.") {
		t.Errorf("reopened: got %v, want the chat New on main-v2 with the second writer's turn", err)
	}
	if err := saved.Switch(h.ctx, "main"); err != nil || saved.TurnCount() != 1 || pathTexts(saved)[0] != "u:hello"+tag("R.") {
		t.Errorf("main changed: %v %q", err, pathTexts(saved))
	}
}

// TestStartTitlesFromFirstMessage checks that an untitled chat opened with Start takes its
// title from what the user typed first, without the reminders baked into it, for a turn
// answered and for one left unanswered.
func TestStartTitlesFromFirstMessage(t *testing.T) {
	for _, unanswered := range []bool{false, true} {
		h := newHarness(t, `reminders: [{id: r, text: Be brief.}]`)
		s := h.eng.Start(chat.Chat{ID: "untitled"})
		in := UserInput{Text: "why did my\nquery fail?", At: at(1)}
		var err error
		if unanswered {
			_, err = s.SendUnanswered(h.ctx, in)
		} else {
			_, err = s.Send(h.ctx, in, &Scripted{Text: "a lock"})
		}
		if err != nil {
			t.Fatal(err)
		}
		saved, err := h.store.Chat(h.ctx, "untitled")
		if err != nil {
			t.Fatal(err)
		}
		if want := "why did my query fail?"; saved.Title != want || s.Chat().Title != want {
			t.Errorf("unanswered %v: saved title %q, session title %q; want %q", unanswered, saved.Title, s.Chat().Title, want)
		}
	}
}
