package engine_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/llm"
)

// liveCtx declares one reminder per placement and two tools: run_sql answers, export_csv
// fails.
const liveCtx = `version: 1
system:
  - role: You are terse.
reminders:
  - id: sys-note
    text: Mind the tools.
    when: contentIncludes(['report'])
    placement: system
  - id: start-note
    text: Session start.
    when: contentIncludes(['report'])
    placement: run-start
  - id: export-failed
    text: The export failed.
    when: toolFailed('export_csv')
tools:
  - name: run_sql
    description: Run SQL
    parameters: {type: object, properties: {query: {type: string}}}
    result: '[{"count": 42}]'
  - name: export_csv
    description: Export a table
    parameters: {type: object}
    error: permission denied
`

var liveT0 = time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)

// liveChat is an engine over a MemStore with deterministic ids and clock, and one open
// chat "c1".
type liveChat struct {
	tb    testing.TB
	store *engine.MemStore
	eng   *engine.Engine
	sess  *engine.Session
	file  *ctxfile.File
}

func newLiveChat(tb testing.TB, maxSteps int) *liveChat {
	tb.Helper()
	f, err := ctxfile.Parse("live.ctx.yaml", []byte(liveCtx))
	if err != nil {
		tb.Fatalf("parse context file: %v", err)
	}
	lc := &liveChat{tb: tb, store: engine.NewMemStore(nil), file: f}
	n := 0
	eng, err := engine.New(engine.Options{Context: f, Store: lc.store, Model: "test-model", MaxToolSteps: maxSteps,
		Now:   func() time.Time { return liveT0 },
		NewID: func() string { n++; return fmt.Sprintf("id-%04d", n) }})
	if err != nil {
		tb.Fatalf("new engine: %v", err)
	}
	lc.eng = eng
	lc.sess, err = eng.Create(context.Background(), chat.Chat{ID: "c1"})
	if err != nil {
		tb.Fatalf("create chat: %v", err)
	}
	return lc
}

// send sends text at minute turn-1 with the replier r.
func (lc *liveChat) send(ctx context.Context, text string, r engine.Replier, opts ...engine.SendOption) (*engine.TurnResult, error) {
	at := liveT0.Add(time.Duration(lc.sess.TurnCount()) * time.Minute)
	return lc.sess.Send(ctx, engine.UserInput{Text: text, At: at}, r, opts...)
}

// deltaEvents returns a send option that appends the streamed pieces the events carry, as
// the deltas the model streamed, to *ds.
func deltaEvents(ds *[]chat.Delta) engine.SendOption {
	return engine.WithEvents(func(ev engine.Event) {
		switch ev := ev.(type) {
		case engine.EventText:
			*ds = append(*ds, chat.Delta{Text: ev.Text})
		case engine.EventToolCall:
			*ds = append(*ds, chat.Delta{ToolCallIndex: ev.Index, ToolCallID: ev.ID, ToolName: ev.Name, Arguments: ev.Arguments})
		}
	})
}

// saved reopens the chat from the store and returns its messages and turns.
func (lc *liveChat) saved() ([]*chat.Message, []*chat.Turn) {
	lc.tb.Helper()
	s, err := lc.eng.Open(context.Background(), "c1")
	if err != nil {
		lc.tb.Fatalf("reopen: %v", err)
	}
	return s.Messages(), s.Turns()
}

func call(id, name, args string) chat.WireToolCall {
	return chat.WireToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

func toolPart(id, name, input string, state chat.ToolState, out string) chat.Part {
	return roundPart(1, id, name, input, state, out)
}

// roundPart is a tool part answered in round (request) n of the tool loop.
func roundPart(n int, id, name, input string, state chat.ToolState, out string) chat.Part {
	p := chat.Part{Type: chat.PartTool, ToolCallID: id, ToolName: name, Input: json.RawMessage(input), State: state, Round: n}
	if state == chat.ToolOutputError {
		p.ErrorText = out
	} else {
		p.Output = out
	}
	return p
}

func roleList(req chat.Request) []string {
	out := make([]string, req.Len())
	for i, m := range req.Collect() {
		out[i] = string(m.Role)
	}
	return out
}

func usage(p, c int) *chat.Usage {
	return &chat.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

const sysNote = "<system-reminder>Mind the tools.</system-reminder>"

func TestLiveToolLoop(t *testing.T) {
	lc := newLiveChat(t, 0)
	model := newScriptModel(
		chat.Reply{Text: "Let me check. ", Usage: usage(10, 2), ToolCalls: []chat.WireToolCall{
			call("c1", "run_sql", `{"query":"select 1"}`),
			call("c2", "drop_db", `{}`),       // not declared in the context file
			call("c3", "run_sql", `select 2`), // arguments that are not JSON
		}},
		chat.Reply{Text: "Now the export.", Usage: usage(20, 3), ToolCalls: []chat.WireToolCall{call("c4", "export_csv", "")}},
		chat.Reply{Text: "Done.", Usage: usage(30, 4)},
	)
	var deltas []chat.Delta
	res, err := lc.send(context.Background(), "run the report", &engine.Live{Model: model}, deltaEvents(&deltas))
	if err != nil {
		t.Fatalf("Send: %v", err)
	}

	const sqlOut = `[{"count": 42}]`
	wantParts := []chat.Part{
		chat.TextPart("Let me check. "),
		toolPart("c1", "run_sql", `{"query":"select 1"}`, chat.ToolOutputAvailable, sqlOut),
		toolPart("c2", "drop_db", `{}`, chat.ToolOutputError, `unknown tool "drop_db"`),
		toolPart("c3", "run_sql", `"select 2"`, chat.ToolOutputAvailable, sqlOut),
		chat.TextPart("Now the export."),
		roundPart(2, "c4", "export_csv", `{}`, chat.ToolOutputError, "permission denied"),
		chat.TextPart("Done."),
	}
	if !reflect.DeepEqual(res.Assistant.Parts, wantParts) {
		t.Errorf("got parts\n%s\nwant\n%s", mustJSON(t, res.Assistant.Parts), mustJSON(t, wantParts))
	}
	if res.Turn.FinishReason != "stop" || res.Assistant.Interrupted || res.Turn.Error != "" {
		t.Errorf("got finish %q interrupted %v error %q, want stop, complete, no error", res.Turn.FinishReason, res.Assistant.Interrupted, res.Turn.Error)
	}
	if want := usage(60, 9); !reflect.DeepEqual(res.Turn.Reported, want) {
		t.Errorf("got reported usage %+v, want the sum of the three steps %+v", res.Turn.Reported, want)
	}
	// Each of the three requests sends the whole prompt again.
	if got, min := res.Turn.Estimated.PromptTokens, 3*res.Plan.Estimate.Total; got < min {
		t.Errorf("got estimated prompt %d, want at least 3 × %d for three requests", got, res.Plan.Estimate.Total)
	}

	// The streamed pieces, in order, across the three requests.
	wantDeltas := []chat.Delta{
		{Text: "Let "}, {Text: "me "}, {Text: "check. "},
		{ToolCallIndex: 0, ToolCallID: "c1", ToolName: "run_sql", Arguments: `{"query":"select 1"}`},
		{ToolCallIndex: 1, ToolCallID: "c2", ToolName: "drop_db", Arguments: `{}`},
		{ToolCallIndex: 2, ToolCallID: "c3", ToolName: "run_sql", Arguments: `select 2`},
		{Text: "Now "}, {Text: "the "}, {Text: "export."},
		{ToolCallIndex: 0, ToolCallID: "c4", ToolName: "export_csv"},
		{Text: "Done."},
	}
	if !reflect.DeepEqual(deltas, wantDeltas) {
		t.Errorf("got deltas %+v, want %+v", deltas, wantDeltas)
	}

	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("got %d requests, want 3", len(reqs))
	}
	if !reflect.DeepEqual(reqs[0], res.Plan.Request) {
		t.Errorf("first request differs from the planned one:\n got %s\nwant %s", mustJSON(t, reqs[0]), mustJSON(t, res.Plan.Request))
	}
	for i, req := range reqs {
		if len(req.Tools) != 2 || req.Model != "test-model" {
			t.Errorf("request %d: got model %q and %d tools, want test-model and both tools", i+1, req.Model, len(req.Tools))
		}
		sys := req.At(0)
		if sys.Role != chat.RoleSystem || sys.Content != res.Plan.SystemPrompt ||
			!strings.HasPrefix(sys.Content, "<system-reminder>Session start.</system-reminder>\n\n<role>") {
			t.Errorf("request %d: got first message %+v, want the system prompt with the run-start reminder first", i+1, sys)
		}
	}
	// Step 1: the system reminder just before the user message.
	if got, want := roleList(reqs[0]), []string{"system", "system", "user"}; !slices.Equal(got, want) {
		t.Errorf("request 1: got roles %v, want %v", got, want)
	}
	if reqs[0].At(1).Content != sysNote {
		t.Errorf("request 1: got %q before the user message, want %q", reqs[0].At(1).Content, sysNote)
	}
	// Step 2: the tool round after the user message, the system reminder after the last
	// tool message.
	want2 := []chat.WireMessage{
		reqs[0].At(0),
		{Role: chat.RoleUser, Content: "run the report"},
		{Role: chat.RoleAssistant, Content: "Let me check. ", ToolCalls: []chat.WireToolCall{
			call("c1", "run_sql", `{"query":"select 1"}`), call("c2", "drop_db", `{}`), call("c3", "run_sql", `"select 2"`)}},
		{Role: chat.RoleTool, ToolCallID: "c1", Content: sqlOut},
		{Role: chat.RoleTool, ToolCallID: "c2", Content: `unknown tool "drop_db"`},
		{Role: chat.RoleTool, ToolCallID: "c3", Content: sqlOut},
		{Role: chat.RoleSystem, Content: sysNote},
	}
	if !reflect.DeepEqual(reqs[1].Collect(), want2) {
		t.Errorf("request 2:\n got %s\nwant %s", mustJSON(t, reqs[1].Collect()), mustJSON(t, want2))
	}
	// Step 3: both rounds, then the system reminder.
	want3 := append(slices.Clone(want2[:len(want2)-1]),
		chat.WireMessage{Role: chat.RoleAssistant, Content: "Now the export.", ToolCalls: []chat.WireToolCall{call("c4", "export_csv", `{}`)}},
		chat.WireMessage{Role: chat.RoleTool, ToolCallID: "c4", Content: "permission denied"},
		chat.WireMessage{Role: chat.RoleSystem, Content: sysNote},
	)
	if !reflect.DeepEqual(reqs[2].Collect(), want3) {
		t.Errorf("request 3:\n got %s\nwant %s", mustJSON(t, reqs[2].Collect()), mustJSON(t, want3))
	}

	// Saved as tool parts: reopened from the store, the reply is the same, and the tool
	// predicates of the next turn see it.
	msgs, turns := lc.saved()
	if len(msgs) != 2 || len(turns) != 1 || !reflect.DeepEqual(msgs[1].Parts, wantParts) {
		t.Fatalf("got %d messages, %d turns saved, want the user message and the reply with its tool parts", len(msgs), len(turns))
	}
	next, err := lc.send(context.Background(), "why?", &engine.Scripted{Text: "Because."})
	if err != nil {
		t.Fatal(err)
	}
	var fired []string
	for _, d := range next.Plan.Decisions {
		if d.Fired {
			fired = append(fired, d.ID)
		}
	}
	if !slices.Equal(fired, []string{"export-failed"}) {
		t.Errorf("turn 2: got fired %v, want [export-failed] (toolFailed of the live reply)", fired)
	}
	if got, want := roleList(next.Plan.Request), []string{"system", "user", "assistant", "tool", "tool", "tool", "assistant", "tool", "assistant", "user"}; !slices.Equal(got, want) {
		t.Errorf("turn 2: got history roles %v, want %v", got, want)
	}
}

func TestLiveToolLoopLimit(t *testing.T) {
	lc := newLiveChat(t, 2)
	model := newScriptModel()
	for i := 1; i <= 3; i++ {
		model.Then(chat.Reply{ToolCalls: []chat.WireToolCall{call(fmt.Sprintf("c%d", i), "run_sql", `{"query":"select 1"}`)}, Usage: usage(5, 1)})
	}
	res, err := lc.send(context.Background(), "loop forever", &engine.Live{Model: model})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	if res.Turn.FinishReason != engine.FinishToolLoopLimit || engine.FinishToolLoopLimit != "tool_loop_limit" {
		t.Errorf("got finish reason %q, want tool_loop_limit", res.Turn.FinishReason)
	}
	if n := len(model.Requests()); n != 2 || model.Remaining() != 1 {
		t.Errorf("got %d requests (%d replies left), want 2 (MaxToolSteps) and 1 left", n, model.Remaining())
	}
	if got := res.Assistant.ToolParts(); len(got) != 2 || res.Assistant.PlainText() != "" || res.Assistant.Interrupted {
		t.Errorf("got %d tool parts, text %q, interrupted %v, want the 2 rounds' calls, no text, not interrupted",
			len(got), res.Assistant.PlainText(), res.Assistant.Interrupted)
	}
	if tr := res.Trace("c1"); tr.Assistant.FinishReason != "tool_loop_limit" || len(tr.Assistant.Tools) != 2 {
		t.Errorf("got trace %+v, want finish tool_loop_limit and 2 tools", tr.Assistant)
	}
	if _, turns := lc.saved(); len(turns) != 1 || turns[0].FinishReason != "tool_loop_limit" {
		t.Errorf("got %d turns saved, want 1 with finish tool_loop_limit", len(turns))
	}
}

func TestLiveUsage(t *testing.T) {
	tests := []struct {
		name    string
		replies []chat.Reply
		want    *chat.Usage // nil: estimated
	}{
		{"one step reported", []chat.Reply{{Text: "hi", Usage: usage(7, 2)}}, usage(7, 2)},
		{"one step not reported", []chat.Reply{{Text: "hi"}}, nil},
		{"every step reported", []chat.Reply{
			{ToolCalls: []chat.WireToolCall{call("", "run_sql", `{}`)}, Usage: usage(7, 2)},
			{Text: "hi", Usage: usage(11, 3)},
		}, usage(18, 5)},
		{"a step not reported", []chat.Reply{
			{ToolCalls: []chat.WireToolCall{call("", "run_sql", `{}`)}, Usage: usage(7, 2)},
			{Text: "hi"},
		}, nil},
		{"the first step not reported", []chat.Reply{
			{ToolCalls: []chat.WireToolCall{call("", "run_sql", `{}`)}},
			{Text: "hi", Usage: usage(11, 3)},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lc := newLiveChat(t, 0)
			res, err := lc.send(context.Background(), "hello", &engine.Live{Model: newScriptModel(tt.replies...)})
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if !reflect.DeepEqual(res.Turn.Reported, tt.want) {
				t.Errorf("got reported %+v, want %+v", res.Turn.Reported, tt.want)
			}
			tr := res.Trace("c1")
			if !reflect.DeepEqual(tr.Usage.Reported, tt.want) || tr.Usage.Estimated.PromptTokens <= 0 || tr.Usage.Estimated.CompletionTokens <= 0 {
				t.Errorf("got trace usage %+v, want reported %+v and a positive estimate", tr.Usage, tt.want)
			}
			counted := res.Turn.Estimated
			if tt.want != nil {
				counted = *tt.want
				if tr.Usage.Difference == nil || *tr.Usage.Difference != tt.want.PromptTokens-tr.Usage.Estimated.PromptTokens {
					t.Errorf("got difference %v, want reported minus estimated prompt", tr.Usage.Difference)
				}
			} else if tr.Usage.Difference != nil {
				t.Errorf("got difference %d without a report, want none", *tr.Usage.Difference)
			}
			if got := lc.sess.Usage(); got != counted {
				t.Errorf("got chat usage %+v, want the turn's counted usage %+v", got, counted)
			}
		})
	}
}

// brokenModel streams some text and tool calls (the last one maybe cut short), then
// fails, like a stream cut mid-way.
type brokenModel struct {
	text  string
	err   error
	calls []chat.WireToolCall
}

func (m brokenModel) Stream(_ context.Context, _ chat.Request, onDelta func(chat.Delta)) (*chat.Reply, error) {
	if m.text != "" {
		onDelta(chat.Delta{Text: m.text})
	}
	for i, c := range m.calls {
		onDelta(chat.Delta{ToolCallIndex: i, ToolCallID: c.ID, ToolName: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return &chat.Reply{Text: m.text, ToolCalls: m.calls, Interrupted: true, Attempts: 1}, m.err
}

func TestLiveFailures(t *testing.T) {
	unauthorized := &llm.Error{Server: "http://127.0.0.1:1/v1", Kind: llm.KindStatus, Status: 401, StatusText: "Unauthorized", Message: "bad key"}
	cut := &llm.Error{Server: "http://127.0.0.1:1/v1", Kind: llm.KindCut, Err: errors.New("unexpected EOF")}
	tooLong := &llm.Error{Server: "http://127.0.0.1:1/v1", Kind: llm.KindTooLong, Err: chat.ErrReplyTooLong}
	argsTooLong := &llm.Error{Server: "http://127.0.0.1:1/v1", Kind: llm.KindTooLong, Err: chat.ErrToolArgumentsTooLong}
	toolCall := chat.Reply{ToolCalls: []chat.WireToolCall{call("c1", "run_sql", `{}`)}}
	reportedCall := chat.Reply{ToolCalls: []chat.WireToolCall{call("c1", "run_sql", `{}`)}, Usage: usage(7, 2)}
	answered := toolPart("c1", "run_sql", `{}`, chat.ToolOutputAvailable, `[{"count": 42}]`)
	pending := func(round int, id, input string, state chat.ToolState) chat.Part {
		return chat.Part{Type: chat.PartTool, ToolCallID: id, ToolName: "run_sql", Input: json.RawMessage(input), State: state, Round: round}
	}
	tests := []struct {
		name  string
		model engine.Model
		// want is the saved reply's parts; nil means nothing saved.
		want     []chat.Part
		wantErr  error
		reported *chat.Usage
		finish   string // the turn's finish reason: "error" when empty
	}{
		{"failure before any text", newScriptModel().Fail(unauthorized), nil, unauthorized, nil, ""},
		{"failure mid-stream", brokenModel{text: "Once upon", err: cut}, []chat.Part{chat.TextPart("Once upon")}, cut, nil, ""},
		{"failure after a tool round", newScriptModel(toolCall).Fail(cut), []chat.Part{answered}, cut, nil, ""},
		{"failure mid-stream after a tool round", &twoStep{first: toolCall, then: brokenModel{text: "Half", err: cut}},
			[]chat.Part{answered, chat.TextPart("Half")}, cut, nil, ""},
		{"failure in a tool call's arguments", brokenModel{err: cut, calls: []chat.WireToolCall{call("c1", "run_sql", `{"query":"sel`)}},
			[]chat.Part{pending(1, "c1", `"{\"query\":\"sel"`, chat.ToolInputStreaming)}, cut, nil, ""},
		{"failure after text and a whole tool call", brokenModel{text: "Checking.", err: cut, calls: []chat.WireToolCall{
			call("c1", "run_sql", `{"query":"select 1"}`), call("c2", "run_sql", "")}},
			[]chat.Part{chat.TextPart("Checking."), pending(1, "c1", `{"query":"select 1"}`, chat.ToolInputAvailable),
				pending(1, "c2", `{}`, chat.ToolInputStreaming)}, cut, nil, ""},
		{"failure in a tool call after a tool round", &twoStep{first: toolCall, then: brokenModel{err: cut, calls: []chat.WireToolCall{call("c2", "run_sql", `{`)}}},
			[]chat.Part{answered, pending(2, "c2", `"{"`, chat.ToolInputStreaming)}, cut, nil, ""},
		{"failure after a reported tool round", newScriptModel(reportedCall).Fail(cut), []chat.Part{answered}, cut, usage(7, 2), ""},
		// Issue 22 item 1: a reply cut at ctxlab's limits says so in its finish reason.
		{"a reply cut at its size limit", brokenModel{text: "xxxx", err: tooLong}, []chat.Part{chat.TextPart("xxxx")}, tooLong, nil, engine.FinishReplyLimit},
		{"a call cut at its arguments' limit", brokenModel{text: "Checking.", err: argsTooLong, calls: []chat.WireToolCall{call("c1", "run_sql", `{"query":"sel`)}},
			[]chat.Part{chat.TextPart("Checking."), pending(1, "c1", `"{\"query\":\"sel"`, chat.ToolInputStreaming)}, argsTooLong, nil, engine.FinishReplyLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lc := newLiveChat(t, 0)
			res, err := lc.send(context.Background(), "hello", &engine.Live{Model: tt.model})
			if !errors.Is(err, tt.wantErr) || !strings.HasPrefix(err.Error(), "model: ") {
				t.Fatalf("got error %v, want %v named as the model's", err, tt.wantErr)
			}
			msgs, turns := lc.saved()
			if tt.want == nil {
				if res != nil || len(msgs) != 0 || len(turns) != 0 || lc.sess.TurnCount() != 0 || lc.sess.Head() != "" {
					t.Fatalf("got result %v, %d messages and %d turns saved, want nothing", res, len(msgs), len(turns))
				}
			} else {
				if res == nil {
					t.Fatal("got no result, want the partial reply")
				}
				if len(msgs) != 2 || len(turns) != 1 {
					t.Fatalf("got %d messages and %d turns saved, want the user message and the partial reply", len(msgs), len(turns))
				}
				if !reflect.DeepEqual(msgs[1].Parts, tt.want) || !msgs[1].Interrupted {
					t.Errorf("got saved reply %s interrupted %v, want %s interrupted", mustJSON(t, msgs[1].Parts), msgs[1].Interrupted, mustJSON(t, tt.want))
				}
				wantText := "model: " + tt.wantErr.Error() // the error names what failed
				finish := cmp.Or(tt.finish, "error")
				if turns[0].Error != wantText || turns[0].FinishReason != finish || !reflect.DeepEqual(turns[0].Reported, tt.reported) {
					t.Errorf("got turn error %q finish %q reported %v, want %q, %s, %v", turns[0].Error, turns[0].FinishReason, turns[0].Reported, wantText, finish, tt.reported)
				}
				if tr := res.Trace("c1"); tr.Assistant.FinishReason != finish || tr.Responses[len(tr.Responses)-1].FinishReason != finish {
					t.Errorf("got trace finish %q (last response %q), want %s", tr.Assistant.FinishReason, tr.Responses[len(tr.Responses)-1].FinishReason, finish)
				}
				if tr := res.Trace("c1"); !tr.Assistant.Interrupted || tr.Error != wantText || !reflect.DeepEqual(tr.Usage.Reported, tt.reported) {
					t.Errorf("got trace interrupted %v error %q reported %v, want interrupted with the error, reported %v",
						tr.Assistant.Interrupted, tr.Error, tr.Usage.Reported, tt.reported)
				}
			}
			// The session stays usable: the next turn goes through, after the saved part.
			next := newScriptModel(chat.Reply{Text: "fine"})
			res2, err := lc.send(context.Background(), "again", &engine.Live{Model: next})
			if err != nil {
				t.Fatalf("next turn: %v", err)
			}
			wantTurn := 1 + len(turns)
			if res2.Plan.Turn != wantTurn || lc.sess.TurnCount() != wantTurn {
				t.Errorf("next turn: got turn %d (count %d), want %d", res2.Plan.Turn, lc.sess.TurnCount(), wantTurn)
			}
		})
	}
}

// twoStep answers the first request with a scripted reply and the next with another model.
type twoStep struct {
	first chat.Reply
	then  engine.Model
	n     int
}

func (m *twoStep) Stream(ctx context.Context, req chat.Request, onDelta func(chat.Delta)) (*chat.Reply, error) {
	m.n++
	if m.n == 1 {
		return newScriptModel(m.first).Stream(ctx, req, onDelta)
	}
	return m.then.Stream(ctx, req, onDelta)
}

func TestLiveCancelMidStream(t *testing.T) {
	lc := newLiveChat(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	model := newScriptModel(chat.Reply{Text: "one two three four", Usage: usage(5, 4)}, chat.Reply{Text: "again"})
	var got []string
	live := &engine.Live{Model: model}
	onText := engine.WithEvents(func(ev engine.Event) {
		if d, ok := ev.(engine.EventText); ok {
			got = append(got, d.Text)
			if len(got) == 2 {
				cancel()
			}
		}
	})
	res, err := lc.send(ctx, "tell me", live, onText)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got error %v, want context.Canceled", err)
	}
	if res == nil || res.Assistant.PlainText() != "one two " || !res.Assistant.Interrupted || res.Turn.Reported != nil {
		t.Fatalf("got %+v, want the partial reply %q, interrupted, no reported usage", res, "one two ")
	}
	msgs, turns := lc.saved()
	if len(msgs) != 2 || !msgs[1].Interrupted || msgs[1].PlainText() != "one two " || len(turns) != 1 || turns[0].Error != "context canceled" {
		t.Fatalf("got %d messages saved (%+v), want the partial reply saved, interrupted, with the error", len(msgs), msgs)
	}

	// The next turn, on a live context, sends the partial reply as history.
	got = nil
	res, err = lc.send(context.Background(), "go on", live, onText)
	if err != nil || res.Assistant.PlainText() != "again" {
		t.Fatalf("next turn: got %v, %v, want the reply", res, err)
	}
	req := model.Requests()[1]
	want := []string{"system", "user", "assistant", "user"}
	if !slices.Equal(roleList(req), want) || req.At(2).Content != "one two " {
		t.Errorf("next turn: got %s, want the partial reply in the history", mustJSON(t, req.Collect()))
	}
	if !slices.Equal(got, []string{"again"}) {
		t.Errorf("next turn: got deltas %q, want [again]", got)
	}
}

// sseServer starts an httptest server on 127.0.0.1 whose chat endpoint runs handle; it
// returns the API root and a counter of requests. Handlers that hang return when the
// client goes away or the test ends.
func sseServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, done <-chan struct{})) (string, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		handle(w, r, done)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs first: releases hanging handlers
	return srv.URL + "/v1", &n
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func sseChunk(w http.ResponseWriter, text string) {
	b, _ := json.Marshal(text)
	fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", b)
	w.(http.Flusher).Flush()
}

func hang(r *http.Request, done <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-done:
	}
}

// TestLiveTimeouts runs the timeouts the command line does not expose (first token,
// idle stream) through llm.Client and engine.Live against httptest servers that hang.
func TestLiveTimeouts(t *testing.T) {
	t.Run("no first token", func(t *testing.T) {
		t.Parallel()
		url, n := sseServer(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
			sseHeaders(w) // headers, then nothing
			hang(r, done)
		})
		lc := newLiveChat(t, 0)
		c := llm.New(llm.Options{BaseURL: url, APIKey: "sk-test-timeouts-0000", FirstTokenTimeout: 100 * time.Millisecond})
		res, err := lc.send(context.Background(), "hello", &engine.Live{Model: c})
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.KindFirstToken || !e.IsTimeout() {
			t.Fatalf("got %v, want a first-token timeout", err)
		}
		if want := "no first token after 100ms from " + url; !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to say %q", err, want)
		}
		if msgs, turns := lc.saved(); res != nil || len(msgs) != 0 || len(turns) != 0 {
			t.Errorf("got %d messages and %d turns saved, want nothing", len(msgs), len(turns))
		}
		if n.Load() != 1 {
			t.Errorf("got %d requests, want 1 (a timeout is not retried)", n.Load())
		}
	})
	t.Run("idle after the first token", func(t *testing.T) {
		t.Parallel()
		url, _ := sseServer(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
			sseHeaders(w)
			sseChunk(w, "Hello ")
			hang(r, done)
		})
		lc := newLiveChat(t, 0)
		c := llm.New(llm.Options{BaseURL: url, FirstTokenTimeout: 5 * time.Second, IdleTimeout: 100 * time.Millisecond})
		res, err := lc.send(context.Background(), "hello", &engine.Live{Model: c})
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.KindIdle {
			t.Fatalf("got %v, want an idle timeout", err)
		}
		if res == nil || res.Assistant.PlainText() != "Hello " || !res.Assistant.Interrupted {
			t.Fatalf("got %+v, want the partial reply, interrupted", res)
		}
		if msgs, _ := lc.saved(); len(msgs) != 2 || !msgs[1].Interrupted {
			t.Errorf("got %d messages saved, want the partial reply saved, interrupted", len(msgs))
		}
	})
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := chat.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestTurnCost checks what a turn's cost is priced from: the reported usage, else the
// estimate for a turn sent to a model; a scripted reply without usage was never sent and
// has no cost. Replaying the saved turn prices it the same.
func TestTurnCost(t *testing.T) {
	const perToken = 1.0 // USD, so a cost reads as a token count
	tests := []struct {
		name     string
		reply    engine.Replier
		want     float64 // the cost, when priced from the report
		estimate bool    // priced from the estimate
		none     bool    // no cost
	}{
		{name: "scripted without usage", reply: &engine.Scripted{Text: "ok"}, none: true},
		{name: "scripted with usage", reply: &engine.Scripted{Text: "ok", Usage: usage(10, 2)}, want: 12},
		{name: "live with usage", reply: &engine.Live{Model: newScriptModel(chat.Reply{Text: "ok", Usage: usage(10, 2)})}, want: 12},
		{name: "live without usage", reply: &engine.Live{Model: newScriptModel(chat.Reply{Text: "ok"})}, estimate: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ctxfile.Parse("live.ctx.yaml", []byte(liveCtx))
			if err != nil {
				t.Fatal(err)
			}
			eng, err := engine.New(engine.Options{Context: f, Store: engine.NewMemStore(nil), Model: "test-model",
				Now: func() time.Time { return liveT0 },
				Cost: func(_ string, u chat.Usage) (float64, bool) {
					return perToken * float64(u.PromptTokens+u.CompletionTokens), true
				}})
			if err != nil {
				t.Fatal(err)
			}
			sess, err := eng.Create(context.Background(), chat.Chat{ID: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			res, err := sess.Send(context.Background(), engine.UserInput{Text: "hello", At: liveT0}, tt.reply)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			want := tt.want
			if tt.estimate {
				want = float64(res.Turn.Estimated.PromptTokens + res.Turn.Estimated.CompletionTokens)
			}
			var replayed *float64
			if err := eng.Replay(context.Background(), "c1", false, func(tr *engine.Trace) error {
				replayed = tr.Usage.CostUSD
				return nil
			}); err != nil {
				t.Fatalf("Replay: %v", err)
			}
			for what, got := range map[string]*float64{"trace": res.Trace("c1").Usage.CostUSD, "replay": replayed} {
				switch {
				case tt.none && got != nil:
					t.Errorf("%s: got cost %v, want none", what, *got)
				case !tt.none && (got == nil || *got != want):
					t.Errorf("%s: got cost %v, want %v", what, got, want)
				}
			}
		})
	}
}
