package predicates

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// benchWords is a vocabulary for generated topics and content.
func benchWords(r *rand.Rand, vocab []string, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = vocab[r.IntN(len(vocab))]
	}
	return strings.Join(ws, " ")
}

func benchVocab() []string {
	v := make([]string, 400)
	for i := range v {
		v[i] = fmt.Sprintf("w%03dterm", i)
	}
	return append(v, "the", "a", "of", "and", "deploy", "error", "database", "password")
}

// benchSetup returns 200 predicates of every kind and a context with the replies of a
// 1,000-message branch.
func benchSetup(tb testing.TB) ([]Predicate, *WhenContext) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := benchVocab()
	items := make([]ClassifierItem, 50)
	for i := range items {
		items[i] = ClassifierItem{Name: fmt.Sprintf("skill%02d", i), Description: benchWords(r, vocab, 12)}
	}
	env := &Env{Classifiers: map[string]*Classifier{"skills": NewClassifier(items)}}
	var srcs []string
	for i := range 20 { // BM25 over 50-topic corpora
		topics := make([]string, 50)
		for j := range topics {
			topics[j] = benchWords(r, vocab, 8)
		}
		srcs = append(srcs, fmt.Sprintf("contentMatches(%s, threshold=%d)", quoteList(topics), i%3))
	}
	base := []string{
		"everyNTurns(3)", "once()", "once('intro')", "firstN(5)", "afterTurn(10)",
		"contentIncludes(['deploy', 'release', 'ship'])", "contentPattern(/err(or)?s?\\b/i)",
		"classifies('skills', topN=3)", "lastAssistantLength(gte=100, lte=2000)",
		"toolCalled('bash')", "toolFailed(/^run_/)", "anyToolCalled()",
		"toolCall(name='run_sql', state='output-error', errorText=/denied/)",
		"toolCall(input=/select/)",
		"toolCallCount('bash', gte=2)", "toolFailedStreak('bash', gte=3)", "toolFailedStreak('never_called')",
		"usageExceeds(100000)", "elapsedExceeds(30m)",
		"dayChanged()", "hourChanged(tz='Asia/Tokyo')", "weekChanged()", "monthChanged(tz='Europe/Paris')",
		"yearChanged()", "seasonChanged(hemisphere='south')",
		"withinLastN(5, toolFailed('bash'))", "everyOfLastN(3, lastAssistantLength(gte=10))",
		"and(everyNTurns(2), not(once()), or(contentIncludes(['x']), afterTurn(3)))",
		"or(toolCalled('grep'), withinLastN(10, toolCalled('grep')))",
		"not(and(firstN(2), classifies('skills')))",
	}
	for len(srcs) < 200 {
		srcs = append(srcs, base[len(srcs)%len(base)])
	}
	ps := make([]Predicate, len(srcs))
	for i, s := range srcs {
		p, err := Parse(s, env)
		if err != nil {
			tb.Fatalf("Parse(%q): %v", s, err)
		}
		ps[i] = p
	}
	replies := make([]*chat.Message, 500)
	for i := range replies {
		parts := []chat.Part{text(benchWords(r, vocab, 40))}
		for k := range i % 4 {
			state := chat.ToolOutputAvailable
			if (i+k)%3 == 0 {
				state = chat.ToolOutputError
			}
			name := []string{"bash", "run_sql", "grep"}[(i+k)%3]
			parts = append(parts, toolIO(name, state, `{"query": "select * from t"}`, "ok", "permission denied"))
		}
		replies[i] = &chat.Message{Role: chat.RoleAssistant, Parts: parts}
	}
	now := time.Date(2026, 3, 27, 15, 30, 0, 0, time.UTC)
	prev := now.Add(-47 * time.Minute)
	el := now.Sub(prev)
	c := &WhenContext{
		Turn:                 501,
		Content:              "Please deploy the database fix; the last run had errors. " + benchWords(r, vocab, 60),
		CurrentMessage:       &chat.Message{Role: chat.RoleUser, Locale: &chat.Locale{TimeZone: "Europe/Berlin"}},
		LastMessage:          &chat.Message{Role: chat.RoleUser},
		LastMessageAt:        &prev,
		Elapsed:              &el,
		LastAssistantMessage: replies[len(replies)-1],
		LastAssistantReplies: replies,
		Usage:                chat.Usage{TotalTokens: 250000},
		MessageCount:         1001,
		Now:                  now,
		FiredOnce:            map[string]bool{"intro": true},
	}
	return ps, c
}

// BenchmarkEval200 evaluates 200 predicates of all kinds (20 of them BM25 over 50-topic
// corpora) against one turn of a 1,000-message branch, caches fresh each time.
func BenchmarkEval200(b *testing.B) {
	ps, base := benchSetup(b)
	fired := 0
	var times []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		c := *base
		for _, p := range ps {
			if p.Eval(&c).Value {
				fired++
			}
		}
		times = append(times, time.Since(start))
	}
	if fired == 0 {
		b.Fatal("nothing fired")
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns")
}

func BenchmarkParse(b *testing.B) {
	env := testEnv()
	srcs := []string{
		"and(everyNTurns(3), not(once()))",
		"contentMatches(['red apple', 'green apple pie', 'deploy the service to production'], threshold=0.5)",
		"toolCall(name=/^run_/, state='output-error', errorText=/denied/i)",
		"withinLastN(5, or(toolFailed('bash'), lastAssistantLength(gte=2000)))",
		"seasonChanged(hemisphere='south', tz='Australia/Sydney')",
		"classifies('topics', topN=3, threshold=0.2)",
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range srcs {
			if _, err := Parse(s, env); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkTokenize(b *testing.B) {
	s := strings.Repeat("Deploy the Café service to 東京 production, with 42 retries. ", 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Tokenize(s)
	}
}

func TestBenchSetupFires(t *testing.T) {
	ps, base := benchSetup(t)
	c := *base
	n, errs := 0, 0
	for _, p := range ps {
		r := p.Eval(&c)
		if r.Value {
			n++
		}
		if r.HasError() {
			errs++
		}
	}
	if n == 0 || n == len(ps) || errs != 0 {
		t.Errorf("got %d of %d fired and %d errors, want a mix and no error", n, len(ps), errs)
	}
}
