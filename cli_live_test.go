package main

// End-to-end tests of the live-model path: `ctxlab run` with turns that ask the model,
// `ctxlab models` and `ctxlab config`, through run(), against aimock (an independent
// OpenAI-compatible server, fixtures in testdata/aimock/live.json, scripts and context file
// in testdata/live) and against httptest servers for the failures aimock cannot produce.
// The aimock tests are skipped when it is not installed (see llm/aimocktest); .ci/run
// installs it and makes them required.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/llm/aimocktest"
	"github.com/ctxlab/ctxlab/store"
)

// liveKey is the API key of the live tests: it must never be printed nor stored.
const liveKey = "sk-ctxlab-live-test-key-0123456789"

// liveEnv isolates the command from the machine: no OPENAI_* settings but the test key,
// an empty config file, config and data directories of its own.
func liveEnv(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"OPENAI_API_KEY": liveKey, "OPENAI_BASE_URL": "", "OPENAI_MODEL": "",
		"CTXLAB_CONFIG": cfg, "CTXLAB_DB": "", "HOME": home,
		"XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_DATA_HOME": filepath.Join(home, "data"),
	} {
		t.Setenv(k, v)
	}
}

// liveRun is what one command printed and returned.
type liveRun struct {
	code           int
	stdout, stderr string
}

func ctxlabLive(ctx context.Context, args ...string) liveRun {
	var out, errb bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &out, &errb)
	return liveRun{code: code, stdout: out.String(), stderr: errb.String()}
}

// liveTraces decodes the --json output: each line as a trace and as a raw object (to see
// which keys are present).
func liveTraces(t *testing.T, out string) ([]engine.Trace, []map[string]any) {
	t.Helper()
	var traces []engine.Trace
	var raws []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var tr engine.Trace
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
		raws = append(raws, raw)
	}
	return traces, raws
}

// savedChat reads a chat back from the database file.
func savedChat(t *testing.T, db, id string) chat.Archive {
	t.Helper()
	d, err := store.Open(db)
	if err != nil {
		t.Fatalf("open %s: %v", db, err)
	}
	defer d.Close()
	e, err := d.ExportChat(context.Background(), id)
	if err != nil {
		t.Fatalf("read chat %s: %v", id, err)
	}
	return e
}

// noChat fails unless the database holds no chat id: a chat whose first turn failed is
// not saved at all.
func noChat(t *testing.T, db, id string) {
	t.Helper()
	d, err := store.Open(db)
	if err != nil {
		t.Fatalf("open %s: %v", db, err)
	}
	defer d.Close()
	if _, err := d.Chat(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("chat %s: got %v, want it not saved (its only turn failed)", id, err)
	}
}

// noKey fails when the API key appears in the outputs or in any file of the database.
func noKey(t *testing.T, db string, r liveRun) {
	t.Helper()
	if strings.Contains(r.stdout, liveKey) || strings.Contains(r.stderr, liveKey) {
		t.Errorf("the API key was printed")
	}
	files, _ := filepath.Glob(db + "*")
	if len(files) == 0 {
		t.Fatalf("no database file at %s", db)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(liveKey)) {
			t.Errorf("the API key is stored in %s", f)
		}
	}
}

// lastUser returns the text of a request's last user message.
func lastUser(req chat.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == chat.RoleUser {
			return req.Messages[i].Text()
		}
	}
	return ""
}

// sent returns the chat requests aimock received whose last user message starts with
// prefix, with their journal entries.
func sent(t *testing.T, srv *aimocktest.Server, prefix string) ([]chat.Request, []aimocktest.Entry) {
	t.Helper()
	var reqs []chat.Request
	var entries []aimocktest.Entry
	for _, e := range srv.Journal(t, "/chat/completions") {
		req, err := e.Request()
		if err != nil {
			t.Fatalf("journal body %s: %v", e.Body, err)
		}
		if strings.HasPrefix(lastUser(req), prefix) {
			reqs = append(reqs, req)
			entries = append(entries, e)
		}
	}
	return reqs, entries
}

// sameAsTrace checks that the body aimock received is the trace's request, plus the
// streaming fields.
func sameAsTrace(t *testing.T, e aimocktest.Entry, traced chat.Request) {
	t.Helper()
	got, err := e.Fields()
	if err != nil {
		t.Fatal(err)
	}
	if got["stream"] != true || !reflect.DeepEqual(got["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("got stream %v stream_options %v, want true and include_usage", got["stream"], got["stream_options"])
	}
	delete(got, "stream")
	delete(got, "stream_options")
	delete(got, "_endpointType") // added by aimock
	b, err := chat.Marshal(traced)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("aimock received\n%s\nthe trace shows\n%s", e.Body, b)
	}
}

func tag(s string) string { return "<system-reminder>" + s + "</system-reminder>" }

func firedIn(tr engine.Trace) []string {
	var out []string
	for _, d := range tr.Decisions {
		if d.Fired {
			out = append(out, d.ID)
		}
	}
	return out
}

// checkResponses checks a turn's responses against the requests aimock answered
// (entries, in order): one for each, with the finish reasons want and the usage of the
// fixture that answered it, and estimates that add up to the turn's.
func checkResponses(t *testing.T, what string, tr engine.Trace, entries []aimocktest.Entry, want []string) {
	t.Helper()
	if len(tr.Responses) != len(entries) || len(entries) != len(want) {
		t.Fatalf("%s: %d responses for %d requests, want %d: %+v", what, len(tr.Responses), len(entries), len(want), tr.Responses)
	}
	sum := 0
	for i, e := range entries {
		var fx struct {
			Response struct {
				Usage *struct {
					Prompt     int `json:"prompt_tokens"`
					Completion int `json:"completion_tokens"`
				} `json:"usage"`
			} `json:"response"`
		}
		if err := json.Unmarshal(e.Response.Fixture, &fx); err != nil {
			t.Fatalf("%s: fixture of request %d: %v", what, i+1, err)
		}
		r := tr.Responses[i]
		var wantUsage *chat.Usage
		if u := fx.Response.Usage; u != nil {
			wantUsage = &chat.Usage{PromptTokens: u.Prompt, CompletionTokens: u.Completion, TotalTokens: u.Prompt + u.Completion}
		}
		if r.FinishReason != want[i] || !reflect.DeepEqual(r.Usage, wantUsage) || r.EstimatedPromptTokens <= 0 {
			t.Errorf("%s: response %d %+v (usage %+v), want %s with usage %+v, as aimock sent, and an estimate",
				what, i+1, r, r.Usage, want[i], wantUsage)
		}
		sum += r.EstimatedPromptTokens
	}
	if sum != tr.Usage.Estimated.PromptTokens {
		t.Errorf("%s: the requests' estimates add up to %d, want the turn's %d", what, sum, tr.Usage.Estimated.PromptTokens)
	}
}

// TestLiveAimock plays scripts with unscripted turns against aimock and checks the traces,
// what aimock received, and what was saved.
func TestLiveAimock(t *testing.T) {
	liveEnv(t)
	srv := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock/live.json"})
	base := srv.BaseURL()
	ctx := context.Background()

	t.Run("script with unscripted turns", func(t *testing.T) {
		t.Parallel()
		db := filepath.Join(t.TempDir(), "ctxlab.db")
		r := ctxlabLive(ctx, "run", "testdata/live/main.script.yaml", "--base-url", base, "--model", "gpt-4o-mini", "--json", "--db", db)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
		}
		traces, raws := liveTraces(t, r.stdout)
		if len(traces) != 4 {
			t.Fatalf("got %d traces, want 4", len(traces))
		}

		// Turn 1 is scripted: nothing sent, no reported usage, an estimate.
		if traces[0].Usage.Reported != nil || traces[0].Usage.Estimated.PromptTokens <= 0 {
			t.Errorf("turn 1: got usage %+v, want no report and an estimate", traces[0].Usage)
		}

		// Turn 2: the fixture's usage reported, the estimate beside it, and the difference.
		t2 := traces[1]
		if want := (&chat.Usage{PromptTokens: 42, CompletionTokens: 11, TotalTokens: 53}); !reflect.DeepEqual(t2.Usage.Reported, want) {
			t.Errorf("turn 2: got reported %+v, want %+v", t2.Usage.Reported, want)
		}
		est, _ := raws[1]["usage"].(map[string]any)["estimated"].(map[string]any)
		if est == nil || est["prompt_tokens"].(float64) <= 0 || est["completion_tokens"].(float64) <= 0 {
			t.Errorf("turn 2: got estimated %v, want prompt and completion estimates", est)
		}
		if d := t2.Usage.Difference; d == nil || *d != 42-t2.Usage.Estimated.PromptTokens {
			t.Errorf("turn 2: got difference %v, want 42 - %d", d, t2.Usage.Estimated.PromptTokens)
		}
		if t2.Assistant.Text != "Counting tokens for you, one small chunk at a time." || t2.Request.Model != "gpt-4o-mini" {
			t.Errorf("turn 2: got reply %q from model %q, want the fixture's from gpt-4o-mini", t2.Assistant.Text, t2.Request.Model)
		}
		reqs, entries := sent(t, srv, "count my tokens")
		if len(reqs) != 1 {
			t.Fatalf("turn 2: aimock received %d requests, want 1", len(reqs))
		}
		sameAsTrace(t, entries[0], t2.Request)
		base := traces[0].SystemPrompt
		wantMsgs := []chat.WireMessage{
			// run-start: at the start of the system message, then a blank line
			{Role: chat.RoleSystem, Content: tag("A new working session starts.") + "\n\n" + base},
			// turn 1 as saved: inline appended to the text, part as a second text part
			{Role: chat.RoleUser, Parts: []chat.ContentPart{
				{Type: "text", Text: "hello, reply inline and as a part" + tag("Answer in one sentence.")},
				{Type: "text", Text: tag("Mention the source.")}}},
			{Role: chat.RoleAssistant, Content: "Hi! How can I help?"},
			// system: a system message just before the user message
			{Role: chat.RoleSystem, Content: tag("Prefer the tools over guessing.")},
			{Role: chat.RoleUser, Content: "count my tokens (sysnote, runstart)"},
		}
		if !reflect.DeepEqual(reqs[0].Messages, wantMsgs) {
			t.Errorf("turn 2: aimock received\n%s\nwant\n%s", entries[0].Body, mustMarshal(t, wantMsgs))
		}
		if !strings.HasPrefix(base, "<role>You are a terse data analyst.</role>") || t2.SystemPrompt != wantMsgs[0].Content {
			t.Errorf("turn 2: got system prompt %q, want the run-start reminder then %q", t2.SystemPrompt, base)
		}
		var tools []string
		for _, tl := range reqs[0].Tools {
			tools = append(tools, tl.Function.Name)
		}
		if !slices.Equal(tools, []string{"run_sql", "export_csv"}) {
			t.Errorf("turn 2: got tools %v offered, want run_sql and export_csv", tools)
		}

		// Turn 3: a tool loop of three requests, saved as tool parts.
		t3 := traces[2]
		if t3.Assistant.Text != "The report: 42 users; the export was refused." || t3.Assistant.FinishReason != "stop" {
			t.Errorf("turn 3: got %q (%s), want the final answer", t3.Assistant.Text, t3.Assistant.FinishReason)
		}
		wantTools := []engine.ToolTrace{
			{ID: "call_sql_1", Name: "run_sql", Input: json.RawMessage(`{"query":"select count(*) from users"}`), Output: `[{"count": 42}]`, State: chat.ToolOutputAvailable},
			{ID: "call_export_1", Name: "export_csv", Input: json.RawMessage(`{"table":"users"}`), Error: "permission denied", State: chat.ToolOutputError},
		}
		if !reflect.DeepEqual(t3.Assistant.Tools, wantTools) {
			t.Errorf("turn 3: got tools %+v, want %+v", t3.Assistant.Tools, wantTools)
		}
		if want := (&chat.Usage{PromptTokens: 60, CompletionTokens: 18, TotalTokens: 78}); !reflect.DeepEqual(t3.Usage.Reported, want) {
			t.Errorf("turn 3: got reported %+v, want the sum of the three steps %+v", t3.Usage.Reported, want)
		}
		if by := t3.Usage.Estimated.BySource; by == nil || t3.Usage.Estimated.PromptTokens < 3*by.Total {
			t.Errorf("turn 3: got estimated prompt %d, want at least three times the first request's", t3.Usage.Estimated.PromptTokens)
		}
		reqs, entries = sent(t, srv, "run the report")
		if len(reqs) != 3 {
			t.Fatalf("turn 3: aimock received %d requests, want 3", len(reqs))
		}
		sameAsTrace(t, entries[0], t3.Request)
		wantResults := [][]string{nil, {`[{"count": 42}]`}, {`[{"count": 42}]`, "permission denied"}}
		for i, req := range reqs {
			checkToolRound(t, i+1, req, wantResults[i])
		}
		// Each request's response, as aimock sent it: its finish reason and its usage.
		checkResponses(t, "turn 3", t3, entries, []string{"tool_calls", "tool_calls", "stop"})

		// Turn 4: the tool predicates see the live turn's tool parts.
		t4 := traces[3]
		if got := firedIn(t4); !slices.Equal(got, []string{"export-failed", "sql-ran"}) {
			t.Errorf("turn 4: got fired %v, want export-failed and sql-ran (toolFailed, toolCalled)", got)
		}
		reqs, entries = sent(t, srv, "what failed?")
		if len(reqs) != 1 {
			t.Fatalf("turn 4: aimock received %d requests, want 1", len(reqs))
		}
		sameAsTrace(t, entries[0], t4.Request)
		msgs := reqs[0].Messages
		n := len(msgs)
		wantTail := []chat.WireMessage{
			{Role: chat.RoleSystem, Content: tag("SQL ran in the last reply.")},
			{Role: chat.RoleUser, Content: "what failed?" + tag("The last export failed; say why.")}, // inline: one string
		}
		if n < 2 || !reflect.DeepEqual(msgs[n-2:], wantTail) {
			t.Errorf("turn 4: aimock received\n%s\nwant it to end with\n%s", entries[0].Body, mustMarshal(t, wantTail))
		}
		tools = nil
		for _, m := range msgs {
			if m.Role == chat.RoleTool {
				tools = append(tools, m.Content)
			}
		}
		if !slices.Equal(tools, []string{`[{"count": 42}]`, "permission denied"}) {
			t.Errorf("turn 4: got tool messages %q in the history, want turn 3's two results", tools)
		}
		if len(srv.Journal(t, "/chat/completions")) < 5 {
			t.Errorf("aimock received fewer than the 5 requests of the script")
		}

		// Saved: 4 turns, the live tool calls as tool parts, nothing interrupted; the key
		// nowhere.
		e := savedChat(t, db, "live-main")
		if len(e.Turns) != 4 || len(e.Messages) != 8 {
			t.Fatalf("saved %d turns and %d messages, want 4 and 8", len(e.Turns), len(e.Messages))
		}
		reply := e.Messages[5]
		if tp := reply.ToolParts(); reply.Role != chat.RoleAssistant || len(tp) != 2 || tp[0].State != chat.ToolOutputAvailable || tp[1].State != chat.ToolOutputError {
			t.Errorf("saved turn 3 reply %+v, want its two tool parts", reply)
		}
		for _, m := range e.Messages {
			if m.Interrupted {
				t.Errorf("message %s saved interrupted", m.ID)
			}
		}
		if e.Turns[1].Reported == nil || e.Turns[1].Reported.PromptTokens != 42 || e.Turns[1].Estimated.PromptTokens <= 0 {
			t.Errorf("saved turn 2 usage: reported %+v estimated %+v, want both", e.Turns[1].Reported, e.Turns[1].Estimated)
		}
		for i, tr := range traces {
			if saved := e.Turns[i].Responses; len(saved) != len(tr.Responses) {
				t.Errorf("saved turn %d: %d responses, want the trace's %d", i+1, len(saved), len(tr.Responses))
			} else {
				for j, r := range saved {
					if got := (engine.ResponseTrace{FinishReason: r.FinishReason, Usage: r.Usage, EstimatedPromptTokens: r.EstimatedPrompt,
						Latency: engine.LatencyTrace{TTFT: r.TTFT.Milliseconds(), Total: r.Latency.Milliseconds()}}); !reflect.DeepEqual(got, tr.Responses[j]) {
						t.Errorf("saved turn %d response %d: %+v, want the trace's %+v", i+1, j+1, got, tr.Responses[j])
					}
				}
			}
		}
		// The responses go through an export and an import as they are.
		first := mustRunCtxlab(t, "export", "live-main", "--db", db)
		if !strings.Contains(first, `"responses":[{"finish_reason":"tool_calls","usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`) {
			t.Errorf("the export lacks turn 3's responses:\n%s", first)
		}
		file, fresh := filepath.Join(t.TempDir(), "live.json"), filepath.Join(t.TempDir(), "fresh.db")
		expWriteFile(t, file, first)
		mustRunCtxlab(t, "import", file, "--db", fresh)
		if second := mustRunCtxlab(t, "export", "live-main", "--db", fresh); second != first {
			t.Errorf("export, import, export differs:\n--- first\n%s\n--- second\n%s", first, second)
		}
		replayed := ctxlabLive(ctx, "replay", "live-main", "--db", fresh, "--json")
		if again, _ := liveTraces(t, replayed.stdout); len(again) != 4 || !reflect.DeepEqual(again[2].Responses, t3.Responses) {
			t.Errorf("replay of the imported chat: got %d traces, turn 3's responses %+v; want %+v", len(again), again, t3.Responses)
		}
		noKey(t, db, r)
	})

	t.Run("500 after bounded retries", func(t *testing.T) {
		t.Parallel()
		db := filepath.Join(t.TempDir(), "ctxlab.db")
		r := ctxlabLive(ctx, "run", "testdata/live/fail500.script.yaml", "--base-url", base, "--json", "--db", db)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
		}
		if want := "model: 500 Internal Server Error from " + base + ": The server had an error processing your request"; !strings.Contains(r.stderr, want) {
			t.Errorf("got stderr %q, want it to say %q", r.stderr, want)
		}
		_, entries := sent(t, srv, "trigger 500")
		var statuses []int
		for _, e := range entries {
			statuses = append(statuses, e.Response.Status)
		}
		if !slices.Equal(statuses, []int{500, 500, 500}) {
			t.Errorf("got statuses %v, want 500 three times (two retries)", statuses)
		}
		if noChat(t, db, "live-500"); r.stdout != "" {
			t.Errorf("printed %q, want nothing for the failed turn", r.stdout)
		}
		noKey(t, db, r)
	})

	t.Run("stream cut mid-way", func(t *testing.T) {
		t.Parallel()
		const story = "Once upon a time there was a stream that never reached its end, because the connection dropped."
		db := filepath.Join(t.TempDir(), "ctxlab.db")
		r := ctxlabLive(ctx, "run", "testdata/live/cut.script.yaml", "--base-url", base, "--json", "--db", db)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
		}
		if want := "model: stream cut short from " + base; !strings.Contains(r.stderr, want) {
			t.Errorf("got stderr %q, want it to say %q", r.stderr, want)
		}
		traces, _ := liveTraces(t, r.stdout)
		if len(traces) != 1 {
			t.Fatalf("got %d traces, want the interrupted turn's", len(traces))
		}
		a := traces[0].Assistant
		if !a.Interrupted || a.Text == "" || !strings.HasPrefix(story, a.Text) || a.Text == story || a.FinishReason != "error" ||
			!strings.Contains(traces[0].Error, "stream cut short from "+base) {
			t.Errorf("got reply %q interrupted %v finish %q error %q, want a strict prefix of the story, interrupted, with the error",
				a.Text, a.Interrupted, a.FinishReason, traces[0].Error)
		}
		_, entries := sent(t, srv, "tell me a long story")
		if len(entries) != 1 || !entries[0].Response.Interrupted {
			t.Errorf("aimock got %d requests, want 1 (not retried once text arrived), interrupted", len(entries))
		}
		e := savedChat(t, db, "live-cut")
		if len(e.Messages) != 2 || !e.Messages[1].Interrupted || e.Messages[1].PlainText() != a.Text || len(e.Turns) != 1 || e.Turns[0].Error == "" {
			t.Fatalf("saved %+v, want the partial reply marked interrupted with the turn's error", e.Messages)
		}

		// The chat goes on: the next run sends the partial reply as history.
		r = ctxlabLive(ctx, "run", "testdata/live/cut-continue.script.yaml", "--base-url", base, "--json", "--db", db)
		if r.code != 0 {
			t.Fatalf("continue: exit %d, want 0; stderr:\n%s", r.code, r.stderr)
		}
		traces, _ = liveTraces(t, r.stdout)
		reqs, _ := sent(t, srv, "ping plain")
		if len(traces) != 1 || traces[0].Turn != 2 || traces[0].Assistant.Text != "pong" || len(reqs) != 1 {
			t.Fatalf("continue: got %d traces and %d requests, want turn 2 answered pong", len(traces), len(reqs))
		}
		if m := reqs[0].Messages; len(m) != 4 || m[2].Role != chat.RoleAssistant || m[2].Content != a.Text {
			t.Errorf("continue: aimock received %s, want the partial reply in the history", mustMarshal(t, m))
		}
		noKey(t, db, r)
	})

	t.Run("models", func(t *testing.T) {
		t.Parallel()
		r := ctxlabLive(ctx, "models", "--base-url", base)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
		}
		ids := strings.Fields(r.stdout)
		if !slices.Contains(ids, "gpt-4o") || !sort.StringsAreSorted(ids) {
			t.Errorf("got %q, want aimock's models, gpt-4o among them, one a line, sorted", r.stdout)
		}
		if strings.Contains(r.stdout+r.stderr, liveKey) {
			t.Errorf("the API key was printed")
		}
	})

	t.Run("429 then success", func(t *testing.T) {
		t.Parallel()
		own := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock/live.json"})
		own.QueueError(t, 429, "slow down")
		db := filepath.Join(t.TempDir(), "ctxlab.db")
		r := ctxlabLive(ctx, "run", "testdata/live/count.script.yaml", "--base-url", own.BaseURL(), "--db", db)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
		}
		var statuses []int
		for _, e := range own.Journal(t, "/chat/completions") {
			statuses = append(statuses, e.Response.Status)
		}
		if !slices.Equal(statuses, []int{429, 200}) {
			t.Errorf("got statuses %v, want 429 then 200", statuses)
		}
		for _, want := range []string{"[gpt-4o-mini] Counting tokens for you", "prompt 42 reported / ~", "completion 11 / ~"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("output does not show %q:\n%s", want, r.stdout)
			}
		}
		if e := savedChat(t, db, "live-count"); len(e.Turns) != 1 || e.Turns[0].Reported == nil {
			t.Errorf("saved %d turns, want 1 with its reported usage", len(e.Turns))
		}
		noKey(t, db, r)
	})

	t.Run("401", func(t *testing.T) {
		t.Parallel()
		own := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock/live.json", APIKeys: []string{"sk-the-only-accepted-key-0000"}})
		db := filepath.Join(t.TempDir(), "ctxlab.db")
		r := ctxlabLive(ctx, "run", "testdata/live/unauthorized.script.yaml", "--base-url", own.BaseURL(), "--json", "--db", db)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
		}
		for _, want := range []string{"unauthorized.script.yaml:", "model: 401 Unauthorized from " + own.BaseURL() + ": "} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("got stderr %q, want it to say %q", r.stderr, want)
			}
		}
		if traces, _ := liveTraces(t, r.stdout); len(traces) != 1 || traces[0].Turn != 1 {
			t.Errorf("got %d traces, want the scripted turn 1 only", len(traces))
		}
		// aimock journals no request it refused for its key: llm/aimock_test.go checks that
		// a 401 is not retried.
		if e := savedChat(t, db, "live-401"); len(e.Messages) != 2 || len(e.Turns) != 1 {
			t.Errorf("saved %d messages and %d turns, want the scripted turn only", len(e.Messages), len(e.Turns))
		}
		noKey(t, db, r)

		m := ctxlabLive(ctx, "models", "--base-url", own.BaseURL())
		if want := "ctxlab: model: 401 Unauthorized from " + own.BaseURL(); m.code != 1 || !strings.HasPrefix(m.stderr, want) {
			t.Errorf("models: got exit %d, stderr %q, want 1 and %q", m.code, m.stderr, want)
		}
		if strings.Contains(m.stdout+m.stderr, liveKey) {
			t.Errorf("models: the API key was printed")
		}
	})
}

// checkToolRound checks a request of a tool loop: after the user message, each tool
// message answers a call of an earlier assistant message, the results come in order, and
// the system reminder comes last, after the last tool message.
func checkToolRound(t *testing.T, step int, req chat.Request, results []string) {
	t.Helper()
	user := -1
	for i, m := range req.Messages {
		if m.Role == chat.RoleUser {
			user = i
		}
	}
	if user < 0 || req.Messages[user].Content != "run the report (sysnote)" {
		t.Fatalf("step %d: no user message %q", step, "run the report (sysnote)")
	}
	sys := chat.WireMessage{Role: chat.RoleSystem, Content: tag("Prefer the tools over guessing.")}
	msgs := req.Messages
	if step == 1 {
		if !reflect.DeepEqual(msgs[user-1], sys) || user != len(msgs)-1 {
			t.Errorf("step 1: got %s, want the system reminder just before the user message, last", mustMarshal(t, msgs))
		}
		return
	}
	after := msgs[user+1:]
	if len(after) == 0 || !reflect.DeepEqual(after[len(after)-1], sys) {
		t.Errorf("step %d: got %s after the user message, want the system reminder last", step, mustMarshal(t, after))
		return
	}
	called := map[string]bool{}
	var got []string
	for _, m := range after[:len(after)-1] {
		switch m.Role {
		case chat.RoleAssistant:
			for _, c := range m.ToolCalls {
				called[c.ID] = true
			}
		case chat.RoleTool:
			if !called[m.ToolCallID] {
				t.Errorf("step %d: tool message for %q before its call", step, m.ToolCallID)
			}
			got = append(got, m.Content)
		default:
			t.Errorf("step %d: got a %s message inside the tool round", step, m.Role)
		}
	}
	if !slices.Equal(got, results) {
		t.Errorf("step %d: got tool results %q, want %q", step, got, results)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := chat.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// httpModel is an httptest server standing in for a model server; it records the request
// bodies. Handlers that hang return when the client goes away or the test ends.
type httpModel struct {
	url  string
	mu   sync.Mutex
	reqs []map[string]any
}

func startHTTPModel(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body map[string]any, done <-chan struct{})) *httpModel {
	t.Helper()
	s := &httpModel{}
	done := make(chan struct{})
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		s.reqs = append(s.reqs, body)
		s.mu.Unlock()
		handle(w, r, body, done)
	}))
	t.Cleanup(h.Close)
	t.Cleanup(func() { close(done) }) // runs first: releases hanging handlers
	s.url = h.URL + "/v1"
	return s
}

func (s *httpModel) requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func sseStart(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func sseLine(w http.ResponseWriter, data string) {
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

// sseText is a chunk carrying text, and a finish reason when finish is not empty.
func sseText(text, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	b, _ := json.Marshal(text)
	return fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%s},"finish_reason":%s}]}`, b, f)
}

func waitGone(r *http.Request, done <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-done:
	}
}

// TestLiveHTTPFailures plays scripts against httptest servers for what aimock cannot do:
// a server that rejects stream_options, malformed stream lines, and a cancellation (Ctrl-C)
// while the model streams or before its first token. (TestRunTimeouts tests the timeouts.)
func TestLiveHTTPFailures(t *testing.T) {
	liveEnv(t)
	ctx := context.Background()

	t.Run("stream_options rejected", func(t *testing.T) {
		t.Parallel()
		s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, _ <-chan struct{}) {
			if _, ok := body["stream_options"]; ok {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error": {"message": "Unrecognized request argument supplied: stream_options", "type": "invalid_request_error", "param": null, "code": null}}`)
				return
			}
			sseStart(w)
			sseLine(w, sseText("An ", ""))
			sseLine(w, sseText("answer.", "stop"))
			sseLine(w, "[DONE]")
		})
		db := filepath.Join(t.TempDir(), "ctxlab.db")
		r := ctxlabLive(ctx, "run", "testdata/live/two-questions.script.yaml", "--base-url", s.url, "--json", "--db", db)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
		}
		var withOptions []bool
		for _, b := range s.requests() {
			_, ok := b["stream_options"]
			withOptions = append(withOptions, ok)
		}
		// Retried once without, and never asked with it again in the session.
		if want := []bool{true, false, false}; !slices.Equal(withOptions, want) {
			t.Errorf("got stream_options sent %v, want %v", withOptions, want)
		}
		traces, raws := liveTraces(t, r.stdout)
		if len(traces) != 2 {
			t.Fatalf("got %d traces, want 2", len(traces))
		}
		for i, tr := range traces {
			u := raws[i]["usage"].(map[string]any)
			_, hasDiff := u["difference"]
			if tr.Assistant.Text != "An answer." || tr.Usage.Reported != nil || u["estimated"] == nil ||
				tr.Usage.Estimated.PromptTokens <= 0 || hasDiff {
				t.Errorf("turn %d: got %q usage %v, want the answer, no reported usage, the estimate only", i+1, tr.Assistant.Text, u)
			}
		}
		noKey(t, db, r)
	})

	t.Run("malformed line mid-stream", func(t *testing.T) {
		t.Parallel()
		s := startHTTPModel(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ <-chan struct{}) {
			sseStart(w)
			sseLine(w, sseText("Hello ", ""))
			sseLine(w, `{"choices": [oops`)
		})
		db := filepath.Join(t.TempDir(), "ctxlab.db")
		r := ctxlabLive(ctx, "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--json", "--db", db)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
		}
		if want := "model: malformed stream from " + s.url; !strings.Contains(r.stderr, want) {
			t.Errorf("got stderr %q, want it to say %q", r.stderr, want)
		}
		traces, _ := liveTraces(t, r.stdout)
		if len(traces) != 1 || traces[0].Assistant.Text != "Hello " || !traces[0].Assistant.Interrupted {
			t.Fatalf("got traces %+v, want the partial reply, interrupted", traces)
		}
		e := savedChat(t, db, "live-one")
		if len(e.Messages) != 2 || !e.Messages[1].Interrupted || e.Messages[1].PlainText() != "Hello " {
			t.Errorf("saved %+v, want the partial reply marked interrupted", e.Messages)
		}
		if n := len(s.requests()); n != 1 {
			t.Errorf("got %d requests, want 1", n)
		}
	})

	t.Run("malformed first line", func(t *testing.T) {
		t.Parallel()
		s := startHTTPModel(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ <-chan struct{}) {
			sseStart(w)
			sseLine(w, `{oops`)
		})
		db := filepath.Join(t.TempDir(), "ctxlab.db")
		r := ctxlabLive(ctx, "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--json", "--db", db)
		if r.code != 1 || !strings.Contains(r.stderr, "malformed stream from "+s.url) {
			t.Fatalf("exit %d, stderr %q, want 1 and the malformed stream named", r.code, r.stderr)
		}
		if noChat(t, db, "live-one"); r.stdout != "" {
			t.Errorf("printed %q, want nothing", r.stdout)
		}
		if n := len(s.requests()); n != 1 {
			t.Errorf("got %d requests, want 1 (a malformed stream is not retried)", n)
		}
	})

	// A tool call cut in its arguments: the first turn's reply is that call alone.
	const cutCall = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"run_sql","arguments":"{\"query\": \"sel"}}]},"finish_reason":null}]}`
	for _, tt := range []struct {
		name   string
		chunks int    // streamed before the cancellation, 20ms apart; then more until the client leaves
		first  string // a chunk streamed before them; then the chunks are keep-alive comments
	}{
		{"cancelled mid-stream", 5, ""},
		{"cancelled before the first token", 0, ""},
		{"cancelled in a tool call", 5, cutCall},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			streaming := make(chan struct{})
			s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, done <-chan struct{}) {
				sseStart(w)
				if tt.chunks == 0 {
					close(streaming)
					waitGone(r, done)
					return
				}
				if tt.first != "" {
					sseLine(w, tt.first)
				}
				for i := 0; ; i++ {
					if i == tt.chunks {
						close(streaming)
					}
					if tt.first != "" {
						fmt.Fprint(w, ": keep-alive\n\n")
						w.(http.Flusher).Flush()
					} else {
						sseLine(w, sseText("more ", ""))
					}
					select {
					case <-r.Context().Done():
						return
					case <-done:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			})
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() {
				<-streaming
				cancel() // what Ctrl-C does
			}()
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			r := ctxlabLive(ctx, "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--json", "--db", db)
			if r.code != 1 || !strings.Contains(r.stderr, "context canceled") {
				t.Fatalf("exit %d, stderr %q, want 1 and the cancellation", r.code, r.stderr)
			}
			if tt.chunks == 0 {
				if noChat(t, db, "live-one"); r.stdout != "" {
					t.Errorf("printed %q, want nothing", r.stdout)
				}
				return
			}
			if tt.first != "" {
				// The call is saved as it arrived, its arguments cut: not a completed call.
				e := savedChat(t, db, "live-one")
				want := []chat.Part{{Type: chat.PartTool, ToolCallID: "call_1", ToolName: "run_sql",
					Input: json.RawMessage(`"{\"query\": \"sel"`), State: chat.ToolInputStreaming, Round: 1}}
				if len(e.Messages) != 2 || !e.Messages[1].Interrupted || !reflect.DeepEqual(e.Messages[1].Parts, want) || e.Turns[0].Error == "" {
					t.Errorf("saved %s, want the cut tool call, interrupted", mustMarshal(t, e.Messages))
				}
				traces, _ := liveTraces(t, r.stdout)
				if len(traces) != 1 || !traces[0].Assistant.Interrupted || len(traces[0].Assistant.Tools) != 1 ||
					traces[0].Assistant.Tools[0].State != chat.ToolInputStreaming {
					t.Errorf("got %q, want the trace of the interrupted turn with its cut tool call", r.stdout)
				}
				return
			}
			// The client has read some of the chunks, whole: the reply is "more " a few times.
			e := savedChat(t, db, "live-one")
			text := ""
			if len(e.Messages) == 2 {
				text = e.Messages[1].PlainText()
			}
			if len(e.Messages) != 2 || !e.Messages[1].Interrupted || text == "" || strings.Trim(strings.ReplaceAll(text, "more ", ""), " ") != "" || e.Turns[0].Error == "" {
				t.Errorf("saved %+v, want the partial reply marked interrupted", e.Messages)
			}
			if traces, _ := liveTraces(t, r.stdout); len(traces) != 1 || !traces[0].Assistant.Interrupted {
				t.Errorf("got %q, want the trace of the interrupted turn", r.stdout)
			}
		})
	}
}

// TestLiveConfigCommand checks `ctxlab config` (the key masked, each setting's source) and
// `ctxlab models` without a server.
func TestLiveConfigCommand(t *testing.T) {
	liveEnv(t)
	const key = "sk-proj-config-test-key-abcd1234"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("OPENAI_MODEL", "gpt-4o")
	t.Setenv("CTXLAB_LIVE_OTHER_KEY", "sk-other-key-from-flag-wxyz")

	type line struct{ value, source string }
	tests := []struct {
		name string
		args []string
		want map[string]line
	}{
		{"environment", nil, map[string]line{
			"model":      {"gpt-4o", "env OPENAI_MODEL"},
			"base_url":   {"http://127.0.0.1:9/v1", "env OPENAI_BASE_URL"},
			"api_key":    {"sk-…1234", "env OPENAI_API_KEY"},
			"configured": {"yes", ""},
		}},
		{"flags over the environment", []string{"--model", "gpt-4.1-mini", "--base-url", "http://127.0.0.1:8/v1", "--api-key-env", "CTXLAB_LIVE_OTHER_KEY"}, map[string]line{
			"model":    {"gpt-4.1-mini", "flag --model"},
			"base_url": {"http://127.0.0.1:8/v1", "flag --base-url"},
			"api_key":  {"sk-…wxyz", "flag --api-key-env CTXLAB_LIVE_OTHER_KEY"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ctxlabLive(context.Background(), append([]string{"config", "--json"}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
			}
			got := map[string]line{}
			for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var v struct{ Key, Value, Source string }
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("line %q: %v", l, err)
				}
				got[v.Key] = line{v.Value, v.Source}
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s: got %+v, want %+v", k, got[k], want)
				}
			}
			text := ctxlabLive(context.Background(), append([]string{"config"}, tt.args...)...)
			want := tt.want["api_key"]
			if text.code != 0 || !strings.Contains(text.stdout, want.value) || !strings.Contains(text.stdout, want.source) {
				t.Errorf("text output does not show the masked key %q from %q:\n%s", want.value, want.source, text.stdout)
			}
			for _, out := range []string{r.stdout, r.stderr, text.stdout, text.stderr} {
				if strings.Contains(out, key) || strings.Contains(out, "sk-other-key-from-flag-wxyz") {
					t.Errorf("the API key was printed:\n%s", out)
				}
			}
		})
	}

	t.Run("context file", func(t *testing.T) {
		t.Setenv("OPENAI_MODEL", "")
		r := ctxlabLive(context.Background(), "config", "--context", "testdata/live/live.ctx.yaml")
		if r.code != 0 || !strings.Contains(r.stdout, "gpt-4o-mini") || !strings.Contains(r.stdout, "context file testdata/live/live.ctx.yaml") {
			t.Errorf("exit %d, got\n%s\nwant the model from the context file, with its source", r.code, r.stdout+r.stderr)
		}
	})

	t.Run("models without a server", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "")
		t.Setenv("OPENAI_BASE_URL", "")
		r := ctxlabLive(context.Background(), "models")
		if r.code != 1 || !strings.Contains(r.stderr, "no model server is configured") {
			t.Errorf("got exit %d, stderr %q, want 1 and no model server configured", r.code, r.stderr)
		}
	})
}

// TestRunNamesTheServerModel checks a server configured without a model name: one that
// offers a single model (llama.cpp's server) is sent that one; one that offers several is
// invalid input naming them, before anything is written.
func TestRunNamesTheServerModel(t *testing.T) {
	isolateCtxlabEnv(t)
	ctx := context.Background()
	serve := func(models ...string) *httpModel {
		return startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
			if strings.HasSuffix(r.URL.Path, "/models") {
				var data []string
				for _, m := range models {
					data = append(data, `{"id":"`+m+`","object":"model","owned_by":"local"}`)
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"object":"list","data":[%s]}`, strings.Join(data, ","))
				return
			}
			sseStart(w)
			sseLine(w, sseText("Hello from the local model.", "stop"))
			sseLine(w, "[DONE]")
		})
	}

	one := serve("qwen2.5-7b-instruct-q4_k_m.gguf")
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	r := ctxlabLive(ctx, "run", "testdata/cli/errors/no-model.script.yaml", "--base-url", one.url, "--db", db, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q, want 0", r.code, r.stderr)
	}
	traces, _ := liveTraces(t, r.stdout)
	reqs := one.requests()
	if len(traces) != 2 || len(reqs) != 2 || reqs[1]["model"] != "qwen2.5-7b-instruct-q4_k_m.gguf" ||
		traces[1].Request.Model != "qwen2.5-7b-instruct-q4_k_m.gguf" || traces[1].Assistant.Text != "Hello from the local model." {
		t.Errorf("got %d traces, requests %v; want the second turn sent to the server's only model", len(traces), reqs)
	}

	several := serve("llama3.2", "qwen2.5")
	db = filepath.Join(t.TempDir(), "ctxlab.db")
	r = ctxlabLive(ctx, "run", "testdata/cli/errors/no-model.script.yaml", "--base-url", several.url, "--db", db)
	want := "offers 2 models (llama3.2, qwen2.5): set one with --model"
	if r.code != exitInvalid || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the database was created before the model was named: %v", err)
	}
}

// TestRunSendsTheProfilesKey checks which key reaches a profile's server: the key the
// profile names, never the OpenAI key of the environment; --api-key-env wins over both.
func TestRunSendsTheProfilesKey(t *testing.T) {
	liveEnv(t) // OPENAI_API_KEY is liveKey
	const routerKey, flagKey = "sk-or-router-test-key-0123456789", "sk-flag-test-key-0123456789"
	t.Setenv("ROUTER_KEY", routerKey)
	t.Setenv("FLAG_KEY", flagKey)
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		sseStart(w)
		sseLine(w, sseText("ok", "stop"))
		sseLine(w, "[DONE]")
	}))
	t.Cleanup(srv.Close)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	config := "profiles:\n  router:\n    base_url: " + srv.URL + "/v1\n    model: meta-llama/llama-3.1-8b-instruct\n    api_key_env: ROUTER_KEY\n"
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"the profile's key", nil, routerKey},
		{"flag --api-key-env", []string{"--api-key-env", "FLAG_KEY"}, flagKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			auth = nil
			mu.Unlock()
			args := append([]string{"run", "testdata/live/one-question.script.yaml", "--config", cfg, "--profile", "router", "--db", ":memory:"}, tt.args...)
			if r := ctxlabLive(context.Background(), args...); r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(auth) != 1 || auth[0] != "Bearer "+tt.want {
				t.Errorf("the server got Authorization %q, want the key %s", auth, tt.want[:9])
			}
		})
	}
}

// TestRunTimeouts checks that the timeouts set by flag or config profile reach the client.
func TestRunTimeouts(t *testing.T) {
	liveEnv(t)
	tests := []struct {
		name    string
		profile string // the config profile's timeout lines
		args    []string
		stream  bool // the server streams a token, then hangs; else it hangs before any
		want    string
	}{
		{"first token, by flag", "", []string{"--first-token-timeout", "150ms"}, false, "model: no first token after 150ms from URL"},
		{"first token, by profile", "    first_token_timeout: 150ms\n", nil, false, "model: no first token after 150ms from URL"},
		{"the flag over the profile", "    first_token_timeout: 1h\n", []string{"--first-token-timeout", "200ms"}, false, "model: no first token after 200ms from URL"},
		{"idle, by profile", "    idle_timeout: 150ms\n", nil, true, "model: stream stalled: no data for 150ms from URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, done <-chan struct{}) {
				sseStart(w)
				if tt.stream {
					sseLine(w, sseText("Hello ", ""))
				}
				waitGone(r, done)
			})
			cfg := filepath.Join(t.TempDir(), "config.yaml")
			config := "profiles:\n  p:\n    base_url: " + s.url + "\n" + tt.profile
			if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"run", "testdata/live/one-question.script.yaml", "--config", cfg, "--db", ":memory:"}, tt.args...)
			r := ctxlabLive(context.Background(), args...)
			if want := strings.ReplaceAll(tt.want, "URL", s.url); r.code != 1 || !strings.Contains(r.stderr, want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
			}
		})
	}
}
