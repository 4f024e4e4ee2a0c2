package main

// BenchmarkRunScript plays a generated script through `ctxlab run` in-process (run(), as
// the binary does), into a file database: the whole turn pipeline, decisions to durable
// commit, as ../shared/bench/vs-deepagents.sh times it. Profile it with
//
//	go test . -run '^$' -bench RunScript -benchtime 3x -cpuprofile /tmp/cpu.prof

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchScript writes a script of n turns (every fifth with a failing and a succeeding tool
// call) over the context file at ctxPath, and returns its path.
func benchScript(tb testing.TB, dir, ctxPath string, n int) string {
	tb.Helper()
	users := []string{"my slow query fails with an error", "please deploy the release to the canary pipeline",
		"how do I refund an invoice for billing?", "the dashboard shows a latency alert", "what changed in the database schema?"}
	var b strings.Builder
	fmt.Fprintf(&b, "context: %s\nchat: {id: bench-run, title: Run benchmark}\nturns:\n", ctxPath)
	at := time.Date(2026, 3, 27, 9, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&b, "  - user: %q\n    at: %s\n", fmt.Sprintf("%s (turn %d)", users[i%len(users)], i+1), at.Add(time.Duration(i)*7*time.Minute).Format(time.RFC3339))
		if i%5 == 4 {
			b.WriteString("    assistant:\n      text: The first query was refused; the second returned 2 rows.\n      tools:\n")
			b.WriteString("        - {name: run_sql, input: {query: select 1 from secrets}, error: permission denied}\n")
			b.WriteString("        - {name: run_sql, input: {query: select count(*) from customers}, output: '[{\"n\": 2}]'}\n")
			continue
		}
		fmt.Fprintf(&b, "    assistant: %q\n", fmt.Sprintf("Turn %d: the figures look consistent with last week; I would keep the migration as it is.", i+1))
	}
	path := filepath.Join(dir, "bench.script.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

func BenchmarkRunScript(b *testing.B) {
	dir := b.TempDir()
	const turns = 500
	script := benchScript(b, dir, bigContextFile(b, dir, 200), turns)
	i := 0
	for b.Loop() {
		i++
		db := filepath.Join(dir, fmt.Sprintf("run-%d.db", i))
		var errb strings.Builder
		if code := run(context.Background(), []string{"run", script, "--db", db}, strings.NewReader(""), io.Discard, &errb); code != 0 {
			b.Fatalf("run exited %d: %s", code, clip(errb.String(), 500))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns)/1e3, "µs/turn")
}

// BenchmarkRunJSON plays a 2,000-turn script in-process with --json, into a file
// database, writing the traces to a counter: with each request whole (the output grows
// with the square of the chat) and with --request new (with the chat). It reports the
// bytes written per turn.
//
//	go test . -run '^$' -bench RunJSON -benchtime 3x
func BenchmarkRunJSON(b *testing.B) {
	dir := b.TempDir()
	const turns = 2000
	script := benchScript(b, dir, "unused.ctx.yaml", turns) // --context names the file
	for _, form := range []string{"full", "new"} {
		b.Run(form, func(b *testing.B) {
			var out countWriter
			for b.Loop() {
				out = 0
				db := filepath.Join(b.TempDir(), "ctxlab.db") // a new chat each time
				var errb strings.Builder
				args := []string{"run", script, "--db", db, "--context", "testdata/demo/support.ctx.yaml", "--json", "--request", form}
				if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
					b.Fatalf("run exited %d: %s", code, clip(errb.String(), 500))
				}
			}
			b.ReportMetric(float64(out)/turns, "B/turn")
		})
	}
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
