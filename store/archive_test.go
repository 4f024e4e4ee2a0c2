package store_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

// archive returns a chat of two turns on main, with a branch and a checkpoint.
func archive(id string) chat.Archive {
	msg := func(mid, parent string, role chat.Role, n int) chat.Message {
		return chat.Message{ID: mid, ParentID: parent, Role: role, Parts: []chat.Part{chat.TextPart(mid)}, CreatedAt: t0.Add(time.Duration(n) * time.Second)}
	}
	rep := chat.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}
	turn := func(tid, u, a string, n int) chat.Turn {
		return chat.Turn{ID: tid, ChatID: id, Branch: "main", Number: n, UserMessageID: u, AssistantMessageID: a, At: t0,
			Request: chat.SentRequest{Model: "m"}, Fired: []chat.Fired{{ID: "r"}}, Decisions: json.RawMessage(`[{"id":"r"}]`),
			Reported: &rep, Estimated: chat.Usage{PromptTokens: 9}}
	}
	return chat.Archive{
		Chat: chat.Chat{ID: id, Title: "t", Metadata: map[string]any{"k": "v"}, ActiveBranch: "main", CreatedAt: t0, UpdatedAt: t0},
		Messages: []chat.Message{msg("u1", "", chat.RoleUser, 1), msg("a1", "u1", chat.RoleAssistant, 2),
			msg("u2", "a1", chat.RoleUser, 3), msg("a2", "u2", chat.RoleAssistant, 4)},
		Branches:    []chat.Branch{{Name: "main", Head: "a2", CreatedAt: t0}, {Name: "alt", Head: "a1", Parent: "main", CreatedAt: t0}},
		Checkpoints: []chat.Checkpoint{{Name: "cp", MessageID: "a1", CreatedAt: t0}},
		Turns:       []chat.Turn{turn("t1", "u1", "a1", 1), turn("t2", "u2", "a2", 2)},
	}
}

func TestImportChatRoundTrip(t *testing.T) {
	db := storetest.MustOpenMemory(t)
	in := archive("c1")
	if err := db.ImportChat(ctx, in); err != nil {
		t.Fatal(err)
	}
	out, err := db.ExportChat(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("ExportChat after ImportChat:\ngot  %+v\nwant %+v", out, in)
	}
	u, err := db.ChatUsage(ctx, "c1")
	if want := (chat.Usage{PromptTokens: 20, CompletionTokens: 4, TotalTokens: 24}); err != nil || u != want {
		t.Errorf("ChatUsage: got %+v, %v; want %+v", u, err, want)
	}
	if err := db.Check(ctx); err != nil {
		t.Error(err)
	}
}

func TestImportChatRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(a *chat.Archive)
		want   error
	}{
		{"chat id taken", func(a *chat.Archive) { *a = archive("taken") }, store.ErrConflict},
		{"bad chat", func(a *chat.Archive) { a.Chat.ActiveBranch = "" }, store.ErrInvalid},
		{"bad message", func(a *chat.Archive) { a.Messages[1].Role = "root" }, store.ErrInvalid},
		{"parent after child", func(a *chat.Archive) { a.Messages[0], a.Messages[1] = a.Messages[1], a.Messages[0] }, store.ErrNotFound},
		{"bad branch name", func(a *chat.Archive) { a.Branches[1].Name = "" }, store.ErrInvalid},
		{"bad checkpoint time", func(a *chat.Archive) { a.Checkpoints[0].CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, store.ErrInvalid},
		{"turn of another chat", func(a *chat.Archive) { a.Turns[1].ChatID = "other" }, store.ErrInvalid},
		{"bad turn", func(a *chat.Archive) { a.Turns[0].Decisions = json.RawMessage(`[`) }, store.ErrInvalid},
		{"head not a message", func(a *chat.Archive) { a.Branches[0].Head = "ghost" }, store.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := storetest.MustOpenMemory(t)
			if err := db.CreateChat(ctx, chat.Chat{ID: "taken"}); err != nil {
				t.Fatal(err)
			}
			a := archive("c1")
			tc.change(&a)
			err := db.ImportChat(ctx, a)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want an error wrapping %v", err, tc.want)
			}
			if list, _ := db.ListChats(ctx, store.ListOptions{}); len(list) != 1 {
				t.Errorf("a refused import left %d chats, want 1", len(list))
			}
		})
	}
}
