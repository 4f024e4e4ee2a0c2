package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

var (
	ctx = context.Background()
	t0  = time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)
)

// chatBuilder writes turns to one chat: user message, assistant message and turn record.
type chatBuilder struct {
	tb   testing.TB
	db   *store.DB
	chat string
	n    int
	// decisions is the decisions JSON of each turn.
	decisions json.RawMessage
	// tag is added to the ids, so that several writers of one chat make distinct ids.
	tag string
}

func newChat(tb testing.TB, db *store.DB, id string) *chatBuilder {
	tb.Helper()
	if err := db.CreateChat(ctx, chat.Chat{ID: id, Title: "Chat " + id, Metadata: map[string]any{"tier": "pro"}}); err != nil {
		tb.Fatalf("CreateChat(%q): %v", id, err)
	}
	return &chatBuilder{tb: tb, db: db, chat: id, decisions: json.RawMessage(`[{"id":"concise","fired":true}]`)}
}

// step returns the commit of one turn on branch, from head, with user text text.
func (b *chatBuilder) step(branch, head, text string) chat.Commit {
	b.n++
	return storetest.TurnCommit(b.chat, b.tag, b.n, branch, head, text, b.decisions)
}

// turn commits one turn on branch from head and returns the new head.
func (b *chatBuilder) turn(branch, head, text string) string {
	b.tb.Helper()
	c := b.step(branch, head, text)
	if err := b.db.Commit(ctx, c); err != nil {
		b.tb.Fatalf("Commit(turn %d): %v", b.n, err)
	}
	return c.NewHead
}

// turns commits n turns on branch from head and returns the new head.
func (b *chatBuilder) turns(branch, head string, n int) string {
	for range n {
		head = b.turn(branch, head, fmt.Sprintf("message number %d about topic%d", b.n+1, b.n%7))
	}
	return head
}

func ids(ms []chat.Message) string {
	s := make([]string, len(ms))
	for i := range ms {
		s[i] = ms[i].ID
	}
	return strings.Join(s, " ")
}

func openFile(tb testing.TB) *store.DB { return storetest.MustOpen(tb) }
