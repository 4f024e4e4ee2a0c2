package store_test

import (
	"reflect"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func TestPricedUsageByModel(t *testing.T) {
	db := openFile(t)
	b := newChat(t, db, "c")
	b.turns("main", "", 2)
	got, err := db.PricedUsageByModel(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	total, err := db.ChatUsage(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	var sum chat.Usage
	for _, u := range got {
		sum = sum.Add(u)
	}
	if len(got) == 0 || !reflect.DeepEqual(sum, total) {
		t.Errorf("PricedUsageByModel = %+v, summing to %+v; want the chat's usage %+v", got, sum, total)
	}
	if _, err := db.PricedUsageByModel(ctx, "none"); err != nil {
		t.Errorf("an unknown chat: got %v, want an empty map", err)
	}
}

// TestPricedUsageLeavesOutScripted checks that a scripted reply without reported usage,
// never sent to a model, is not priced, while a scripted one with usage and a live one are.
func TestPricedUsageLeavesOutScripted(t *testing.T) {
	tests := []struct {
		name     string
		scripted bool
		reported bool
		want     map[string]chat.Usage
	}{
		{"live, reported", false, true, map[string]chat.Usage{"m": {PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}}},
		{"live, estimated", false, false, map[string]chat.Usage{"m": {PromptTokens: 99, CompletionTokens: 9, TotalTokens: 108}}},
		{"scripted with usage", true, true, map[string]chat.Usage{"m": {PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}}},
		{"scripted without usage", true, false, map[string]chat.Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openFile(t)
			if err := db.CreateChat(ctx, chat.Chat{ID: "c", Title: "c"}); err != nil {
				t.Fatal(err)
			}
			u := chat.Message{ID: "u1", Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("hi")}, CreatedAt: t0}
			a := chat.Message{ID: "a1", ParentID: "u1", Role: chat.RoleAssistant, Parts: []chat.Part{chat.TextPart("ok")}, CreatedAt: t0}
			tr := chat.Turn{ID: "t1", Branch: "main", Number: 1, UserMessageID: "u1", AssistantMessageID: "a1", At: t0,
				Request:   chat.SentRequest{Model: "m", Scripted: tt.scripted},
				Estimated: chat.Usage{PromptTokens: 99, CompletionTokens: 9, TotalTokens: 108}, FinishReason: "stop"}
			if tt.reported {
				tr.Reported = &chat.Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}
			}
			if err := db.Commit(ctx, chat.Commit{ChatID: "c", Branch: "main", NewHead: "a1", Messages: []chat.Message{u, a}, Turns: []chat.Turn{tr}}); err != nil {
				t.Fatal(err)
			}
			got, err := db.PricedUsageByModel(ctx, "c")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
