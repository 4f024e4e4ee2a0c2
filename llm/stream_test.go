package llm

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func TestStreamText(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		sse(w)
		send(w, roleChunk, textChunk("Hel"), textChunk("lo <b> & "), textChunk("bye"), finishChunk("stop"), usageChunk(12, 3), done)
	})
	c, _ := newTestClient(srv.URL, nil)
	var ds []Delta
	r, err := c.Stream(context.Background(), hello(), collect(&ds))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if got, want := r.Text, "Hello <b> & bye"; got != want {
		t.Errorf("got text %q, want %q", got, want)
	}
	if got, want := len(ds), 3; got != want {
		t.Fatalf("got %d deltas, want %d", got, want)
	}
	if got := texts(ds); got != r.Text {
		t.Errorf("got deltas %q, want %q", got, r.Text)
	}
	if r.FinishReason != "stop" || r.Interrupted || r.Attempts != 1 {
		t.Errorf("got finish %q interrupted %v attempts %d, want stop false 1", r.FinishReason, r.Interrupted, r.Attempts)
	}
	want := &chat.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}
	if !reflect.DeepEqual(r.Usage, want) {
		t.Errorf("got usage %+v, want %+v", r.Usage, want)
	}
	if r.TTFT <= 0 || r.Total < r.TTFT {
		t.Errorf("got ttft %v total %v, want 0 < ttft <= total", r.TTFT, r.Total)
	}
	body := srv.body(0)
	if body["stream"] != true {
		t.Errorf("got stream %v, want true", body["stream"])
	}
	if got, want := body["stream_options"], map[string]any{"include_usage": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("got stream_options %v, want %v", got, want)
	}
	if _, ok := body["tools"]; ok {
		t.Errorf("got tools %v, want none sent for an empty list", body["tools"])
	}
	if got, want := srv.auth[0], "Bearer "+testKey; got != want {
		t.Errorf("got Authorization %q, want %q", got, want)
	}
}

func TestStreamUsage(t *testing.T) {
	every := func(p, c int) string {
		return `data: {"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":` +
			strconv.Itoa(p) + `,"completion_tokens":` + strconv.Itoa(c) + `,"total_tokens":` + strconv.Itoa(p+c) + `}}` + "\n\n"
	}
	tests := []struct {
		name  string
		lines []string
		want  *chat.Usage
	}{
		{"usage chunk", []string{textChunk("x"), finishChunk("stop"), usageChunk(5, 1), done}, &chat.Usage{PromptTokens: 5, CompletionTokens: 1, TotalTokens: 6}},
		{"usage in every chunk keeps the last", []string{every(5, 1), every(5, 2), every(5, 3), finishChunk("stop"), done}, &chat.Usage{PromptTokens: 5, CompletionTokens: 3, TotalTokens: 8}},
		{"no usage chunk", []string{textChunk("x"), finishChunk("stop"), done}, nil},
		{"usage with details", []string{textChunk("x"), finishChunk("stop"),
			`data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":7}}}` + "\n\n", done},
			&chat.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, CachedTokens: 64, ReasoningTokens: 7}},
		{"null usage fields then usage", []string{`data: {"choices":[{"index":0,"delta":{"content":"x"}}],"usage":null}` + "\n\n", finishChunk("stop"), usageChunk(2, 1), done},
			&chat.Usage{PromptTokens: 2, CompletionTokens: 1, TotalTokens: 3}},
		// Issue 22 item 10: a count no int holds made the chunk malformed, and a complete
		// reply interrupted. The usage is dropped, like any absurd usage, and the reply kept.
		{"a usage chunk of 1e30 tokens", []string{textChunk("x"), finishChunk("stop"),
			`data: {"choices":[],"usage":{"prompt_tokens":1e30,"completion_tokens":1,"total_tokens":2}}` + "\n\n", done}, nil},
		{"a count that is not an integer, with text", []string{`data: {"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1.5,"completion_tokens":"2"}}` + "\n\n",
			finishChunk("stop"), done}, nil},
		{"an unreadable detail after a believable usage", []string{every(5, 1), finishChunk("stop"),
			`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6,"prompt_tokens_details":{"cached_tokens":-1e300}}}` + "\n\n", done},
			&chat.Usage{PromptTokens: 5, CompletionTokens: 1, TotalTokens: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				sse(w)
				send(w, tt.lines...)
			})
			c, _ := newTestClient(srv.URL, nil)
			r, err := c.Stream(context.Background(), hello(), nil)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if r.Text == "" || r.Interrupted || r.FinishReason != "stop" {
				t.Errorf("got text %q, interrupted %v, finish %q; want the whole reply", r.Text, r.Interrupted, r.FinishReason)
			}
			if !reflect.DeepEqual(r.Usage, tt.want) {
				t.Errorf("got usage %+v, want %+v", r.Usage, tt.want)
			}
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	lines := []string{
		roleChunk,
		textChunk("Let me check."),
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"run_sql","arguments":""}}]}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"ci"}}]}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"query\":"}}]}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"select 1\"}"}}]}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":""}}]}}]}` + "\n\n",
		finishChunk("tool_calls"), usageChunk(30, 12), done,
	}
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, lines...)
	})
	c, _ := newTestClient(srv.URL, nil)
	var ds []Delta
	r, err := c.Stream(context.Background(), hello(), collect(&ds))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := []chat.WireToolCall{
		{ID: "call_a", Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		{ID: "call_b", Type: "function", Function: chat.FunctionCall{Name: "run_sql", Arguments: `{"query":"select 1"}`}},
	}
	if !reflect.DeepEqual(r.ToolCalls, want) {
		t.Errorf("got tool calls %+v, want %+v", r.ToolCalls, want)
	}
	wantDeltas := []Delta{
		{Text: "Let me check."},
		{ToolCallIndex: 1, ToolCallID: "call_b", ToolName: "run_sql"},
		{ToolCallIndex: 0, ToolCallID: "call_a", ToolName: "get_weather", Arguments: `{"ci`},
		{ToolCallIndex: 1, Arguments: `{"query":`},
		{ToolCallIndex: 0, Arguments: `ty":"Paris"}`},
		{ToolCallIndex: 1, Arguments: `"select 1"}`},
	}
	if !reflect.DeepEqual(ds, wantDeltas) {
		t.Errorf("got deltas\n%+v\nwant\n%+v", ds, wantDeltas)
	}
	if r.FinishReason != "tool_calls" || r.Text != "Let me check." {
		t.Errorf("got finish %q text %q, want tool_calls and the text", r.FinishReason, r.Text)
	}
}

func TestStreamToolCallsWithoutIndex(t *testing.T) {
	// Some servers omit the index: a new id opens a call, pieces without id extend the last.
	lines := []string{
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\""}}]}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]}}]}` + "\n\n",
		finishChunk("tool_calls"), done,
	}
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, lines...)
	})
	c, _ := newTestClient(srv.URL, nil)
	r, err := c.Stream(context.Background(), hello(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := []chat.WireToolCall{
		{ID: "a", Type: "function", Function: chat.FunctionCall{Name: "f", Arguments: `{"x":1}`}},
		{ID: "b", Type: "function", Function: chat.FunctionCall{Name: "g", Arguments: `{}`}},
	}
	if !reflect.DeepEqual(r.ToolCalls, want) {
		t.Errorf("got tool calls %+v, want %+v", r.ToolCalls, want)
	}
}

func TestStreamToolCallsSharingAnIndex(t *testing.T) {
	piece := func(index, id, name, args string) string {
		tc := `"function":{"arguments":` + strconv.Quote(args)
		if name != "" {
			tc = `"type":"function","function":{"name":"` + name + `","arguments":` + strconv.Quote(args)
		}
		if id != "" {
			tc = `"id":"` + id + `",` + tc
		}
		if index != "" {
			tc = `"index":` + index + `,` + tc
		}
		return `data: {"choices":[{"index":0,"delta":{"tool_calls":[{` + tc + `}}]}}]}` + "\n\n"
	}
	fn := func(id, name, args string) chat.WireToolCall {
		return chat.WireToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
	}
	tests := []struct {
		name   string
		pieces []string
		want   []chat.WireToolCall
		// wantIndex is the ToolCallIndex of each delta.
		wantIndex []int
	}{
		{"Ollama: every parallel call at index 0", []string{
			piece("0", "call_a", "get_weather", `{"city":"Paris"}`),
			piece("0", "call_b", "get_weather", `{"city":"Rome"}`),
			piece("0", "call_c", "run_sql", `{"query":"select 1"}`),
		}, []chat.WireToolCall{
			fn("call_a", "get_weather", `{"city":"Paris"}`),
			fn("call_b", "get_weather", `{"city":"Rome"}`),
			fn("call_c", "run_sql", `{"query":"select 1"}`),
		}, []int{0, 1, 2}},
		{"a shared index, arguments in pieces", []string{
			piece("0", "call_a", "f", `{"x":`), piece("0", "", "", `1}`),
			piece("0", "call_b", "g", `{"y":`), piece("0", "", "", `2}`),
		}, []chat.WireToolCall{fn("call_a", "f", `{"x":1}`), fn("call_b", "g", `{"y":2}`)}, []int{0, 0, 1, 1}},
		{"the same id repeated extends the call", []string{
			piece("0", "call_a", "f", `{"x":`), piece("0", "call_a", "", `1}`),
		}, []chat.WireToolCall{fn("call_a", "f", `{"x":1}`)}, []int{0, 0}},
		{"an id arriving after the first piece extends the call", []string{
			piece("0", "", "f", `{"x":`), piece("0", "call_a", "", `1}`),
		}, []chat.WireToolCall{fn("call_a", "f", `{"x":1}`)}, []int{0, 0}},
		{"a shared index after distinct ones takes the next free place", []string{
			piece("0", "call_a", "f", `{}`), piece("1", "call_b", "g", `{}`), piece("0", "call_c", "h", `{}`),
		}, []chat.WireToolCall{fn("call_a", "f", `{}`), fn("call_b", "g", `{}`), fn("call_c", "h", `{}`)}, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				sse(w)
				send(w, tt.pieces...)
				send(w, finishChunk("tool_calls"), done)
			})
			c, _ := newTestClient(srv.URL, nil)
			var ds []Delta
			r, err := c.Stream(context.Background(), hello(), collect(&ds))
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if !reflect.DeepEqual(r.ToolCalls, tt.want) {
				t.Errorf("got tool calls %+v, want %+v", r.ToolCalls, tt.want)
			}
			var index []int
			for _, d := range ds {
				index = append(index, d.ToolCallIndex)
			}
			if !reflect.DeepEqual(index, tt.wantIndex) {
				t.Errorf("got delta indexes %v, want %v", index, tt.wantIndex)
			}
		})
	}
}

func TestStreamOptionsRejected(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if _, ok := body["stream_options"]; ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}`))
			return
		}
		sse(w)
		send(w, textChunk("ok"), finishChunk("stop"), done)
	})
	c, sl := newTestClient(srv.URL, nil)
	r, err := c.Stream(context.Background(), hello(), nil)
	if err != nil {
		t.Fatalf("first Stream: %v", err)
	}
	if r.Text != "ok" || r.Attempts != 2 || r.Usage != nil {
		t.Errorf("got text %q attempts %d usage %v, want ok 2 nil", r.Text, r.Attempts, r.Usage)
	}
	if len(sl.got()) != 0 {
		t.Errorf("got sleeps %v, want none before the stream_options fallback", sl.got())
	}
	r, err = c.Stream(context.Background(), hello(), nil)
	if err != nil {
		t.Fatalf("second Stream: %v", err)
	}
	if r.Attempts != 1 {
		t.Errorf("got %d attempts on the second Stream, want 1", r.Attempts)
	}
	if got, want := srv.count(), 3; got != want {
		t.Fatalf("got %d requests, want %d", got, want)
	}
	if _, ok := srv.body(2)["stream_options"]; ok {
		t.Errorf("second Stream sent stream_options, want it remembered as rejected")
	}
	// Another client of the same server starts afresh.
	c2, _ := newTestClient(srv.URL, nil)
	if r, err := c2.Stream(context.Background(), hello(), nil); err != nil || r.Attempts != 2 {
		t.Errorf("new client: got attempts %d err %v, want 2 <nil>", r.Attempts, err)
	}
}

// TestStreamOptionsRejectedBodies checks that a 400 or 422 is taken for a refusal of
// stream_options wherever the body names it, and only then.
func TestStreamOptionsRejectedBodies(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		retry  bool
	}{
		{"in the message", 400, `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}`, true},
		{"only in param", 400, `{"error":{"message":"Unrecognized request argument supplied","type":"invalid_request_error","param":"stream_options","code":null}}`, true},
		{"in a validation detail", 422, `{"detail":[{"loc":["body","stream_options"],"msg":"extra fields not permitted"}]}`, true},
		{"in plain text", 400, "unknown field stream_options", true},
		{"about something else", 400, `{"error":{"message":"max_tokens is too large","param":"max_tokens"}}`, false},
		{"another status", 401, `{"error":{"message":"bad key","param":"stream_options"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				if n == 1 {
					w.WriteHeader(tt.status)
					w.Write([]byte(tt.body))
					return
				}
				sse(w)
				send(w, textChunk("ok"), finishChunk("stop"), done)
			})
			c, _ := newTestClient(srv.URL, nil)
			r, err := c.Stream(context.Background(), hello(), nil)
			if got := err == nil && r.Attempts == 2; got != tt.retry {
				t.Fatalf("got attempts %d, error %v; want retried without stream_options: %v", r.Attempts, err, tt.retry)
			}
			if !tt.retry {
				return
			}
			if _, ok := srv.body(1)["stream_options"]; ok || srv.count() != 2 {
				t.Errorf("got %d requests, stream_options in the second: %v; want it asked again without", srv.count(), ok)
			}
		})
	}
}

func TestStreamBadRequestNotAboutStreamOptions(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"max_tokens is too large"}}`))
	})
	c, _ := newTestClient(srv.URL, nil)
	r, err := c.Stream(context.Background(), hello(), nil)
	e := asError(t, err)
	if e.Status != 400 || r.Attempts != 1 || r.Interrupted {
		t.Errorf("got status %d attempts %d interrupted %v, want 400 1 false", e.Status, r.Attempts, r.Interrupted)
	}
	if got, want := err.Error(), "400 Bad Request from "+srv.URL+"/v1: max_tokens is too large"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStreamBroken(t *testing.T) {
	tests := []struct {
		name     string
		lines    []string
		kind     Kind
		text     string
		contains string
	}{
		{"malformed SSE line", []string{textChunk("Hel"), `data: {"choices":[{"index":0,"delta":{"content":"lo` + "\n\n"}, KindMalformed, "Hel", "malformed stream from"},
		{"in-band error after a token", []string{textChunk("Hel"), `data: {"error":{"message":"model overloaded","type":"server_error"}}` + "\n\n"}, KindInBand, "Hel", "stream error from URL: model overloaded"},
		{"in-band error before any token", []string{`data: {"error":{"message":"context length exceeded","type":"invalid_request_error"}}` + "\n\n"}, KindInBand, "", "stream error from URL: context length exceeded"},
		{"clean close without [DONE] nor finish", []string{textChunk("Hel")}, KindCut, "Hel", "stream cut short from URL: stream ended without finish_reason or [DONE]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				sse(w)
				send(w, tt.lines...)
			})
			c, _ := newTestClient(srv.URL, nil)
			var ds []Delta
			r, err := c.Stream(context.Background(), hello(), collect(&ds))
			e := asError(t, err)
			if e.Kind != tt.kind {
				t.Errorf("got kind %v (%v), want %v", e.Kind, err, tt.kind)
			}
			if r.Text != tt.text || texts(ds) != tt.text || !r.Interrupted || r.Attempts != 1 {
				t.Errorf("got text %q deltas %q interrupted %v attempts %d, want %q, true, 1", r.Text, texts(ds), r.Interrupted, r.Attempts, tt.text)
			}
			if want := strings.ReplaceAll(tt.contains, "URL", srv.URL+"/v1"); !strings.Contains(err.Error(), want) {
				t.Errorf("got %q, want it to contain %q", err, want)
			}
		})
	}
}

func TestStreamCommentLines(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		for range 500 { // OpenRouter sends these while the request is queued
			send(w, ": OPENROUTER PROCESSING\n\n")
		}
		send(w, textChunk("a"), ": keep-alive\n\n", "event: message\n", textChunk("b"), finishChunk("stop"), done)
	})
	c, _ := newTestClient(srv.URL, nil)
	r, err := c.Stream(context.Background(), hello(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if r.Text != "ab" {
		t.Errorf("got %q, want %q", r.Text, "ab")
	}
}

func TestStreamDoneWithoutFinishReason(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, textChunk("a"), done)
	})
	c, _ := newTestClient(srv.URL, nil)
	r, err := c.Stream(context.Background(), hello(), nil)
	if err != nil || r.Text != "a" || r.Interrupted {
		t.Errorf("got %q interrupted %v err %v, want a complete reply", r.Text, r.Interrupted, err)
	}
}

func TestStreamTimeouts(t *testing.T) {
	const limit = 400 * time.Millisecond // generous: loaded CI machines stall a process for 100ms and more
	tests := []struct {
		name      string
		handle    func(w http.ResponseWriter, r *http.Request)
		kind      Kind
		text      string
		msg       string
		interrupt bool
	}{
		{"hang before headers", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, KindFirstToken, "", "no first token after 400ms from URL", false},
		{"hang after role chunk", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			send(w, roleChunk)
			<-r.Context().Done()
		}, KindFirstToken, "", "no first token after 400ms from URL", true},
		{"stall mid-stream", func(w http.ResponseWriter, r *http.Request) {
			sse(w)
			send(w, textChunk("Hel"))
			time.Sleep(limit / 40)
			send(w, textChunk("lo"))
			<-r.Context().Done()
		}, KindIdle, "Hello", "stream stalled: no data for 400ms from URL", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) { tt.handle(w, r) })
			c, sl := newTestClient(srv.URL, func(o *Options) {
				o.FirstTokenTimeout, o.IdleTimeout = limit, limit
			})
			r, err := c.Stream(context.Background(), hello(), nil)
			e := asError(t, err)
			if e.Kind != tt.kind || !e.IsTimeout() || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v (kind %v), want kind %v, a timeout", err, e.Kind, tt.kind)
			}
			if want := strings.ReplaceAll(tt.msg, "URL", srv.URL+"/v1"); err.Error() != want {
				t.Errorf("got %q, want %q", err, want)
			}
			if r.Text != tt.text || r.Interrupted != tt.interrupt || r.Attempts != 1 || len(sl.got()) != 0 {
				t.Errorf("got text %q interrupted %v attempts %d sleeps %v, want %q %v 1 none", r.Text, r.Interrupted, r.Attempts, sl.got(), tt.text, tt.interrupt)
			}
		})
	}
}

func TestStreamCancelKeepsPartial(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, textChunk("Once "), textChunk("upon "))
		<-r.Context().Done()
	})
	c, _ := newTestClient(srv.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ds []Delta
	r, err := c.Stream(ctx, hello(), func(d Delta) {
		ds = append(ds, d)
		if len(ds) == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got error %v, want context.Canceled", err)
	}
	if r.Text != "Once upon " || !r.Interrupted || r.Total <= 0 {
		t.Errorf("got text %q interrupted %v total %v, want the partial reply, interrupted", r.Text, r.Interrupted, r.Total)
	}
}

func TestStreamCancelWhileWaiting(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		<-r.Context().Done()
	})
	c, _ := newTestClient(srv.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	r, err := c.Stream(ctx, hello(), nil)
	if !errors.Is(err, context.DeadlineExceeded) || !r.Interrupted {
		t.Errorf("got %v interrupted %v, want the caller's deadline and interrupted", err, r.Interrupted)
	}
	if _, ok := err.(*Error); ok {
		t.Errorf("got *Error %v, want the ctx error itself", err)
	}
}

func TestErrorNeverHoldsKey(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"invalid api key ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `","type":"invalid_request_error"}}`))
	})
	u := strings.Replace(srv.URL, "http://", "http://user:"+testKey+"@", 1)
	c, _ := newTestClient(u, nil)
	_, err := c.Stream(context.Background(), hello(), nil)
	if err == nil {
		t.Fatal("got no error, want 401")
	}
	want := "401 Unauthorized from " + srv.URL + "/v1: invalid api key [redacted]"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error %q holds the API key", err)
	}
	if _, err := c.Models(context.Background()); err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("Models: got %v, want an error without the key", err)
	}
}

func TestStreamSendsRequestAsTraced(t *testing.T) {
	zero, seed := 0.0, 7
	req := chat.Request{
		Model: "m",
		Messages: []chat.WireMessage{
			{Role: chat.RoleSystem, Content: "<role>analyst</role>"},
			{Role: chat.RoleUser, Parts: []chat.ContentPart{{Type: "text", Text: "run it"}, {Type: "text", Text: "<system-reminder>Be safe.</system-reminder>"}}},
			{Role: chat.RoleAssistant, ToolCalls: []chat.WireToolCall{{ID: "call_1", Type: "function", Function: chat.FunctionCall{Name: "run_sql", Arguments: `{"query":"select 1"}`}}}},
			{Role: chat.RoleTool, ToolCallID: "call_1", Content: ""},
		},
		Tools:       []chat.WireTool{{Type: "function", Function: chat.FunctionDecl{Name: "run_sql", Parameters: []byte(`{"type":"object"}`)}}},
		Temperature: &zero, TopP: &zero, Seed: &seed, MaxTokens: 64, Stop: []string{"END"},
	}
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, textChunk("ok"), finishChunk("stop"), done)
	})
	c, _ := newTestClient(srv.URL, nil)
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	body := srv.body(0)
	for _, k := range []string{"temperature", "top_p"} {
		if v, ok := body[k]; !ok || v != 0.0 {
			t.Errorf("got %s %v (present %v), want an explicit 0", k, v, ok)
		}
	}
	msgs := body["messages"].([]any)
	if got := msgs[2].(map[string]any); got["content"] != nil {
		t.Errorf("got assistant content %v, want null", got["content"])
	} else if _, ok := got["content"]; !ok {
		t.Errorf("assistant message has no content key, want null")
	}
	if got := msgs[3].(map[string]any); got["content"] != "" || got["tool_call_id"] != "call_1" {
		t.Errorf("got tool message %v, want empty content and tool_call_id", got)
	}
	if parts, ok := msgs[1].(map[string]any)["content"].([]any); !ok || len(parts) != 2 {
		t.Errorf("got user content %v, want 2 text parts", msgs[1])
	}
}

func TestStreamReasoningKeepsStreamAlive(t *testing.T) {
	const limit = 400 * time.Millisecond
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		for range 10 { // 500ms of thinking, longer than the first-token limit
			send(w, `data: {"choices":[{"index":0,"delta":{"reasoning_content":"hmm "}}]}`+"\n\n")
			time.Sleep(50 * time.Millisecond)
		}
		send(w, textChunk("42"), finishChunk("stop"), done)
	})
	c, _ := newTestClient(srv.URL, func(o *Options) { o.FirstTokenTimeout, o.IdleTimeout = limit, limit })
	var ds []Delta
	r, err := c.Stream(context.Background(), hello(), collect(&ds))
	if err != nil || r.Text != "42" || len(ds) != 1 {
		t.Errorf("got %q in %d deltas, err %v; want 42 in one delta (reasoning is not delivered)", r.Text, len(ds), err)
	}
	if r.TTFT < 500*time.Millisecond {
		t.Errorf("got ttft %v, want the time to the first visible delta (>= 500ms)", r.TTFT)
	}
}
