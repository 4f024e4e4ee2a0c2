package ctxfile

import (
	"fmt"
	"strings"
	"testing"
)

// benchFile generates a context file with n reminders mixing every predicate kind, a tenth of
// them contentMatches over 50 topics, templates and builtins.
func benchFile(n int) []byte {
	var b strings.Builder
	b.WriteString("version: 1\nsystem:\n  - role: You are a careful analyst.\n  - skills: ./skills\n")
	b.WriteString("classifiers:\n  topics:\n")
	for i := range 50 {
		fmt.Fprintf(&b, "    - {name: topic%d, description: description of subject %d with words alpha%d beta%d}\n", i, i, i, i%7)
	}
	b.WriteString("tools:\n  - {name: run_sql, result: ok}\n")
	b.WriteString("reminders:\n")
	topics := make([]string, 50)
	for i := range topics {
		topics[i] = fmt.Sprintf("'topic %d about area%d and field%d'", i, i, i%9)
	}
	exprs := []string{
		"everyNTurns(3)", "once()", "once('latch%d')", "firstN(2)", "afterTurn(4)",
		"contentIncludes(['error', 'fail', 'panic'])", "contentPattern(/pass(word)?\\d+/i)",
		"classifies('topics', topN=3, threshold=0.5)", "lastAssistantLength(gte=100, lte=2000)",
		"toolCalled('run_sql')", "toolFailed(/run_.*/)", "anyToolCalled()",
		"toolCall(name='run_sql', state='output-error', errorText=/denied/)",
		"toolCallCount('run_sql', gte=2)", "toolFailedStreak('run_sql', gte=3)", "usageExceeds(10000)",
		"elapsedExceeds(1h30m)", "dayChanged(tz='Europe/Paris')", "hourChanged()", "weekChanged()",
		"monthChanged()", "yearChanged()", "seasonChanged(hemisphere='south')",
		"withinLastN(3, toolFailed('run_sql'))", "everyOfLastN(2, lastAssistantLength(lte=50))",
		"and(everyNTurns(2), not(once()), or(afterTurn(3), contentIncludes(['x'])))",
	}
	builtins := []string{"date", "time", "month", "year", "season", "locale", "skills"}
	matches := 0
	for i := range n {
		switch {
		case i%10 == 9:
			fmt.Fprintf(&b, "  - id: r%d\n    text: Reminder %d.\n    when: contentMatches([%s], threshold=0.5)\n", i, i, strings.Join(topics, ", "))
			matches++
		case i%25 == 3 && i/25 < len(builtins):
			fmt.Fprintf(&b, "  - builtin: %s\n    when: afterTurn(1)\n", builtins[i/25])
		case i%5 == 1:
			fmt.Fprintf(&b, "  - id: r%d\n    template: \"Turn {{.Turn}} on {{.Branch}}: {{.Usage.TotalTokens}} tokens\"\n    when: %s\n    placement: part\n", i, strings.ReplaceAll(exprs[i%len(exprs)], "%d", fmt.Sprint(i)))
		default:
			fmt.Fprintf(&b, "  - id: r%d\n    text: Reminder number %d.\n    when: %s\n    tier: safety\n    max_per_chat: 3\n    min_turns_between: 2\n", i, i, strings.ReplaceAll(exprs[i%len(exprs)], "%d", fmt.Sprint(i)))
		}
	}
	return []byte(b.String())
}

// BenchmarkLoad200 parses and validates a context file with 200 reminders (issue 2: under
// 5 ms).
func BenchmarkLoad200(b *testing.B) {
	data := benchFile(200)
	path := "testdata/spec/bench.ctx.yaml"
	if _, err := Parse(path, data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(path, data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchFileLoads(t *testing.T) {
	f, err := Parse("testdata/spec/bench.ctx.yaml", benchFile(200))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reminders) != 200 {
		t.Errorf("got %d reminders, want 200", len(f.Reminders))
	}
}

// BenchmarkLoad200Fallback is BenchmarkLoad200 on a file yaml.v3 rejects (a `?` ending a
// flow scalar), read by the goccy/go-yaml fallback.
func BenchmarkLoad200Fallback(b *testing.B) {
	data := append(benchFile(200), "  - id: example\n    fragment: {example: {question: What is churn?, answer: Customers lost.}}\n"...)
	path := "testdata/spec/bench.ctx.yaml"
	if _, err := Parse(path, data); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(path, data); err != nil {
			b.Fatal(err)
		}
	}
}
