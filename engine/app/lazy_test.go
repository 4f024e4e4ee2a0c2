package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// loopCtx has a tool with a canned result and a system-placement reminder, which a tool
// loop's later requests move after the tool results.
const loopCtx = `version: 1
system:
  - role: You are terse.
tools:
  - {name: run_sql, result: "3 rows"}
reminders:
  - id: every
    text: Keep it short.
  - id: sys
    text: Mind the schema.
    placement: system
`

// queueModel answers each request with the next reply of its queue and records the
// requests it was sent.
type queueModel struct {
	replies []chat.Reply
	got     []chat.Request
}

func (m *queueModel) Stream(_ context.Context, req chat.Request, onDelta func(chat.Delta)) (*chat.Reply, error) {
	m.got = append(m.got, req)
	if len(m.replies) == 0 {
		return nil, fmt.Errorf("queueModel: no reply left for request %d", len(m.got))
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	if r.Text != "" {
		onDelta(chat.Delta{Text: r.Text})
	}
	if r.FinishReason == "" {
		r.FinishReason = "stop"
	}
	return &r, nil
}

func sqlCall(id string) chat.Reply {
	return chat.Reply{ToolCalls: []chat.WireToolCall{{ID: id, Type: "function",
		Function: chat.FunctionCall{Name: "run_sql", Arguments: `{"q":"select 1"}`}}}, FinishReason: "tool_calls"}
}

func requestJSON(t *testing.T, r chat.Request) string {
	t.Helper()
	b, err := r.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLightTracesAndTurnDetail checks that the light traces and the detail of each turn
// give back exactly what Traces gives (decisions included), and that the requests of a
// live tool loop are rebuilt as the model was sent them.
func TestLightTracesAndTurnDetail(t *testing.T) {
	ctx := context.Background()
	w := open(t, Flags{})
	file, err := ctxfile.Parse("loop.ctx.yaml", []byte(loopCtx))
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.Settings(file, true)
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.Engine(file, s)
	if err != nil {
		t.Fatal(err)
	}
	model := &queueModel{replies: []chat.Reply{
		{Text: "Hello."},
		sqlCall("call_1"), {Text: "Let me look again."}, // text then no tool: ends the loop
		sqlCall("call_2"), sqlCall("call_3"), {Text: "Three rows, twice."},
	}}
	c := w.NewChat(s, e, &engine.Live{Model: model})
	if got, err := c.LightTraces(ctx); err != nil || got != nil {
		t.Fatalf("unsaved chat: got %d light traces, %v, want none", len(got), err)
	}
	var sent [][]chat.Request // the requests each send reported (EventRequest)
	for _, text := range []string{"hi", "count the rows", "count them twice"} {
		var reqs []chat.Request
		emit := func(ev engine.Event) {
			if r, ok := ev.(engine.EventRequest); ok {
				reqs = append(reqs, r.Request)
			}
		}
		if _, err := c.Send(ctx, text, emit); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, reqs)
	}
	if err := c.SendUnanswered(ctx, "anyone?"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendScripted(ctx, "scripted", "Yes.", nil); err != nil {
		t.Fatal(err)
	}
	sent = append(sent, nil, nil)
	if len(model.got) != 6 {
		t.Fatalf("the model got %d requests, want 6", len(model.got))
	}

	full, err := c.Traces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	light, err := c.LightTraces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(light) != len(full) || len(full) != 5 {
		t.Fatalf("got %d light traces and %d traces, want 5 of each", len(light), len(full))
	}
	wantRequests := []int{1, 2, 3, 1, 1}
	for i := range light {
		lt := light[i]
		if lt.Decisions != nil {
			t.Errorf("turn %d: the light trace has %d decisions, want none read", lt.Turn, len(lt.Decisions))
		}
		d, err := c.TurnDetail(ctx, &lt)
		if err != nil {
			t.Fatalf("turn %d: %v", lt.Turn, err)
		}
		if d.Decisions == nil {
			t.Errorf("turn %d: TurnDetail gave nil decisions, want a list", lt.Turn)
		}
		lt.Decisions = d.Decisions
		if got, want := traceJSON(t, lt), traceJSON(t, full[i]); got != want {
			t.Errorf("turn %d: light trace with its detail:\n got %s\nwant %s", lt.Turn, got, want)
		}
		if len(d.Requests) != wantRequests[i] {
			t.Errorf("turn %d: got %d requests, want %d", lt.Turn, len(d.Requests), wantRequests[i])
			continue
		}
		if got, want := requestJSON(t, d.Requests[0]), requestJSON(t, full[i].Request); got != want {
			t.Errorf("turn %d: request 1 is not the trace's:\n got %s\nwant %s", lt.Turn, got, want)
		}
		for k := range sent[i] {
			if got, want := requestJSON(t, d.Requests[k]), requestJSON(t, sent[i][k]); got != want {
				t.Errorf("turn %d: request %d rebuilt:\n got %s\nwant as sent %s", lt.Turn, k+1, got, want)
			}
		}
	}
	// The last request of the loop sends both rounds back, the system reminder after them.
	last := sent[2][2].Collect()
	if n := len(last); n < 2 || last[n-1].Role != chat.RoleSystem || last[n-2].Role != chat.RoleTool {
		roles := make([]chat.Role, len(last))
		for i, m := range last {
			roles[i] = m.Role
		}
		t.Errorf("the third request of turn 3 ends with roles %v, want a tool result then the system reminder", roles)
	}
}

func TestLoopRequests(t *testing.T) {
	first := chat.Request{Model: "m", Messages: []chat.WireMessage{
		{Role: chat.RoleSystem, Content: "sys"}, {Role: chat.RoleUser, Content: "q"}}}
	tool := func(round int, state chat.ToolState) chat.Part {
		return chat.Part{Type: chat.PartTool, ToolCallID: fmt.Sprintf("c%d", round), ToolName: "run_sql",
			Input: json.RawMessage(`{}`), Output: "ok", State: state, Round: round}
	}
	done := chat.ToolOutputAvailable
	tests := []struct {
		name   string
		parts  []chat.Part
		finish string
		// want is the number of messages each request after the first adds to it
		want []int
	}{
		{name: "no reply", parts: nil},
		{name: "text only", parts: []chat.Part{chat.TextPart("hi")}, finish: "stop"},
		{name: "scripted tools are never sent", parts: []chat.Part{tool(0, done), chat.TextPart("hi")}, finish: "stop"},
		{name: "one round", parts: []chat.Part{tool(1, done), chat.TextPart("hi")}, finish: "stop", want: []int{2}},
		{name: "a failed call is answered", parts: []chat.Part{tool(1, chat.ToolOutputError), chat.TextPart("hi")}, finish: "stop", want: []int{2}},
		{name: "two rounds", parts: []chat.Part{tool(1, done), chat.TextPart("and"), tool(2, done), chat.TextPart("hi")},
			finish: "stop", want: []int{2, 4}},
		{name: "loop limit", parts: []chat.Part{tool(1, done), tool(2, done)}, finish: engine.FinishToolLoopLimit, want: []int{2}},
		{name: "cut short in round 2", parts: []chat.Part{tool(1, done), tool(2, chat.ToolInputAvailable)}, finish: "error", want: []int{2}},
		{name: "cut short after round 1", parts: []chat.Part{tool(1, done)}, finish: "error", want: []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reply *chat.Message
			if tt.parts != nil {
				reply = &chat.Message{Role: chat.RoleAssistant, Parts: tt.parts}
			}
			got := LoopRequests(first, "", reply, tt.finish)
			var added []int
			for _, r := range got[1:] {
				added = append(added, r.Len()-first.Len())
			}
			if got[0].Model != "m" || got[0].Len() != 2 || !slices.Equal(added, tt.want) {
				t.Errorf("got %d requests adding %v messages, want 1 + %v", len(got), added, tt.want)
			}
		})
	}
}
