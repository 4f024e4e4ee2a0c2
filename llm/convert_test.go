package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func convertCases() map[string]chat.Request {
	temp, topP, zero, seed := 0.2, 0.9, 0.0, 42
	call := chat.WireToolCall{ID: "call_1", Type: "function", Function: chat.FunctionCall{Name: "run_sql", Arguments: `{"query":"select 1"}`}}
	tool := chat.WireTool{Type: "function", Function: chat.FunctionDecl{Name: "run_sql", Description: "Run SQL",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}}
	return map[string]chat.Request{
		"plain": {Model: "gpt-4o-mini", Messages: []chat.WireMessage{
			{Role: chat.RoleSystem, Content: "<role>You are careful & brief.</role>"},
			{Role: chat.RoleUser, Content: "hello"},
		}},
		"parts and tools": {Model: "m", Messages: []chat.WireMessage{
			{Role: chat.RoleUser, Parts: []chat.ContentPart{{Type: "text", Text: "run the report"}, {Type: "text", Text: "<system-reminder>Check the schema.</system-reminder>"}}},
			{Role: chat.RoleAssistant, ToolCalls: []chat.WireToolCall{call}},
			{Role: chat.RoleTool, ToolCallID: "call_1", Content: `[{"n": 1}]`},
			{Role: chat.RoleAssistant, Content: "Done."},
		}, Tools: []chat.WireTool{tool}},
		"parameters": {Model: "m", Messages: []chat.WireMessage{{Role: chat.RoleUser, Content: "x"}},
			Temperature: &temp, TopP: &topP, MaxTokens: 1024, Seed: &seed, Stop: []string{"\n\n", "END"}},
		"zero temperature":        {Model: "m", Messages: []chat.WireMessage{{Role: chat.RoleUser, Content: "x"}}, Temperature: &zero},
		"reasoning model's limit": {Model: "o3-mini", Messages: []chat.WireMessage{{Role: chat.RoleUser, Content: "x"}}, MaxTokens: 2048},
		"no messages":             {Model: "m"},
	}
}

// TestWireBodyIsTracedRequest checks that the body sent is the request's own JSON (what
// the trace shows) plus the stream fields, byte for byte.
func TestWireBodyIsTracedRequest(t *testing.T) {
	for name, req := range convertCases() {
		t.Run(name, func(t *testing.T) {
			// Not json.Marshal: it would escape <, > and & again.
			traced, err := req.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			for _, usage := range []bool{true, false} {
				got, err := wireBody(req, usage)
				if err != nil {
					t.Fatal(err)
				}
				want := bytes.Clone(bytes.TrimSuffix(traced, []byte("}")))
				if len(req.Tools) == 0 {
					want = bytes.Replace(want, []byte(`,"tools":[]`), nil, 1)
				}
				want = append(want, `,"stream":true`...)
				if usage {
					want = append(want, `,"stream_options":{"include_usage":true}`...)
				}
				want = append(want, '}')
				if !bytes.Equal(got, want) {
					t.Errorf("usage=%v:\ngot  %s\nwant %s", usage, got, want)
				}
			}
		})
	}
}

// TestToOpenAI checks that go-openai's request says the same as the traced request,
// except for what go-openai cannot express (documented on toOpenAI): a 0 temperature or
// top_p, empty content and null content are left out.
func TestToOpenAI(t *testing.T) {
	for name, req := range convertCases() {
		t.Run(name, func(t *testing.T) {
			var want, got map[string]any
			traced, _ := json.Marshal(req)
			mustUnmarshal(t, traced, &want)
			b, err := json.Marshal(toOpenAI(req))
			if err != nil {
				t.Fatal(err)
			}
			mustUnmarshal(t, b, &got)
			delete(got, "stream")
			if tools, _ := want["tools"].([]any); len(tools) == 0 {
				delete(want, "tools")
			}
			for _, k := range []string{"temperature", "top_p"} {
				if want[k] == 0.0 {
					delete(want, k)
				}
			}
			for _, m := range want["messages"].([]any) {
				if mm := m.(map[string]any); mm["content"] == nil || mm["content"] == "" {
					delete(mm, "content")
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %v\nwant %v", got, want)
			}
		})
	}
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
}

// TestOutputLimit checks that the reply's limit goes in the field the model reads,
// max_completion_tokens for OpenAI's reasoning models (which go-openai would otherwise
// refuse to send), in the body sent and in the traced request alike.
func TestOutputLimit(t *testing.T) {
	tests := []struct {
		model string
		want  string // the key that carries the limit
	}{
		{"gpt-4o-mini", "max_tokens"},
		{"gpt-4.1", "max_tokens"},
		{"llama3.2", "max_tokens"},
		{"openai/gpt-5", "max_tokens"}, // OpenRouter reads max_tokens
		{"gpt-5", "max_completion_tokens"},
		{"gpt-5-mini-2025-08-07", "max_completion_tokens"},
		{"gpt-5.1", "max_completion_tokens"},
		{"o1", "max_completion_tokens"},
		{"o1-mini", "max_completion_tokens"},
		{"o3-pro", "max_completion_tokens"},
		{"o4-mini", "max_completion_tokens"},
		{openai.GPT6Sol, "max_completion_tokens"},
		{openai.GPT6Dot1Sol, "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			req := chat.Request{Model: tt.model, Messages: []chat.WireMessage{{Role: chat.RoleUser, Content: "x"}}, MaxTokens: 300}
			if err := openai.NewReasoningValidator().Validate(toOpenAI(req)); err != nil {
				t.Errorf("go-openai refuses the request: %v", err)
			}
			//lint:ignore SA1019 asks go-openai whether it refuses max_tokens for the model
			refused := openai.NewReasoningValidator().Validate(openai.ChatCompletionRequest{Model: tt.model, MaxTokens: 1}) != nil
			if refused && tt.want != "max_completion_tokens" {
				t.Errorf("go-openai refuses max_tokens for %s, want max_completion_tokens", tt.model)
			}
			body, err := wireBody(req, true)
			if err != nil {
				t.Fatal(err)
			}
			traced, err := req.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			for what, b := range map[string][]byte{"body": body, "trace": traced} {
				var got map[string]any
				mustUnmarshal(t, b, &got)
				_, tokens := got["max_tokens"]
				_, completion := got["max_completion_tokens"]
				if got[tt.want] != 300.0 || tokens == completion {
					t.Errorf("%s %s: want the limit in %s only", what, b, tt.want)
				}
			}
		})
	}
}

func TestUsageOf(t *testing.T) {
	tests := []struct {
		name string
		in   openai.Usage
		want *chat.Usage
	}{
		{"plain", openai.Usage{PromptTokens: 120, CompletionTokens: 9, TotalTokens: 129},
			&chat.Usage{PromptTokens: 120, CompletionTokens: 9, TotalTokens: 129}},
		{"details", openai.Usage{PromptTokens: 100, CompletionTokens: 50, TotalTokens: 150,
			PromptTokensDetails:     &openai.PromptTokensDetails{CachedTokens: 64},
			CompletionTokensDetails: &openai.CompletionTokensDetails{ReasoningTokens: 32}},
			&chat.Usage{PromptTokens: 100, CompletionTokens: 50, TotalTokens: 150, CachedTokens: 64, ReasoningTokens: 32}},
		{"negative count", openai.Usage{PromptTokens: -5, CompletionTokens: 9, TotalTokens: 4}, nil},
		{"absurd count", openai.Usage{PromptTokens: 1 << 62, CompletionTokens: 9, TotalTokens: 9}, nil},
		{"absurd detail", openai.Usage{PromptTokens: 1, TotalTokens: 1,
			CompletionTokensDetails: &openai.CompletionTokensDetails{ReasoningTokens: -1}}, nil},
	}
	for _, tt := range tests {
		if got := usageOf(&tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: usageOf = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestSplitRequestSendsTheSame checks that a request whose messages are cut into Head,
// Shared and Messages (as the engine builds them, sharing a chat's history) sends what
// the same request built whole sends, byte for byte.
func TestSplitRequestSendsTheSame(t *testing.T) {
	for name, whole := range convertCases() {
		msgs := whole.Messages
		for h := 0; h <= len(msgs); h++ {
			for s := h; s <= len(msgs); s++ {
				req := whole
				req.Head, req.Shared, req.Messages = msgs[:h:h], msgs[h:s:s], msgs[s:]
				for _, usage := range []bool{true, false} {
					got, err := wireBody(req, usage)
					want, err2 := wireBody(whole, usage)
					if err != nil || err2 != nil || !bytes.Equal(got, want) {
						t.Errorf("%s cut at %d, %d (usage=%v):\ngot  %s (%v)\nwant %s (%v)", name, h, s, usage, got, err, want, err2)
					}
				}
				if got, want := toOpenAI(req), toOpenAI(whole); !reflect.DeepEqual(got, want) {
					t.Errorf("%s cut at %d, %d: go-openai's request\ngot  %+v\nwant %+v", name, h, s, got, want)
				}
			}
		}
	}
}

// TestWireBodyIsWhatTheServerReceives checks that WireBody, which sends nothing, renders
// byte for byte the body a server receives from Stream for the same request: the limit
// as max_completion_tokens for OpenAI's reasoning models, an empty tool list left out, a 0
// temperature kept, the stream fields added. The API key is in the Authorization header,
// never in the body. A server that refuses stream_options receives the same body without
// that field.
func TestWireBodyIsWhatTheServerReceives(t *testing.T) {
	cases := convertCases()
	cases["empty tool list"] = chat.Request{Model: "gpt-4o-mini", Messages: []chat.WireMessage{{Role: chat.RoleUser, Content: "x"}},
		Tools: []chat.WireTool{}}
	cases["reasoning model with tools"] = chat.Request{Model: "gpt-5-mini", MaxTokens: 500,
		Messages: cases["parts and tools"].Messages, Tools: cases["parts and tools"].Tools}
	for name, req := range cases {
		for _, refuses := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/refuses stream_options=%v", name, refuses), func(t *testing.T) {
				var mu sync.Mutex
				var bodies [][]byte
				var auth []string
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, _ := io.ReadAll(r.Body)
					mu.Lock()
					bodies, auth = append(bodies, b), append(auth, r.Header.Get("Authorization"))
					mu.Unlock()
					if refuses && bytes.Contains(b, []byte("stream_options")) {
						http.Error(w, `{"error":{"message":"Unrecognized request argument supplied: stream_options"}}`, http.StatusBadRequest)
						return
					}
					sse(w)
					send(w, roleChunk, textChunk("hi"), finishChunk("stop"), usageChunk(3, 1), done)
				}))
				defer srv.Close()
				c, _ := newTestClient(srv.URL, nil)
				if _, err := c.Stream(context.Background(), req, nil); err != nil {
					t.Fatalf("stream: %v", err)
				}
				want, err := WireBody(&req)
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if n := map[bool]int{false: 1, true: 2}[refuses]; len(bodies) != n {
					t.Fatalf("the server received %d requests, want %d", len(bodies), n)
				}
				if !bytes.Equal(bodies[0], want) {
					t.Errorf("the server received\n%s\nWireBody renders\n%s", bodies[0], want)
				}
				if refuses {
					without := bytes.Replace(want, []byte(`,"stream_options":{"include_usage":true}`), nil, 1)
					if !bytes.Equal(bodies[1], without) {
						t.Errorf("asked again without stream_options, the server received\n%s\nwant\n%s", bodies[1], without)
					}
				}
				var fields map[string]json.RawMessage
				mustUnmarshal(t, want, &fields)
				if string(fields["stream"]) != "true" || string(fields["stream_options"]) != `{"include_usage":true}` {
					t.Errorf("WireBody %s: want stream and stream_options", want)
				}
				if _, ok := fields["tools"]; ok != (len(req.Tools) > 0) {
					t.Errorf("WireBody %s: tools present %v, want %v", want, ok, len(req.Tools) > 0)
				}
				if _, ok := fields["max_completion_tokens"]; ok != (req.MaxTokens > 0 && chat.UsesMaxCompletionTokens(req.Model)) {
					t.Errorf("WireBody %s: max_completion_tokens present %v", want, ok)
				}
				for i, b := range bodies {
					if bytes.Contains(b, []byte(testKey)) {
						t.Errorf("request %d: the API key is in the body %s", i+1, b)
					}
					if auth[i] != "Bearer "+testKey {
						t.Errorf("request %d: Authorization %q, want the key as a bearer token", i+1, auth[i])
					}
				}
			})
		}
	}
}
