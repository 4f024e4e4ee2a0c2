package main

// Tests that no escape sequence reaches the terminal through the human-readable output of
// the headless commands (issue 10, item 5): hostile text from a script, a context file, a
// model server and an imported chat is printed inert by run, replay, prompt, models and
// config, and by the error printing of every command, while --json keeps its exact bytes.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/predicates"
)

// Hostile sequences: set the window title, clear the screen.
const (
	setTitle    = "\x1b]0;PWNED\x07"
	clearScreen = "\x1b[2J"
)

// checkInert fails the test if out holds anything that can drive a terminal (ESC, BEL,
// any other C0 control but newline and tab, DEL, a C1 control, invalid UTF-8), or if some
// of visible, the text around the hostile sequences, is missing from out.
func checkInert(t *testing.T, what, out string, visible ...string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8 in %q", what, out)
	}
	for i, r := range out {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			t.Errorf("%s: control character %U at byte %d in:\n%q", what, r, i, out)
			return
		}
	}
	for _, v := range visible {
		if !strings.Contains(out, v) {
			t.Errorf("%s: lacks %q in:\n%s", what, v, out)
		}
	}
}

// yq quotes s for YAML (a JSON string is a YAML double-quoted scalar).
func yq(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// writeTestFile writes s to name in dir and returns its path.
func writeTestFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestInertScriptAndContextFile plays a script with a hostile user message, reply, tool
// output and tool error over a context file with a hostile model name, role fragment and
// run-start reminder (id and text), through run, replay, prompt and config; scripts whose
// chat id or checkpoint name holds a C1 CSI; and a context file whose invalid predicate
// makes the error message quote an ESC.
func TestInertScriptAndContextFile(t *testing.T) {
	isolateCtxlabEnv(t)
	const (
		model      = "gpt-4o" + setTitle + "-mini"
		role       = "You are a " + setTitle + " helpful " + clearScreen + "assistant."
		reminder   = "Start " + setTitle + " of the session."
		reminderID = "start" + setTitle + "-note"
		user       = "deploy " + setTitle + " it"
		reply      = "Reply " + setTitle + " then " + clearScreen + " done."
		output     = "rows " + setTitle + " here"
		failure    = "denied " + clearScreen + " there"
	)
	dir := t.TempDir()
	ctxPath := writeTestFile(t, dir, "hostile.ctx.yaml", fmt.Sprintf(`version: 1
renderer: markdown
model:
  name: %s
system:
  - role: %s
reminders:
  - id: %s
    text: %s
    when: contentIncludes(['deploy'])
    placement: run-start
tools:
  - name: query
    description: Run a read-only query
    parameters: {type: object, properties: {sql: {type: string}}}
    result: '[]'
  - name: deploy
    description: Deploy a service
    parameters: {type: object, properties: {env: {type: string}}}
    error: disabled
`, yq(model), yq(role), yq(reminderID), yq(reminder)))
	script := writeTestFile(t, dir, "hostile.script.yaml", fmt.Sprintf(`context: hostile.ctx.yaml
chat: {id: hostile-1}
turns:
  - user: %s
    at: 2026-04-10T10:00:00Z
    assistant:
      text: %s
      tools:
        - {name: query, input: {sql: select 1}, output: %s}
        - {name: deploy, input: {env: prod}, error: %s}
`, yq(user), yq(reply), yq(output), yq(failure)))
	// Ids and names are printed as they are: one holding a C1 CSI is refused.
	c1ID := writeTestFile(t, dir, "c1-id.script.yaml", "context: hostile.ctx.yaml\nchat: {id: \"c\\u009b2Jx\"}\n"+
		"turns:\n  - user: hi\n    assistant: ok\n")
	c1Checkpoint := writeTestFile(t, dir, "c1-checkpoint.script.yaml", "context: hostile.ctx.yaml\nchat: {id: c1}\n"+
		"turns:\n  - user: hi\n    assistant: ok\n  - checkpoint: \"cp\\u009b2J\"\n")
	// The predicate parser quotes the character it did not expect: here an ESC.
	badContext := writeTestFile(t, dir, "bad.ctx.yaml", fmt.Sprintf(`version: 1
reminders:
  - id: a
    text: hi
    when: %s
`, yq("contentIncludes(["+setTitle+"])")))
	db := filepath.Join(dir, "ctxlab.db")

	t.Run("human", func(t *testing.T) {
		for _, tt := range []struct {
			name    string
			args    []string
			code    int
			visible []string
		}{
			{"run", []string{"run", script, "--db", db}, 0,
				[]string{"user:            deploy it", "[scripted] Reply then done.", "[query ok]", "[deploy failed: denied there]"}},
			{"replay", []string{"replay", "hostile-1", "--db", db}, 0,
				[]string{"user:            deploy it", "Reply then done.", "[deploy failed: denied there]"}},
			{"prompt", []string{"prompt", "--context", ctxPath, "--user", "deploy", "--at", "2026-04-10T10:00:00Z"}, 0,
				[]string{"<system-reminder>Start ", " of the session.</system-reminder>", "You are a ", " helpful assistant.",
					"start-note [run-start", "model gpt-4o-mini · "}},
			{"config", []string{"config", "--context", ctxPath}, 0, []string{"gpt-4o-mini"}},
			{"C1 in a chat id", []string{"run", c1ID, "--db", ":memory:"}, exitInvalid,
				[]string{`chat id "c\u009b2Jx": control character`}},
			{"C1 in a checkpoint name", []string{"run", c1Checkpoint, "--db", ":memory:"}, exitInvalid,
				[]string{`checkpoint name "cp\u009b2J": control character`}},
			{"invalid input", []string{"prompt", "--context", badContext}, exitInvalid,
				[]string{"bad.ctx.yaml:5:", "when: expected list item or ']', found"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := runCtxlab(t, tt.args...)
				if r.code != tt.code {
					t.Fatalf("exit %d, want %d; stderr:\n%q", r.code, tt.code, r.stderr)
				}
				checkInert(t, "stdout", r.stdout)
				checkInert(t, "stderr", r.stderr)
				checkInert(t, "stdout and stderr", r.stdout+r.stderr, tt.visible...)
			})
		}
	})

	t.Run("json", func(t *testing.T) {
		for _, args := range [][]string{
			{"run", script, "--db", ":memory:", "--json"},
			{"replay", "hostile-1", "--db", db, "--json"},
		} {
			traces, _ := liveTraces(t, mustRunCtxlab(t, args...))
			if len(traces) != 1 || traces[0].Assistant == nil {
				t.Fatalf("%s: got %d traces, want 1 with a reply", args[0], len(traces))
			}
			tr := traces[0]
			if tr.Assistant.Text != reply || userText(tr.Request) != user || !strings.Contains(tr.SystemPrompt, role) ||
				!strings.Contains(tr.SystemPrompt, reminder) {
				t.Errorf("%s: got reply %q, user %q, system prompt %q; want the exact bytes %q, %q, %q and %q",
					args[0], tr.Assistant.Text, userText(tr.Request), tr.SystemPrompt, reply, user, role, reminder)
			}
			if len(tr.Assistant.Tools) != 2 || tr.Assistant.Tools[0].Output != output || tr.Assistant.Tools[1].Error != failure {
				t.Errorf("%s: got tools %+v, want the exact output %q and error %q", args[0], tr.Assistant.Tools, output, failure)
			}
		}
		var tr engine.Trace
		if err := json.Unmarshal([]byte(mustRunCtxlab(t, "prompt", "--context", ctxPath, "--user", "deploy", "--json")), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.Request.Model != model || !strings.Contains(tr.SystemPrompt, role) || !strings.Contains(tr.SystemPrompt, reminder) ||
			len(tr.Decisions) != 1 || tr.Decisions[0].ID != reminderID || tr.Decisions[0].Text != reminder {
			t.Errorf("prompt: got model %q, system prompt %q, decisions %+v; want the exact bytes %q, %q, %q and %q",
				tr.Request.Model, tr.SystemPrompt, tr.Decisions, model, role, reminderID, reminder)
		}
	})
}

// TestInertModelServer talks to a server whose model id, streamed reply, tool call name
// and error message are hostile, through models, run and the error printing.
func TestInertModelServer(t *testing.T) {
	isolateCtxlabEnv(t)
	const (
		model    = "local" + setTitle + "-model"
		text     = "Checking " + setTitle + " now."
		final    = "The answer " + clearScreen + " is 42."
		tool     = "run" + setTitle + "_sql"
		errorMsg = "quota " + setTitle + " exceeded " + clearScreen + " today"
	)
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, _ <-chan struct{}) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"object":"list","data":[{"id":%s,"object":"model","owned_by":"local"}]}`, yq(model))
			return
		}
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		if c, _ := last["content"].(string); strings.Contains(c, "fail") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error": {"message": %s, "type": "invalid_request_error"}}`, yq(errorMsg))
			return
		}
		sseStart(w)
		if last["role"] == "tool" {
			sseLine(w, sseText(final, "stop"))
		} else {
			sseLine(w, sseText(text, ""))
			sseLine(w, fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":%s,"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, yq(tool)))
		}
		sseLine(w, "[DONE]")
	})
	dir := t.TempDir()
	writeTestFile(t, dir, "server.ctx.yaml", `version: 1
system:
  - role: You answer questions.
tools:
  - name: run_sql
    description: Run a read-only SQL query
    parameters: {type: object, properties: {query: {type: string}}}
    result: '[{"count": 42}]'
`)
	ask := writeTestFile(t, dir, "ask.script.yaml", "context: server.ctx.yaml\nchat: {id: ask}\nturns:\n  - user: how many?\n")
	fail := writeTestFile(t, dir, "fail.script.yaml", "context: server.ctx.yaml\nchat: {id: fail}\nturns:\n  - user: please fail\n")
	db := filepath.Join(dir, "ctxlab.db")

	t.Run("human", func(t *testing.T) {
		for _, tt := range []struct {
			name    string
			args    []string
			code    int
			visible []string
		}{
			{"models", []string{"models"}, 0, []string{"local-model\n"}},
			{"run", []string{"run", ask, "--db", db}, 0, []string{"[local-model] ", "Checking now.", "The answer is 42.", "[run_sql "}},
			{"replay", []string{"replay", "ask", "--db", db}, 0, []string{"Checking now.", "The answer is 42.", "[run_sql "}},
			{"server error", []string{"run", fail, "--db", ":memory:"}, exitFailure, []string{"quota ", " exceeded ", " today"}},
			{"server error, json", []string{"run", fail, "--db", ":memory:", "--json"}, exitFailure, []string{"quota ", " exceeded ", " today"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := runCtxlab(t, append(tt.args, "--base-url", s.url)...)
				if r.code != tt.code {
					t.Fatalf("exit %d, want %d; stderr:\n%q", r.code, tt.code, r.stderr)
				}
				checkInert(t, "stdout", r.stdout)
				checkInert(t, "stderr", r.stderr)
				checkInert(t, "stdout and stderr", r.stdout+r.stderr, tt.visible...)
			})
		}
	})

	t.Run("json", func(t *testing.T) {
		traces, _ := liveTraces(t, mustRunCtxlab(t, "run", ask, "--db", ":memory:", "--json", "--base-url", s.url))
		if len(traces) != 1 || traces[0].Assistant == nil {
			t.Fatalf("got %d traces, want 1 with a reply", len(traces))
		}
		a := traces[0].Assistant
		if traces[0].Request.Model != model || !strings.Contains(a.Text, text) || !strings.Contains(a.Text, final) ||
			len(a.Tools) != 1 || a.Tools[0].Name != tool {
			t.Errorf("got model %q, reply %q, tools %+v; want the exact bytes %q, %q, %q and the tool %q",
				traces[0].Request.Model, a.Text, a.Tools, model, text, final, tool)
		}
	})
}

// TestInertImportedChat imports an OpenAI messages file whose messages, tool call name,
// arguments and tool result are hostile, then replays it.
func TestInertImportedChat(t *testing.T) {
	isolateCtxlabEnv(t)
	const (
		system = "You are " + setTitle + " terse."
		user   = "Count " + setTitle + " the orders."
		first  = "Let me " + clearScreen + " look."
		tool   = "qu" + setTitle + "ery"
		sql    = "select " + clearScreen + " 1"
		result = "denied " + setTitle + " here"
		reply  = "There are " + setTitle + " 12."
		user2  = "Thanks " + clearScreen + " again."
		reply2 = "Bye " + setTitle + " now."
	)
	args, err := json.Marshal(map[string]string{"sql": sql})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []map[string]any{
		{"role": "system", "content": system},
		{"role": "user", "content": user},
		{"role": "assistant", "content": first, "tool_calls": []map[string]any{
			{"id": "call_1", "type": "function", "function": map[string]any{"name": tool, "arguments": string(args)}}}},
		{"role": "tool", "content": result, "tool_call_id": "call_1"},
		{"role": "assistant", "content": reply},
		{"role": "user", "content": user2},
		{"role": "assistant", "content": reply2},
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := writeTestFile(t, dir, "hostile.openai.json", string(b))
	db := filepath.Join(dir, "ctxlab.db")
	id := strings.TrimSpace(mustRunCtxlab(t, "import", file, "--db", db))

	r := runCtxlab(t, "replay", id, "--db", db)
	if r.code != 0 {
		t.Fatalf("replay: exit %d; stderr:\n%q", r.code, r.stderr)
	}
	checkInert(t, "stdout", r.stdout, "user:            Count the orders.", "Let me look.", "There are 12.", "[query ",
		"user:            Thanks again.", "Bye now.")
	checkInert(t, "stderr", r.stderr)

	traces, _ := liveTraces(t, mustRunCtxlab(t, "replay", id, "--db", db, "--json"))
	if len(traces) != 2 || traces[0].Assistant == nil || traces[1].Assistant == nil {
		t.Fatalf("got %d traces, want 2 with replies", len(traces))
	}
	a := traces[0].Assistant
	var in map[string]string
	if len(a.Tools) == 1 {
		_ = json.Unmarshal(a.Tools[0].Input, &in)
	}
	if traces[0].SystemPrompt != system || userText(traces[0].Request) != user || !strings.Contains(a.Text, first) ||
		!strings.Contains(a.Text, reply) || len(a.Tools) != 1 || a.Tools[0].Name != tool || in["sql"] != sql ||
		a.Tools[0].Output != result {
		t.Errorf("turn 1: got system %q, user %q, reply %q, tools %+v; want the exact bytes", traces[0].SystemPrompt,
			userText(traces[0].Request), a.Text, a.Tools)
	}
	if userText(traces[1].Request) != user2 || traces[1].Assistant.Text != reply2 {
		t.Errorf("turn 2: got user %q, reply %q; want %q and %q", userText(traces[1].Request), traces[1].Assistant.Text, user2, reply2)
	}
}

// TestWriteTurnInert prints turns whose every text field is hostile, through every line of
// the human turn block, and the writes of a sequence cut in two.
func TestWriteTurnInert(t *testing.T) {
	h := func(s string) string { return s + setTitle + "-" + clearScreen + "x" }
	pred := &predicates.Result{Expr: h("contentIncludes(['a'])"), Why: h("matched")}
	tests := []struct {
		name         string
		trace        engine.Trace
		user, source string
		visible      []string
	}{
		{"reply", engine.Trace{Turn: 1, Branch: h("main"), At: h("now"), ChatID: h("chat"), Error: h("boom"),
			Assistant: &engine.AssistantTrace{Text: h("reply"), FinishReason: h("length"), Interrupted: true, Tools: []engine.ToolTrace{
				{Name: h("t1"), State: chat.ToolOutputError, Error: h("denied")},
				{Name: h("t2"), State: chat.ToolInputStreaming},
				{Name: h("t3"), State: chat.ToolOutputAvailable, Output: h("out")},
			}}}, h("question"), h("model"),
			[]string{"── turn 1 · main-x · now-x · chat chat-x", "user:            question-x",
				"[model-x] reply-x [t1-x failed: denied-x] [t2-x input-streaming] [t3-x ok] [interrupted]",
				"finish:          length-x", "error:           boom-x"}},
		{"decisions", engine.Trace{Turn: 2, Branch: "main", Decisions: []engine.Decision{
			{ID: h("r1"), Source: engine.SourceReminder, Fired: true, Placement: h("inline"), Tier: "safety", Tokens: 3, Trace: pred},
			{ID: h("r2"), Source: engine.SourceReminder, Reason: h("max_per_chat"), Detail: h("2 of 2"), Was: &engine.Was{Reason: h("fired")}},
			{ID: h("r3"), Source: engine.SourceReminder, Reason: engine.ReasonPredicateFalse},
			{ID: h("i1"), Source: engine.SourceInstruction, Fired: true, Kind: h("must"), Scope: h("In: Mode")},
			{ID: h("i2"), Source: engine.SourceInstruction, Reason: h("mode_inactive")},
		}, Removed: []engine.Removed{{ID: h("gone"), Reason: h("fired"), Fired: true}}}, "", "",
			[]string{"r1-x [inline-x, safety, 3 tok] contentIncludes(['a'])-x: matched-x", "r2-x: max_per_chat-x (2 of 2-x)",
				"predicate_false: r3-x", "[must-x] i1-x (In: Mode-x)", "mode_inactive-x: i2-x",
				"r2-x: max_per_chat-x (was fired-x)", "gone-x: not in the file (was fired: fired-x)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeTurn(&b, &tt.trace, tt.user, tt.source)
			checkInert(t, "writeTurn", b.String(), tt.visible...)
		})
	}

	// An OSC, a CSI and a C1 CSI (U+009B, two bytes) each cut across two writes.
	t.Run("sequences cut across writes", func(t *testing.T) {
		var b strings.Builder
		w := humanOutput(&b)
		for _, p := range []string{"a\x1b", "]0;PWNED", "\x07b\x1b[", "2Jc\xc2", "\x9b"} {
			if n, err := io.WriteString(w, p); n != len(p) || err != nil {
				t.Fatalf("wrote %d of %d bytes, error %v", n, len(p), err)
			}
		}
		checkInert(t, "writes", b.String(), "a", "b", "c")
		if humanOutput(w) != w {
			t.Error("humanOutput wrapped an inert writer twice")
		}
	})
}
