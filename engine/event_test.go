package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// eventLine writes an event as one short line, for comparing event sequences.
func eventLine(ev engine.Event) string {
	switch ev := ev.(type) {
	case engine.EventPlanned:
		return fmt.Sprintf("planned turn %d", ev.Plan.Turn)
	case engine.EventRequest:
		return fmt.Sprintf("request %d: %d messages", ev.Step, ev.Request.Len())
	case engine.EventText:
		return fmt.Sprintf("text %d %q", ev.Step, ev.Text)
	case engine.EventToolCall:
		return fmt.Sprintf("tool call %d #%d %s %s %s", ev.Step, ev.Index, ev.ID, ev.Name, ev.Arguments)
	case engine.EventToolAnswered:
		return fmt.Sprintf("answered %d %s %s %s", ev.Step, ev.Part.ToolCallID, ev.Part.ToolName, ev.Part.State)
	case engine.EventUsage:
		return fmt.Sprintf("usage %d %d+%d", ev.Step, ev.Usage.PromptTokens, ev.Usage.CompletionTokens)
	case engine.EventResponse:
		u := "none"
		if r := ev.Response.Usage; r != nil {
			u = fmt.Sprintf("%d+%d", r.PromptTokens, r.CompletionTokens)
		}
		return fmt.Sprintf("response %d %q usage %s", ev.Step, ev.Response.FinishReason, u)
	case engine.EventSaved:
		return fmt.Sprintf("saved turn %d interrupted %v error %v", ev.Result.Turn.Number, ev.Result.Assistant.Interrupted, ev.Err)
	case engine.EventFailed:
		return fmt.Sprintf("failed: %v", ev.Err)
	}
	return fmt.Sprintf("unknown event %T", ev)
}

// echoReplier is a Replier defined outside the engine package: it answers every tool the
// context file declares, in one step, then echoes the user's text.
type echoReplier struct{}

func (echoReplier) Reply(_ context.Context, t *engine.TurnRequest, emit func(engine.Event)) (*engine.Outcome, error) {
	var parts []chat.Part
	for i, tool := range t.File.Tools {
		part := t.AnswerTool(chat.WireToolCall{ID: fmt.Sprintf("echo_%d", i), Type: "function",
			Function: chat.FunctionCall{Name: tool.Name, Arguments: "{}"}})
		part.Round = 1
		emit(engine.EventToolAnswered{Step: 1, Part: part})
		parts = append(parts, part)
	}
	text := "echo: " + t.Plan.User.PlainText()
	emit(engine.EventText{Step: 1, Text: text})
	parts = append(parts, chat.TextPart(text))
	return &engine.Outcome{Parts: parts, FinishReason: "stop"}, nil
}

// TestSendEvents checks the events of a send, in order, for each kind of replier and
// ending: the last is always EventSaved or EventFailed, and the send returns what it says.
func TestSendEvents(t *testing.T) {
	refused := errors.New("connection refused")
	tests := []struct {
		name    string
		replier func() engine.Replier
		text    string // the user message ("hello" when empty)
		// cancelAt cancels the send's context at the n-th text event (0: never).
		cancelAt int
		want     []string
		wantErr  error
	}{
		{name: "plain reply", replier: func() engine.Replier {
			return &engine.Live{Model: newScriptModel(chat.Reply{Text: "Hello there.", Usage: usage(12, 3)})}
		}, want: []string{
			"planned turn 1",
			"request 1: 2 messages",
			`text 1 "Hello "`, `text 1 "there."`,
			"usage 1 12+3",
			`response 1 "stop" usage 12+3`,
			"saved turn 1 interrupted false error <nil>",
		}},
		{name: "tool loop", text: "run the report" /* fires the system reminder */, replier: func() engine.Replier {
			return &engine.Live{Model: newScriptModel(
				chat.Reply{Text: "Checking.", ToolCalls: []chat.WireToolCall{call("c1", "run_sql", `{"query":"select 1"}`),
					call("c2", "export_csv", `{}`)}, Usage: usage(10, 2)},
				chat.Reply{Text: "42 rows."},
			)}
		}, want: []string{
			"planned turn 1",
			"request 1: 3 messages", // the system prompt, the system reminder, the user message
			`text 1 "Checking."`,
			`tool call 1 #0 c1 run_sql {"query":"select 1"}`,
			`tool call 1 #1 c2 export_csv {}`,
			"usage 1 10+2",
			`response 1 "tool_calls" usage 10+2`,
			"answered 1 c1 run_sql output-available",
			"answered 1 c2 export_csv output-error",
			"request 2: 6 messages",
			`text 2 "42 "`, `text 2 "rows."`,
			`response 2 "stop" usage none`,
			"saved turn 1 interrupted false error <nil>",
		}},
		{name: "cancelled stream", cancelAt: 2, replier: func() engine.Replier {
			return &engine.Live{Model: newScriptModel(chat.Reply{Text: "one two three four"})}
		}, want: []string{
			"planned turn 1",
			"request 1: 2 messages",
			`text 1 "one "`, `text 1 "two "`,
			`response 1 "error" usage none`,
			"saved turn 1 interrupted true error context canceled",
		}, wantErr: context.Canceled},
		{name: "model error before any reply", replier: func() engine.Replier {
			return &engine.Live{Model: newScriptModel().Fail(refused)}
		}, want: []string{
			"planned turn 1",
			"request 1: 2 messages",
			`response 1 "error" usage none`,
			"failed: model: connection refused",
		}, wantErr: refused},
		{name: "scripted reply", replier: func() engine.Replier {
			return &engine.Scripted{Text: "Done.", Usage: usage(4, 1), Tools: []engine.ScriptedTool{{Name: "run_sql", Output: "[]"}}}
		}, want: []string{
			"planned turn 1",
			"answered 1 call_id-0002 run_sql output-available",
			`text 1 "Done."`,
			"usage 1 4+1",
			`response 1 "stop" usage 4+1`,
			"saved turn 1 interrupted false error <nil>",
		}},
		{name: "replier defined outside the engine", replier: func() engine.Replier { return echoReplier{} },
			want: []string{
				"planned turn 1",
				"answered 1 echo_0 run_sql output-available",
				"answered 1 echo_1 export_csv output-error",
				`text 1 "echo: hello"`,
				"saved turn 1 interrupted false error <nil>",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lc := newLiveChat(t, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []string
			var last engine.Event
			var responses []chat.Response
			texts := 0
			emit := func(ev engine.Event) {
				got = append(got, eventLine(ev))
				last = ev
				if r, ok := ev.(engine.EventResponse); ok {
					responses = append(responses, r.Response)
				}
				if _, ok := ev.(engine.EventText); ok {
					if texts++; texts == tt.cancelAt {
						cancel()
					}
				}
			}
			text := tt.text
			if text == "" {
				text = "hello"
			}
			res, err := lc.send(ctx, text, tt.replier(), engine.WithEvents(emit))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got events\n%q\nwant\n%q", got, tt.want)
			}
			switch ev := last.(type) {
			case engine.EventSaved:
				if ev.Result != res || ev.Err != err {
					t.Errorf("EventSaved holds %p %v, want the send's result %p and error %v", ev.Result, ev.Err, res, err)
				}
				// The turn record keeps the responses the events reported.
				if !reflect.DeepEqual(res.Turn.Responses, responses) {
					t.Errorf("the turn record keeps responses %+v, want the events' %+v", res.Turn.Responses, responses)
				}
			case engine.EventFailed:
				if res != nil || ev.Err != err {
					t.Errorf("EventFailed holds %v, want the send's error %v and no result (got %v)", ev.Err, err, res)
				}
			default:
				t.Errorf("got last event %T, want EventSaved or EventFailed", last)
			}
		})
	}
}

// TestEventsOnEditAndRegenerate checks that the other send paths deliver events too, and
// that a send without the option works.
func TestEventsOnEditAndRegenerate(t *testing.T) {
	lc := newLiveChat(t, 0)
	if _, err := lc.send(context.Background(), "hello", &engine.Scripted{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	emit := engine.WithEvents(func(ev engine.Event) { got = append(got, eventLine(ev)) })
	if _, err := lc.sess.Regenerate(context.Background(), &engine.Scripted{Text: "hey"}, liveT0, emit); err != nil {
		t.Fatal(err)
	}
	if _, err := lc.sess.Edit(context.Background(), 1, engine.UserInput{Text: "hi", At: liveT0}, &engine.Scripted{Text: "yo"}, emit); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"planned turn 1", `text 1 "hey"`, `response 1 "stop" usage none`, "saved turn 1 interrupted false error <nil>",
		"planned turn 1", `text 1 "yo"`, `response 1 "stop" usage none`, "saved turn 1 interrupted false error <nil>",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got events\n%q\nwant\n%q", got, want)
	}
}
