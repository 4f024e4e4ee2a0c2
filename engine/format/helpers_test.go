package format_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
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
}

// step returns the commit of one turn on branch, from head, with user text text.
func (b *chatBuilder) step(branch, head, text string) chat.Commit {
	b.n++
	n := b.n
	at := t0.Add(time.Duration(n) * time.Minute)
	u := chat.Message{ID: fmt.Sprintf("%s-u%d", b.chat, n), ParentID: head, Role: chat.RoleUser,
		Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: at, Locale: &chat.Locale{Language: "English", TimeZone: "UTC"}}
	a := chat.Message{ID: fmt.Sprintf("%s-a%d", b.chat, n), ParentID: u.ID, Role: chat.RoleAssistant,
		Parts: []chat.Part{chat.TextPart("reply to " + text)}, CreatedAt: at.Add(time.Second)}
	rep := chat.Usage{PromptTokens: 100 + n, CompletionTokens: 10}
	tr := chat.Turn{ID: fmt.Sprintf("%s-t%d", b.chat, n), Branch: branch, Number: n,
		UserMessageID: u.ID, AssistantMessageID: a.ID, At: at,
		Request:   chat.SentRequest{Model: "scripted", SystemPrompt: "<role>helper</role>"},
		Fired:     []chat.Fired{{ID: "concise", Latches: []string{"concise"}}},
		Decisions: b.decisions, Reported: &rep, Estimated: chat.Usage{PromptTokens: 99, CompletionTokens: 9},
		TTFT: 120 * time.Millisecond, Latency: 450 * time.Millisecond, FinishReason: "stop"}
	return chat.Commit{ChatID: b.chat, Branch: branch, ExpectHead: head, NewHead: a.ID,
		Messages: []chat.Message{u, a}, Turns: []chat.Turn{tr}}
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
