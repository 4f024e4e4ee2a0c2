//go:build unix

package main

// BenchmarkLimits measures what the README's Limits section says of each bound: the time
// and the peak resident memory of a real ctxlab process given an input at the limit (the
// largest accepted), whole process, through /usr/bin/time (the rusage of a child of the
// test process starts from the test process's size on Linux: time forks a child of its
// own). Run it case by case, once each:
//
//	go test . -run '^$' -bench 'Limits/' -benchtime 1x
//
// Each case reports s (wall time) and MB-peak. The cases that take a minute or more
// (an import of 2,097,152 messages) run only with CTXLAB_BENCH_LONG=1.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// limitCase is an input at one of the limits, and the command that reads it.
type limitCase struct {
	name string
	long bool // a minute or more: only with CTXLAB_BENCH_LONG=1
	// make writes the input into dir and returns the command's arguments (and a database
	// to import into first, when the command reads a chat).
	make func(tb testing.TB, dir string) []string
}

// words returns n bytes of ordinary text.
func words(n int) string {
	const w = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
	return strings.Repeat(w, n/len(w)+1)[:n]
}

func writeFile(tb testing.TB, path, text string) string {
	tb.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// messagesArray writes an OpenAI messages array of n user and assistant messages.
func messagesArray(tb testing.TB, path string, n int) string {
	tb.Helper()
	var b bytes.Buffer
	b.WriteString(`[{"role":"system","content":"You are helpful."}`)
	for i := range n / 2 {
		fmt.Fprintf(&b, `,{"role":"user","content":"question %d about the customers table and the refund of invoice %d"}`, i, i)
		fmt.Fprintf(&b, `,{"role":"assistant","content":"answer %d with the figures you asked for, and a short explanation"}`, i)
	}
	b.WriteString("]\n")
	return writeFile(tb, path, b.String())
}

// limitCases are the inputs at the limits of the README's Limits section.
func limitCases(tb testing.TB) []limitCase {
	ctxFile := func(dir, body string) string {
		return writeFile(tb, filepath.Join(dir, "limit.ctx.yaml"), body)
	}
	const maxFile = 8 << 20
	prompt := func(file string) []string {
		return []string{"prompt", "--context", file, "--user", "why did my refund query fail with an error?"}
	}
	var models, stream *httptest.Server
	return []limitCase{
		{name: "context/8MiB-classifier", make: func(tb testing.TB, dir string) []string {
			// One classifier of 49,900 items (six values each: 299,400) in 8 MiB.
			var b strings.Builder
			b.WriteString("classifiers:\n  topics:\n")
			for i := 0; i < 49_900 && b.Len() < maxFile-300; i++ {
				fmt.Fprintf(&b, "    - {name: item-%d, description: refund invoice billing payment item %d %s}\n", i, i, words(115))
			}
			b.WriteString("reminders:\n  - id: topic\n    text: On topic.\n    when: \"classifies('topics', topN=3, threshold=0.1)\"\n")
			return prompt(ctxFile(dir, b.String()))
		}},
		{name: "context/8MiB-hints", make: func(tb testing.TB, dir string) []string {
			// 99,900 hints of 80 bytes: 299,700 values, 8 MiB.
			var b strings.Builder
			b.WriteString("system:\n")
			for range 99_900 {
				b.WriteString("  - hint: " + words(71) + "\n")
			}
			return prompt(ctxFile(dir, b.String()))
		}},
		{name: "context/100k-one-line-hints", make: func(tb testing.TB, dir string) []string {
			return prompt(ctxFile(dir, "system:\n"+strings.Repeat("  - hint: x\n", 99_990)))
		}},
		{name: "context/8MiB-role", make: func(tb testing.TB, dir string) []string {
			return prompt(ctxFile(dir, "system:\n  - role: "+words(maxFile-100)+"\n"))
		}},
		{name: "context/2MiB-file-fragment", make: func(tb testing.TB, dir string) []string {
			writeFile(tb, filepath.Join(dir, "notes.md"), words(2<<20))
			return prompt(ctxFile(dir, "system:\n  - fragment: {name: notes, file: ./notes.md}\n"))
		}},
		{name: "context/100k-aliases", make: func(tb testing.TB, dir string) []string {
			// An anchor of 981 values, aliased 99 times: 98,100 nodes expanded.
			var b strings.Builder
			b.WriteString("system:\n  - fragment:\n      name: facts\n      data:\n        base: &base\n")
			for i := range 490 {
				fmt.Fprintf(&b, "          k%d: %s\n", i, words(40))
			}
			for i := range 99 {
				fmt.Fprintf(&b, "        copy%d: *base\n", i)
			}
			return prompt(ctxFile(dir, b.String()))
		}},
		{name: "script/8MiB-one-message", make: func(tb testing.TB, dir string) []string {
			s := writeFile(tb, filepath.Join(dir, "limit.script.yaml"),
				"chat: {id: big-1, title: Big}\nturns:\n  - user: \""+words(maxFile-200)+"\"\n    assistant: ok\n")
			return []string{"run", s, "--context", "testdata/demo/support.ctx.yaml", "--db", filepath.Join(dir, "ctxlab.db")}
		}},
		{name: "script/8MiB-one-reply", make: func(tb testing.TB, dir string) []string {
			s := writeFile(tb, filepath.Join(dir, "limit.script.yaml"),
				"chat: {id: big-1, title: Big}\nturns:\n  - user: hello\n    assistant: \""+words(maxFile-200)+"\"\n")
			return []string{"run", s, "--context", "testdata/demo/support.ctx.yaml", "--db", filepath.Join(dir, "ctxlab.db")}
		}},
		{name: "script/10k-turns", make: func(tb testing.TB, dir string) []string {
			var b strings.Builder
			b.WriteString("chat: {id: long-1, title: Long}\nturns:\n")
			for i := range 10_000 {
				fmt.Fprintf(&b, "  - user: question %d about the customers table\n    assistant: answer %d\n", i, i)
			}
			s := writeFile(tb, filepath.Join(dir, "limit.script.yaml"), b.String())
			return []string{"run", s, "--context", "testdata/demo/support.ctx.yaml", "--db", filepath.Join(dir, "ctxlab.db")}
		}},
		{name: "script/60k-turns", long: true, make: func(tb testing.TB, dir string) []string {
			// 59,990 turns of five values: about as many as a script holds (300,000 values).
			var b strings.Builder
			b.WriteString("chat: {id: long-1, title: Long}\nturns:\n")
			for i := range 59_990 {
				fmt.Fprintf(&b, "  - user: q%d\n    assistant: a%d\n", i, i)
			}
			s := writeFile(tb, filepath.Join(dir, "limit.script.yaml"), b.String())
			return []string{"run", s, "--context", "testdata/demo/support.ctx.yaml", "--db", filepath.Join(dir, "ctxlab.db")}
		}},
		{name: "config/1MiB", make: func(tb testing.TB, dir string) []string {
			var b strings.Builder
			b.WriteString("default_profile: p0\nprofiles:\n")
			for i := 0; b.Len() < (1<<20)-200; i++ {
				fmt.Fprintf(&b, "  p%d:\n    base_url: http://127.0.0.1:11434/v1\n    model: model-%d\n", i, i)
			}
			return []string{"config", "--config", writeFile(tb, filepath.Join(dir, "config.yaml"), b.String())}
		}},
		{name: "import/100MB-message", make: func(tb testing.TB, dir string) []string {
			body := `[{"role":"user","content":"` + words(100_000_000) + `"},{"role":"assistant","content":"ok"}]`
			return []string{"import", writeFile(tb, filepath.Join(dir, "big.json"), body), "--db", filepath.Join(dir, "ctxlab.db")}
		}},
		{name: "import/300MB-message", long: true, make: func(tb testing.TB, dir string) []string {
			body := `[{"role":"user","content":"` + words(300_000_000) + `"},{"role":"assistant","content":"ok"}]`
			return []string{"import", writeFile(tb, filepath.Join(dir, "big.json"), body), "--db", filepath.Join(dir, "ctxlab.db")}
		}},
		{name: "replay/100MB-message", make: func(tb testing.TB, dir string) []string {
			body := `[{"role":"user","content":"` + words(100_000_000) + `"},{"role":"assistant","content":"ok"}]`
			db := filepath.Join(dir, "ctxlab.db")
			importForBench(tb, writeFile(tb, filepath.Join(dir, "big.json"), body), db)
			return []string{"replay", "last", "--db", db}
		}},
		{name: "export/100MB-message", make: func(tb testing.TB, dir string) []string {
			body := `[{"role":"user","content":"` + words(100_000_000) + `"},{"role":"assistant","content":"ok"}]`
			db := filepath.Join(dir, "ctxlab.db")
			importForBench(tb, writeFile(tb, filepath.Join(dir, "big.json"), body), db)
			return []string{"export", "last", "--db", db, "--format", "json"}
		}},
		{name: "import/100k-messages", make: func(tb testing.TB, dir string) []string {
			return []string{"import", messagesArray(tb, filepath.Join(dir, "many.json"), 100_000), "--db", filepath.Join(dir, "ctxlab.db")}
		}},
		{name: "import/2M-messages", long: true, make: func(tb testing.TB, dir string) []string {
			return []string{"import", messagesArray(tb, filepath.Join(dir, "many.json"), 2_097_150), "--db", filepath.Join(dir, "ctxlab.db")}
		}},
		{name: "models/8MiB-list", make: func(tb testing.TB, dir string) []string {
			// 200,000 model ids of 42 bytes, under the 8 MiB of an answer read whole.
			var list bytes.Buffer
			list.WriteString(`{"object":"list","data":[`)
			for i := range 200_000 {
				if i > 0 {
					list.WriteByte(',')
				}
				fmt.Fprintf(&list, `{"id":"model-%06d","object":"model"}`, i)
			}
			list.WriteString("]}")
			models = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(list.Bytes())
			}))
			tb.Cleanup(models.Close)
			return []string{"models", "--base-url", models.URL + "/v1"}
		}},
		{name: "stream/8MiB-line", make: func(tb testing.TB, dir string) []string {
			// A reply in one delta of just under 8 MiB, the longest line of a stream.
			delta := fmt.Sprintf(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":%q}}]}`,
				words((8<<20)-300))
			stream = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, delta+"\n\n")
				_, _ = io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
				_, _ = io.WriteString(w, "data: [DONE]\n\n")
			}))
			tb.Cleanup(stream.Close)
			return []string{"ask", "hello", "--base-url", stream.URL + "/v1", "--model", "m", "--db", filepath.Join(dir, "ctxlab.db")}
		}},
	}
}

// importForBench imports file into db with the binary under test, in process.
func importForBench(tb testing.TB, file, db string) {
	tb.Helper()
	if r := runCtxlab(tb, "import", file, "--db", db); r.code != 0 {
		tb.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}
}

// timeProcess runs the binary with args under /usr/bin/time and returns its wall time in
// seconds and its peak resident size in MB.
func timeProcess(tb testing.TB, bin string, env, args []string) (float64, float64) {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "time.txt")
	cmd := exec.Command("/usr/bin/time", append([]string{"-o", out, "-f", "%e %M", bin}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("ctxlab %s: %v\n%.1000s", strings.Join(args, " "), err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		tb.Fatalf("/usr/bin/time wrote %q", b)
	}
	secs, _ := strconv.ParseFloat(f[len(f)-2], 64)
	kb, _ := strconv.ParseFloat(f[len(f)-1], 64)
	return secs, kb / 1024
}

func BenchmarkLimits(b *testing.B) {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Skip("/usr/bin/time is not installed (apt-get install time)")
	}
	bin := buildCtxlab(b)
	for k, v := range ctxlabTestEnv(b) {
		b.Setenv(k, v)
	}
	env := append(os.Environ(), "OPENAI_API_KEY=sk-bench")
	for _, c := range limitCases(b) {
		b.Run(c.name, func(b *testing.B) {
			if c.long && os.Getenv("CTXLAB_BENCH_LONG") != "1" {
				b.Skip("a minute or more: CTXLAB_BENCH_LONG=1 runs it")
			}
			var secs, peak float64
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				args := c.make(b, dir)
				b.StartTimer()
				s, mb := timeProcess(b, bin, env, args)
				secs, peak = max(secs, s), max(peak, mb)
			}
			b.ReportMetric(secs, "s")
			b.ReportMetric(peak, "MB-peak")
		})
	}
}

// TestLimitsCostWhatTheREADMESays runs some of BenchmarkLimits's cases, the inputs issue 22
// measured, and checks their peak memory against the figure the README's table gives
// (within a fifth and 10 MB): an 8 MiB context file with a classifier (259 MB before), an
// 8 MiB script of one message (336 MB), the import of a 100 MB message (1.94 GB) and its
// replay.
func TestLimitsCostWhatTheREADMESays(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and imports a 100 MB file")
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		t.Skip("/usr/bin/time is not installed (apt-get install time)")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildCtxlab(t)
	isolateCtxlabEnv(t)
	env := append(os.Environ(), "OPENAI_API_KEY=sk-test")
	cases := map[string]limitCase{}
	for _, c := range limitCases(t) {
		cases[c.name] = c
	}
	for _, name := range []string{"context/8MiB-classifier", "script/8MiB-one-message", "import/100MB-message", "replay/100MB-message"} {
		t.Run(name, func(t *testing.T) {
			m := regexp.MustCompile("`" + regexp.QuoteMeta(name) + "`\\) \\| [^|]+ \\| [^|]+ \\| ([0-9,]+) MB \\|").FindSubmatch(readme)
			if m == nil {
				t.Fatalf("the README's table has no peak memory for %s", name)
			}
			documented, _ := strconv.ParseFloat(strings.ReplaceAll(string(m[1]), ",", ""), 64)
			_, peak := timeProcess(t, bin, env, cases[name].make(t, t.TempDir()))
			if peak > documented*1.2+10 {
				t.Errorf("peak %.0f MB, the README says %.0f MB", peak, documented)
			}
		})
	}
}
