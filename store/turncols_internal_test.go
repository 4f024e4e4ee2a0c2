package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestTurnColumnsOnMessages checks the turn columns of assistant messages (migration
// 0008): written with a message committed with its turn, the last turn's when two name
// it, and by an update when the turn comes after its message.
func TestTurnColumnsOnMessages(t *testing.T) {
	ctx := context.Background()
	d := openTemp(t)
	at := time.Date(2026, 3, 27, 9, 0, 0, 0, time.UTC)
	msg := func(id, parent string, role chat.Role) chat.Message {
		return chat.Message{ID: id, ParentID: parent, Role: role, Parts: []chat.Part{chat.TextPart(id)}, CreatedAt: at}
	}
	turn := func(id string, n int, user, asst, fired string) chat.Turn {
		return chat.Turn{ID: id, Number: n, UserMessageID: user, AssistantMessageID: asst, At: at, Fired: []chat.Fired{{ID: fired}}}
	}
	steps := []chat.Commit{
		{NewChat: &chat.Chat{ID: "c", Title: "c", CreatedAt: at}, Activate: true, NewHead: "a1",
			Messages: []chat.Message{msg("u1", "", chat.RoleUser), msg("a1", "u1", chat.RoleAssistant)},
			Turns:    []chat.Turn{turn("t1", 1, "u1", "a1", "one")}},
		// Two turns for one new message: the last one's columns.
		{ExpectHead: "a1", NewHead: "a2",
			Messages: []chat.Message{msg("u2", "a1", chat.RoleUser), msg("a2", "u2", chat.RoleAssistant)},
			Turns:    []chat.Turn{turn("t2", 2, "u2", "a2", "first"), turn("t2b", 2, "u2", "a2", "second")}},
		// A message committed without its turn, then the turn alone.
		{ExpectHead: "a2", NewHead: "a3",
			Messages: []chat.Message{msg("u3", "a2", chat.RoleUser), msg("a3", "u3", chat.RoleAssistant)}},
		{ExpectHead: "a3", NewHead: "a3", Turns: []chat.Turn{turn("t3", 3, "u3", "a3", "late")}},
	}
	for i, c := range steps {
		c.ChatID, c.Branch = "c", "main"
		if err := d.Commit(ctx, c); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	_, turns, _, err := d.PathWithTurns(ctx, "c", "a3", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range turns {
		got = append(got, fmt.Sprintf("%s/%d/%s", tr.ID, tr.Number, tr.Fired[0].ID))
	}
	if want := "[t1/1/one t2b/2/second t3/3/late]"; fmt.Sprint(got) != want {
		t.Errorf("turns on the path: got %v, want %s", got, want)
	}
}
