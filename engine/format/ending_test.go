package format

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestMarkdownTurnEnding: a turn the user cancelled reads "interrupted", saying what was
// kept, never `*error:* context canceled`; another error is still an error.
func TestMarkdownTurnEnding(t *testing.T) {
	canceled := context.Canceled.Error()
	tests := []struct {
		name      string
		reply     *chat.Message // nil: the turn has no reply
		err       string
		want, not string
	}{
		{name: "cancelled mid-reply", reply: &chat.Message{Interrupted: true, Parts: []chat.Part{chat.TextPart("I was about to")}},
			err: canceled, want: "*fired:* none · *interrupted:* cancelled; the reply above is what had arrived\n", not: "*error:*"},
		{name: "cancelled during a tool call", reply: &chat.Message{Interrupted: true, Parts: []chat.Part{
			{Type: chat.PartTool, ToolCallID: "c1", ToolName: "run_sql", State: chat.ToolInputStreaming, Input: []byte(`{"q`)}}},
			err: canceled, want: "*interrupted:* cancelled; the reply above is what had arrived\n", not: "*error:*"},
		{name: "cancelled before the first token", reply: &chat.Message{Interrupted: true},
			err: canceled, want: "*interrupted:* cancelled before any reply arrived\n", not: "*error:*"},
		{name: "cancelled, no reply saved", err: canceled, want: "*interrupted:* cancelled before any reply arrived\n", not: "*error:*"},
		{name: "a broken stream is an error", reply: &chat.Message{Interrupted: true, Parts: []chat.Part{chat.TextPart("half")}},
			err: "model: stream broken", want: "*error:* model: stream broken\n", not: "*interrupted:*"},
		{name: "an error with no reply", err: "model: 401 Unauthorized", want: "*error:* model: 401 Unauthorized\n", not: "*interrupted:*"},
		{name: "finished", reply: &chat.Message{Parts: []chat.Part{chat.TextPart("done")}}, want: "*fired:* none\n", not: "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := chat.Message{ID: "u1", Role: chat.RoleUser, CreatedAt: t0, Parts: []chat.Part{chat.TextPart("go on")}}
			msgs := []chat.Message{u}
			turn := chat.Turn{ID: "t1", Number: 1, UserMessageID: "u1", Error: tt.err}
			if tt.reply != nil {
				r := *tt.reply
				r.ID, r.ParentID, r.Role, r.CreatedAt = "a1", "u1", chat.RoleAssistant, t0
				msgs = append(msgs, r)
				turn.AssistantMessageID = "a1"
			}
			var b bytes.Buffer
			if err := WriteMarkdown(&b, Input{Chat: chat.Chat{ID: "c", Title: "T", ActiveBranch: "main"},
				Messages: ptrs(msgs), Turns: []chat.Turn{turn}}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			last := out[strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1:]
			if !strings.HasSuffix(last, tt.want) || strings.Contains(last[len("*fired:*"):], tt.not) {
				t.Errorf("the turn's last line %q, want it to end with %q and hold no %q\n%s", last, tt.want, tt.not, out)
			}
		})
	}
}
