package store_test

import (
	"reflect"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func TestUsageByModel(t *testing.T) {
	db := openFile(t)
	b := newChat(t, db, "c")
	b.turns("main", "", 2)
	got, err := db.UsageByModel(ctx, "c")
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
		t.Errorf("UsageByModel = %+v, summing to %+v; want the chat's usage %+v", got, sum, total)
	}
	if _, err := db.UsageByModel(ctx, "none"); err != nil {
		t.Errorf("an unknown chat: got %v, want an empty map", err)
	}
}
