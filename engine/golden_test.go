package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// goldenFile compares got with testdata/golden/NAME, or rewrites it with -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test ./engine -run %s -update to accept):\n%s", path, t.Name(), firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + itoa(i+1) + ":\n  want: " + string(w) + "\n  got:  " + string(g)
		}
	}
	return ""
}

// encodeTraces writes traces as the headless commands do: no HTML escaping, indented.
func encodeTraces(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// richContext exercises every part of the pipeline.
const richContext = `
version: 1
model: {name: gpt-4o-mini, temperature: 0.2, max_tokens: 1024}
system:
  - role: You are a careful data analyst for Acme.
  - hint: Keep answers under 100 words.
  - term: {name: MRR, definition: monthly recurring revenue}
  - guardrail: {rule: Never expose PII, reason: Privacy compliance, action: Return aggregates instead}
  - skills: ./skills
modes:
  - name: Booking
    if: contentIncludes(['book', 'reserve'])
instructions:
  - id: future-dates
    kind: must
    prompt: Validate dates are in the future before booking.
  - id: compare
    mode: Booking
    prompt: Offer to compare two options before committing.
    when: ["the user is comparing hotel options", "!the user already chose"]
  - id: late
    kind: never
    prompt: Never guess a number.
    if: [afterTurn(1), firstN(3)]
  - id: off
    prompt: Disabled.
    enabled: false
reminders:
  - id: intro
    text: This is the start of the chat.
    placement: run-start
    when: once('intro')
  - id: concise
    text: Stay concise.
    when: everyNTurns(2)
  - id: sql-safety
    fragment: {workflow: {task: Error recovery, steps: [Read the error, Check the schema, Fix the query]}}
    when: and(contentIncludes(['error', 'fail']), not(once()))
    placement: part
    tier: safety
  - id: after-tools
    text: The last reply used tools; check their results.
    when: anyToolCalled()
    placement: system
  - id: long-chat
    template: "This chat has run {{.Turn}} turns on {{.Branch}}; summarise before going on."
    when: usageExceeds(300)
    max_per_chat: 2
    min_turns_between: 2
  - id: never
    text: Never shown.
    enabled: false
  - builtin: date
    tz: Asia/Tokyo
  - builtin: locale
  - builtin: skills
    top_n: 2
tools:
  - name: run_sql
    description: Run a read-only SQL query
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    result: '[{"count": 42}]'
`

// TestGoldenRichScenario records the full traces of a multi-turn chat with branches.
func TestGoldenRichScenario(t *testing.T) {
	h := newHarness(t, richContext)
	tokyo := &chat.Locale{Language: "Japanese", TimeZone: "Asia/Tokyo"}
	var traces []Trace
	add := func(res *TurnResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, res.Trace("chat-1"))
	}
	add(h.s.Send(h.ctx, UserInput{Text: "Hello! I want to book a hotel in Kyoto.", At: t0, Locale: tokyo},
		&Scripted{Text: "Sure. Which dates?", Usage: &chat.Usage{PromptTokens: 120, CompletionTokens: 9, TotalTokens: 129}}))
	add(h.s.Send(h.ctx, UserInput{Text: "Run the bookings report first.", At: t0.Add(time.Hour), Locale: tokyo},
		&Scripted{Text: "Here is the report: 42 bookings.", Tools: []ScriptedTool{
			{Name: "run_sql", Input: json.RawMessage(`{"query":"select count(*) from bookings"}`), Error: "permission denied", Failed: true},
			{Name: "run_sql", Input: json.RawMessage(`{"query":"select count(*) from bookings_v"}`), Output: `[{"count": 42}]`},
		}}))
	add(h.s.Send(h.ctx, UserInput{Text: "The deploy failed with an SQL error & a <timeout>.", At: t0.Add(26 * time.Hour),
		Locale: &chat.Locale{Language: "English", TimeZone: "Europe/London"}},
		&Scripted{Text: "Let us read the error first.", Usage: &chat.Usage{PromptTokens: 400, CompletionTokens: 12, TotalTokens: 412}}))
	add(h.s.Edit(h.ctx, 2, UserInput{Text: "Compare two hotels to book instead.", At: t0.Add(27 * time.Hour)},
		&Scripted{Text: "Hotel A is cheaper; hotel B is closer."}))
	add(h.s.Regenerate(h.ctx, &Scripted{Text: "Hotel B, closer to the station."}, t0.Add(28*time.Hour)))
	if err := h.s.Checkpoint(h.ctx, "choice"); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Switch(h.ctx, "main"); err != nil {
		t.Fatal(err)
	}
	add(h.s.Send(h.ctx, UserInput{Text: "Back on main: what failed?", At: t0.Add(29 * time.Hour)}, &Scripted{Text: "The SQL query."}))
	if err := h.s.Restore(h.ctx, "choice"); err != nil {
		t.Fatal(err)
	}
	add(h.s.Send(h.ctx, UserInput{Text: "Reserve hotel B.", At: t0.Add(30 * time.Hour)}, &Scripted{Text: "Reserved."}))
	goldenFile(t, "rich.json", encodeTraces(t, traces))
}

// TestGoldenPrompt records the trace of a preview on an empty chat (ctxlab prompt).
func TestGoldenPrompt(t *testing.T) {
	h := newHarness(t, richContext)
	p := h.s.Preview(UserInput{Text: "hello", At: t0})
	goldenFile(t, "prompt.json", encodeTraces(t, PlanTrace("chat-1", p)))
}
