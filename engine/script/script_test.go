package script

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/diag"
)

func mustParse(t *testing.T, src string) *Script {
	t.Helper()
	s, err := Parse(filepath.Join("dir", "s.yaml"), []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func TestParseSteps(t *testing.T) {
	s := mustParse(t, `
context: ./support.ctx.yaml
chat: {id: demo-1, title: Support demo, metadata: {tier: pro, seats: 3}}
turns:
  - user: hello
    at: 2026-03-27T14:30:00Z
    locale: {language: Japanese, timeZone: Asia/Tokyo}
    assistant: Hi!
    usage: {prompt_tokens: 120, completion_tokens: 9}
  - user: run it
    assistant:
      text: Running.
      tools:
        - {name: run_sql, input: {query: select 1}, error: permission denied}
        - {name: run_sql, input: {query: select 2}, output: '[{"n": 2}]'}
        - {name: other, output: {rows: [1]}}
  - user: no reply
  - edit: {turn: 1, user: hello again, at: 2026-03-28T09:00:00+02:00, locale: {language: French}}
    assistant: Hello again!
    usage: {prompt_tokens: 5, completion_tokens: 2, total_tokens: 10, cached_tokens: 1, reasoning_tokens: 1}
  - edit: {turn: 2, user: beside}
    at: 2026-03-28T10:00:00Z
  - regenerate: {assistant: A different answer, at: 2026-03-29T00:00:00Z}
  - regenerate: {}
  - regenerate:
    assistant: beside
  - checkpoint: before-choice
  - restore: before-choice
  - switch: main
  - rewind: {turn: 2}
`)
	if s.Context != filepath.Join("dir", "support.ctx.yaml") {
		t.Errorf("got context %q, want it resolved against the script's folder", s.Context)
	}
	if s.Chat.ID != "demo-1" || s.Chat.Title != "Support demo" || s.Chat.Metadata["tier"] != "pro" || s.Chat.Metadata["seats"] != 3.0 {
		t.Errorf("got chat %+v", s.Chat)
	}
	kinds := make([]string, len(s.Steps))
	for i, st := range s.Steps {
		kinds[i] = st.Kind
	}
	if got, want := strings.Join(kinds, ","), "user,user,user,edit,edit,regenerate,regenerate,regenerate,checkpoint,restore,switch,rewind"; got != want {
		t.Fatalf("got kinds %s, want %s", got, want)
	}
	st := s.Steps[0]
	if st.User != "hello" || !st.At.Equal(time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)) ||
		st.Locale == nil || *st.Locale != (chat.Locale{Language: "Japanese", TimeZone: "Asia/Tokyo"}) ||
		st.Reply == nil || st.Reply.Text != "Hi!" || st.Reply.Usage == nil ||
		*st.Reply.Usage != (chat.Usage{PromptTokens: 120, CompletionTokens: 9, TotalTokens: 129}) {
		t.Errorf("step 1: got %+v (reply %+v)", st, st.Reply)
	}
	if st.Line != 5 || st.Col != 5 {
		t.Errorf("step 1: got position %d:%d, want 5:5", st.Line, st.Col)
	}
	r := s.Steps[1].Reply
	if r == nil || r.Text != "Running." || len(r.Tools) != 3 || r.Usage != nil {
		t.Fatalf("step 2: got reply %+v", r)
	}
	if tl := r.Tools[0]; tl.Name != "run_sql" || string(tl.Input) != `{"query":"select 1"}` || !tl.Failed || tl.Error != "permission denied" || tl.Output != "" {
		t.Errorf("tool 1: got %+v", tl)
	}
	if tl := r.Tools[1]; tl.Failed || tl.Output != `[{"n": 2}]` {
		t.Errorf("tool 2: got %+v", tl)
	}
	if tl := r.Tools[2]; string(tl.Input) != "{}" || tl.Output != `{"rows":[1]}` {
		t.Errorf("tool 3: got %+v", tl)
	}
	if r.ToolsAt[0] != (Position{14, 11}) || r.ToolsAt[2] != (Position{16, 11}) {
		t.Errorf("got tool positions %v, want 14:11 … 16:11", r.ToolsAt)
	}
	if st := s.Steps[2]; st.Reply != nil || !st.At.IsZero() || st.Locale != nil {
		t.Errorf("step 3: got %+v, want no reply, clock or locale", st)
	}
	st = s.Steps[3]
	if st.Turn != 1 || st.User != "hello again" || st.At.Format(time.RFC3339) != "2026-03-28T09:00:00+02:00" ||
		st.Locale == nil || st.Locale.Language != "French" || st.Reply == nil || st.Reply.Text != "Hello again!" ||
		*st.Reply.Usage != (chat.Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 10, CachedTokens: 1, ReasoningTokens: 1}) {
		t.Errorf("edit 1: got %+v (reply %+v)", st, st.Reply)
	}
	if st := s.Steps[4]; st.Turn != 2 || st.User != "beside" || !st.At.Equal(time.Date(2026, 3, 28, 10, 0, 0, 0, time.UTC)) || st.Reply != nil {
		t.Errorf("edit 2: got %+v", st)
	}
	if st := s.Steps[5]; st.Reply == nil || st.Reply.Text != "A different answer" || st.At.IsZero() {
		t.Errorf("regenerate 1: got %+v", st)
	}
	if st := s.Steps[6]; st.Reply != nil {
		t.Errorf("regenerate {}: got reply %+v, want none (ask the model)", st.Reply)
	}
	if st := s.Steps[7]; st.Reply == nil || st.Reply.Text != "beside" {
		t.Errorf("regenerate with assistant beside: got %+v", st.Reply)
	}
	if s.Steps[8].Name != "before-choice" || s.Steps[9].Name != "before-choice" || s.Steps[10].Name != "main" || s.Steps[11].Turn != 2 {
		t.Errorf("got %+v", s.Steps[8:])
	}
}

func TestParseMerges(t *testing.T) {
	s := mustParse(t, `
turns:
  - edit: {turn: 1, user: x, assistant: y}
    usage: {prompt_tokens: 3}
  - regenerate: {usage: {completion_tokens: 4}}
    assistant: z
`)
	if r := s.Steps[0].Reply; r == nil || r.Text != "y" || r.Usage == nil || r.Usage.PromptTokens != 3 {
		t.Errorf("edit: got %+v, want the reply inside with the usage beside", r)
	}
	if r := s.Steps[1].Reply; r == nil || r.Text != "z" || r.Usage == nil || r.Usage.CompletionTokens != 4 {
		t.Errorf("regenerate: got %+v, want the reply beside with the usage inside", r)
	}
}

func TestParseTimes(t *testing.T) {
	for src, want := range map[string]string{
		"2026-03-27T14:30:00Z":        "2026-03-27T14:30:00Z",
		"2026-03-27T14:30:00.5+01:00": "2026-03-27T14:30:00.5+01:00",
		"'2026-03-27 14:30:00Z'":      "2026-03-27T14:30:00Z",
		"2026-03-27T14:30:00":         "2026-03-27T14:30:00Z",
	} {
		s := mustParse(t, "turns:\n  - user: hi\n    at: "+src+"\n")
		if got := s.Steps[0].At.Format(time.RFC3339Nano); got != want {
			t.Errorf("at: %s: got %s, want %s", src, got, want)
		}
	}
}

// TestSpecExample parses the example of spec/headless.md and checks it against the context
// file it names (a copy of the example of spec/context-file.md, with its run_sql tool).
func TestSpecExample(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "spec", "example.script.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Steps); got != 8 {
		t.Errorf("got %d steps, want 8", got)
	}
	file, err := ctxfile.Load(s.Context)
	if err != nil {
		t.Fatal(err)
	}
	// The regenerate step has a reply; every turn has one: no model needed.
	if err := Check(s, file, false); err != nil {
		t.Errorf("Check: %v", err)
	}
	if st := s.Steps[2]; st.Kind != StepEdit || st.Turn != 1 || st.User != "hello again" || st.Reply.Text != "Hello again!" {
		t.Errorf("edit: got %+v", st)
	}
}

func TestLoadMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := Load(path)
	if err == nil || err.Error() != path+": cannot read script: no such file or directory" || !diag.IsInvalidInput(err) {
		t.Errorf("got %v, want %s: cannot read script: no such file or directory", err, path)
	}
}

func checkFile(t *testing.T) *ctxfile.File {
	t.Helper()
	f, err := ctxfile.Parse("c.ctx.yaml", []byte("tools:\n  - {name: run_sql, result: ok}\n  - {name: fetch, error: no}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name       string
		script     string
		configured bool
		want       string
	}{
		{
			name:   "declared tools",
			script: "turns:\n  - user: hi\n    assistant:\n      tools: [{name: run_sql, output: x}, {name: fetch, error: y}]\n",
		},
		{
			name:   "undeclared tool with a suggestion",
			script: "turns:\n  - user: hi\n    assistant:\n      tools:\n        - {name: run_sq, output: x}\n",
			want:   `s.yaml:5:11: tool "run_sq" is not declared in c.ctx.yaml; did you mean run_sql?`,
		},
		{
			name:   "undeclared tool without a suggestion",
			script: "turns:\n  - edit: {turn: 1, user: x, assistant: {tools: [{name: zzzzzzzz, output: x}]}}\n",
			want:   `s.yaml:2:50: tool "zzzzzzzz" is not declared in c.ctx.yaml`,
		},
		{
			name:   "turn without assistant and no model",
			script: "turns:\n  - user: hi\n    assistant: hello\n  - user: and then?\n",
			want:   "s.yaml:4:5: user step has no scripted assistant reply and no model is configured (set --base-url or OPENAI_API_KEY, or add assistant:)",
		},
		{
			name:       "turn without assistant and a model",
			script:     "turns:\n  - user: hi\n  - regenerate: {}\n  - edit: {turn: 1, user: x}\n",
			configured: true,
		},
		{
			name:   "edit and regenerate without a reply",
			script: "turns:\n  - user: hi\n    assistant: a\n  - regenerate:\n  - edit: {turn: 1, user: x}\n  - checkpoint: c\n",
			want: "s.yaml:4:5: regenerate step has no scripted assistant reply and no model is configured (set --base-url or OPENAI_API_KEY, or add assistant:)\n" +
				"s.yaml:5:5: edit step has no scripted assistant reply and no model is configured (set --base-url or OPENAI_API_KEY, or add assistant:)",
		},
		{
			name:   "branch steps need no model",
			script: "turns:\n  - checkpoint: a\n  - restore: a\n  - switch: main\n  - rewind: {turn: 1}\n",
		},
	}
	file := checkFile(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(tt.script))
			if err != nil {
				t.Fatal(err)
			}
			err = Check(s, file, tt.configured)
			got := ""
			if err != nil {
				got = err.Error()
				if !diag.IsInvalidInput(err) {
					t.Errorf("got %T, want an invalid input error", err)
				}
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckNilFile(t *testing.T) {
	s := mustParse(t, "turns:\n  - user: hi\n    assistant: {tools: [{name: run_sql, output: x}]}\n")
	err := Check(s, nil, true)
	if err == nil || err.Error() != `dir/s.yaml:3:25: tool "run_sql" is not declared in the context file` {
		t.Errorf("got %v", err)
	}
}

func TestMetadataJSON(t *testing.T) {
	s := mustParse(t, "chat: {metadata: {b: 1, a: [x, {c: true}]}}\nturns:\n  - user: hi\n")
	got, _ := json.Marshal(s.Chat.Metadata)
	if string(got) != `{"a":["x",{"c":true}],"b":1}` {
		t.Errorf("got %s", got)
	}
}

// TestContextHint checks the guess RunScript loads the context file by while the script
// parses: the path Parse finds when the line is simple, "" when it is not.
func TestContextHint(t *testing.T) {
	tests := []struct {
		data, want string
	}{
		{"context: ./ctx.yaml\nturns: []\n", "dir/ctx.yaml"},
		{"# c\ncontext: \"other.yaml\"\r\n", "dir/other.yaml"},
		{"context: 'q.yaml'\n", "dir/q.yaml"},
		{"context: /abs/c.yaml\n", "/abs/c.yaml"},
		{"turns:\n  - user: hi\ncontext: late.yaml", "dir/late.yaml"},
		{"  context: nested.yaml\n", ""},
		{"context: x.yaml # a comment\n", ""},
		{"context: \"a\\\"b\"\n", ""},
		{"context:\n  - x\n", ""},
		{"context: [x]\n", ""},
		{"turns: []\n", ""},
	}
	for _, tt := range tests {
		if got := ContextHint("dir/s.yaml", []byte(tt.data)); got != tt.want {
			t.Errorf("ContextHint(%q) = %q, want %q", tt.data, got, tt.want)
		}
		if tt.want == "" {
			continue
		}
		// Where the guess is made, Parse agrees.
		if s, err := Parse("dir/s.yaml", []byte(tt.data+"\nturns:\n  - user: hi\n    assistant: ok\n")); err == nil && s.Context != tt.want {
			t.Errorf("%q: Parse finds %q, the hint %q", tt.data, s.Context, tt.want)
		}
	}
}
