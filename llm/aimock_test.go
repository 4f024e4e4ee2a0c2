package llm_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/llm"
	"github.com/ctxlab/ctxlab/llm/aimocktest"
)

// waits records the client's retry waits without sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return ctx.Err()
}

func (w *waits) take() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.d
	w.d = nil
	return d
}

func user(text string) chat.Request {
	return chat.Request{Model: "gpt-4o-mini", Messages: []chat.WireMessage{
		{Role: chat.RoleSystem, Content: "<role>You are terse.</role>"},
		{Role: chat.RoleUser, Content: text},
	}}
}

var sqlTool = chat.WireTool{Type: "function", Function: chat.FunctionDecl{
	Name: "run_sql", Description: "Run a read-only SQL query",
	Parameters: []byte(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
}}

var weatherTool = chat.WireTool{Type: "function", Function: chat.FunctionDecl{
	Name: "get_weather", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`),
}}

func TestAimock(t *testing.T) {
	srv := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock"})
	w := &waits{}
	c := llm.New(llm.Options{
		BaseURL: srv.BaseURL(), APIKey: "sk-aimock-test",
		FirstTokenTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second,
		Sleep:   w.sleep,
		Backoff: func(i int) time.Duration { return time.Duration(i+1) * time.Millisecond },
	})
	ctx := context.Background()

	// one returns the single chat-completion request of the journal, then clears it.
	one := func(t *testing.T) aimocktest.Entry {
		t.Helper()
		j := srv.Journal(t, "/chat/completions")
		srv.ClearJournal(t)
		if len(j) != 1 {
			t.Fatalf("got %d requests in the journal, want 1", len(j))
		}
		return j[0]
	}

	t.Run("plain", func(t *testing.T) {
		req := user("ping plain")
		var ds []llm.Delta
		r, err := c.Stream(ctx, req, func(d llm.Delta) { ds = append(ds, d) })
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		if r.Text != "pong" || r.FinishReason != "stop" || r.Attempts != 1 || r.Interrupted {
			t.Errorf("got %+v, want pong, stop, 1 attempt", r)
		}
		if r.Usage == nil {
			t.Errorf("got no usage, want the usage chunk aimock sends for include_usage")
		}
		e := one(t)
		fields, err := e.Fields()
		if err != nil {
			t.Fatal(err)
		}
		if fields["stream"] != true || !reflect.DeepEqual(fields["stream_options"], map[string]any{"include_usage": true}) {
			t.Errorf("got stream %v stream_options %v, want true and include_usage", fields["stream"], fields["stream_options"])
		}
		if got := e.Headers["authorization"]; got == "" { // aimock redacts its value
			t.Errorf("got no authorization header, want the bearer key")
		}
		sent, err := e.Request()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sent.Messages, req.Messages) || sent.Model != req.Model {
			t.Errorf("aimock received %+v, want %+v", sent, req)
		}
	})

	t.Run("usage chunk", func(t *testing.T) {
		var ds []llm.Delta
		r, err := c.Stream(ctx, user("count my tokens"), func(d llm.Delta) { ds = append(ds, d) })
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		want := &chat.Usage{PromptTokens: 42, CompletionTokens: 11, TotalTokens: 53}
		if !reflect.DeepEqual(r.Usage, want) {
			t.Errorf("got usage %+v, want %+v", r.Usage, want)
		}
		if r.Text != "Counting tokens for you, one small chunk at a time." || len(ds) < 5 {
			t.Errorf("got %q in %d deltas, want the text in 8-character chunks", r.Text, len(ds))
		}
		one(t)
	})

	t.Run("streamed tool calls", func(t *testing.T) {
		req := user("weather in Paris and Tokyo")
		req.Tools = []chat.WireTool{weatherTool}
		pieces := map[int]int{}
		r, err := c.Stream(ctx, req, func(d llm.Delta) {
			if d.Text == "" && d.Arguments != "" {
				pieces[d.ToolCallIndex]++
			}
		})
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		want := []chat.WireToolCall{
			{ID: "call_paris", Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`}},
			{ID: "call_tokyo", Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city":"Tokyo","unit":"celsius"}`}},
		}
		if !reflect.DeepEqual(r.ToolCalls, want) || r.FinishReason != "tool_calls" {
			t.Errorf("got %+v (%s), want %+v", r.ToolCalls, r.FinishReason, want)
		}
		if pieces[0] < 2 || pieces[1] < 2 {
			t.Errorf("got argument pieces %v, want each call's arguments split over several chunks", pieces)
		}
		sent, _ := one(t).Request()
		if !reflect.DeepEqual(sent.Tools, req.Tools) {
			t.Errorf("aimock received tools %+v, want %+v", sent.Tools, req.Tools)
		}
	})

	t.Run("multi-step tool loop", func(t *testing.T) {
		req := user("run the report")
		req.Tools = []chat.WireTool{sqlTool}
		results := []string{`[{"count": 42}]`, `[{"count": 7}]`}
		var r *llm.Reply
		for step := 0; ; step++ {
			var err error
			r, err = c.Stream(ctx, req, nil)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if len(r.ToolCalls) == 0 {
				break
			}
			if step >= len(results) {
				t.Fatalf("step %d: got tool calls %+v, want the final answer", step, r.ToolCalls)
			}
			req.Messages = append(req.Messages, chat.WireMessage{Role: chat.RoleAssistant, Content: r.Text, ToolCalls: r.ToolCalls})
			for _, tc := range r.ToolCalls {
				req.Messages = append(req.Messages, chat.WireMessage{Role: chat.RoleTool, ToolCallID: tc.ID, Content: results[step]})
			}
		}
		if r.Text != "The report: 42 users, 7 orders." {
			t.Errorf("got %q, want the final answer", r.Text)
		}
		j := srv.Journal(t, "/chat/completions")
		srv.ClearJournal(t)
		if len(j) != 3 {
			t.Fatalf("got %d requests, want 3", len(j))
		}
		var ids []string
		for i, e := range j {
			sent, err := e.Request()
			if err != nil {
				t.Fatal(err)
			}
			last := sent.Messages[len(sent.Messages)-1]
			if i > 0 {
				ids = append(ids, last.ToolCallID)
				if last.Role != chat.RoleTool || last.Content != results[i-1] {
					t.Errorf("request %d: got last message %+v, want the tool result", i+1, last)
				}
				if !strings.Contains(string(e.Body), `"role":"assistant","content":null,"tool_calls"`) {
					t.Errorf("request %d: assistant tool-call message not sent with content null: %s", i+1, e.Body)
				}
			}
		}
		if want := []string{"call_sql_1", "call_sql_2"}; !slices.Equal(ids, want) {
			t.Errorf("got tool_call_ids %v, want %v", ids, want)
		}
	})

	t.Run("429 honours Retry-After", func(t *testing.T) {
		w.take()
		r, err := c.Stream(ctx, user("trigger 429"), nil)
		var e *llm.Error
		if !errors.As(err, &e) || e.Status != 429 || e.Message != "Rate limit exceeded" {
			t.Fatalf("got %v, want a 429 with the server's message", err)
		}
		if want := "429 Too Many Requests from " + srv.BaseURL() + ": Rate limit exceeded"; err.Error() != want {
			t.Errorf("got %q, want %q", err, want)
		}
		if got, want := w.take(), []time.Duration{2 * time.Second, 2 * time.Second}; !slices.Equal(got, want) {
			t.Errorf("got waits %v, want %v", got, want)
		}
		if r.Attempts != 3 || len(srv.Journal(t, "/chat/completions")) != 3 {
			t.Errorf("got %d attempts, want 3 requests", r.Attempts)
		}
		srv.ClearJournal(t)
	})

	t.Run("500 retried then reported", func(t *testing.T) {
		w.take()
		r, err := c.Stream(ctx, user("trigger 500"), nil)
		var e *llm.Error
		if !errors.As(err, &e) || e.Status != 500 || r.Attempts != 3 {
			t.Fatalf("got %v after %d attempts, want a 500 after 3", err, r.Attempts)
		}
		if got, want := w.take(), []time.Duration{time.Millisecond, 2 * time.Millisecond}; !slices.Equal(got, want) {
			t.Errorf("got waits %v, want the backoff %v", got, want)
		}
		srv.ClearJournal(t)
	})

	t.Run("one-shot 503 then success", func(t *testing.T) {
		srv.QueueError(t, 503, "overloaded, try again")
		r, err := c.Stream(ctx, user("ping plain"), nil)
		if err != nil || r.Text != "pong" || r.Attempts != 2 {
			t.Errorf("got %q after %d attempts (%v), want pong after 2", r.Text, r.Attempts, err)
		}
		j := srv.Journal(t, "/chat/completions")
		srv.ClearJournal(t)
		if len(j) != 2 || j[0].Response.Status != 503 || j[1].Response.Status != 200 {
			t.Errorf("got journal statuses %v, want 503 then 200", statuses(j))
		}
	})

	t.Run("stream cut mid-way", func(t *testing.T) {
		var ds []llm.Delta
		r, err := c.Stream(ctx, user("tell me a long story"), func(d llm.Delta) { ds = append(ds, d) })
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.KindCut {
			t.Fatalf("got %v, want a cut stream", err)
		}
		const story = "Once upon a time there was a stream that never reached its end, because the connection dropped."
		if !r.Interrupted || r.Text == "" || !strings.HasPrefix(story, r.Text) || len(r.Text) >= len(story) || r.Attempts != 1 {
			t.Errorf("got %q interrupted %v attempts %d, want a strict prefix of the story, interrupted, not retried", r.Text, r.Interrupted, r.Attempts)
		}
		if e := one(t); !e.Response.Interrupted {
			t.Errorf("aimock did not record the interruption: %+v", e.Response)
		}
	})

	t.Run("models", func(t *testing.T) {
		ids, err := c.Models(ctx)
		if err != nil || !slices.Contains(ids, "gpt-4o") {
			t.Errorf("got %v %v, want aimock's list with gpt-4o", ids, err)
		}
	})
}

func TestAimockUnauthorized(t *testing.T) {
	srv := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock", APIKeys: []string{"sk-good-key"}})
	bad := llm.New(llm.Options{BaseURL: srv.BaseURL(), APIKey: "sk-wrong-key"})
	r, err := bad.Stream(context.Background(), user("ping plain"), nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Status != 401 || r.Attempts != 1 {
		t.Fatalf("got %v after %d attempts, want a 401, not retried", err, r.Attempts)
	}
	if !strings.HasPrefix(err.Error(), "401 Unauthorized from "+srv.BaseURL()+": ") || e.Message == "" {
		t.Errorf("got %q, want the status, the server and its message", err)
	}
	t.Logf("401 reads: %v", err)
	if strings.Contains(err.Error(), "sk-wrong-key") {
		t.Errorf("error %q holds the API key", err)
	}
	good := llm.New(llm.Options{BaseURL: srv.BaseURL(), APIKey: "sk-good-key"})
	if r, err := good.Stream(context.Background(), user("ping plain"), nil); err != nil || r.Text != "pong" {
		t.Errorf("good key: got %q %v, want pong", r.Text, err)
	}
}

func statuses(j []aimocktest.Entry) []int {
	var out []int
	for _, e := range j {
		out = append(out, e.Response.Status)
	}
	return out
}
