package store_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
)

func TestRenameChat(t *testing.T) {
	db := openFile(t)
	b := newChat(t, db, "c1")
	b.turns("main", "", 2)
	before, _ := db.Chat(ctx, "c1")
	tests := []struct {
		name, id, title string
		want            error
	}{
		{"rename", "c1", "A new name", nil},
		{"no such chat", "nope", "x", store.ErrNotFound},
		{"bad title", "c1", "bell\a", store.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := db.RenameChat(ctx, tt.id, tt.title)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("RenameChat: got %v, want %v", err, tt.want)
			}
		})
	}
	c, err := db.Chat(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "A new name" || !c.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("after rename: got title %q updated %v, want %q updated %v", c.Title, c.UpdatedAt, "A new name", before.UpdatedAt)
	}
}

func TestDeleteChat(t *testing.T) {
	db := openFile(t)
	keep := newChat(t, db, "keep")
	head := keep.turns("main", "", 3)
	if err := db.SetCheckpoint(ctx, "keep", "cp", head); err != nil {
		t.Fatal(err)
	}
	gone := newChat(t, db, "gone")
	h := gone.turns("main", "", 3)
	if err := db.CreateBranch(ctx, "gone", chat.Branch{Name: "alt", Head: h}, false); err != nil {
		t.Fatal(err)
	}
	if err := db.SetCheckpoint(ctx, "gone", "cp", h); err != nil {
		t.Fatal(err)
	}
	want, err := db.ExportChat(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteChat(ctx, "gone"); err != nil {
		t.Fatalf("DeleteChat: %v", err)
	}
	if _, err := db.Chat(ctx, "gone"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the deleted chat: got %v, want ErrNotFound", err)
	}
	if err := db.DeleteChat(ctx, "gone"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting it again: got %v, want ErrNotFound", err)
	}
	got, err := db.ExportChat(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if !reflect.DeepEqual(gj, wj) {
		t.Errorf("the other chat changed:\n%s\nwant\n%s", gj, wj)
	}
	// The search index forgets the deleted chat's messages and keeps the other's.
	list, err := db.ListChats(ctx, store.ListOptions{Search: "message"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "keep" {
		t.Errorf("search after delete: got %v, want only keep", list)
	}
	if err := db.Check(ctx); err != nil {
		t.Errorf("Check after delete: %v", err)
	}
	// A new chat can take the deleted one's id.
	newChat(t, db, "gone").turns("main", "", 1)
}

func TestChatContext(t *testing.T) {
	db := openFile(t)
	newChat(t, db, "c1").turns("main", "", 1)
	if p, err := db.ChatContext(ctx, "c1"); err != nil || p != "" {
		t.Fatalf("ChatContext before: got %q, %v; want \"\", nil", p, err)
	}
	want, _ := db.ExportChat(ctx, "c1")
	if err := db.SetChatContext(ctx, "c1", "/tmp/support.ctx.yaml"); err != nil {
		t.Fatal(err)
	}
	if p, err := db.ChatContext(ctx, "c1"); err != nil || p != "/tmp/support.ctx.yaml" {
		t.Errorf("ChatContext: got %q, %v; want the path", p, err)
	}
	got, _ := db.ExportChat(ctx, "c1")
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("the export changed with the context path:\n%s\nwant\n%s", gj, wj)
	}
	if err := db.SetChatContext(ctx, "nope", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetChatContext of no chat: got %v, want ErrNotFound", err)
	}
	if _, err := db.ChatContext(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ChatContext of no chat: got %v, want ErrNotFound", err)
	}
}

// TestPricedUsageByChat: the batch gives, for every chat, what PricedUsageByModel gives.
func TestPricedUsageByChat(t *testing.T) {
	db := openFile(t)
	newChat(t, db, "a").turns("main", "", 3)
	newChat(t, db, "b").turns("main", "", 1)
	if err := db.CreateChat(ctx, chat.Chat{ID: "empty"}); err != nil {
		t.Fatal(err)
	}
	all, err := db.PricedUsageByChat(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "empty"} {
		want, err := db.PricedUsageByModel(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got := all[id]
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("chat %s: got %v, want %v", id, got, want)
		}
	}
	if len(all["a"]) == 0 {
		t.Error("chat a has nothing priced")
	}
}
