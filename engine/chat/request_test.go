package chat

import (
	"encoding/json"
	"reflect"
	"testing"
)

// splits returns the ways of cutting msgs into a request's Head, Shared and Messages,
// with Shared encoded as the engine caches a chat's history.
func splits(msgs []WireMessage) [][3][]WireMessage {
	var out [][3][]WireMessage
	for h := 0; h <= len(msgs); h++ {
		for s := h; s <= len(msgs); s++ {
			shared := make([]WireMessage, s-h)
			for i := range shared {
				shared[i] = msgs[h+i].Encoded()
			}
			out = append(out, [3][]WireMessage{msgs[:h:h], shared, msgs[s:]})
		}
	}
	return out
}

func TestRequestParts(t *testing.T) {
	temp, seed := 0.0, 7
	sys := WireMessage{Role: RoleSystem, Content: "<role>Be brief.</role>"}
	user := WireMessage{Role: RoleUser, Content: "hi & bye"}
	asst := WireMessage{Role: RoleAssistant, ToolCalls: []WireToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "run_sql", Arguments: `{"q":"<1>"}`}}}}
	tool := WireMessage{Role: RoleTool, ToolCallID: "c1", Content: "2"}
	inject := WireMessage{Role: RoleSystem, Content: "<system-reminder>Sys.</system-reminder>"}
	parts := WireMessage{Role: RoleUser, Parts: []ContentPart{{Type: "text", Text: "again"}, {Type: "text", Text: "<system-reminder>P.</system-reminder>"}}}
	tools := []WireTool{{Type: "function", Function: FunctionDecl{Name: "run_sql", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	tests := []struct {
		name string
		req  Request // whole: every message in Messages
		want string  // its JSON, as written before requests had shared parts
	}{
		{"no messages", Request{Model: "m"}, `{"model":"m","messages":[],"tools":[]}`},
		{"system and user", Request{Model: "m", Messages: []WireMessage{sys, user}},
			`{"model":"m","messages":[{"role":"system","content":"<role>Be brief.</role>"},{"role":"user","content":"hi & bye"}],"tools":[]}`},
		{"history, inject and parts", Request{Model: "m", Messages: []WireMessage{sys, user, asst, tool, inject, parts}},
			`{"model":"m","messages":[{"role":"system","content":"<role>Be brief.</role>"},{"role":"user","content":"hi & bye"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{\"q\":\"<1>\"}"}}]},` +
				`{"role":"tool","content":"2","tool_call_id":"c1"},{"role":"system","content":"<system-reminder>Sys.</system-reminder>"},` +
				`{"role":"user","content":[{"type":"text","text":"again"},{"type":"text","text":"<system-reminder>P.</system-reminder>"}]}],"tools":[]}`},
		{"tools and parameters", Request{Model: "o3-mini", Messages: []WireMessage{user, asst, tool, user}, Tools: tools,
			Temperature: &temp, MaxTokens: 100, Seed: &seed, Stop: []string{"<end>"}},
			`{"model":"o3-mini","messages":[{"role":"user","content":"hi & bye"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{\"q\":\"<1>\"}"}}]},` +
				`{"role":"tool","content":"2","tool_call_id":"c1"},{"role":"user","content":"hi & bye"}],` +
				`"tools":[{"type":"function","function":{"name":"run_sql","parameters":{"type":"object"}}}],"temperature":0,"max_completion_tokens":100,"seed":7,"stop":["<end>"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole := tt.req
			if b, err := whole.MarshalJSON(); err != nil || string(b) != tt.want {
				t.Fatalf("whole request: got %s (%v), want %s", b, err, tt.want)
			}
			escaped, err := json.Marshal(&whole) // what encoding/json makes of it: <, > and & escaped
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range splits(whole.Messages) {
				r := whole
				r.Head, r.Shared, r.Messages = sp[0], sp[1], sp[2]
				cut := [3]int{len(sp[0]), len(sp[1]), len(sp[2])}
				if b, err := r.AppendJSON([]byte("x")); err != nil || string(b) != "x"+tt.want {
					t.Errorf("split %v: AppendJSON got %s (%v), want x%s", cut, b, err, tt.want)
				}
				if b, err := Marshal(r); err != nil || string(b) != tt.want {
					t.Errorf("split %v: Marshal got %s (%v), want %s", cut, b, err, tt.want)
				}
				if b, err := json.Marshal(&r); err != nil || string(b) != string(escaped) {
					t.Errorf("split %v: json.Marshal got %s (%v), want %s", cut, b, err, escaped)
				}
				if r.Len() != len(whole.Messages) {
					t.Errorf("split %v: Len %d, want %d", cut, r.Len(), len(whole.Messages))
				}
				all := r.Collect()
				if !sameMessages(all, whole.Messages) {
					t.Errorf("split %v: Collect got %+v, want %+v", cut, all, whole.Messages)
				}
				var seen []WireMessage
				for i, m := range r.All() {
					if i != len(seen) {
						t.Errorf("split %v: All yielded position %d after %d messages", cut, i, len(seen))
					}
					if at := r.At(i); !sameMessages([]WireMessage{at}, []WireMessage{m}) {
						t.Errorf("split %v: At(%d) = %+v, All yielded %+v", cut, i, at, m)
					}
					seen = append(seen, m)
				}
				if !sameMessages(seen, whole.Messages) {
					t.Errorf("split %v: All yielded %+v, want %+v", cut, seen, whole.Messages)
				}
				var back Request
				if err := json.Unmarshal([]byte(tt.want), &back); err != nil || back.Len() != r.Len() || len(back.Messages) != r.Len() {
					t.Errorf("split %v: decoded %d messages (%v), want all %d in Messages", cut, back.Len(), err, r.Len())
				}
			}
		})
	}
}

// sameMessages compares messages as sent, whether or not their JSON is cached.
func sameMessages(a, b []WireMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.raw, y.raw = nil, nil
		if !reflect.DeepEqual(x, y) || string(a[i].AppendJSON(nil)) != string(b[i].AppendJSON(nil)) {
			return false
		}
	}
	return true
}

// TestRequestAllStops checks that All stops when the loop does, in any part.
func TestRequestAllStops(t *testing.T) {
	m := func(s string) WireMessage { return WireMessage{Role: RoleUser, Content: s} }
	r := Request{Head: []WireMessage{m("a")}, Shared: []WireMessage{m("b"), m("c")}, Messages: []WireMessage{m("d")}}
	for stop := range r.Len() {
		var got []string
		for i, w := range r.All() {
			got = append(got, w.Content)
			if i == stop {
				break
			}
		}
		if want := []string{"a", "b", "c", "d"}[:stop+1]; !reflect.DeepEqual(got, want) {
			t.Errorf("break at %d: got %v, want %v", stop, got, want)
		}
	}
}
