package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/predicates"
)

// TestWriteTurnReply checks the reply lines of the human output: each tool call's outcome,
// and the finish reason unless it is stop.
func TestWriteTurnReply(t *testing.T) {
	tool := func(name string, state chat.ToolState, errText string) engine.ToolTrace {
		return engine.ToolTrace{ID: "c", Name: name, State: state, Error: errText}
	}
	tests := []struct {
		name      string
		assistant engine.AssistantTrace
		want      []string // the assistant: and finish: lines
	}{
		{"stop", engine.AssistantTrace{Text: "Done.", FinishReason: "stop"},
			[]string{"assistant:       [m] Done."}},
		{"no finish reason", engine.AssistantTrace{Text: "Done."},
			[]string{"assistant:       [m] Done."}},
		{"length", engine.AssistantTrace{Text: "Once upon", FinishReason: "length"},
			[]string{"assistant:       [m] Once upon", "finish:          length (cut at max_tokens: the reply is incomplete)"}},
		{"empty and cut", engine.AssistantTrace{Text: " \n", FinishReason: "length"},
			[]string{"assistant:       [m] (empty reply)", "finish:          length (cut at max_tokens: the reply is incomplete)"}},
		{"empty", engine.AssistantTrace{FinishReason: "stop"}, []string{"assistant:       [m] (empty reply)"}},
		{"content filter", engine.AssistantTrace{Text: "I", FinishReason: "content_filter"},
			[]string{"assistant:       [m] I", "finish:          content_filter (stopped by the server's content filter: the reply is incomplete)"}},
		{"another reason", engine.AssistantTrace{Text: "Hm.", FinishReason: "eos"},
			[]string{"assistant:       [m] Hm.", `finish:          eos (ended with finish reason "eos")`}},
		{"tool loop limit", engine.AssistantTrace{FinishReason: engine.FinishToolLoopLimit,
			Tools: []engine.ToolTrace{tool("run_sql", chat.ToolOutputAvailable, ""), tool("export_csv", chat.ToolOutputError, "denied")}},
			[]string{"assistant:       [m]  [run_sql ok] [export_csv failed: denied]",
				"finish:          tool_loop_limit (tool loop stopped at its limit: the model kept calling tools)"}},
		{"cut in a tool call", engine.AssistantTrace{Text: "Checking.", FinishReason: "error", Interrupted: true,
			Tools: []engine.ToolTrace{tool("run_sql", chat.ToolInputAvailable, ""), tool("run_sql", chat.ToolInputStreaming, "")}},
			[]string{"assistant:       [m] Checking. [run_sql input-available] [run_sql input-streaming] [interrupted]", "finish:          error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.assistant
			tr := engine.Trace{Turn: 1, Branch: "main", Assistant: &a}
			var b bytes.Buffer
			writeTurn(&b, &tr, "", "m")
			var got []string
			for _, l := range strings.Split(b.String(), "\n") {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "assistant:") || strings.HasPrefix(l, "finish:") {
					got = append(got, l)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s\nin\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"), b.String())
			}
		})
	}
}

// TestOneLine checks oneLine against its definition: the sanitized text with white space
// collapsed as strings.Fields does, cut to n characters with an ellipsis.
func TestOneLine(t *testing.T) {
	want := func(s string, n int) string {
		r := []rune(strings.Join(strings.Fields(inert.Text(s)), " "))
		if len(r) > n {
			return string(r[:n-1]) + "…"
		}
		return string(r)
	}
	texts := []string{"", " ", "a", "  a  b  ", "héllo wörld", "one two three four five six",
		"tab\tand\nnew line", "\u00a0nbsp\u0085nel", "esc \x1b[2J here", "a\x1b]0;t\x07b c",
		strings.Repeat("word ", 40), strings.Repeat("é", 30), "abcde fghij", "abcd efghij"}
	for _, s := range texts {
		for n := 1; n <= 14; n++ {
			if got, w := oneLine(s, n), want(s, n); got != w {
				t.Errorf("oneLine(%q, %d) = %q, want %q", s, n, got, w)
			}
		}
	}
}

// TestOneLinePrefixed checks oneLinePrefixed against its definition.
func TestOneLinePrefixed(t *testing.T) {
	prefixes := []string{"", "a", "abcdefgh", "abcdefghijkl", "abcd efgh ijkl", "abcdefg  hijkl", " abcdefghijkl",
		"abcdefghijk ", "abcdefghij\tkl", "héllo wörld again", "esc \x1b[2J here and there"}
	for _, p := range prefixes {
		for _, s := range []string{"", " ", "why", "  spaced  why  "} {
			for n := 1; n <= 14; n++ {
				if got, want := oneLinePrefixed(p, s, n), oneLine(p+": "+s, n); got != want {
					t.Errorf("oneLinePrefixed(%q, %q, %d) = %q, want %q", p, s, n, got, want)
				}
			}
		}
	}
}

// BenchmarkWriteTurnView measures the human block of one turn as `ctxlab run` prints it
// for every turn: 200 reminder decisions (20 fired with their traces, a few held back,
// the rest quiet) and 12 instructions.
func BenchmarkWriteTurnView(b *testing.B) {
	var ds []engine.Decision
	for i := range 200 {
		d := engine.Decision{ID: fmt.Sprintf("r%03d", i), Source: engine.SourceReminder, Placement: "inline", Tier: "guidance",
			Reason: engine.ReasonPredicateFalse, Tokens: 12}
		switch {
		case i%10 == 0:
			d.Fired, d.Reason = true, engine.ReasonFired
			d.Trace = &predicates.Result{Expr: "contentIncludes(['deploy', 'release'])", Value: true,
				Why: "the message contains \"deploy\" and \"release\""}
			if i%20 == 0 { // a long expression, as contentMatches over 50 topics writes
				d.Trace.Expr = "contentMatches([" + strings.Repeat("'refund latency migration timesheet', ", 50) + "'x'])"
			}
		case i%37 == 0:
			d.Reason, d.Detail = engine.ReasonCapReached, "emitted 3 of 3"
		}
		ds = append(ds, d)
	}
	for i := range 12 {
		ds = append(ds, engine.Decision{ID: fmt.Sprintf("in%02d", i), Source: engine.SourceInstruction, Kind: "must",
			Scope: "Always", Fired: i%2 == 0, Reason: engine.ReasonFired})
	}
	tr := engine.Trace{Turn: 42, Branch: "main", At: "2026-03-27T09:00:00Z", ChatID: "bench", Decisions: ds,
		Assistant: &engine.AssistantTrace{Text: "The figures look consistent with last week."}}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		writeTurnView(inertWriter{&buf}, &tr, "please deploy the release (turn 42)", "scripted", turnView{})
	}
	b.ReportMetric(float64(buf.Len()), "bytes")
}

// TestTidyFastPath checks that tidyText returns what its line-by-line rewrite gives for
// every text, those it leaves as they are (tidy) included.
func TestTidyFastPath(t *testing.T) {
	slow := func(s string) string {
		lines := strings.Split(inert.Text(s), "\n")
		for i, l := range lines {
			body := strings.TrimLeft(l, " \t")
			indent := l[:len(l)-len(body)]
			lines[i] = indent + strings.Join(strings.Fields(body), " ")
		}
		return strings.Trim(strings.Join(lines, "\n"), "\n")
	}
	pieces := []string{" ", "  ", "\t", "\n", "a", "bc", "\r", "\u00a0", "é", "\x1b[31m", "\v"}
	r := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if tidy(inert.Text(s)) {
			fast++
		}
		if got, want := tidyText(s), slow(s); got != want {
			t.Fatalf("tidyText(%q) = %q, want %q", s, got, want)
		}
	}
	if fast < 1000 {
		t.Fatalf("only %d texts took the fast path", fast)
	}
}
