package main

// Tests of the headless commands as an everyday tool (issue 13): whole replies, wrapped on
// a terminal; streaming; run -, ask; version; chat id prefixes; warnings; --show-messages;
// the small things. Regenerate the goldens with
//
//	go test . -run TestHeadless -update

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// runOnTerminal runs the command line in process as if its standard output were a
// terminal width columns wide.
func runOnTerminal(tb testing.TB, width int, stdin string, args ...string) cliResult {
	tb.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		terminal: func(w io.Writer) (int, bool) { return width, w == io.Writer(&out) }}
	code := a.execute(context.Background(), args)
	return cliResult{code: code, stdout: out.String(), stderr: errb.String()}
}

// TestHeadlessWholeReply checks that run and replay print the whole reply, its lines kept,
// wrapped to the terminal's width on a terminal and not wrapped otherwise.
func TestHeadlessWholeReply(t *testing.T) {
	isolateCtxlabEnv(t)
	script := filepath.Join("testdata", "cli", "headless", "long.script.yaml")
	tests := []struct {
		name  string
		width int // 0: not a terminal
		args  []string
	}{
		{"long-run", 0, []string{"run", script}},
		{"long-run-wrapped", 60, []string{"run", script}},
		{"long-replay-wrapped", 60, []string{"replay", "long-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			if tt.args[0] == "replay" {
				mustRunCtxlab(t, "run", script, "--db", db)
			}
			args := append(tt.args, "--db", db)
			var r cliResult
			if tt.width == 0 {
				r = runCtxlab(t, args...)
			} else {
				r = runOnTerminal(t, tt.width, "", args...)
			}
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
			}
			if tt.width > 0 {
				for _, l := range strings.Split(r.stdout, "\n") {
					if strings.HasPrefix(l, "  ") && len([]rune(l)) > tt.width && !strings.Contains(l, "tok]") && !strings.Contains(l, "tokens:") {
						t.Errorf("line wider than %d: %q", tt.width, l)
					}
				}
			}
			checkGolden(t, "headless/"+tt.name+".txt", strings.ReplaceAll(normaliseIDs(r.stdout), db, "DB"))
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on two goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHeadlessStreaming checks that run, on a terminal, prints the turn's header when it
// is sent and the reply as it arrives: the server holds its last chunk back until the
// output shows the header and the first chunk (or a few seconds have passed).
func TestHeadlessStreaming(t *testing.T) {
	isolateCtxlabEnv(t)
	started := make(chan struct{}, 1) // the first chunk is sent
	shown := make(chan struct{})      // closed: the test has looked at the output
	srv := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, done <-chan struct{}) {
		sseStart(w)
		sseLine(w, sseText("Refunds take\ntwo ", ""))
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-shown:
		case <-time.After(5 * time.Second):
		case <-done:
		}
		sseLine(w, sseText("days.", "stop"))
		sseLine(w, "[DONE]")
	})
	var out, errb syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		terminal: func(w io.Writer) (int, bool) { return 0, w == io.Writer(&out) }}
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	codec := make(chan int, 1)
	go func() {
		codec <- a.execute(context.Background(), []string{"run", "testdata/cli/headless/live.script.yaml",
			"--db", db, "--base-url", srv.url, "--model", "m"})
	}()
	<-started
	var early string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if early = out.String(); strings.Contains(early, "two ") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(shown)
	if code := <-codec; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	for _, want := range []string{"── turn 1 · main · 2026-03-27T14:30:00Z · chat live-1\n", "user:            how do refunds work?",
		"assistant:       [m] Refunds take\n                   two "} {
		if !strings.Contains(early, want) {
			t.Errorf("before the last chunk was sent, the output lacks %q:\n%s", want, early)
		}
	}
	if strings.Contains(early, "days.") || strings.Contains(early, "tokens:") {
		t.Errorf("the output shows what was not sent yet:\n%s", early)
	}
	checkGolden(t, "headless/streamed.txt", strings.ReplaceAll(out.String(), db, "DB"))

	// Not on a terminal, and with --json, the output is printed per turn as before.
	db = filepath.Join(t.TempDir(), "ctxlab.db")
	plain := runCtxlab(t, "run", "testdata/cli/headless/live.script.yaml", "--db", db, "--base-url", srv.url, "--model", "m")
	if plain.code != 0 || !strings.Contains(plain.stdout, "assistant:       [m] Refunds take\n                   two days.\n") {
		t.Errorf("plain output: exit %d\n%s%s", plain.code, plain.stdout, plain.stderr)
	}
}

// runWithStdin runs the command line in process with stdin as its standard input.
func runWithStdin(tb testing.TB, stdin string, args ...string) cliResult {
	tb.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return cliResult{code: code, stdout: out.String(), stderr: errb.String()}
}

// TestHeadlessRunStdin checks run -: the script read from stdin, its context file
// relative to the working directory, its errors at <stdin>:LINE:COL.
func TestHeadlessRunStdin(t *testing.T) {
	isolateCtxlabEnv(t)
	script, err := os.ReadFile(filepath.Join("testdata", "cli", "headless", "long.script.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fromFile := mustRunCtxlab(t, "run", "testdata/cli/headless/long.script.yaml", "--db", ":memory:")
	fixed := strings.Replace(string(script), "../../demo/", "testdata/demo/", 1)
	r := runWithStdin(t, fixed, "run", "-", "--db", ":memory:")
	if r.code != 0 || r.stdout != fromFile {
		t.Errorf("run -: exit %d, stdout\n%s\nwant\n%s\nstderr %s", r.code, r.stdout, fromFile, r.stderr)
	}
	tests := []struct {
		name, stdin, want string
	}{
		{"unknown key", "context: testdata/demo/support.ctx.yaml\nturns:\n  - user: hi\n    asistant: hello\n",
			"<stdin>:4:5: unknown key"},
		{"empty", "", "<stdin>:1:1: the script is empty"},
		{"too large", "# " + strings.Repeat("x", maxStdinScript), "<stdin>: too large: a script holds at most 8 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runWithStdin(t, tt.stdin, "run", "-", "--db", ":memory:")
			if r.code != exitInvalid || !strings.HasPrefix(r.stderr, tt.want) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", r.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
}

// TestHeadlessAsk checks ask: one message sent to the model, in a new chat without a
// context file, or a saved one by --chat (id, prefix, last), printed as run prints a
// turn; with no model, a usage error saying how to configure one.
func TestHeadlessAsk(t *testing.T) {
	isolateCtxlabEnv(t)
	srv := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
		sseStart(w)
		sseLine(w, sseText("Refunds take two days.", "stop"))
		sseLine(w, "[DONE]")
	})
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	model := []string{"--db", db, "--base-url", srv.url, "--model", "m"}

	r := runCtxlab(t, append([]string{"ask", "how do refunds work?"}, model...)...)
	if r.code != 0 {
		t.Fatalf("ask: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	out := strings.ReplaceAll(normaliseIDs(r.stdout), db, "DB")
	out = regexp.MustCompile(`\d{4}-\d\d-\d\dT\S+`).ReplaceAllString(out, "TIME")
	checkGolden(t, "headless/ask.txt", out)

	mustRunCtxlab(t, "run", "testdata/cli/headless/long.script.yaml", "--db", db)
	for _, chatFlag := range []string{"long-1", "long", "last"} {
		r = runCtxlab(t, append([]string{"ask", "and then?", "--chat", chatFlag,
			"--context", "testdata/demo/support.ctx.yaml", "--json"}, model...)...)
		traces, _ := liveTraces(t, r.stdout)
		if r.code != 0 || len(traces) != 1 || traces[0].ChatID != "long-1" || traces[0].Assistant == nil ||
			traces[0].Assistant.Text != "Refunds take two days." || len(traces[0].Decisions) == 0 {
			t.Errorf("ask --chat %s: exit %d, stdout %s, stderr %s", chatFlag, r.code, r.stdout, r.stderr)
		}
	}
	reqs := srv.requests()
	if last := reqs[len(reqs)-1]; len(last["messages"].([]any)) < 4 {
		t.Errorf("ask --chat sent %v, want the saved chat's messages too", last["messages"])
	}

	r = runCtxlab(t, "ask", "hello", "--db", db)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "ask needs a model, and none is configured: set --base-url") ||
		!strings.Contains(r.stderr, "ctxlab run") || r.stdout != "" {
		t.Errorf("ask without a model: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestHeadlessVersion checks --version and ctxlab version, and what they print of the
// build information.
func TestHeadlessVersion(t *testing.T) {
	flagOut := mustRunCtxlab(t, "--version")
	cmdOut := mustRunCtxlab(t, "version")
	if flagOut != cmdOut || !strings.HasPrefix(cmdOut, "ctxlab ") || strings.Count(cmdOut, "\n") != 1 {
		t.Errorf("--version %q, version %q; want the same line, starting ctxlab", flagOut, cmdOut)
	}
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name     string
		override string
		info     *debug.BuildInfo
		want     string
	}{
		{"go install", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}},
			"ctxlab v0.3.0 (go1.26.8)"},
		{"built from a clone", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: settings("vcs.revision", "0123456789abcdef0123", "vcs.modified", "false")},
			"ctxlab (devel) (commit 0123456789ab, go1.26.8)"},
		{"modified", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Settings: settings("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true")},
			"ctxlab (devel) (commit 0123456789ab+modified, go1.26.8)"},
		{"-ldflags -X main.version", "v1.2.3", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"ctxlab v1.2.3 (go1.26.8)"},
		{"no build information", "", nil, "ctxlab (devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := version
			version = tt.override
			defer func() { version = saved }()
			if got := versionInfo(tt.info, tt.info != nil); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// shellWords splits a command line as a shell would for the README's examples: words
// apart by blanks, "double" quotes kept together.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inQuote, inWord := false, false
	for _, r := range line {
		switch {
		case r == '"':
			inQuote, inWord = !inQuote, true
		case r == ' ' && !inQuote:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestHeadlessReadmeExamples runs every `ctxlab …` example of the README as written (in
// process, its database in a temporary folder), but those that need a model server or a
// terminal (the workbench): each must succeed.
func TestHeadlessReadmeExamples(t *testing.T) {
	isolateCtxlabEnv(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	ran := 0
	for _, line := range strings.Split(string(readme), "\n") {
		cmdline, ok := strings.CutPrefix(line, "    ctxlab ")
		if !ok {
			continue
		}
		if i := strings.Index(cmdline, " #"); i >= 0 {
			cmdline = cmdline[:i]
		}
		words := shellWords(strings.ReplaceAll(cmdline, "/tmp/demo.db", db))
		if slices.Contains(words, "--base-url") {
			continue // needs a model server
		}
		if len(words) == 0 || words[0] == "demo" || strings.HasPrefix(words[0], "[") ||
			strings.HasPrefix(words[0], "-") && words[0] != "--version" {
			continue // the workbench: it needs a terminal (workbench_e2e_test.go runs it in tmux)
		}
		stdin := ""
		if i := slices.Index(words, "<"); i >= 0 {
			b, err := os.ReadFile(words[i+1])
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			stdin, words = string(b), words[:i]
		}
		if r := runWithStdin(t, stdin, words...); r.code != 0 {
			t.Errorf("README: ctxlab %s: exit %d; stderr:\n%s", cmdline, r.code, r.stderr)
		}
		ran++
	}
	if ran < 8 {
		t.Errorf("ran %d examples of the README, want its examples (8 or more)", ran)
	}
}

// TestHeadlessChatPrefix checks that a unique prefix of a chat id, or last, is taken
// wherever a chat id is, and that an ambiguous prefix lists the candidates (exit 2).
func TestHeadlessChatPrefix(t *testing.T) {
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "ctxlab.db")
	for _, id := range []string{"demo-1", "demo-2"} {
		script := strings.Replace(mustReadFile(t, "testdata/demo/support.script.yaml"), "id: demo-1", "id: "+id, 1)
		if !strings.Contains(script, "id: "+id) {
			t.Fatal("the demo script names no chat id demo-1")
		}
		r := runWithStdin(t, script, "run", "-", "--db", db, "--context", "testdata/demo/support.ctx.yaml")
		if r.code != 0 || !strings.HasSuffix(r.stdout, " · saved in "+db+"\n") || !strings.Contains(r.stdout, "── chat "+id+" ·") {
			t.Fatalf("run: exit %d, want the last line to name the chat and the database:\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	mustRunCtxlab(t, "run", "testdata/demo/branching.script.yaml", "--db", db)
	for _, cmd := range [][]string{{"replay"}, {"branches"}, {"export", "--format", "markdown"}} {
		exact := mustRunCtxlab(t, append(append([]string{}, cmd...), "branching-1", "--db", db)...)
		for _, name := range []string{"br", "branching", "last"} {
			args := append(append([]string{}, cmd...), name, "--db", db)
			if got := mustRunCtxlab(t, args...); got != exact {
				t.Errorf("ctxlab %s: not the output of branching-1", strings.Join(args, " "))
			}
		}
		args := append(append([]string{}, cmd...), "demo", "--db", db)
		r := runCtxlab(t, args...)
		want := `ctxlab: chat "demo" is ambiguous: 2 chats start with it: demo-1, demo-2` + "\n"
		if r.code != exitInvalid || r.stderr != want || r.stdout != "" {
			t.Errorf("ctxlab %s: exit %d, stderr %q; want 2 and %q", strings.Join(args, " "), r.code, r.stderr, want)
		}
		args = append(append([]string{}, cmd...), "nope", "--db", db)
		if r := runCtxlab(t, args...); r.code != exitFailure || !strings.Contains(r.stderr, `"nope"`) {
			t.Errorf("ctxlab %s: exit %d, stderr %q; want 1 naming the chat", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

func mustReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHeadlessRunNotices checks what run says on stderr when a script continues a saved
// chat and when a turn's clock goes back, and that the traces do not change.
func TestHeadlessRunNotices(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	first := runCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", db, "--json")
	if first.code != 0 || first.stderr != "" {
		t.Fatalf("first run: exit %d, stderr %q; want 0 and nothing", first.code, first.stderr)
	}
	again := runCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", db, "--json")
	want := "continuing chat demo-1 at turn 5 on branch main\n" +
		"testdata/demo/support.script.yaml:6:5: warning: at: 2026-03-27T14:30:00Z is earlier than the user message before it on branch main (2026-03-28T09:00:00Z)\n"
	if again.code != 0 || again.stderr != want {
		t.Errorf("second run: exit %d, stderr\n%s\nwant\n%s", again.code, again.stderr, want)
	}
	if traces := parseTraces(t, again.stdout); len(traces) != 4 || traces[0].Turn != 5 {
		t.Errorf("second run: %d traces, want 4 from turn 5", len(traces))
	}
}

// TestHeadlessShowMessages checks --show-messages: the final user message exactly as sent
// (reminders baked in, each part on its own) and the system-placement message, in run,
// replay and prompt.
func TestHeadlessShowMessages(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	out := mustRunCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", db, "--show-messages")
	checkGolden(t, "headless/show-messages.txt", strings.ReplaceAll(out, db, "DB"))
	if replay := mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--show-messages"); !strings.Contains(replay,
		"  sent system:     <system-reminder>") || strings.Count(replay, "  sent ") != strings.Count(out, "  sent ") {
		t.Errorf("replay --show-messages does not show what run showed:\n%s", replay)
	}
	prompt := mustRunCtxlab(t, "prompt", "--context", "testdata/demo/support.ctx.yaml", "--at", "2026-03-27T14:30:00Z",
		"--user", "hello", "--show-messages")
	if !strings.Contains(prompt, "  sent user:       hello<system-reminder>Date: 2026-03-27\n                   Day of Week: Friday</system-reminder>\n") {
		t.Errorf("prompt --show-messages shows no user message:\n%s", prompt)
	}
	if plain := mustRunCtxlab(t, "prompt", "--context", "testdata/demo/support.ctx.yaml", "--user", "hello"); strings.Contains(plain, "sent user:") {
		t.Errorf("prompt shows the messages without --show-messages:\n%s", plain)
	}
}

// TestHeadlessHints checks the hints of the context file's errors for what people write
// first: an unquoted text, a turn comparison, must_not.
func TestHeadlessHints(t *testing.T) {
	isolateCtxlabEnv(t)
	r := runCtxlab(t, "prompt", "--context", "testdata/cli/headless/hints.ctx.yaml")
	if r.code != exitInvalid || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q; want 2 and nothing", r.code, r.stdout)
	}
	checkGolden(t, "headless/hints.txt", r.stderr)
}

// TestHeadlessSmallThings checks the small things of issue 13: config names its files, a
// timeout of 0 is refused, models --json, plurals, timestamps to the second.
func TestHeadlessSmallThings(t *testing.T) {
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "chats.db")
	cfg := os.Getenv("CTXLAB_CONFIG")

	t.Run("config names its files", func(t *testing.T) {
		out := mustRunCtxlab(t, "config", "--db", db)
		for _, want := range []string{"\nconfig_file          " + cfg + " ", "env CTXLAB_CONFIG\n",
			"\ndatabase             " + db + " (not there)  flag --db\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("config lacks %q:\n%s", want, out)
			}
		}
		lines := mustRunCtxlab(t, "config", "--db", ":memory:", "--json")
		if !strings.Contains(lines, `{"key":"database","value":":memory: (kept nowhere)","source":"flag --db"}`) {
			t.Errorf("config --json names no database:\n%s", lines)
		}
	})

	t.Run("timeout 0", func(t *testing.T) {
		for _, flag := range []string{"--connect-timeout", "--first-token-timeout", "--idle-timeout"} {
			r := runCtxlab(t, "run", "testdata/demo/support.script.yaml", "--db", db, flag, "0")
			want := "ctxlab: flag " + flag + " must be a positive duration like 90s, found 0s"
			if r.code != exitInvalid || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
				t.Errorf("%s 0: exit %d, stderr %q; want 2 and %q", flag, r.code, r.stderr, want)
			}
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("a refused timeout created the database")
		}
	})

	t.Run("models --json", func(t *testing.T) {
		srv := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[{"id":"llama3.2","object":"model"},{"id":"qwen\u001b[2J","object":"model"}]}`)
		})
		out := mustRunCtxlab(t, "models", "--json", "--base-url", srv.url)
		if want := "{\"id\":\"llama3.2\"}\n{\"id\":\"qwen\\u001b[2J\"}\n"; out != want {
			t.Errorf("models --json: got %q, want %q", out, want)
		}
	})

	t.Run("plurals and seconds", func(t *testing.T) {
		mustRunCtxlab(t, "run", "testdata/cli/headless/long.script.yaml", "--db", db)
		replay := mustRunCtxlab(t, "replay", "long-1", "--db", db)
		if !strings.HasSuffix(replay, "── 1 turn replayed\n") {
			t.Errorf("replay of one turn ends:\n%s", replay)
		}
		prompt := mustRunCtxlab(t, "prompt", "--context", "testdata/demo/support.ctx.yaml", "--at", "2026-03-27T14:30:00.123456Z")
		if !strings.Contains(prompt, "── turn 1 · main · 2026-03-27T14:30:00Z\n") || !strings.Contains(prompt, "· 2 messages · 1 tool\n") {
			t.Errorf("prompt: want the clock to the second and 1 tool:\n%s", prompt)
		}
		chats := mustRunCtxlab(t, "chats", "--db", db)
		if !regexp.MustCompile(`\nlong-1 .* 2026-03-27 14:30:00\n`).MatchString(chats) {
			t.Errorf("chats: want the time to the second:\n%s", chats)
		}
	})
}

// TestHeadlessCompletion checks the shell completion of chat ids (replay, branches,
// export, ask --chat, the workbench's --chat), of export's --format and of --theme, through cobra's __complete command.
func TestHeadlessCompletion(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	mustRunCtxlab(t, "run", "testdata/demo/branching.script.yaml", "--db", db)
	mustRunCtxlab(t, "run", "testdata/cli/headless/long.script.yaml", "--db", db)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--db", db, "b"}, "branching-1\tBranching demo\n:4\n"},
		{[]string{"branches", "--db", db, ""}, "last\tthe most recently updated chat\nbranching-1\tBranching demo\nlong-1\tLong reply\n:4\n"},
		{[]string{"export", "--db", db, "lo"}, "long-1\tLong reply\n:4\n"},
		{[]string{"replay", "--db", db, "long-1", ""}, ":4\n"},
		{[]string{"ask", "hello", "--db", db, "--chat", "la"}, "last\tthe most recently updated chat\n:4\n"},
		{[]string{"--db", db, "--chat", "br"}, "branching-1\tBranching demo\n:4\n"},
		{[]string{"--theme", "m"}, "mono\tno colour (as NO_COLOR)\n:4\n"},
		{[]string{"demo", "--theme", "d"}, "dark\tfor a dark background\n:4\n"},
		{[]string{"export", "long-1", "--format", ""}, "json\tthe whole chat, lossless\nmarkdown\ta readable transcript of the active branch\nopenai\tthe active branch as OpenAI messages\n:4\n"},
		{[]string{"replay", "--db", filepath.Join(t.TempDir(), "none.db"), ""}, ":4\n"},
	}
	for _, tt := range tests {
		r := runCtxlab(t, append([]string{"__complete"}, tt.args...)...)
		if r.code != 0 || r.stdout != tt.want {
			t.Errorf("complete %q: exit %d, got\n%s\nwant\n%s", tt.args, r.code, r.stdout, tt.want)
		}
	}
}
