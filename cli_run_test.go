package main

// End-to-end tests of the headless commands `run`, `prompt` and `replay`, through run(), the
// testable entry point of the binary: golden JSON traces of the example scripts, exit codes
// and error messages, and replay never writing. Regenerate the goldens with
//
//	go test . -run 'Test(Run|Prompt|Replay)' -update

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/store"
)

func init() {
	// The flag is shared with the other golden tests of the package; whoever comes first
	// defines it.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files")
	}
}

// updatingGoldens reports whether -update was given.
func updatingGoldens() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// cliResult is what one command printed and returned.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runCtxlab runs the command line in process, as the binary would.
func runCtxlab(tb testing.TB, args ...string) cliResult {
	tb.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return cliResult{code: code, stdout: out.String(), stderr: errb.String()}
}

// mustRunCtxlab runs the command line and fails the test unless it exits 0.
func mustRunCtxlab(tb testing.TB, args ...string) string {
	tb.Helper()
	r := runCtxlab(tb, args...)
	if r.code != 0 {
		tb.Fatalf("ctxlab %s: exit %d, want 0; stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

// isolateCtxlabEnv makes the test independent of the machine: no OPENAI_* variables, an
// empty config file, and a home, config and data directory of its own, so that no test
// ever reads the user's config or writes the user's database.
func isolateCtxlabEnv(t *testing.T) {
	t.Helper()
	for k, v := range ctxlabTestEnv(t) {
		t.Setenv(k, v)
	}
}

// ctxlabTestEnv returns the variables isolateCtxlabEnv sets.
func ctxlabTestEnv(tb testing.TB) map[string]string {
	tb.Helper()
	home := tb.TempDir()
	cfg := filepath.Join(home, "empty-config.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		tb.Fatal(err)
	}
	return map[string]string{
		"OPENAI_API_KEY":  "",
		"OPENAI_BASE_URL": "",
		"OPENAI_MODEL":    "",
		"CTXLAB_CONFIG":   cfg,
		"CTXLAB_DB":       "",
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_DATA_HOME":   filepath.Join(home, "data"),
	}
}

var (
	uuidRE   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	callIDRE = regexp.MustCompile(`call_[0-9a-f]{12}`)
)

// normaliseIDs replaces each distinct message id (a UUID) and tool-call id (call_ and 12
// hex digits) with a placeholder numbered in order of first appearance, so that the same id
// gets the same placeholder wherever it appears.
func normaliseIDs(s string) string {
	for _, r := range []struct {
		re   *regexp.Regexp
		name string
	}{{uuidRE, "id"}, {callIDRE, "call"}} {
		seen := map[string]string{}
		s = r.re.ReplaceAllStringFunc(s, func(id string) string {
			p, ok := seen[id]
			if !ok {
				p = fmt.Sprintf("<%s-%d>", r.name, len(seen)+1)
				seen[id] = p
			}
			return p
		})
	}
	return s
}

// checkGolden compares got with testdata/cli/golden/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "cli", "golden", name)
	if updatingGoldens() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g == w {
			continue
		}
		at := 0
		for at < len(g) && at < len(w) && g[at] == w[at] {
			at++
		}
		from := max(0, at-120)
		t.Fatalf("%s differs at line %d, byte %d (go test -update to accept):\ngot:  …%s\nwant: …%s",
			path, i+1, at, clip(g[from:], 400), clip(w[from:], 400))
	}
	t.Fatalf("%s differs (line count: got %d, want %d)", path, len(gl), len(wl))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// traceLine is the part of a JSON trace the structural checks read.
type traceLine struct {
	ChatID             string `json:"chat_id"`
	Turn               int    `json:"turn"`
	Branch             string `json:"branch"`
	UserMessageID      string `json:"user_message_id"`
	AssistantMessageID string `json:"assistant_message_id"`
	SystemPrompt       string `json:"system_prompt"`
	Request            struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	} `json:"request"`
	RawRequest json.RawMessage
	Decisions  []struct {
		ID     string `json:"id"`
		Source string `json:"source"`
		Fired  bool   `json:"fired"`
		Reason string `json:"reason"`
		Was    *struct {
			Fired  bool   `json:"fired"`
			Reason string `json:"reason"`
		} `json:"was"`
	} `json:"decisions"`
	RawDecisions json.RawMessage
	Assistant    *struct {
		Text string `json:"text"`
	} `json:"assistant"`
}

// parseTraces decodes JSON lines and checks what holds for every trace: the system prompt
// is the request's system message, every decision has a known reason, and no key leaks.
func parseTraces(t *testing.T, out string) []traceLine {
	t.Helper()
	var traces []traceLine
	reasons := []string{"fired", "predicate_false", "predicate_error", "disabled", "not_in_mode", "cap_reached",
		"rate_limited", "budget_trimmed", "empty_text", "deferred_to_model"}
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var tr traceLine
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatalf("line %d is not a JSON trace: %v\n%s", i+1, err, clip(line, 300))
		}
		var raw struct {
			Request   json.RawMessage `json:"request"`
			Decisions json.RawMessage `json:"decisions"`
		}
		_ = json.Unmarshal([]byte(line), &raw)
		tr.RawRequest, tr.RawDecisions = raw.Request, raw.Decisions
		if tr.SystemPrompt != "" {
			var sys string
			if len(tr.Request.Messages) == 0 || tr.Request.Messages[0].Role != "system" ||
				json.Unmarshal(tr.Request.Messages[0].Content, &sys) != nil || sys != tr.SystemPrompt {
				t.Errorf("line %d: system_prompt is not the content of the request's first (system) message", i+1)
			}
		}
		if n := len(tr.Request.Messages); n == 0 || tr.Request.Messages[n-1].Role != "user" {
			t.Errorf("line %d: the request does not end with the user message", i+1)
		}
		for _, d := range tr.Decisions {
			if !slices.Contains(reasons, d.Reason) {
				t.Errorf("line %d: decision %s has reason %q, want one of %v", i+1, d.ID, d.Reason, reasons)
			}
			fired := d.Reason == "fired" || d.Reason == "deferred_to_model"
			if d.Fired != fired {
				t.Errorf("line %d: decision %s: fired %v with reason %s", i+1, d.ID, d.Fired, d.Reason)
			}
		}
		if strings.Contains(strings.ToLower(line), "api_key") || strings.Contains(line, "Bearer") {
			t.Errorf("line %d: the trace mentions an API key", i+1)
		}
		traces = append(traces, tr)
	}
	return traces
}

// turnSteps counts the steps of a script that print a trace (user, edit, regenerate).
func turnSteps(t *testing.T, script string) int {
	t.Helper()
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	return len(regexp.MustCompile(`(?m)^\s*- (\{\s*)?(user|edit|regenerate):`).FindAll(b, -1))
}

func TestRunGoldenTraces(t *testing.T) {
	isolateCtxlabEnv(t)
	tests := []struct {
		name   string
		script string
		runs   int // runs of the script on the same database
	}{
		{"support", "testdata/demo/support.script.yaml", 1},
		{"branching", "testdata/demo/branching.script.yaml", 1},
		{"placements", "testdata/cli/placements.script.yaml", 1},
		{"policy", "testdata/cli/policy.script.yaml", 1},
		{"temporal", "testdata/cli/temporal.script.yaml", 1},
		{"tools", "testdata/cli/tools.script.yaml", 1},
		{"latch", "testdata/cli/latch.script.yaml", 2},
		{"branches", "testdata/cli/branches.script.yaml", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			var out strings.Builder
			for range tt.runs {
				out.WriteString(mustRunCtxlab(t, "run", tt.script, "--db", db, "--json"))
			}
			traces := parseTraces(t, out.String())
			if got, want := len(traces), tt.runs*turnSteps(t, tt.script); got != want {
				t.Errorf("got %d trace lines, want %d (one per user, edit and regenerate step)", got, want)
			}
			checkGolden(t, tt.name+".jsonl", normaliseIDs(out.String()))
		})
	}
}

func TestRunHumanGolden(t *testing.T) {
	isolateCtxlabEnv(t)
	for _, name := range []string{"support", "branching"} {
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			out := mustRunCtxlab(t, "run", "testdata/demo/"+name+".script.yaml", "--db", db)
			if uuidRE.MatchString(out) {
				t.Errorf("the human output shows a message id:\n%s", out)
			}
			checkGolden(t, name+".txt", strings.ReplaceAll(out, db, "DB"))
		})
	}
}

func TestPromptGolden(t *testing.T) {
	isolateCtxlabEnv(t)
	args := []string{"prompt", "--context", "testdata/demo/support.ctx.yaml",
		"--user", "why did my slow query fail with an error?", "--at", "2026-03-27T14:30:00Z"}
	checkGolden(t, "prompt.txt", mustRunCtxlab(t, args...))

	js := mustRunCtxlab(t, append(args, "--json")...)
	traces := parseTraces(t, js)
	if len(traces) != 1 {
		t.Fatalf("prompt --json printed %d traces, want 1", len(traces))
	}
	tr := traces[0]
	if tr.Turn != 1 || tr.Assistant != nil || tr.UserMessageID == "" {
		t.Errorf("prompt trace: got turn %d, assistant %v, user id %q; want turn 1, no assistant, a user id",
			tr.Turn, tr.Assistant != nil, tr.UserMessageID)
	}
	if got := len(tr.Decisions); got != 10 {
		t.Errorf("prompt trace has %d decisions, want 10 (7 reminders, 3 instructions)", got)
	}
	checkGolden(t, "prompt.jsonl", normaliseIDs(js))
}

func TestRunContinuesChatAcrossRuns(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	first := parseTraces(t, mustRunCtxlab(t, "run", "testdata/cli/latch.script.yaml", "--db", db, "--json"))
	second := parseTraces(t, mustRunCtxlab(t, "run", "testdata/cli/latch.script.yaml", "--db", db, "--json"))
	if len(first) != 2 || len(second) != 2 {
		t.Fatalf("got %d and %d traces, want 2 and 2", len(first), len(second))
	}
	reason := func(tr traceLine, id string) string {
		for _, d := range tr.Decisions {
			if d.ID == id {
				return d.Reason
			}
		}
		return "(missing)"
	}
	tests := []struct {
		tr         traceLine
		turn       int
		intro      string
		capped     string
		spaced     string
		firstError string
	}{
		{first[0], 1, "fired", "fired", "fired", "predicate_false"},
		{first[1], 2, "predicate_false", "fired", "rate_limited", "fired"},
		{second[0], 3, "predicate_false", "cap_reached", "rate_limited", "predicate_false"},
		{second[1], 4, "predicate_false", "cap_reached", "fired", "predicate_false"},
	}
	for _, tt := range tests {
		if tt.tr.Turn != tt.turn || tt.tr.ChatID != "latch-1" || tt.tr.Branch != "main" {
			t.Errorf("got turn %d of %s on %s, want turn %d of latch-1 on main", tt.tr.Turn, tt.tr.ChatID, tt.tr.Branch, tt.turn)
		}
		for id, want := range map[string]string{"intro": tt.intro, "capped": tt.capped, "spaced": tt.spaced, "first-error": tt.firstError} {
			if got := reason(tt.tr, id); got != want {
				t.Errorf("turn %d: %s: got %s, want %s", tt.turn, id, got, want)
			}
		}
	}
	// The second run's first request carries the first run's history.
	if got := len(second[0].Request.Messages); got != 1+4+1 {
		t.Errorf("turn 3 sends %d messages, want 6 (system, 2 saved turns, the new user message)", got)
	}
}

func TestRunRegenerateRepeatsTheTurn(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	traces := parseTraces(t, mustRunCtxlab(t, "run", "testdata/demo/branching.script.yaml", "--db", db, "--json"))
	// Steps: 3 turns, the edit (index 3), the regenerate (index 4), one turn.
	if len(traces) != 6 {
		t.Fatalf("got %d traces, want 6", len(traces))
	}
	edit, regen := traces[3], traces[4]
	if edit.Branch != "main-v2" || regen.Branch != "main-v2-v2" {
		t.Errorf("branches: got %s and %s, want main-v2 and main-v2-v2", edit.Branch, regen.Branch)
	}
	if regen.Turn != edit.Turn || regen.UserMessageID != edit.UserMessageID {
		t.Errorf("regenerate: got turn %d user %s, want turn %d user %s", regen.Turn, regen.UserMessageID, edit.Turn, edit.UserMessageID)
	}
	if !bytes.Equal(regen.RawRequest, edit.RawRequest) {
		t.Errorf("regenerate sent another request:\ngot  %s\nwant %s", clip(string(regen.RawRequest), 300), clip(string(edit.RawRequest), 300))
	}
	if !bytes.Equal(regen.RawDecisions, edit.RawDecisions) {
		t.Errorf("regenerate has other decisions")
	}
	if regen.AssistantMessageID == edit.AssistantMessageID || regen.Assistant == nil || regen.Assistant.Text != "Welcome back!" {
		t.Errorf("regenerate: want a new assistant message with the scripted text")
	}
}

// chatsOf returns the export of every chat of a database file, as JSON, by chat id (nil
// when the file does not exist).
func chatsOf(tb testing.TB, path string) map[string]string {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := store.Open(path)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	defer db.Close()
	list, err := db.ListChats(context.Background(), store.ListOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list {
		e, err := db.ExportChat(context.Background(), c.ID)
		if err != nil {
			tb.Fatal(err)
		}
		var b bytes.Buffer
		if err := format.NewExport(e).Encode(&b); err != nil {
			tb.Fatal(err)
		}
		out[c.ID] = b.String()
	}
	return out
}

// fileSum returns the SHA-256 of a file ("" if it does not exist).
func fileSum(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		tb.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// settle opens and closes a database, so its WAL is checkpointed into the file and the
// file's bytes say everything.
func settle(tb testing.TB, path string) {
	tb.Helper()
	db, err := store.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		tb.Fatalf("%s-wal is still there after closing the database", path)
	}
}

var diagLineRE = regexp.MustCompile(`^[^:\s]+:\d+:\d+: \S`)

func TestRunInvalidInput(t *testing.T) {
	isolateCtxlabEnv(t)
	const dir = "testdata/cli/errors/"
	tests := []struct {
		name   string
		args   []string
		stderr []string // substrings of stderr
	}{
		{"bad context file", []string{"run", dir + "bad-context.script.yaml"},
			[]string{dir + "bad.ctx.yaml:6:5: ", dir + "bad.ctx.yaml:7:5: ", dir + "bad.ctx.yaml:9:11: ", "did you mean everyNTurns"}},
		{"missing context file", []string{"run", dir + "missing-context.script.yaml"},
			[]string{dir + "missing-context.script.yaml:2:10: context: " + dir + "no-such.ctx.yaml: no such file"}},
		{"context flag overrides", []string{"run", "testdata/cli/latch.script.yaml", "--context", dir + "bad.ctx.yaml"},
			[]string{dir + "bad.ctx.yaml:7:5: "}},
		{"unknown key in script", []string{"run", dir + "bad-key.script.yaml"},
			[]string{dir + "bad-key.script.yaml:6:5: ", "assistent", "did you mean assistant"}},
		{"tool without outcome", []string{"run", dir + "tool-no-outcome.script.yaml"},
			[]string{dir + "tool-no-outcome.script.yaml:9:11: ", "needs an output or an error"}},
		{"no model configured", []string{"run", dir + "no-model.script.yaml"},
			[]string{dir + "no-model.script.yaml:8:5: ", "no model is configured"}},
		{"undeclared tool", []string{"run", dir + "undeclared-tool.script.yaml"},
			[]string{dir + "undeclared-tool.script.yaml:12:11: ", `"run_sqll"`, "did you mean run_sql"}},
		{"unknown checkpoint", []string{"run", dir + "unknown-checkpoint.script.yaml"},
			[]string{dir + "unknown-checkpoint.script.yaml:11:5: ", `"before-choice"`}},
		{"edit a turn that does not exist", []string{"run", dir + "edit-missing.script.yaml"},
			[]string{dir + "edit-missing.script.yaml:12:5: ", "turn 3 does not exist"}},
		{"rewind a turn that does not exist", []string{"run", dir + "rewind-missing.script.yaml"},
			[]string{dir + "rewind-missing.script.yaml:8:5: ", "turn 2 does not exist"}},
		{"switch to an unknown branch", []string{"run", dir + "switch-unknown.script.yaml"},
			[]string{dir + "switch-unknown.script.yaml:9:5: ", `"main-v9"`}},
		{"prompt with a bad context file", []string{"prompt", "--context", dir + "bad.ctx.yaml"},
			[]string{dir + "bad.ctx.yaml:7:5: "}},
		{"replay under a bad context file", []string{"replay", "demo-1", "--context", dir + "bad.ctx.yaml"},
			[]string{dir + "bad.ctx.yaml:7:5: "}},
	}
	var golden strings.Builder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			r := runCtxlab(t, append(tt.args, "--db", db)...)
			fmt.Fprintf(&golden, "== %s\n$ ctxlab %s\nexit %d\n%s\n", tt.name, strings.Join(tt.args, " "), r.code, r.stderr)
			if r.code != 2 {
				t.Errorf("exit code: got %d, want 2; stderr:\n%s", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", r.stdout)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not contain %q:\n%s", want, r.stderr)
				}
			}
			for _, line := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
				if !diagLineRE.MatchString(line) {
					t.Errorf("stderr line %q is not FILE:LINE:COL: message", line)
				}
			}
			if chats := chatsOf(t, db); len(chats) != 0 {
				t.Errorf("the database holds %d chats after invalid input, want none", len(chats))
			}
		})
	}
	checkGolden(t, "errors.txt", golden.String())
}

func TestRunInvalidInputLeavesExistingChat(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	mustRunCtxlab(t, "run", "testdata/demo/branching.script.yaml", "--db", db)
	settle(t, db)
	before, sum := chatsOf(t, db), fileSum(t, db)
	// Valid turns on the existing chat, then a step the dry run cannot do.
	for _, script := range []string{"continue-unknown-checkpoint.script.yaml", "continue-edit-missing.script.yaml"} {
		r := runCtxlab(t, "run", "testdata/cli/errors/"+script, "--db", db)
		if r.code != 2 || !diagLineRE.MatchString(r.stderr) {
			t.Errorf("%s: got exit %d, stderr %q; want exit 2 and FILE:LINE:COL: message", script, r.code, r.stderr)
		}
	}
	if after := chatsOf(t, db); !mapsEqual(after, before) {
		t.Errorf("the chat changed after invalid input")
	}
	settle(t, db)
	if got := fileSum(t, db); got != sum {
		t.Errorf("the database file changed after invalid input")
	}
}

// TestRunRefusesNamesTooLong checks that the dry run refuses what the database would: a
// branch name that grows past chat.MaxNameLen with nested regenerates (main-v2-v2-…), and
// a checkpoint name that long, at the step, before anything is written.
func TestRunRefusesNamesTooLong(t *testing.T) {
	isolateCtxlabEnv(t)
	ctxFile, err := filepath.Abs("testdata/cli/latch.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("context: %q\nturns:\n  - user: hi\n    at: 2026-02-01T10:00:00Z\n    assistant: A\n", ctxFile)
	const headLines = 5 // the steps start on line 6
	// Each regenerate makes a branch from the last: "main" plus "-v2" per level.
	levels := (chat.MaxNameLen-len("main"))/len("-v2") + 1
	regenerates := strings.Repeat("  - regenerate: {assistant: R}\n", levels)
	for _, tt := range []struct{ name, script, want string }{
		{"nested regenerates", head + regenerates,
			fmt.Sprintf(":%d:5: regenerate: save turn: chat ", headLines+levels)},
		{"checkpoint", head + "  - checkpoint: " + strings.Repeat("c", chat.MaxNameLen+1) + "\n",
			fmt.Sprintf(":%d:5: checkpoint: checkpoint name ", headLines+1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "long.script.yaml")
			if err := os.WriteFile(path, []byte(tt.script), 0o644); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, "ctxlab.db")
			r := runCtxlab(t, "run", path, "--db", db)
			if r.code != 2 || !strings.HasPrefix(r.stderr, path+tt.want) || !strings.Contains(r.stderr, fmt.Sprintf("longer than %d bytes", chat.MaxNameLen)) {
				t.Errorf("got exit %d, stderr %s; want exit 2 and %s…: longer than %d bytes", r.code, clip(r.stderr, 300), path+tt.want, chat.MaxNameLen)
			}
			if chats := chatsOf(t, db); len(chats) != 0 {
				t.Errorf("the database holds %d chats, want none", len(chats))
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestRunOtherFailures(t *testing.T) {
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	notADB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notADB, []byte(strings.Repeat("not a database\n", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	noteSum := fileSum(t, notADB)
	empty := filepath.Join(dir, "empty.db")
	if d, err := store.Open(empty); err != nil {
		t.Fatal(err)
	} else {
		d.Close()
	}
	missing := filepath.Join(dir, "missing", "x.db")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"replay of an unknown chat", []string{"replay", "no-such-chat", "--db", empty}, `"no-such-chat"`},
		{"replay from a database that does not exist", []string{"replay", "c", "--db", missing}, "no database at " + missing},
		{"export from a database that does not exist", []string{"export", "c", "--db", missing}, "no database at " + missing},
		{"branches of a database that does not exist", []string{"branches", "c", "--db", missing}, "no database at " + missing},
		{"database is a directory", []string{"run", "testdata/cli/latch.script.yaml", "--db", dir}, dir},
		{"database is not a database", []string{"run", "testdata/cli/latch.script.yaml", "--db", notADB}, "not a"},
		{"replay from a file that is not a database", []string{"replay", "latch-1", "--db", notADB}, "not a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCtxlab(t, tt.args...)
			if r.code != 1 {
				t.Errorf("exit code: got %d, want 1; stderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr does not name the problem (%q):\n%s", tt.stderr, r.stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a read-only command created %s: %v", filepath.Dir(missing), err)
	}
	if got := fileSum(t, notADB); got != noteSum {
		t.Errorf("ctxlab changed a file that is not a database")
	}
}

func TestRunModelFailure(t *testing.T) {
	isolateCtxlabEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error": {"message": "invalid api key", "type": "invalid_request_error"}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-0123")
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	r := runCtxlab(t, "run", "testdata/cli/errors/no-model.script.yaml", "--db", db, "--json", "--model", "test-model")
	if r.code != 1 {
		t.Fatalf("exit code: got %d, want 1; stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"401", srv.URL} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not contain %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "sk-test-secret-0123") {
		t.Errorf("the API key was printed")
	}
	// The scripted first turn was saved before the model failed; nothing of the failed
	// turn was.
	traces := parseTraces(t, r.stdout)
	if len(traces) != 1 {
		t.Fatalf("got %d traces, want 1 (the scripted turn)", len(traces))
	}
	chats := chatsOf(t, db)
	var e struct {
		Messages []json.RawMessage `json:"messages"`
		Turns    []json.RawMessage `json:"turns"`
	}
	if err := json.Unmarshal([]byte(chats["no-model"]), &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Messages) != 2 || len(e.Turns) != 1 {
		t.Errorf("saved: got %d messages and %d turns, want 2 and 1", len(e.Messages), len(e.Turns))
	}
}

// replayFixture plays the demo scripts into a database file and settles it.
func replayFixture(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	mustRunCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", db)
	mustRunCtxlab(t, "run", "testdata/demo/branching.script.yaml", "--db", db)
	settle(t, db)
	return db
}

func TestReplayGolden(t *testing.T) {
	isolateCtxlabEnv(t)
	db := replayFixture(t)
	tests := []struct {
		golden string
		args   []string
	}{
		{"replay-branching.txt", []string{"replay", "branching-1", "--db", db}},
		{"replay-branching.jsonl", []string{"replay", "branching-1", "--db", db, "--json"}},
		{"replay-support-edited.txt", []string{"replay", "demo-1", "--db", db, "--context", "testdata/demo/support-edited.ctx.yaml"}},
		{"replay-support-edited.jsonl", []string{"replay", "demo-1", "--db", db, "--context", "testdata/demo/support-edited.ctx.yaml", "--json"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out := mustRunCtxlab(t, tt.args...)
			if strings.HasSuffix(tt.golden, ".jsonl") {
				parseTraces(t, out)
				out = normaliseIDs(out)
			}
			checkGolden(t, tt.golden, out)
		})
	}
}

// TestReplayMatchesRun checks that a replay rebuilds each recorded turn exactly as the run
// printed it, and that --context marks exactly the decisions that changed.
func TestReplayMatchesRun(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	ran := strings.Split(strings.TrimSpace(mustRunCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", db, "--json")), "\n")
	replayed := strings.Split(strings.TrimSpace(mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--json")), "\n")
	if len(replayed) != len(ran) {
		t.Fatalf("replay printed %d turns, want %d", len(replayed), len(ran))
	}
	// The estimate's breakdown by source is not recorded with the turn: the rest is.
	for i := range ran {
		ran[i], replayed[i] = withoutEstimateBySource(t, ran[i]), withoutEstimateBySource(t, replayed[i])
		if replayed[i] != ran[i] {
			t.Errorf("turn %d: the replayed trace differs from the recorded one:\nrun:    %s\nreplay: %s", i+1, clip(ran[i], 300), clip(replayed[i], 300))
		}
	}

	// Under the same file, nothing changed.
	same := parseTraces(t, mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--json", "--context", "testdata/demo/support.ctx.yaml"))
	for _, tr := range same {
		for _, d := range tr.Decisions {
			if d.Was != nil {
				t.Errorf("turn %d: %s is marked changed under the file it was recorded with", tr.Turn, d.ID)
			}
		}
	}
	// Under the edited file, the changes are marked with what was recorded.
	orig := parseTraces(t, strings.Join(ran, "\n"))
	edited := parseTraces(t, mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--json", "--context", "testdata/demo/support-edited.ctx.yaml"))
	changed := 0
	for i, tr := range edited {
		was := map[string]int{}
		for j, d := range orig[i].Decisions {
			was[d.Source+"/"+d.ID] = j
		}
		for _, d := range tr.Decisions {
			j, ok := was[d.Source+"/"+d.ID]
			if !ok {
				t.Fatalf("turn %d: decision %s was not recorded", tr.Turn, d.ID)
			}
			o := orig[i].Decisions[j]
			differs := o.Fired != d.Fired || o.Reason != d.Reason
			switch {
			case differs && d.Was == nil:
				t.Errorf("turn %d: %s changed from %s to %s but has no was", tr.Turn, d.ID, o.Reason, d.Reason)
			case !differs && d.Was != nil:
				t.Errorf("turn %d: %s did not change but has was", tr.Turn, d.ID)
			case differs && (d.Was.Fired != o.Fired || d.Was.Reason != o.Reason):
				t.Errorf("turn %d: %s: was = %+v, want the recorded %v/%s", tr.Turn, d.ID, *d.Was, o.Fired, o.Reason)
			}
			if d.Was != nil {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Errorf("no decision changed under the edited context file")
	}
}

// withoutEstimateBySource returns a JSON trace without usage.estimated.by_source.
func withoutEstimateBySource(t *testing.T, line string) string {
	t.Helper()
	var tr map[string]any
	if err := json.Unmarshal([]byte(line), &tr); err != nil {
		t.Fatal(err)
	}
	if u, ok := tr["usage"].(map[string]any); ok {
		if e, ok := u["estimated"].(map[string]any); ok {
			delete(e, "by_source")
		}
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReplayNeverWrites(t *testing.T) {
	isolateCtxlabEnv(t)
	db := replayFixture(t)
	before, sum := chatsOf(t, db), fileSum(t, db)
	if len(before) != 2 {
		t.Fatalf("fixture: got %d chats, want 2", len(before))
	}
	for _, args := range [][]string{
		{"replay", "demo-1"},
		{"replay", "demo-1", "--json"},
		{"replay", "branching-1", "--context", "testdata/demo/support-edited.ctx.yaml"},
		{"replay", "demo-1", "--context", "testdata/demo/support-edited.ctx.yaml", "--json"},
		{"replay", "branching-1", "--context", "testdata/cli/latch.ctx.yaml", "--json"},
	} {
		mustRunCtxlab(t, append(args, "--db", db)...)
	}
	if got := fileSum(t, db); got != sum {
		t.Errorf("the database file changed during replay")
	}
	if after := chatsOf(t, db); !mapsEqual(after, before) {
		t.Errorf("a chat changed during replay")
	}
}

// TestReplayContextMatchesRun checks that replay --context shows what the new file would
// have sent: turn by turn, the system prompt, the request (earlier turns' reminders as the
// new file injects them), the decisions and the estimate equal those of the same script
// run under the new file.
func TestReplayContextMatchesRun(t *testing.T) {
	isolateCtxlabEnv(t)
	const edited = "testdata/demo/support-edited.ctx.yaml"
	recorded := filepath.Join(t.TempDir(), "recorded.db")
	mustRunCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", recorded)
	want := comparable(t, mustRunCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", ":memory:", "--context", edited, "--json"))
	got := comparable(t, mustRunCtxlab(t, "replay", "demo-1", "--db", recorded, "--context", edited, "--json"))
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("replay printed %d turns, the run %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("turn %d: replay --context differs from a run under the file:\nrun:    %s\nreplay: %s", i+1, clip(want[i], 400), clip(got[i], 400))
		}
	}
}

// comparable keeps what a plan under a context file decides of each JSON trace: system
// prompt, request, decisions (without was) and estimate; ids numbered by appearance.
func comparable(t *testing.T, out string) []string {
	t.Helper()
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(normaliseIDs(out)), "\n") {
		var tr struct {
			SystemPrompt string            `json:"system_prompt"`
			Request      json.RawMessage   `json:"request"`
			Decisions    []json.RawMessage `json:"decisions"`
			Usage        struct {
				Estimated json.RawMessage `json:"estimated"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatal(err)
		}
		for i, d := range tr.Decisions {
			var m map[string]any
			if err := json.Unmarshal(d, &m); err != nil {
				t.Fatal(err)
			}
			delete(m, "was")
			tr.Decisions[i], _ = json.Marshal(m)
		}
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return lines
}

// TestReplayImportedAndRemoved checks replay of a chat imported from OpenAI messages (no
// turn records: each user message and its reply is a turn rebuilt from the messages), and
// that --context lists the recorded decisions the new file no longer has.
func TestReplayImportedAndRemoved(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	id := strings.TrimSpace(mustRunCtxlab(t, "import", "testdata/cli/export-import.openai.json", "--db", db))
	type replayed struct {
		Turn         int    `json:"turn"`
		SystemPrompt string `json:"system_prompt"`
		NotRecorded  bool   `json:"not_recorded"`
		Request      struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		} `json:"request"`
		Decisions []struct {
			ID    string          `json:"id"`
			Fired bool            `json:"fired"`
			Was   json.RawMessage `json:"was"`
		} `json:"decisions"`
		Removed []struct {
			ID, Source string
		} `json:"removed"`
	}
	decode := func(out string) []replayed {
		var list []replayed
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r replayed
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			list = append(list, r)
		}
		return list
	}
	plain := decode(mustRunCtxlab(t, "replay", id, "--db", db, "--json"))
	if len(plain) != 2 {
		t.Fatalf("replayed %d turns of the imported chat, want 2", len(plain))
	}
	for i, r := range plain {
		// system, user (turn 1); system, user, assistant with tool calls, 2 tools, assistant, user (turn 2)
		if wantMsgs := []int{2, 7}[i]; r.Turn != i+1 || !r.NotRecorded || len(r.Decisions) != 0 || len(r.Request.Messages) != wantMsgs ||
			r.SystemPrompt != "You answer questions about orders." {
			t.Errorf("turn %d: got %+v, want turn %d not recorded, no decisions, %d messages, the imported system prompt", i+1, r, i+1, wantMsgs)
		}
	}
	latch := decode(mustRunCtxlab(t, "replay", id, "--db", db, "--json", "--context", "testdata/cli/latch.ctx.yaml"))
	if len(latch) != 2 || len(latch[0].Decisions) == 0 || latch[0].Decisions[0].ID != "intro" || !latch[0].Decisions[0].Fired {
		t.Fatalf("imported chat under latch.ctx.yaml: got %+v, want intro fired on turn 1", latch)
	}
	for _, r := range latch {
		for _, d := range r.Decisions {
			if d.Was != nil {
				t.Errorf("turn %d: %s has was %s, but nothing was recorded to compare with", r.Turn, d.ID, d.Was)
			}
		}
	}
	if out := mustRunCtxlab(t, "replay", id, "--db", db); !strings.Contains(out, "no record (imported)") {
		t.Errorf("the human replay does not say the turns have no record:\n%s", out)
	}

	// The support demo under latch.ctx.yaml: every recorded decision is gone.
	mustRunCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", db)
	recorded := parseTraces(t, mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--json"))
	under := decode(mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--json", "--context", "testdata/cli/latch.ctx.yaml"))
	for i, r := range under {
		var want []string
		for _, d := range recorded[i].Decisions {
			want = append(want, d.Source+"/"+d.ID)
		}
		var got []string
		for _, d := range r.Removed {
			got = append(got, d.Source+"/"+d.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("turn %d: removed %v, want every recorded decision %v", r.Turn, got, want)
		}
	}
	if out := mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--context", "testdata/cli/latch.ctx.yaml"); !strings.Contains(out, "concise: not in the file (was ") {
		t.Errorf("the human replay does not show removed decisions:\n%s", out)
	}
}
