package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// ftsTurns commits n turns (a user message and a reply each) to chat id, creating it, with
// word in every user message.
func ftsTurns(t *testing.T, d *DB, id, word string, n int) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 3, 27, 9, 0, 0, 0, time.UTC)
	head := ""
	for i := range n {
		u := chat.Message{ID: fmt.Sprintf("u%d", i), ParentID: head, Role: chat.RoleUser,
			Parts: []chat.Part{chat.TextPart(fmt.Sprintf("%s number %d", word, i))}, CreatedAt: at}
		a := chat.Message{ID: fmt.Sprintf("a%d", i), ParentID: u.ID, Role: chat.RoleAssistant,
			Parts: []chat.Part{chat.TextPart("a reply")}, CreatedAt: at}
		c := chat.Commit{ChatID: id, Branch: "main", ExpectHead: head, NewHead: a.ID, Messages: []chat.Message{u, a}}
		if i == 0 {
			c.NewChat = &chat.Chat{ID: id, Title: id, CreatedAt: at}
			c.Activate = true
		}
		if err := d.Commit(ctx, c); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		head = a.ID
	}
}

// searchChats returns the ids of the chats a search for word finds.
func searchChats(t *testing.T, d *DB, word string) []string {
	t.Helper()
	l, err := d.ListChats(context.Background(), ListOptions{Search: word})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range l {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestSearchIndexBatches checks the search index written in batches (fts.go): a commit
// leaves its messages waiting until ftsBatch wait, a search finds the waiting ones, and a
// deleted chat's messages are never found again, even when their pks are given again to
// messages not indexed yet.
func TestSearchIndexBatches(t *testing.T) {
	ctx := context.Background()
	d := openTemp(t)
	indexed := func() int64 {
		t.Helper()
		pk, err := indexedPK(ctx, d.db)
		if err != nil {
			t.Fatal(err)
		}
		return pk
	}
	found := func(word string) []string { return searchChats(t, d, word) }

	ftsTurns(t, d, "few", "lemon", 3)
	if got := indexed(); got != 0 {
		t.Errorf("after 6 messages: indexed_pk %d, want 0 (waiting)", got)
	}
	if got := found("lemon"); len(got) != 1 || got[0] != "few" {
		t.Errorf("search lemon: got %v, want [few]", got)
	}
	if got := indexed(); got != 6 {
		t.Errorf("after a search: indexed_pk %d, want 6", got)
	}

	ftsTurns(t, d, "many", "melon", ftsBatch/2+1) // ftsBatch+2 messages: the last commit indexes them
	if got, want := indexed(), int64(6+ftsBatch); got != want {
		t.Errorf("after %d more messages: indexed_pk %d, want %d", ftsBatch+2, got, want)
	}
	if got := found("melon"); len(got) != 1 || got[0] != "many" {
		t.Errorf("search melon: got %v, want [many]", got)
	}

	// The last chat's messages, indexed or not, go; the pks above the rest come again.
	ftsTurns(t, d, "tail", "peach", 2)
	if err := d.DeleteChat(ctx, "tail"); err != nil {
		t.Fatal(err)
	}
	if err := d.DeleteChat(ctx, "many"); err != nil {
		t.Fatal(err)
	}
	if got := indexed(); got != 6 {
		t.Errorf("after deleting the last chats: indexed_pk %d, want 6", got)
	}
	ftsTurns(t, d, "again", "plum", 2)
	for word, want := range map[string]string{"melon": "", "peach": "", "plum": "again", "lemon": "few"} {
		got := found(word)
		if (want == "" && len(got) != 0) || (want != "" && (len(got) != 1 || got[0] != want)) {
			t.Errorf("search %s after the deletes: got %v, want %q", word, got, want)
		}
	}
	if err := d.Check(ctx); err != nil {
		t.Error(err)
	}
}

// TestSearchTextsKeptAreThoseOfTheRows checks the search texts a process keeps for the
// messages it committed (fts.go): they are what the index gets, and a pk that another
// process gave again to another message (after deleting the chat) gets that message's
// text, read back, not the one kept.
func TestSearchTextsKeptAreThoseOfTheRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fts.db")
	d1, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d1.Close()
	d2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	ftsTurns(t, d1, "first", "apricot", 3)
	if _, ok := d1.fts.text(1, "first", "u0"); !ok {
		t.Fatal("the committing process kept no search text for its first message")
	}
	if err := d2.DeleteChat(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	ftsTurns(t, d2, "second", "quince", 3) // the same pks again, other messages
	if _, ok := d1.fts.text(1, "first", "u0"); !ok {
		t.Fatal("the kept text went: the test no longer sees a pk given again")
	}
	for word, want := range map[string]string{"apricot": "", "quince": "second"} {
		got := searchChats(t, d1, word)
		if (want == "" && len(got) != 0) || (want != "" && (len(got) != 1 || got[0] != want)) {
			t.Errorf("search %s: got %v, want %q", word, got, want)
		}
	}
	if _, ok := d1.fts.text(1, "first", "u0"); ok {
		t.Error("a text was kept past its indexing")
	}
	if err := d1.Check(ctx); err != nil {
		t.Error(err)
	}
}
