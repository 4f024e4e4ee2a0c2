package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	dec "github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/llm/tokens"
)

// benchVocab is the vocabulary of generated topics, classifier items and messages.
func benchVocab() []string {
	v := make([]string, 300)
	for i := range v {
		v[i] = fmt.Sprintf("w%03dterm", i)
	}
	return append(v, "the", "a", "of", "and", "deploy", "error", "database", "password", "release", "query")
}

func benchWords(r *rand.Rand, vocab []string, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = vocab[r.IntN(len(vocab))]
	}
	return strings.Join(ws, " ")
}

// yq quotes a YAML scalar (a JSON string is a valid YAML double-quoted scalar).
func yq(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// benchContext generates a context file with 200 reminders of every predicate kind (20
// of them contentMatches over 50-topic corpora), every placement and text source, tiers,
// caps, spacing and a budget, plus modes and instructions.
func benchContext() string {
	r := rand.New(rand.NewPCG(7, 11))
	vocab := benchVocab()
	var b strings.Builder
	b.WriteString("version: 1\nreminder_budget_tokens: 1500\nmodel: {name: gpt-4o-mini, temperature: 0.2}\n")
	b.WriteString("system:\n  - role: You are a careful data analyst.\n  - hint: Keep answers short.\n")
	b.WriteString("  - guardrail: {rule: Never expose PII, reason: Privacy, action: Aggregate}\n")
	b.WriteString("  - workflow: {task: Deploy, steps: [Build, Test, Ship], triggers: [deploy, release]}\n")
	b.WriteString("classifiers:\n  skills:\n")
	for i := range 50 {
		fmt.Fprintf(&b, "    - {name: skill%02d, description: %s}\n", i, yq(benchWords(r, vocab, 12)))
	}
	b.WriteString("modes:\n  - {name: Deploying, if: \"contentIncludes(['deploy', 'release'])\"}\n  - {name: Debugging, if: \"contentPattern(/error/i)\"}\n")
	b.WriteString("instructions:\n")
	for i := range 12 {
		fmt.Fprintf(&b, "  - {id: in%02d, kind: %s, prompt: %s", i, []string{"must", "never", "should"}[i%3], yq("Instruction "+benchWords(r, vocab, 8)))
		switch i % 4 {
		case 1:
			b.WriteString(", mode: Deploying")
		case 2:
			b.WriteString(", mode: Debugging, when: [\"the user is stuck\", \"!the user fixed it\"]")
		case 3:
			b.WriteString(", if: [afterTurn(2), \"not(everyNTurns(5))\"]")
		}
		b.WriteString("}\n")
	}
	b.WriteString("tools:\n")
	for _, name := range []string{"bash", "run_sql", "grep"} {
		fmt.Fprintf(&b, "  - {name: %s, description: Run %s, parameters: {type: object, properties: {q: {type: string}}}, result: ok}\n", name, name)
	}
	var whens []string
	for i := range 20 {
		topics := make([]string, 50)
		for j := range topics {
			topics[j] = "'" + benchWords(r, vocab, 8) + "'"
		}
		whens = append(whens, fmt.Sprintf("contentMatches([%s], threshold=%d)", strings.Join(topics, ", "), 2+i%3))
	}
	base := []string{
		"everyNTurns(3)", "once()", "once('intro')", "firstN(5)", "afterTurn(10)",
		"contentIncludes(['deploy', 'release', 'ship'])", `contentPattern(/err(or)?s?\b/i)`,
		"classifies('skills', topN=3, threshold=3)", "lastAssistantLength(gte=100, lte=2000)",
		"toolCalled('bash')", "toolFailed(/^run_/)", "anyToolCalled()",
		"toolCall(name='run_sql', state='output-error', errorText=/denied/)",
		"toolCall(input=/select/)",
		"toolCallCount('bash', gte=2)", "toolFailedStreak('bash', gte=3)", "toolFailedStreak('grep')",
		"usageExceeds(100000)", "elapsedExceeds(30m)",
		"dayChanged()", "hourChanged(tz='Asia/Tokyo')", "weekChanged()", "monthChanged(tz='Europe/Paris')",
		"yearChanged()", "seasonChanged(hemisphere='south')",
		"withinLastN(5, toolFailed('bash'))", "everyOfLastN(3, lastAssistantLength(gte=10))",
		"and(everyNTurns(2), not(once()), or(contentIncludes(['x']), afterTurn(3)))",
		"or(toolCalled('grep'), withinLastN(10, toolCalled('grep')))",
		"not(and(firstN(2), classifies('skills')))",
	}
	b.WriteString("reminders:\n  - builtin: temporal\n    tz: Europe/Berlin\n  - builtin: locale\n")
	n := 6
	for i := 0; n < 200; i++ {
		when := ""
		if i < len(whens) {
			when = whens[i]
		} else if i%11 != 0 { // some reminders fire every turn
			when = base[i%len(base)]
		}
		fmt.Fprintf(&b, "  - id: r%03d\n", i)
		switch i % 9 {
		case 4:
			b.WriteString("    template: \"Turn {{.Turn}} on {{.Branch}}: {{.MessageCount}} messages, {{.Usage.TotalTokens}} tokens.\"\n")
		case 7:
			b.WriteString("    fragment: {hint: " + yq(benchWords(r, vocab, 10)) + "}\n")
		default:
			fmt.Fprintf(&b, "    text: %s\n", yq("Reminder "+benchWords(r, vocab, 6+i%10)))
		}
		if when != "" {
			fmt.Fprintf(&b, "    when: %s\n", yq(when))
		}
		fmt.Fprintf(&b, "    placement: %s\n", []string{"inline", "inline", "part", "system", "run-start", "inline"}[i%6])
		if i%5 == 0 {
			b.WriteString("    tier: safety\n")
		}
		if i%7 == 3 {
			b.WriteString("    max_per_chat: 3\n")
		}
		if i%6 == 1 {
			b.WriteString("    min_turns_between: 4\n")
		}
		n++
	}
	return b.String()
}

// benchSession builds a chat of turns user turns (2×turns messages) under the generated
// context file, with the real o200k tokenizer, through Send with scripted replies.
func benchSession(tb testing.TB, turns int) (*Session, time.Time) {
	tb.Helper()
	return benchSessionOf(tb, benchContext(), turns)
}

// benchSessionOf is benchSession under the context file src.
func benchSessionOf(tb testing.TB, src string, turns int) (*Session, time.Time) {
	tb.Helper()
	f := parseFile(tb, src)
	if len(f.Reminders) != 200 {
		tb.Fatalf("got %d reminders, want 200", len(f.Reminders))
	}
	ids := &counter{}
	e, err := New(Options{Context: f, Store: NewMemStore(nil), Tokens: tokens.New(tokens.O200k), NewID: ids.next,
		Now: func() time.Time { return t0 }})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	s, err := e.Create(ctx, chat.Chat{ID: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 5))
	vocab := benchVocab()
	when := t0
	for i := range turns {
		when = when.Add(time.Duration(5+r.IntN(60)) * time.Minute)
		text := benchWords(r, vocab, 10+r.IntN(40))
		reply := &Scripted{Text: benchWords(r, vocab, 30+r.IntN(80))}
		for k := range i % 4 {
			t := ScriptedTool{Name: []string{"bash", "run_sql", "grep"}[(i+k)%3], Input: json.RawMessage(`{"q":"select * from t"}`), Output: "ok"}
			if (i+k)%3 == 0 {
				t.Failed, t.Error, t.Output = true, "permission denied", ""
			}
			reply.Tools = append(reply.Tools, t)
		}
		var loc *chat.Locale
		if i%50 == 0 {
			loc = &chat.Locale{Language: "English", TimeZone: []string{"Europe/Berlin", "America/New_York"}[i/50%2]}
		}
		if _, err := s.Send(ctx, UserInput{Text: text, At: when, Locale: loc}, reply); err != nil {
			tb.Fatal(err)
		}
	}
	return s, when
}

// TestBenchFixture checks that the benchmark's context file exercises the pipeline: many
// reminders fire, and most reasons occur.
func TestBenchFixture(t *testing.T) {
	s, when := benchSession(t, 30)
	p := s.Preview(UserInput{Text: "please deploy the release; the last query had errors", At: when.Add(time.Hour)})
	reasons := map[string]int{}
	for _, d := range p.Decisions {
		reasons[d.Reason]++
	}
	for _, want := range []string{ReasonFired, ReasonPredicateFalse, ReasonCapReached, ReasonRateLimited, ReasonDeferredToModel, ReasonBudgetTrimmed} {
		if reasons[want] == 0 {
			t.Errorf("no decision with reason %s: %v", want, reasons)
		}
	}
	if reasons[ReasonFired] < 40 {
		t.Errorf("got %d fired, want a realistic load (>= 40): %v", reasons[ReasonFired], reasons)
	}
	if len(p.Decisions) != 212 {
		t.Errorf("got %d decisions, want 212", len(p.Decisions))
	}
}

// BenchmarkTurn measures steps 1 to 4 of the pipeline (decision pass, policy, render,
// request build: Session.Preview) for a turn on a 1,000-message branch under a context
// file of 200 reminders. Each iteration sends a new text, as a real turn would. It reports
// the median besides the mean, and the median CPU time of the plan on its thread
// (median-cpu-ns/op), which a loaded machine does not inflate.
func BenchmarkTurn(b *testing.B) {
	s, when := benchSession(b, 500)
	if n := len(s.Messages()); n != 1000 {
		b.Fatalf("got %d messages, want 1000", n)
	}
	r := rand.New(rand.NewPCG(9, 9))
	vocab := benchVocab()
	texts := make([]string, 256)
	for i := range texts {
		texts[i] = "please deploy the release; the last query had errors " + benchWords(r, vocab, 20)
	}
	at := when.Add(40 * time.Minute)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var times, cpu []time.Duration
	i := 0
	for b.Loop() {
		start, startCPU := time.Now(), threadCPU()
		p := s.Preview(UserInput{Text: fmt.Sprintf("%s %d", texts[i%len(texts)], i), At: at})
		cpu = append(cpu, threadCPU()-startCPU)
		times = append(times, time.Since(start))
		if p.Request.Len() < 1000 {
			b.Fatalf("got %d request messages", p.Request.Len())
		}
		i++
	}
	slices.Sort(times)
	slices.Sort(cpu)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns/op")
	b.ReportMetric(float64(cpu[len(cpu)/2].Nanoseconds()), "median-cpu-ns/op")
}

// BenchmarkDecisionsJSON measures the encoding of a turn's decisions, which Send does for
// every turn record (see record in send.go), on the BenchmarkTurn workload: the decisions
// of 50 consecutive turns, encoded in turn, by AppendList (list) and by the session's
// Encoder (encoder), which copies the JSON of a decision the turn before made the same
// way. Both give the same bytes.
func BenchmarkDecisionsJSON(b *testing.B) {
	s, when := benchSession(b, 500)
	r := rand.New(rand.NewPCG(9, 9))
	vocab := benchVocab()
	var turns [][]Decision
	for range 50 {
		when = when.Add(7 * time.Minute)
		p := s.plan(UserInput{Text: "please deploy the release; the last query had errors " + benchWords(r, vocab, 20), At: when})
		if _, err := s.finish(context.Background(), p, &Scripted{Text: benchWords(r, vocab, 60)}, nil, false, sendOptions(nil)); err != nil {
			b.Fatal(err)
		}
		turns = append(turns, p.Decisions)
	}
	// Each reports the median CPU time of an encoding on its thread (median-cpu-ns/op),
	// which a loaded machine does not inflate.
	encode := map[string]func() func([]Decision) []byte{
		"list": func() func([]Decision) []byte {
			size := 0
			return func(ds []Decision) []byte {
				out := dec.AppendList(make([]byte, 0, size+size/8), ds)
				size = len(out)
				return out
			}
		},
		"encoder": func() func([]Decision) []byte { return new(dec.Encoder).Encode },
	}
	for _, name := range []string{"list", "encoder"} {
		b.Run(name, func(b *testing.B) {
			enc := encode[name]()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu []time.Duration
			size, i := 0, 0
			for b.Loop() {
				ds := turns[i%len(turns)]
				start := threadCPU()
				out := enc(ds)
				cpu = append(cpu, threadCPU()-start)
				if i < len(turns) && string(out) != string(dec.AppendList(nil, ds)) {
					b.Fatalf("turn %d: the JSON differs from AppendList's", i)
				}
				size = len(out)
				i++
			}
			slices.Sort(cpu)
			b.ReportMetric(float64(size), "bytes")
			b.ReportMetric(float64(cpu[len(cpu)/2].Nanoseconds()), "median-cpu-ns/op")
		})
	}
}

// BenchmarkReplayUnrecorded replays a chat with no turn records (as an import of OpenAI
// messages saves it) of 2,000 and 8,000 messages, as recorded and re-evaluated under a
// context file. Each trace carries its whole request, yet the time per message stays
// flat: the requests share the history instead of each copying it.
func BenchmarkReplayUnrecorded(b *testing.B) {
	for _, n := range []int{2000, 8000} {
		h := newHarness(b, replaySrc)
		texts := make([]string, n)
		for i := range texts {
			texts[i] = fmt.Sprintf("message %d about the database error", i)
		}
		h.importChat(texts...)
		for _, reevaluate := range []bool{false, true} {
			b.Run(fmt.Sprintf("messages=%d/reevaluate=%v", n, reevaluate), func(b *testing.B) {
				for b.Loop() {
					turns := 0
					if err := h.eng.Replay(h.ctx, "chat-2", reevaluate, func(*Trace) error {
						turns++
						return nil
					}); err != nil || turns != n/2 {
						b.Fatalf("replayed %d turns (%v), want %d", turns, err, n/2)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/message")
			})
		}
	}
}

// BenchmarkPlanGrowth plans the next turn of a chat of 100 turns and of one of 5,000
// (steps 1 to 4 of the pipeline, under the 200 reminders of BenchmarkTurn), then sends
// it, so that each op appends one turn. Compare median-plan-µs, or median-plan-cpu-µs,
// the CPU time of the plan on its thread, which a loaded machine does not inflate (the
// commit is BenchmarkCommitGrowth's, in package store). placement=inline is the same
// chat with the system and run-start reminders made inline.
//
// Both placements are flat: no request copies the history. A request's messages are its
// own system message, the branch's cached history, shared by every request built on it,
// and its own injected system message and user message (chat.Request's Head, Shared and
// Messages), so neither a system-placement reminder between the history and the user
// message nor a run-start reminder that changes the system prompt costs a copy.
//
//	go test ./engine -run '^$' -bench PlanGrowth -benchtime 300x
func BenchmarkPlanGrowth(b *testing.B) {
	for _, placement := range []string{"all", "inline"} {
		for _, n := range []int{100, 5000} {
			b.Run(fmt.Sprintf("placement=%s/turn=%d", placement, n), func(b *testing.B) {
				src := benchContext()
				if placement == "inline" {
					src = strings.NewReplacer("placement: system", "placement: inline", "placement: run-start", "placement: inline").Replace(src)
				}
				s, when := benchSessionOf(b, src, n)
				r := rand.New(rand.NewPCG(9, 9))
				vocab := benchVocab()
				ctx := context.Background()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var times, cpu []time.Duration
				for b.Loop() {
					when = when.Add(7 * time.Minute)
					in := UserInput{Text: "please deploy the release; the last query had errors " + benchWords(r, vocab, 20), At: when}
					start, startCPU := time.Now(), threadCPU()
					p := s.plan(in)
					cpu = append(cpu, threadCPU()-startCPU)
					times = append(times, time.Since(start))
					if _, err := s.finish(ctx, p, &Scripted{Text: benchWords(r, vocab, 60)}, nil, false, sendOptions(nil)); err != nil {
						b.Fatal(err)
					}
				}
				slices.Sort(times)
				slices.Sort(cpu)
				b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-plan-µs")
				b.ReportMetric(float64(cpu[len(cpu)/2].Nanoseconds())/1e3, "median-plan-cpu-µs")
			})
		}
	}
}
