package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func requestJSON(tb testing.TB, r chat.Request) string {
	tb.Helper()
	b, err := chat.Marshal(r)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestRequestShape(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		src  string
		opts []harnessOpt
		want string
	}{
		{name: "no tools, no model: tools is [] and the model scripted", src: `explain_reminders: false`,
			want: `{"model":"scripted","messages":[{"role":"user","content":"hi"}],"tools":[]}`},
		{name: "model block", src: `
model: {name: gpt-4o-mini, temperature: 0.2, top_p: 0.9, max_tokens: 1024, seed: 7}
system: [{role: R.}]`,
			want: `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"<role>R.</role>"},{"role":"user","content":"hi"}],"tools":[],"temperature":0.2,"top_p":0.9,"max_tokens":1024,"seed":7}`},
		{name: "temperature 0 is sent", src: `model: {temperature: 0}`,
			want: `{"model":"scripted","messages":[{"role":"user","content":"hi"}],"tools":[],"temperature":0}`},
		{name: "options override the model block", src: `model: {name: a, temperature: 0.2, max_tokens: 10}`,
			opts: []harnessOpt{func(o *Options) { o.Model = "b"; o.Params.Temperature = f64(1.5) }},
			want: `{"model":"b","messages":[{"role":"user","content":"hi"}],"tools":[],"temperature":1.5,"max_tokens":10}`},
		{name: "tools", src: `
tools:
  - name: run_sql
    description: Run a read-only SQL query
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    result: '[{"count": 42}]'
  - {name: ping, error: down}`,
			want: `{"model":"scripted","messages":[{"role":"user","content":"hi"}],"tools":[` +
				`{"type":"function","function":{"name":"run_sql","description":"Run a read-only SQL query","parameters":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}},` +
				`{"type":"function","function":{"name":"ping"}}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.src, tc.opts...)
			res := h.send("hi", at(1))
			if got := requestJSON(t, res.Plan.Request); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			// The turn record keeps what is needed to rebuild it.
			sr := res.Turn.Request
			if sr.Model != res.Plan.Request.Model || sr.SystemPrompt != res.Plan.SystemPrompt || len(sr.Tools) != len(res.Plan.Request.Tools) || sr.MaxTokens != res.Plan.Request.MaxTokens {
				t.Errorf("got recorded request %+v", sr)
			}
		})
	}
}

// TestRequestHistoryWithTools checks that a reply with tool calls is sent back as it
// happened: the assistant's tool_calls, one tool message per call, then its text.
func TestRequestHistoryWithTools(t *testing.T) {
	h := newHarness(t, `
explain_reminders: false
tools:
  - {name: run_sql, parameters: {type: object}, result: "[]"}
reminders:
  - {id: s, text: After tools., placement: system, when: "afterTurn(1)"}
`)
	h.sendIn(UserInput{Text: "run the report", At: at(1)}, &Scripted{Text: "Running it now.", Tools: []ScriptedTool{
		{Name: "run_sql", Input: json.RawMessage(`{"query":"select 1"}`), Error: "permission denied", Failed: true},
		{Name: "run_sql", Input: json.RawMessage(`{"query":"select 2"}`), Output: `[{"n": 2}]`},
		{Name: "run_sql"},
	}})
	res := h.send("thanks", at(2))
	var lines []string
	for _, m := range res.Plan.Request.Collect() {
		lines = append(lines, wireJSON(t, m))
	}
	want := []string{
		`{"role":"user","content":"run the report"}`,
		`{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"call_id-0002","type":"function","function":{"name":"run_sql","arguments":"{\"query\":\"select 1\"}"}},` +
			`{"id":"call_id-0003","type":"function","function":{"name":"run_sql","arguments":"{\"query\":\"select 2\"}"}},` +
			`{"id":"call_id-0004","type":"function","function":{"name":"run_sql","arguments":"{}"}}]}`,
		`{"role":"tool","content":"permission denied","tool_call_id":"call_id-0002"}`,
		`{"role":"tool","content":"[{\"n\": 2}]","tool_call_id":"call_id-0003"}`,
		`{"role":"tool","content":"","tool_call_id":"call_id-0004"}`,
		`{"role":"assistant","content":"Running it now."}`,
		`{"role":"system","content":"<system-reminder>After tools.</system-reminder>"}`,
		`{"role":"user","content":"thanks"}`,
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// TestPreviewChangesNothing checks that a preview neither saves nor counts anything.
func TestPreviewChangesNothing(t *testing.T) {
	h := newHarness(t, `reminders: [{id: r, text: R., max_per_chat: 1, when: "once('x')"}]`)
	for range 3 {
		if p := h.preview("hello"); len(firedIDs(p.Decisions)) != 1 {
			t.Fatalf("got fired %v, want r every preview", firedIDs(p.Decisions))
		}
	}
	if h.s.TurnCount() != 0 || len(h.s.Messages()) != 0 || h.s.Head() != "" {
		t.Errorf("got %d turns, %d messages, head %q after previews, want none", h.s.TurnCount(), len(h.s.Messages()), h.s.Head())
	}
	h.reopen()
	if got := firedIDs(h.send("hello", at(1)).Plan.Decisions); len(got) != 1 {
		t.Errorf("got fired %v on the first real turn, want r", got)
	}
}
