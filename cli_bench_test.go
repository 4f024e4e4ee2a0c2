package main

// Benchmarks of the issues' speed targets, measured the way a user meets them: whole
// processes for `ctxlab prompt` and `ctxlab replay`, engine.Open and Session.Switch for a
// 10,000-message chat in a file database.
//
//	go test . -run '^$' -bench 'PromptProcess|OpenChat10k|BranchSwitch10k|ReplayProcess1000' -benchtime 10x

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/store"
)

// bigContextFile writes a context file with n reminders over every kind of predicate (a
// tenth of them BM25 classifiers over 50-item corpora), placements, tiers, caps, spacing,
// templates and builtins, plus instructions and modes.
func bigContextFile(tb testing.TB, dir string, n int) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("version: 1\nreminder_budget_tokens: 2000\nmodel: {name: gpt-4o-mini, temperature: 0.2}\n")
	b.WriteString("system:\n  - role: You are a careful data analyst for Acme.\n  - hint: Keep answers short.\n")
	b.WriteString("  - term: {name: MRR, definition: monthly recurring revenue}\n")
	b.WriteString("  - guardrail: {rule: Never expose PII, reason: Privacy, action: Aggregate}\n")
	b.WriteString("  - workflow: {task: Deploy, steps: [Build, Test, Ship], triggers: [deploy, release]}\n")
	topics := []string{"auth login password token session", "database schema table index query", "billing invoice payment refund",
		"deploy release rollout canary pipeline", "metrics dashboard alert latency error"}
	b.WriteString("classifiers:\n")
	for c := range 4 {
		fmt.Fprintf(&b, "  c%d:\n", c)
		for i := range 50 {
			fmt.Fprintf(&b, "    - {name: item-%d-%d, description: %s item number %d of corpus %d}\n", c, i, topics[(i+c)%len(topics)], i, c)
		}
	}
	b.WriteString("modes:\n  - name: Booking\n    if: contentIncludes(['book', 'reserve'])\n")
	b.WriteString("instructions:\n")
	for i := range 20 {
		kind := []string{"must", "never", "should"}[i%3]
		fmt.Fprintf(&b, "  - id: instr-%d\n    kind: %s\n    prompt: Instruction number %d for the analyst.\n", i, kind, i)
		switch i % 4 {
		case 1:
			fmt.Fprintf(&b, "    mode: Booking\n    when: [\"the user compares options\", \"!the user already chose\"]\n")
		case 2:
			fmt.Fprintf(&b, "    if: afterTurn(%d)\n", i%3)
		case 3:
			fmt.Fprintf(&b, "    if: [\"classifies('c%d', topN=1, threshold=0.5)\", \"firstN(10)\"]\n", i%4)
		}
	}
	preds := []string{
		"everyNTurns(%d)", "once('latch-%d')", "firstN(%d)", "afterTurn(%d)",
		"contentIncludes(['error', 'fail', 'word%d'])", "contentPattern(/slow|timeout|w%d/i)",
		"contentMatches(['database schema', 'billing refund %d'], threshold=0.2)",
		"lastAssistantLength(gte=%d)", "toolCalled('run_sql')", "toolFailed('run_sql')", "anyToolCalled()",
		"toolCall(name='run_sql', input=/select %d/)", "toolCallCount('run_sql', gte=%d)",
		"toolFailedStreak('run_sql', gte=2)", "usageExceeds(%d000)", "elapsedExceeds(%dh)",
		"dayChanged(tz='Asia/Tokyo')", "hourChanged()", "weekChanged()", "monthChanged()", "yearChanged()",
		"seasonChanged(hemisphere='south')", "withinLastN(3, toolFailed('run_sql'))",
		"everyOfLastN(2, anyToolCalled())", "and(afterTurn(1), or(contentIncludes(['x%d']), not(once())))",
	}
	b.WriteString("reminders:\n")
	for i := range n {
		id := fmt.Sprintf("r-%03d", i)
		var when string
		if i%10 == 0 {
			when = fmt.Sprintf("classifies('c%d', topN=3, threshold=0.1)", (i/10)%4)
		} else {
			p := preds[i%len(preds)]
			if strings.Contains(p, "%d") {
				p = fmt.Sprintf(p, i%7+1)
			}
			when = p
		}
		fmt.Fprintf(&b, "  - id: %s\n    when: %q\n", id, when)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "    template: \"Turn {{.Turn}} on {{.Branch}}: reminder %d.\"\n", i)
		case 1:
			fmt.Fprintf(&b, "    fragment: {hint: Reminder %d as a fragment.}\n", i)
		default:
			fmt.Fprintf(&b, "    text: Reminder number %d, a sentence of ordinary length for the model.\n", i)
		}
		fmt.Fprintf(&b, "    placement: %s\n", []string{"inline", "part", "system", "run-start"}[i%4])
		if i%9 == 0 {
			b.WriteString("    tier: safety\n")
		}
		if i%6 == 0 {
			b.WriteString("    max_per_chat: 3\n    min_turns_between: 2\n")
		}
	}
	b.WriteString("  - builtin: temporal\n  - builtin: locale\n")
	b.WriteString("tools:\n  - name: run_sql\n    description: Run a read-only SQL query\n" +
		"    parameters: {type: object, properties: {query: {type: string}}, required: [query]}\n    result: '[]'\n")
	path := filepath.Join(dir, "big.ctx.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

func BenchmarkPromptProcess(b *testing.B) {
	bin := buildCtxlab(b)
	env := ctxlabProcessEnv(b)
	file := bigContextFile(b, b.TempDir(), 200)
	// The file must be valid, and the run must print a prompt.
	check := exec.Command(bin, "prompt", "--context", file, "--user", "my slow query fails with an error", "--json")
	check.Env = env
	out, err := check.Output()
	var tr struct {
		Decisions []json.RawMessage `json:"decisions"`
	}
	if err != nil || json.Unmarshal(out, &tr) != nil || len(tr.Decisions) < 200 {
		b.Fatalf("prompt on the generated file: %v, %d decisions\n%s", err, len(tr.Decisions), clip(string(out), 500))
	}
	for b.Loop() {
		cmd := exec.Command(bin, "prompt", "--context", file, "--user", "my slow query fails with an error")
		cmd.Env = env
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// bigChatExport is a chat whose main branch has n messages (n/2 turns, a tool call every
// fifth reply, reminders baked into the user messages) and two branches as long as main,
// forked after message forkLate and after message forkEarly. Turn numbers are set by
// fixTurnNumbers.
func bigChatExport(id string, n, forkLate, forkEarly int) format.Export {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := format.NewExport(chat.Archive{Chat: chat.Chat{ID: id, Title: "A long chat", ActiveBranch: "main", CreatedAt: at, UpdatedAt: at}})
	decisions, _ := json.Marshal([]map[string]any{
		{"id": "concise", "source": "reminder", "fired": true, "reason": "fired", "placement": "inline", "tier": "guidance",
			"text": "Stay concise.", "tokens": 4, "trace": map[string]any{"expr": "everyNTurns(3)", "value": true, "why": "turn 3 % 3 == 0"}},
		{"id": "sql-safety", "source": "reminder", "fired": false, "reason": "predicate_false", "placement": "part", "tier": "safety",
			"trace": map[string]any{"expr": "contentIncludes(['error'])", "value": false, "why": "none of 1 keywords in content"}},
		{"id": "future-dates", "source": "instruction", "kind": "must", "scope": "Always", "fired": true, "reason": "fired",
			"text": "Validate dates are in the future before booking."},
	})
	const reminder = "<system-reminder>Stay concise.</system-reminder>"
	user := "Please look at the customers table again and tell me how many signed up this week, by plan."
	// Replies as models write them: lines and quotes (escaped in the stored JSON).
	reply := strings.Repeat("Here is what the query returned, with a \"short\" explanation of each figure:\n\n", 4)
	turn := 0 // numbers ids across branches
	addTurns := func(branch, parent string, count int) string {
		for i := 0; i < count; i += 2 {
			turn++
			t := at.Add(time.Duration(turn) * time.Minute)
			u := chat.Message{ID: fmt.Sprintf("%s-u%d", branch, turn), ParentID: parent, Role: chat.RoleUser,
				Parts: []chat.Part{chat.TextPart(user + reminder)}, CreatedAt: t,
				Reminders: []chat.ReminderSpan{{ID: "concise", Part: 0, Start: len(user), End: len(user) + len(reminder), Mode: chat.SpanInline}}}
			a := chat.Message{ID: fmt.Sprintf("%s-a%d", branch, turn), ParentID: u.ID, Role: chat.RoleAssistant, CreatedAt: t.Add(time.Second)}
			if turn%5 == 0 {
				a.Parts = append(a.Parts, chat.Part{Type: chat.PartTool, ToolCallID: fmt.Sprintf("call_%012d", turn), ToolName: "run_sql",
					State: chat.ToolOutputAvailable, Input: json.RawMessage(`{"query":"select count(*) from customers"}`), Output: `[{"count": 42}]`})
			}
			a.Parts = append(a.Parts, chat.TextPart(reply))
			e.Messages = append(e.Messages, u, a)
			e.Turns = append(e.Turns, chat.Turn{ID: fmt.Sprintf("%s-t%d", branch, turn), ChatID: id, Branch: branch, Number: 1,
				UserMessageID: u.ID, AssistantMessageID: a.ID, At: t,
				Request:   chat.SentRequest{Model: "gpt-4o-mini", SystemPrompt: strings.Repeat("<hint>Keep answers short.</hint>\n", 30)},
				Fired:     []chat.Fired{{ID: "concise"}, {ID: "intro", Latches: []string{"intro"}}},
				Decisions: decisions, Estimated: chat.Usage{PromptTokens: 900, CompletionTokens: 60, TotalTokens: 960}})
			parent = a.ID
		}
		return parent
	}
	mainHead := addTurns("main", "", n)
	e.Branches = []chat.Branch{{Name: "main", Head: mainHead, CreatedAt: at}}
	for _, fork := range []int{forkLate, forkEarly} {
		name := fmt.Sprintf("fork-%d", fork)
		head := addTurns(name, e.Messages[fork-1].ID, n-fork)
		e.Branches = append(e.Branches, chat.Branch{Name: name, Head: head, Parent: "main", CreatedAt: at})
	}
	fixTurnNumbers(&e)
	return e
}

// openBigChat imports a 10,000-message chat into a new file database and returns the
// database (reopened, as a new process would find it) and an engine over it.
func openBigChat(b *testing.B) (*store.DB, *engine.Engine) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "ctxlab.db")
	db, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	exp := bigChatExport("big-1", 10_000, 9_000, 100)
	if err := format.ImportChat(context.Background(), db, exp); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if db, err = store.Open(path); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	file, err := ctxfile.Load("testdata/demo/support.ctx.yaml")
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Context: file, Store: db})
	if err != nil {
		b.Fatal(err)
	}
	return db, eng
}

// fixTurnNumbers numbers each turn by the position of its user message on its branch
// (messages come parents first).
func fixTurnNumbers(e *format.Export) {
	users := make(map[string]int, len(e.Messages))
	for _, m := range e.Messages {
		n := users[m.ParentID]
		if m.Role == chat.RoleUser {
			n++
		}
		users[m.ID] = n
	}
	for i := range e.Turns {
		e.Turns[i].Number = users[e.Turns[i].UserMessageID]
	}
}

func BenchmarkOpenChat10k(b *testing.B) {
	_, eng := openBigChat(b)
	ctx := context.Background()
	s, err := eng.Open(ctx, "big-1")
	if err != nil {
		b.Fatal(err)
	}
	if got := len(s.Messages()); got != 10_000 {
		b.Fatalf("the active branch has %d messages, want 10000", got)
	}
	for b.Loop() {
		if _, err := eng.Open(ctx, "big-1"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBranchSwitch10k(b *testing.B) {
	_, eng := openBigChat(b)
	ctx := context.Background()
	for _, fork := range []string{"fork-9000", "fork-100"} {
		b.Run(fork, func(b *testing.B) {
			s, err := eng.Open(ctx, "big-1")
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Switch(ctx, fork); err != nil {
				b.Fatal(err)
			}
			if got := len(s.Messages()); got != 10_000 {
				b.Fatalf("branch %s has %d messages, want 10000", fork, got)
			}
			for b.Loop() { // each op switches: to main, back to the fork, …
				to := fork
				if s.Branch() == fork {
					to = "main"
				}
				if err := s.Switch(ctx, to); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The first switch to a branch the session has not visited reads what differs.
		b.Run("first-visit-"+fork, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := eng.Open(ctx, "big-1")
				if err != nil {
					b.Fatal(err)
				}
				if s.Branch() != "main" {
					if err := s.Switch(ctx, "main"); err != nil {
						b.Fatal(err)
					}
					if s, err = eng.Open(ctx, "big-1"); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if err := s.Switch(ctx, fork); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s, err := eng.Open(ctx, "big-1")
			if err == nil {
				err = s.Switch(ctx, "main")
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// recordChat plays n scripted turns through the engine into a file database: a chat with
// real requests and decisions, as `ctxlab run` records them.
func recordChat(b *testing.B, path, id string, n int) {
	b.Helper()
	db, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	file, err := ctxfile.Load("testdata/demo/support.ctx.yaml")
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Context: file, Store: db})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s, err := eng.Create(ctx, chat.Chat{ID: id, Title: "Replay benchmark"})
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 3, 27, 8, 0, 0, 0, time.UTC)
	users := []string{"how many customers signed up this week?", "run the report on the database schema please",
		"why did the query fail with an error?", "my slow query needs tuning", "what is our MRR by plan?"}
	for i := range n {
		at = at.Add(17 * time.Minute)
		rep := &engine.Scripted{Text: fmt.Sprintf("Reply %d: here are the figures you asked for.", i+1)}
		if i%5 == 1 {
			rep.Tools = []engine.ScriptedTool{
				{Name: "run_sql", Input: json.RawMessage(`{"query":"select * from secrets"}`), Error: "permission denied", Failed: true},
				{Name: "run_sql", Input: json.RawMessage(`{"query":"select count(*) from customers"}`), Output: `[{"n": 2}]`},
			}
		}
		if _, err := s.Send(ctx, engine.UserInput{Text: users[i%len(users)], At: at}, rep); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayProcess1000 replays a 1,000-turn chat under an edited context file, whole
// process, output to /dev/null: as JSON traces (each carries its whole request, so the
// output grows with the square of the chat: about 190 MB here), as JSON traces with
// --request new (each request what is new since the line before: the output grows with
// the chat) and as the human summary. It reports the bytes written per turn.
func BenchmarkReplayProcess1000(b *testing.B) {
	bin := buildCtxlab(b)
	env := ctxlabProcessEnv(b)
	db := filepath.Join(b.TempDir(), "ctxlab.db")
	recordChat(b, db, "replay-1000", 1000)
	args := []string{"replay", "replay-1000", "--db", db, "--context", "testdata/demo/support-edited.ctx.yaml"}
	cmd := exec.Command(bin, append(args, "--json")...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("replay: %v", err)
	}
	if got := strings.Count(string(out), "\n"); got != 1000 {
		b.Fatalf("replay printed %d turns, want 1000", got)
	}
	for _, bb := range []struct {
		name string
		args []string
	}{{"json", append(args, "--json")}, {"json-new", append(args, "--json", "--request", "new")}, {"human", args}} {
		b.Run(bb.name, func(b *testing.B) {
			cmd := exec.Command(bin, bb.args...)
			cmd.Env = env
			out, err := cmd.Output()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				cmd := exec.Command(bin, bb.args...) // stdout: /dev/null
				cmd.Env = env
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out))/1000, "B/turn")
		})
	}
}
