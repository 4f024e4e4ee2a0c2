package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// lockedStore is an in-memory store whose commits fail while locked.
type lockedStore struct {
	*engine.MemStore
	locked bool
}

func (s *lockedStore) Commit(ctx context.Context, c chat.Commit) error {
	if s.locked {
		return errors.New("database is busy: another connection held the lock for more than 5s")
	}
	return s.MemStore.Commit(ctx, c)
}

// TestUnsavedReplyStaysOnScreen: a reply written (scripted) whose save fails stays on
// screen with the error under it, nothing lost; alt+s while the store still fails keeps
// it; once the store takes it, alt+s saves it, and the chat holds it.
func TestUnsavedReplyStaysOnScreen(t *testing.T) {
	v := newEnv(t)
	store := &lockedStore{MemStore: engine.NewMemStore(nil)}
	e, err := ctxapp.NewEngine(v.file, store, v.s, v.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	c := &memChat{e: e, s: e.Start(chat.Chat{Title: "locked"})}
	m := newModel(t, v, c, 120, 40, Options{})
	store.locked = true
	press(m, "type:how many rows?", "enter", "type:There are 42 rows.", "enter")
	f := m.View()
	for _, want := range []string{"how many rows?", "There are 42 rows.", "✗ NOT SAVED: database is busy", "alt+s saves it again"} {
		if !strings.Contains(f, want) {
			t.Errorf("after the failed save the screen lacks %q:\n%s", want, f)
		}
	}
	if c.s.Saved() || m.comp.Value() != "" {
		t.Fatalf("saved %v, composer %q: want nothing saved, the message not put back (its reply is on screen)", c.s.Saved(), m.comp.Value())
	}
	press(m, "alt+s") // still locked
	if f := m.View(); !strings.Contains(f, "There are 42 rows.") || !strings.Contains(f, "NOT SAVED") || c.s.Saved() {
		t.Fatalf("alt+s on a store still locked lost the reply or saved it:\n%s", f)
	}
	store.locked = false
	press(m, "alt+s")
	f = m.View()
	if strings.Contains(f, "NOT SAVED") || !strings.Contains(f, "There are 42 rows.") || !strings.Contains(f, "the reply is saved") {
		t.Errorf("after alt+s on a store that takes it:\n%s", f)
	}
	if !c.s.Saved() || c.s.TurnCount() != 1 || c.s.Messages()[1].PlainText() != "There are 42 rows." {
		t.Errorf("the chat holds %d turns after saving again", c.s.TurnCount())
	}
	press(m, "alt+s")
	if !strings.Contains(m.notice, "nothing to save again") {
		t.Errorf("alt+s with nothing unsaved: notice %q", m.notice)
	}
}
