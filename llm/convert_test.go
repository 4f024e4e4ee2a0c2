package llm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

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
		"zero temperature": {Model: "m", Messages: []chat.WireMessage{{Role: chat.RoleUser, Content: "x"}}, Temperature: &zero},
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

// TestWireRequestCoversRequest fails when chat.Request gains a field wireRequest lacks.
func TestWireRequestCoversRequest(t *testing.T) {
	tags := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			out = append(out, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
		}
		return out
	}
	got := tags(wireRequest{})
	want := append(tags(chat.Request{}), "stream", "stream_options")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got wireRequest fields %v, want %v", got, want)
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
