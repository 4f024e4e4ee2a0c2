package store_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

// state is what a failed commit must leave unchanged.
type state struct {
	head     string
	path     string
	turns    int
	usage    chat.Usage
	messages int
	found    int // chats found by searching the failed step's text
}

func readState(t *testing.T, db *store.DB, chatID, search string) state {
	t.Helper()
	b, err := db.Branch(ctx, chatID, "main")
	if err != nil {
		t.Fatal(err)
	}
	path, err := db.Path(ctx, chatID, b.Head)
	if err != nil {
		t.Fatal(err)
	}
	turns, err := db.PathTurns(ctx, chatID, path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := db.ListChats(ctx, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var s state
	for _, c := range list {
		if c.ID == chatID {
			s.messages = c.Messages
		}
	}
	found, err := db.ListChats(ctx, store.ListOptions{Search: search})
	if err != nil {
		t.Fatal(err)
	}
	s.found = len(found)
	s.usage, _ = db.ChatUsage(ctx, chatID)
	s.head, s.path, s.turns = b.Head, ids(path), len(turns)
	return s
}

func TestCommitFailsWhole(t *testing.T) {
	db := storetest.MustOpen(t)
	b := newChat(t, db, "c")
	head := b.turns("main", "", 2)
	before := readState(t, db, "c", "zebra")

	tests := []struct {
		name   string
		change func(c *chat.Commit)
		want   error
	}{
		{"head moved", func(c *chat.Commit) { c.ExpectHead = "c-u1" }, store.ErrConflict},
		{"expected empty branch", func(c *chat.Commit) { c.ExpectHead = "" }, store.ErrConflict},
		{"turn id exists (last row)", func(c *chat.Commit) { c.Turns[0].ID = "c-t1" }, store.ErrConflict},
		{"turn names a missing message (last row)", func(c *chat.Commit) { c.Turns[0].AssistantMessageID = "ghost" }, store.ErrNotFound},
		{"turn on a missing branch", func(c *chat.Commit) { c.Turns[0].Branch = "ghost" }, store.ErrNotFound},
		{"message exists", func(c *chat.Commit) { c.Messages[1].ID = "c-a1" }, store.ErrConflict},
		{"missing parent", func(c *chat.Commit) { c.Messages[0].ParentID = "ghost" }, store.ErrNotFound},
		{"new head missing", func(c *chat.Commit) { c.NewHead = "ghost" }, store.ErrNotFound},
		{"missing branch", func(c *chat.Commit) { c.Branch = "ghost" }, store.ErrNotFound},
		{"missing chat", func(c *chat.Commit) { c.ChatID = "ghost"; c.Turns[0].ChatID = "" }, store.ErrNotFound},
		{"NewBranch named otherwise", func(c *chat.Commit) { c.NewBranch = &chat.Branch{Name: "other"} }, store.ErrInvalid},
		{"turn of another chat", func(c *chat.Commit) { c.Turns[0].ChatID = "other" }, store.ErrInvalid},
		{"same message twice", func(c *chat.Commit) { c.Messages[1].ID = c.Messages[0].ID }, store.ErrInvalid},
		{"bad role", func(c *chat.Commit) { c.Messages[1].Role = "robot" }, store.ErrInvalid},
		{"bad part type", func(c *chat.Commit) { c.Messages[1].Parts[0].Type = "image" }, store.ErrInvalid},
		{"bad tool input", func(c *chat.Commit) {
			c.Messages[1].Parts = append(c.Messages[1].Parts, chat.Part{Type: chat.PartTool, Input: json.RawMessage("{")})
		}, store.ErrInvalid},
		{"bad decisions", func(c *chat.Commit) { c.Turns[0].Decisions = json.RawMessage(`[1,`) }, store.ErrInvalid},
		{"empty message id", func(c *chat.Commit) { c.Messages[0].ID = "" }, store.ErrInvalid},
		{"empty turn id", func(c *chat.Commit) { c.Turns[0].ID = "" }, store.ErrInvalid},
		{"empty branch", func(c *chat.Commit) { c.Branch = ""; c.Turns[0].Branch = "x" }, store.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := b.step("main", head, "zebra crossing")
			tc.change(&c)
			err := db.Commit(ctx, c)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Commit: got %v, want %v", err, tc.want)
			}
			if after := readState(t, db, "c", "zebra"); after != before {
				t.Errorf("after a failed commit: got %+v, want %+v", after, before)
			}
		})
	}

	// The conflict message names the chat and the branch.
	c := b.step("main", "c-a1", "zebra")
	err := db.Commit(ctx, c)
	if want := `chat "c": branch "main" head moved (expected "c-a1", found "c-a2")`; err == nil || err.Error() != want {
		t.Errorf("conflict: got %v, want %s", err, want)
	}
	// And the same step from the right head goes through.
	c = b.step("main", head, "zebra")
	if err := db.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if after := readState(t, db, "c", "zebra"); after.turns != 3 || after.found != 1 || after.head != c.NewHead {
		t.Errorf("after the good commit: got %+v", after)
	}
}

func TestCommitLeavesCallerTurns(t *testing.T) {
	db := storetest.MustOpenMemory(t)
	b := newChat(t, db, "c")
	c := b.step("", "", "hi")
	c.Branch = "main"
	if err := db.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if c.Turns[0].Branch != "" || c.Turns[0].ChatID != "" {
		t.Errorf("caller's turn changed: branch %q chat %q", c.Turns[0].Branch, c.Turns[0].ChatID)
	}
	tr, _ := db.Turn(ctx, "c", c.Turns[0].ID)
	if tr.Branch != "main" || tr.ChatID != "c" {
		t.Errorf("stored turn: branch %q chat %q, want main c", tr.Branch, tr.ChatID)
	}
}

// TestCommitNewChat checks a chat saved with its first step: created whole, or not at all.
func TestCommitNewChat(t *testing.T) {
	db := storetest.MustOpen(t)
	at := t0
	user := chat.Message{ID: "u1", Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("hello")}, CreatedAt: at}
	reply := chat.Message{ID: "a1", ParentID: "u1", Role: chat.RoleAssistant, Parts: []chat.Part{chat.TextPart("hi")}, CreatedAt: at}
	first := func(id string, nc *chat.Chat) chat.Commit {
		return chat.Commit{ChatID: id, Branch: "main", NewHead: "a1", NewChat: nc,
			Messages: []chat.Message{user, reply},
			Turns:    []chat.Turn{{ID: "t1", Number: 1, UserMessageID: "u1", AssistantMessageID: "a1", At: at}}}
	}
	if err := db.Commit(ctx, first("c", &chat.Chat{ID: "other"})); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a commit creating another chat: got %v, want ErrInvalid", err)
	}
	if err := db.Commit(ctx, first("c", &chat.Chat{ID: "c", Title: "T", CreatedAt: at})); err != nil {
		t.Fatal(err)
	}
	c, err := db.Chat(ctx, "c")
	if err != nil || c.Title != "T" || c.ActiveBranch != "main" {
		t.Fatalf("got chat %+v, %v; want it saved with title T on main", c, err)
	}
	before := readState(t, db, "c", "hello")
	if before.head != "a1" || before.turns != 1 || before.messages != 2 {
		t.Errorf("got head %q, %d turns, %d messages; want a1, 1, 2", before.head, before.turns, before.messages)
	}
	// Creating it again fails whole: the chat exists.
	again := first("c", &chat.Chat{ID: "c", Title: "T2", CreatedAt: at})
	again.Messages[0].ID, again.Messages[1].ID, again.Messages[1].ParentID, again.NewHead = "u2", "a2", "u2", "a2"
	again.Turns[0].ID, again.Turns[0].UserMessageID, again.Turns[0].AssistantMessageID = "t2", "u2", "a2"
	if err := db.Commit(ctx, again); err == nil {
		t.Fatal("created the same chat twice")
	}
	if after := readState(t, db, "c", "hello"); after != before {
		t.Errorf("a failed creation changed the chat: %+v, want %+v", after, before)
	}
	if c, _ := db.Chat(ctx, "c"); c.Title != "T" {
		t.Errorf("a failed creation changed the title to %q", c.Title)
	}
}
