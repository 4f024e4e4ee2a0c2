package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// manyCalls returns n calls of run_sql.
func manyCalls(n int) []chat.WireToolCall {
	out := make([]chat.WireToolCall, n)
	for i := range out {
		out[i] = call(fmt.Sprintf("c%d", i), "run_sql", `{"query":"select 1"}`)
	}
	return out
}

// TestLiveTooManyToolCalls is the probe of issue 12 item 5, for a model other than
// llm.Client (which stops reading at the limit): a reply of 2,000 tool calls failed the
// save ("more than 10000 parts") and was lost. The turn now fails naming the model and the
// limit, and what fits is saved: the first chat.MaxToolCalls calls, unanswered, in a reply
// marked interrupted.
func TestLiveTooManyToolCalls(t *testing.T) {
	for _, tc := range []struct {
		name      string
		calls     int
		wantErr   string
		wantCalls int
	}{
		{"2,000 calls", 2000, "model: a reply holds at most 256 tool calls", chat.MaxToolCalls},
		{"one past the limit", chat.MaxToolCalls + 1, "model: a reply holds at most 256 tool calls", chat.MaxToolCalls},
		{"at the limit", chat.MaxToolCalls, "", chat.MaxToolCalls},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := newLiveChat(t, 2)
			model := newScriptModel(chat.Reply{Text: "Running them.", ToolCalls: manyCalls(tc.calls)}, chat.Reply{Text: "Done."})
			res, err := lc.send(context.Background(), "run them all", &engine.Live{Model: model})
			if tc.wantErr == "" {
				if err != nil || res.Assistant.Interrupted || len(res.Assistant.ToolParts()) != tc.wantCalls {
					t.Fatalf("got %v, interrupted %v, %d tool parts; want a whole reply with %d", err, res.Assistant.Interrupted,
						len(res.Assistant.ToolParts()), tc.wantCalls)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("got error %v, want %q", err, tc.wantErr)
			}
			if res == nil {
				t.Fatal("got no result, want the reply saved as interrupted")
			}
			msgs, turns := lc.saved()
			if len(msgs) != 2 || len(turns) != 1 {
				t.Fatalf("saved %d messages, %d turns; want the user message, the reply and its turn", len(msgs), len(turns))
			}
			a := msgs[1]
			parts := a.ToolParts()
			if !a.Interrupted || len(parts) != tc.wantCalls || a.PlainText() != "Running them." {
				t.Errorf("saved reply interrupted %v, %d tool parts, text %q; want interrupted, %d, the text",
					a.Interrupted, len(parts), a.PlainText(), tc.wantCalls)
			}
			if last := parts[len(parts)-1]; last.ToolCallID != fmt.Sprintf("c%d", tc.wantCalls-1) || last.State != chat.ToolInputAvailable {
				t.Errorf("last part %+v, want c%d, input-available (unanswered)", last, tc.wantCalls-1)
			}
			if turns[0].FinishReason != "error" || !strings.Contains(turns[0].Error, "at most 256 tool calls") {
				t.Errorf("saved turn finish %q error %q, want error and the limit", turns[0].FinishReason, turns[0].Error)
			}
			if n := len(model.Requests()); n != 1 {
				t.Errorf("got %d requests, want 1: the calls of a failed reply are not answered", n)
			}
		})
	}
}

// TestLiveToolLoopKeepsUnderMaxParts checks that a tool loop ends (tool_loop_limit) before
// a round could take the reply past the parts a store accepts in one message, however
// many steps the engine allows.
func TestLiveToolLoopKeepsUnderMaxParts(t *testing.T) {
	lc := newLiveChat(t, 1000)
	model := newScriptModel()
	for range 100 {
		model.Then(chat.Reply{Text: "More.", ToolCalls: manyCalls(chat.MaxToolCalls)})
	}
	res, err := lc.send(context.Background(), "loop", &engine.Live{Model: model})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	perRound := chat.MaxToolCalls + 1
	wantRounds := chat.MaxParts / perRound // the most whole rounds that fit
	if got := len(model.Requests()); got != wantRounds {
		t.Errorf("got %d requests, want %d", got, wantRounds)
	}
	if n := len(res.Assistant.Parts); n > chat.MaxParts || n != wantRounds*perRound {
		t.Errorf("got %d parts, want %d (at most %d)", n, wantRounds*perRound, chat.MaxParts)
	}
	if res.Turn.FinishReason != engine.FinishToolLoopLimit {
		t.Errorf("got finish reason %q, want %s", res.Turn.FinishReason, engine.FinishToolLoopLimit)
	}
}

// TestScriptedTooManyToolCalls checks that an embedder's scripted reply past
// chat.MaxToolCalls is refused as invalid, with nothing saved.
func TestScriptedTooManyToolCalls(t *testing.T) {
	lc := newLiveChat(t, 2)
	tools := make([]engine.ScriptedTool, chat.MaxToolCalls+1)
	for i := range tools {
		tools[i] = engine.ScriptedTool{Name: "run_sql", Output: "ok"}
	}
	_, err := lc.send(context.Background(), "hi", &engine.Scripted{Text: "done", Tools: tools})
	if !errors.Is(err, chat.ErrInvalid) || !strings.Contains(err.Error(), "a reply holds at most 256 tool calls") {
		t.Fatalf("got %v, want chat.ErrInvalid naming the limit", err)
	}
	if msgs, _ := lc.saved(); len(msgs) != 0 {
		t.Errorf("saved %d messages, want none", len(msgs))
	}
	if _, err := lc.send(context.Background(), "hi", &engine.Scripted{Text: "done", Tools: tools[:chat.MaxToolCalls]}); err != nil {
		t.Errorf("a reply at the limit: %v", err)
	}
}
