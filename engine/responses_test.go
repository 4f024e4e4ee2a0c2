package engine_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestRecordedResponses checks the responses a recorded turn gives: those it keeps, else,
// for a turn saved before ctxlab kept them, its own figures when it sent one request, and
// nothing when it sent several (what each got is not known) or none.
func TestRecordedResponses(t *testing.T) {
	rep := &chat.Usage{PromptTokens: 40, CompletionTokens: 4, TotalTokens: 44}
	old := chat.Turn{FinishReason: "length", Reported: rep, Estimated: chat.Usage{PromptTokens: 38, CompletionTokens: 4},
		TTFT: 3 * time.Millisecond, Latency: 9 * time.Millisecond}
	kept := []chat.Response{{FinishReason: "tool_calls", EstimatedPrompt: 30}, {FinishReason: "stop", Usage: rep, EstimatedPrompt: 35}}
	tool := func(round int, state chat.ToolState) chat.Part {
		return chat.Part{Type: chat.PartTool, ToolCallID: "c", ToolName: "run_sql", Input: []byte("{}"), State: state, Round: round}
	}
	text := chat.TextPart("done")
	tests := []struct {
		name   string
		turn   chat.Turn
		reply  *chat.Message
		finish string // the turn's finish reason, when not old's
		want   []chat.Response
	}{
		{"kept", chat.Turn{Responses: kept}, &chat.Message{Parts: []chat.Part{text}}, "", kept},
		{"one request, saved before", old, &chat.Message{Parts: []chat.Part{text}}, "",
			[]chat.Response{{FinishReason: "length", Usage: rep, EstimatedPrompt: 38, TTFT: 3 * time.Millisecond, Latency: 9 * time.Millisecond}}},
		{"scripted tool calls, saved before", old, &chat.Message{Parts: []chat.Part{tool(0, chat.ToolOutputAvailable), text}}, "",
			[]chat.Response{{FinishReason: "length", Usage: rep, EstimatedPrompt: 38, TTFT: 3 * time.Millisecond, Latency: 9 * time.Millisecond}}},
		{"a tool loop, saved before", old, &chat.Message{Parts: []chat.Part{tool(1, chat.ToolOutputAvailable), text}}, "", nil},
		{"a tool loop stopped at its limit, saved before", old, &chat.Message{Parts: []chat.Part{tool(1, chat.ToolOutputAvailable)}},
			engine.FinishToolLoopLimit,
			[]chat.Response{{FinishReason: "tool_calls", Usage: rep, EstimatedPrompt: 38, TTFT: 3 * time.Millisecond, Latency: 9 * time.Millisecond}}},
		{"no reply", old, nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := tt.turn
			if tt.finish != "" {
				turn.FinishReason = tt.finish
			}
			if got := engine.RecordedResponses(&turn, tt.reply); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
