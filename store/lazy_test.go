package store_test

import (
	"slices"
	"testing"

	"github.com/ctxlab/ctxlab/store"
)

// TestTurnsAt checks that TurnsAt finds the turns placed at a message: by their assistant
// message, or, for a turn without one, by its user message; never a turn that merely
// shares the user message of one with a reply.
func TestTurnsAt(t *testing.T) {
	db := openFile(t)
	b := newChat(t, db, "c")
	head := b.turns("main", "", 2) // c-u1 c-a1 (c-t1), c-u2 c-a2 (c-t2)
	// A turn that failed before any reply: its user message, no assistant message.
	c := b.step("main", head, "and now?")
	c.Messages = c.Messages[:1]
	c.NewHead = c.Messages[0].ID
	c.Turns[0].AssistantMessageID = ""
	if err := db.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		message string
		want    []string
	}{
		{"c-a1", []string{"c-t1"}},
		{"c-a2", []string{"c-t2"}},
		{"c-u3", []string{"c-t3"}},
		{"c-u2", nil}, // answered: its turn is placed at c-a2
		{"nope", nil},
	}
	for _, tt := range tests {
		got, err := db.TurnsAt(ctx, "c", tt.message, store.DetailRequest|store.DetailDecisions)
		if err != nil {
			t.Fatalf("TurnsAt(%s): %v", tt.message, err)
		}
		ids := []string{}
		for _, tr := range got {
			ids = append(ids, tr.ID)
			if tr.Decisions == nil || tr.Request.SystemPrompt == "" {
				t.Errorf("TurnsAt(%s): %s lacks its decisions or request", tt.message, tr.ID)
			}
		}
		if !slices.Equal(ids, append([]string{}, tt.want...)) {
			t.Errorf("TurnsAt(%s): got %v, want %v", tt.message, ids, tt.want)
		}
	}
	light, err := db.TurnsAt(ctx, "c", "c-a1", store.DetailLight)
	if err != nil || len(light) != 1 || light[0].Decisions != nil || light[0].Request.SystemPrompt != "" ||
		len(light[0].Fired) != 1 || light[0].Fired[0].ID != "concise" {
		t.Errorf("TurnsAt(c-a1, light): got %+v, %v; want c-t1's light record", light, err)
	}
}
