package engine_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/llm"
)

// The test double streams as the real client does: both are engine models.
var (
	_ engine.Model = (*llm.Client)(nil)
	_ engine.Model = (*scriptModel)(nil)
)

func helloRequest() chat.Request {
	return chat.Request{Model: "test-model", Messages: []chat.WireMessage{
		{Role: chat.RoleSystem, Content: "Be brief."},
		{Role: chat.RoleUser, Content: "hello"},
	}}
}

func TestScriptModel(t *testing.T) {
	usage := &chat.Usage{PromptTokens: 10, CompletionTokens: 4}
	m := newScriptModel(
		chat.Reply{Text: "Running it now.", ToolCalls: []chat.WireToolCall{
			{Function: chat.FunctionCall{Name: "run_sql", Arguments: `{"query":"select 1"}`}},
			{ID: "mine", Function: chat.FunctionCall{Name: "run_sql", Arguments: `{}`}},
		}},
		chat.Reply{Text: "Hi there!", Usage: usage},
	).Fail(errors.New("boom"))

	var ds []chat.Delta
	r, err := m.Stream(context.Background(), helloRequest(), func(d chat.Delta) { ds = append(ds, d) })
	if err != nil {
		t.Fatal(err)
	}
	wantDeltas := []chat.Delta{
		{Text: "Running "}, {Text: "it "}, {Text: "now."},
		{ToolCallIndex: 0, ToolCallID: "call_1", ToolName: "run_sql", Arguments: `{"query":"select 1"}`},
		{ToolCallIndex: 1, ToolCallID: "mine", ToolName: "run_sql", Arguments: `{}`},
	}
	if !reflect.DeepEqual(ds, wantDeltas) {
		t.Errorf("got deltas %+v, want %+v", ds, wantDeltas)
	}
	if r.Text != "Running it now." || r.FinishReason != "tool_calls" || r.Usage != nil || r.Attempts != 1 {
		t.Errorf("got %+v, want the text, tool_calls, no usage, 1 attempt", r)
	}
	if got := r.ToolCalls[0]; got.ID != "call_1" || got.Type != "function" {
		t.Errorf("got first call %+v, want id call_1 and type function", got)
	}

	r, err = m.Stream(context.Background(), helloRequest(), nil)
	if err != nil || r.Text != "Hi there!" || r.FinishReason != "stop" || !reflect.DeepEqual(r.Usage, usage) {
		t.Errorf("got %+v %v, want the second reply with its usage", r, err)
	}
	if r.Usage == usage {
		t.Errorf("usage is shared with the script, want a copy")
	}
	if _, err := m.Stream(context.Background(), helloRequest(), nil); err == nil || err.Error() != "boom" {
		t.Errorf("got %v, want the scripted failure", err)
	}
	if _, err := m.Stream(context.Background(), helloRequest(), nil); err == nil {
		t.Errorf("got no error past the end of the script")
	}
	if got := len(m.Requests()); got != 4 || m.Remaining() != 0 {
		t.Errorf("got %d requests, %d remaining, want 4 and 0", got, m.Remaining())
	}
}

func TestScriptModelCancel(t *testing.T) {
	m := newScriptModel(chat.Reply{Text: "one two three four"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ds []chat.Delta
	r, err := m.Stream(ctx, helloRequest(), func(d chat.Delta) {
		ds = append(ds, d)
		if len(ds) == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || !r.Interrupted || r.Text != "one two " {
		t.Errorf("got %q interrupted %v err %v, want the partial text, interrupted, canceled", r.Text, r.Interrupted, err)
	}
}
