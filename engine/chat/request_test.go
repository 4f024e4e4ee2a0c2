package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
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

// TestAppendJSONSince checks the form `--request new` writes a request in: each run of
// messages the request before sent too is one {"previous": [FROM, TO]} element, and
// putting those messages back gives the request as AppendJSON writes it, byte for byte.
func TestAppendJSONSince(t *testing.T) {
	msg := func(role Role, s string) WireMessage { return WireMessage{Role: role, Content: s} }
	sys, sys2 := msg(RoleSystem, "<role>Be brief.</role>"), msg(RoleSystem, "<role>Be brief.</role> It is Monday.")
	inject := msg(RoleSystem, "<system-reminder>Sys.</system-reminder>")
	u1, u2, u3, edited := msg(RoleUser, "one"), msg(RoleUser, "two"), msg(RoleUser, "three"), msg(RoleUser, "one, edited")
	a1 := WireMessage{Role: RoleAssistant, ToolCalls: []WireToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "run_sql", Arguments: `{}`}}}}
	tool, a1text, a2 := WireMessage{Role: RoleTool, ToolCallID: "c1", Content: "[]"}, msg(RoleAssistant, "ok"), msg(RoleAssistant, "done")
	parts := WireMessage{Role: RoleUser, Parts: []ContentPart{{Type: "text", Text: "two"}}}
	// The history as a session caches it: one array, only appended to, shared by requests.
	hist := make([]WireMessage, 0, 16)
	for _, m := range []WireMessage{u1, a1, tool, a1text, u2, a2} {
		hist = append(hist, m.Encoded())
	}
	moved := append([]WireMessage(nil), hist...) // the same history after the array grew
	temp := 0.5
	tools := []WireTool{{Type: "function", Function: FunctionDecl{Name: "run_sql"}}}
	req := func(head []WireMessage, shared []WireMessage, msgs ...WireMessage) *Request {
		return &Request{Model: "m", Head: head, Shared: shared, Messages: msgs, Tools: tools, Temperature: &temp}
	}
	turn2 := req([]WireMessage{sys}, hist[:4:4], u2)
	tests := []struct {
		name      string
		prev, cur *Request
		want      string // the messages written: roles, and FROM-TO for a run of prev's
	}{
		{"first line", nil, turn2, "system user assistant tool assistant user"},
		{"next turn, history shared", turn2, req([]WireMessage{sys}, hist[:6:6], u3), "0-6 assistant user"},
		{"next turn, history moved", turn2, req([]WireMessage{sys}, moved[:6:6], u3), "0-6 assistant user"},
		{"system prompt changed", turn2, req([]WireMessage{sys2}, hist[:6:6], u3), "system 1-6 assistant user"},
		{"injected system message before", req([]WireMessage{sys}, hist[:4:4], inject, u2), req([]WireMessage{sys}, hist[:6:6], u3),
			"0-5 6-7 assistant user"},
		{"injected system message now", turn2, req([]WireMessage{sys}, hist[:6:6], inject, u3), "0-6 assistant system user"},
		{"regenerated: the same request", turn2, turn2, "0-6"},
		{"edit of turn 1: a new branch", turn2, req([]WireMessage{sys}, nil, edited), "0-1 user"},
		{"whole requests, decoded", &Request{Model: "m", Messages: []WireMessage{sys, u1, a1text}},
			&Request{Model: "m", Messages: []WireMessage{sys, u1, a1text, u2}}, "0-3 user"},
		{"parts are not content", req([]WireMessage{sys}, hist[:4:4], parts), req([]WireMessage{sys}, hist[:4:4], u2), "0-5 user"},
		{"no messages", turn2, &Request{Model: "m"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.cur.AppendJSONSince([]byte("x"), tt.prev)
			if err != nil || b[0] != 'x' {
				t.Fatalf("AppendJSONSince: %s, %v", b, err)
			}
			var got struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(b[1:], &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, b[1:])
			}
			var prevMsgs []json.RawMessage
			if tt.prev != nil {
				prevMsgs = rawMessages(t, tt.prev)
			}
			var shape []string
			var rebuilt []json.RawMessage
			for _, m := range got.Messages {
				var e struct {
					Previous []int `json:"previous"`
					Role     Role  `json:"role"`
				}
				if err := json.Unmarshal(m, &e); err != nil {
					t.Fatal(err)
				}
				if e.Previous == nil {
					shape, rebuilt = append(shape, string(e.Role)), append(rebuilt, m)
					continue
				}
				if string(m) != fmt.Sprintf(`{"previous":[%d,%d]}`, e.Previous[0], e.Previous[1]) || e.Previous[0] >= e.Previous[1] {
					t.Errorf("reference %s: want {\"previous\":[FROM,TO]}, FROM < TO", m)
				}
				shape = append(shape, fmt.Sprintf("%d-%d", e.Previous[0], e.Previous[1]))
				rebuilt = append(rebuilt, prevMsgs[e.Previous[0]:e.Previous[1]]...)
			}
			if s := strings.Join(shape, " "); s != tt.want {
				t.Errorf("messages written: %q, want %q", s, tt.want)
			}
			whole, err := tt.cur.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			// The rebuilt request is the whole one, byte for byte, messages and the rest.
			var asWritten []byte
			asWritten = append(asWritten, `{"model":"m","messages":[`...)
			for i, m := range rebuilt {
				if i > 0 {
					asWritten = append(asWritten, ',')
				}
				asWritten = append(asWritten, m...)
			}
			rest := b[1+bytes.Index(b[1:], []byte(`],"tools":`)):]
			asWritten = append(asWritten, rest...)
			if !bytes.Equal(asWritten, whole) {
				t.Errorf("rebuilt:\n%s\nwant:\n%s", asWritten, whole)
			}
		})
	}
}

// rawMessages returns the messages of r as AppendJSON writes them.
func rawMessages(t *testing.T, r *Request) []json.RawMessage {
	t.Helper()
	b, err := r.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return w.Messages
}
