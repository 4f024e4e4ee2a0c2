package main

// End-to-end tests of the workbench: the real binary, built by the test, runs in a tmux
// server of its own (a private socket) against aimock (fixtures in
// testdata/aimock/workbench.json, context file in testdata/workbench). The tests type into
// the pane with send-keys and poll capture-pane until what they expect appears; they never
// sleep blindly. They are skipped when tmux or aimock is missing, unless
// CTXLAB_TMUX_REQUIRED=1 or CTXLAB_AIMOCK_REQUIRED=1 (which .ci/run sets) make that a
// failure.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/llm/aimocktest"
)

// e2eKeyEnv is the variable the workbench reads the test's API key from (--api-key-env):
// the key is only ever in the environment, never in a fixture or on a command line.
const e2eKeyEnv = "CTXLAB_E2E_KEY"

// e2eTimeout bounds every wait for the screen (the first one includes the binary's start).
const e2eTimeout = 20 * time.Second

// needTmux returns tmux's path, or skips the test (fails it with CTXLAB_TMUX_REQUIRED=1).
func needTmux(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CTXLAB_TMUX_REQUIRED") == "1" {
			t.Fatalf("tmux is required: %v; install it (apt-get install tmux)", err)
		}
		t.Skipf("workbench end-to-end test skipped: tmux is not installed (%v)", err)
	}
	return p
}

// tmuxSeq numbers the tmux servers of this process.
var tmuxSeq atomic.Int64

// pane is the one pane of a private tmux server running the workbench.
type pane struct {
	t      testing.TB
	tmux   string
	socket string
	// stderr is the file the binary's stderr goes to (shown when a wait fails).
	stderr string
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startPane starts a tmux server on a socket of its own with one w x h session that runs
// bin with args, then prints "ctxlab exited: CODE" and waits (so the exit code and any
// last words stay on screen). The server is killed when the test ends.
func startPane(t testing.TB, tmux, bin string, w, h int, env []string, args ...string) *pane {
	t.Helper()
	dir := t.TempDir()
	p := &pane{t: t, tmux: tmux, socket: fmt.Sprintf("ctxlab-e2e-%d-%d", os.Getpid(), tmuxSeq.Add(1)),
		stderr: filepath.Join(dir, "stderr")}
	var sh strings.Builder
	sh.WriteString("#!/bin/sh\n")
	sh.WriteString(shellQuote(bin))
	for _, a := range args {
		sh.WriteString(" " + shellQuote(a))
	}
	sh.WriteString(" 2>" + shellQuote(p.stderr) + "\n")
	sh.WriteString("echo \"ctxlab exited: $?\"\nexec sleep 600\n")
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte(sh.String()), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set-option -g set-clipboard on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	newArgs := []string{"new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-s", "s"}
	for _, kv := range env {
		newArgs = append(newArgs, "-e", kv)
	}
	newArgs = append(newArgs, script)
	// The server reads a config of its own, which makes it take OSC 52 from the program
	// into its paste buffers, so a clipboard write would be seen.
	if _, err := p.tmuxErr(append([]string{"-f", conf}, newArgs...)...); err != nil {
		t.Fatalf("tmux new-session: %v", err)
	}
	// kill-server leaves the socket file behind: remove it too.
	sock, _ := p.tmuxErr("display", "-p", "#{socket_path}")
	t.Cleanup(func() {
		_, _ = p.tmuxErr("kill-server")
		if sock = strings.TrimSpace(sock); strings.Contains(filepath.Base(sock), p.socket) {
			os.Remove(sock)
		}
	})
	return p
}

// tmuxErr runs a tmux command on the pane's server.
func (p *pane) tmuxErr(args ...string) (string, error) {
	cmd := exec.Command(p.tmux, append([]string{"-L", p.socket}, args...)...)
	// Run inside tmux (TMUX set), the client would refuse to nest a session.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMUX=") })
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// run runs a tmux command that must succeed.
func (p *pane) run(args ...string) string {
	p.t.Helper()
	out, err := p.tmuxErr(args...)
	if err != nil {
		p.t.Fatal(err)
	}
	return out
}

// capture returns the pane's screen as text.
func (p *pane) capture() string { return p.run("capture-pane", "-p", "-t", "s") }

// keys sends tmux key names (Enter, C-c, Tab, End, M-1).
func (p *pane) keys(keys ...string) {
	p.t.Helper()
	p.run(append([]string{"send-keys", "-t", "s"}, keys...)...)
}

// typeText types text literally.
func (p *pane) typeText(text string) {
	p.t.Helper()
	p.run("send-keys", "-t", "s", "-l", text)
}

// signal sends sig to the workbench the pane runs (a child of the pane's shell; the test
// is skipped where /proc does not tell it).
func (p *pane) signal(sig syscall.Signal) {
	p.t.Helper()
	shell := strings.TrimSpace(p.run("display", "-p", "-t", "s", "#{pane_pid}"))
	children, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil {
		p.t.Skipf("the workbench's process id: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(children)))
	if err != nil {
		p.t.Fatalf("the shell's children: %q", children)
	}
	if err := syscall.Kill(pid, sig); err != nil {
		p.t.Fatal(err)
	}
}

// lastWords is what the binary wrote to stderr, for failure messages.
func (p *pane) lastWords() string {
	b, _ := os.ReadFile(p.stderr)
	return string(b)
}

// waitFor polls the pane until its screen holds substring, and returns that screen; it
// fails the test with the last screen after timeout.
func waitFor(t testing.TB, p *pane, substring string, timeout time.Duration) string {
	t.Helper()
	return waitUntil(t, p, fmt.Sprintf("%q on screen", substring), timeout, func(s string) bool {
		return strings.Contains(s, substring)
	})
}

// waitUntil polls the pane until ok holds for its screen.
func waitUntil(t testing.TB, p *pane, what string, timeout time.Duration, ok func(screen string) bool) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	delay := 10 * time.Millisecond
	for {
		s := p.capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; the screen:\n%s\nstderr:\n%s", timeout, what, s, p.lastWords())
		}
		time.Sleep(delay)
		delay = min(delay*2, 100*time.Millisecond)
	}
}

// inspectorColumn returns the part of each screen line right of the transcript's
// separator (the inspector at 120 columns or more).
func inspectorColumn(screen string) string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		if _, right, ok := strings.Cut(l, "│"); ok {
			out = append(out, right)
		}
	}
	return strings.Join(out, "\n")
}

// e2eSetup is what a workbench test against aimock needs: the binary, aimock, the
// isolated environment and a database path.
type e2eSetup struct {
	tmux, bin, db string
	srv           *aimocktest.Server
	env           []string
}

func setupE2E(t *testing.T) *e2eSetup {
	t.Helper()
	tmux := needTmux(t)
	srv := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock/workbench.json", APIKeys: []string{liveKey}})
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)            // no settings of the machine reach the binary: the tmux server inherits this
	return &e2eSetup{tmux: tmux, bin: bin, db: filepath.Join(t.TempDir(), "w.db"), srv: srv,
		env: []string{e2eKeyEnv + "=" + liveKey, "OPENAI_API_KEY=", "NO_COLOR=1"}}
}

// args are the workbench's flags against aimock.
func (s *e2eSetup) args() []string {
	return []string{"--db", s.db, "--context", "testdata/workbench/workbench.ctx.yaml",
		"--base-url", s.srv.BaseURL(), "--model", "gpt-4o-mini", "--api-key-env", e2eKeyEnv, "--theme", "mono"}
}

// send types a message into the composer and sends it.
func send(t testing.TB, p *pane, text string) {
	t.Helper()
	waitIdle(t, p)
	p.typeText(text)
	p.keys("Enter")
}

// waitIdle waits until no reply streams: the reply's text shows before its turn is saved,
// and a message sent meanwhile is refused ("a reply is still streaming").
func waitIdle(t testing.TB, p *pane) {
	t.Helper()
	waitUntil(t, p, "no reply streaming", e2eTimeout, func(s string) bool {
		return !strings.Contains(s, "streaming: esc")
	})
}

// What the inspector shows for turn 2: the reminder fired, and the usage aimock reported
// over the turn's two requests (211+307 prompt and 13+29 completion tokens) beside the
// estimates.
var (
	firedUnitsRe         = regexp.MustCompile(`✓ units-note\b`)
	reportedPromptRe     = regexp.MustCompile(`prompt +518 +~\d+`)
	reportedCompletionRe = regexp.MustCompile(`completion +42 +~\d+`)
)

// TestWorkbenchTmuxTwoTurns runs the real binary in tmux against aimock: two turns, the
// second with a tool call and a reminder fired by one of its words; the Why tab shows the
// reminder and the Usage tab the usage aimock reported; after quitting, the database
// holds both turns with their replies and the tool call.
func TestWorkbenchTmuxTwoTurns(t *testing.T) {
	s := setupE2E(t)
	start := time.Now()
	p := startPane(t, s.tmux, s.bin, 160, 45, s.env, s.args()...)
	waitFor(t, p, "ctxlab · new chat", e2eTimeout)
	t.Logf("first frame %v after the process started", time.Since(start).Round(time.Millisecond))

	send(t, p, "hello workbench")
	waitFor(t, p, "Hello from aimock, turn one.", e2eTimeout)

	send(t, p, "what is the weather in kelvin?")
	screen := waitFor(t, p, "Paris is at 293 kelvin", e2eTimeout)
	waitIdle(t, p) // the reply shows before its turn is saved
	for _, want := range []string{"get_temperature", `{"kelvin": 293}`, "⟪injected: units-note", "1 reminder"} {
		if !strings.Contains(screen, want) {
			t.Errorf("after turn 2 the screen lacks %q:\n%s", want, screen)
		}
	}

	// Select turn 2 in the transcript (the composer is focused: tab moves to the
	// transcript, up then down selects the second of two turns), open Why.
	p.keys("Tab", "Up", "Down", "1")
	screen = waitUntil(t, p, "turn 2's fired reminder in Why", e2eTimeout, func(s string) bool {
		in := inspectorColumn(s)
		return strings.Contains(in, "turn 2") && firedUnitsRe.MatchString(in)
	})
	if in := inspectorColumn(screen); strings.Contains(in, "turn 1") {
		t.Errorf("Why shows turn 1, want turn 2:\n%s", in)
	}

	p.keys("5")
	waitUntil(t, p, "turn 2's reported usage in Usage", e2eTimeout, func(s string) bool {
		in := inspectorColumn(s)
		return strings.Contains(in, "turn 2") && reportedPromptRe.MatchString(in) && reportedCompletionRe.MatchString(in)
	})

	// Turn 2 sent two requests: the tool call's result went back in the second.
	p.keys("3")
	focusInspector(t, p)
	secondRequest(t, p)

	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)

	checkSaved(t, s.db)
	noKey(t, s.db, liveRun{stdout: p.capture(), stderr: p.lastWords()})

	// Opened again, the last turn's requests are rebuilt from the database.
	again := startPane(t, s.tmux, s.bin, 160, 45, s.env, append(s.args(), "--continue")...)
	waitFor(t, again, "Paris is at 293 kelvin", e2eTimeout)
	again.keys("Tab") // the transcript
	waitFor(t, again, " transcript · ", e2eTimeout)
	again.keys("3")
	focusInspector(t, again)
	secondRequest(t, again)
	again.keys("C-c")
	waitFor(t, again, "ctxlab exited: 0", e2eTimeout)
}

// focusInspector moves the focus from the transcript to the inspector.
func focusInspector(t *testing.T, p *pane) {
	t.Helper()
	waitFor(t, p, "[Request]", e2eTimeout)
	p.keys("Tab")
	waitFor(t, p, " inspector · ", e2eTimeout)
}

// secondRequest checks that the Request tab (focused) shows turn 2 as the first of two
// requests, then, after t, the second, which sends the tool call's result back (d: what
// it adds to the first).
func secondRequest(t *testing.T, p *pane) {
	t.Helper()
	waitUntil(t, p, "turn 2's first request in Request", e2eTimeout, func(s string) bool {
		in := inspectorColumn(s)
		return strings.Contains(in, "turn 2") && strings.Contains(in, "request 1/2 of the tool loop")
	})
	p.keys("t")
	waitFor(t, p, "request 2/2 of the tool loop", e2eTimeout)
	p.keys("d")
	screen := waitUntil(t, p, "what turn 2's second request adds", e2eTimeout, func(s string) bool {
		in := inspectorColumn(s)
		return strings.Contains(in, "request 2/2 of the tool loop") && strings.Contains(in, "only what is new since request 1")
	})
	in := inspectorColumn(screen)
	for _, want := range []string{`"tool_call_id": "call_temp_1"`, `"name": "get_temperature"`, `kelvin`} {
		if !strings.Contains(in, want) {
			t.Errorf("turn 2's second request lacks %s:\n%s", want, in)
		}
	}
	p.keys("d")
}

// checkSaved opens the database the workbench wrote and checks its one chat holds both
// turns with their replies, the tool call and the usage aimock reported.
func checkSaved(t *testing.T, db string) {
	t.Helper()
	e := savedChatOnly(t, db)
	if len(e.Turns) != 2 {
		t.Fatalf("got %d turns saved, want 2", len(e.Turns))
	}
	msgs := map[string]chat.Message{}
	for _, m := range e.Messages {
		msgs[m.ID] = m
	}
	wants := []struct {
		user, reply      string
		prompt, complete int
		tool             string
	}{
		{user: "hello workbench", reply: "Hello from aimock, turn one.", prompt: 123, complete: 17},
		{user: "what is the weather in kelvin?", reply: "Paris is at 293 kelvin, about 20 degrees Celsius.",
			prompt: 211 + 307, complete: 13 + 29, tool: "get_temperature"},
	}
	for i, want := range wants {
		tr := e.Turns[i]
		if tr.Number != i+1 {
			t.Errorf("turn %d: saved as turn %d", i+1, tr.Number)
		}
		user, reply := msgs[tr.UserMessageID], msgs[tr.AssistantMessageID]
		if got := user.PlainText(); !strings.HasPrefix(got, want.user) {
			t.Errorf("turn %d: user message %q, want it to start with %q", i+1, got, want.user)
		}
		if got := reply.PlainText(); !strings.Contains(got, want.reply) {
			t.Errorf("turn %d: reply %q, want %q", i+1, got, want.reply)
		}
		if r := tr.Reported; r == nil || r.PromptTokens != want.prompt || r.CompletionTokens != want.complete {
			t.Errorf("turn %d: reported usage %+v, want prompt %d completion %d", i+1, r, want.prompt, want.complete)
		}
		tools := reply.ToolParts()
		switch {
		case want.tool == "" && len(tools) > 0:
			t.Errorf("turn %d: got tool calls %+v, want none", i+1, tools)
		case want.tool != "" && (len(tools) != 1 || tools[0].ToolName != want.tool ||
			tools[0].State != chat.ToolOutputAvailable || tools[0].Output != `{"kelvin": 293}`):
			t.Errorf("turn %d: got tool calls %+v, want one %s answered {\"kelvin\": 293}", i+1, tools, want.tool)
		}
	}
	var fired []string
	for _, f := range e.Turns[1].Fired {
		fired = append(fired, f.ID)
	}
	if strings.Join(fired, ",") != "units-note" || len(e.Turns[0].Fired) != 0 {
		t.Errorf("fired: turn 1 %v, turn 2 %v; want none, then units-note", e.Turns[0].Fired, fired)
	}
}

// TestWorkbenchTmuxResize starts the workbench at 80x24 (the inspector hidden),
// sends one turn, then resizes the window: the screen reflows to the new width, the reply
// is still there and nothing panicked.
func TestWorkbenchTmuxResize(t *testing.T) {
	s := setupE2E(t)
	p := startPane(t, s.tmux, s.bin, 80, 24, s.env, s.args()...)
	waitFor(t, p, "new chat · branch main", e2eTimeout) // at 80 columns the word ctxlab gives way
	send(t, p, "hello workbench")
	screen := waitFor(t, p, "Hello from aimock, turn one.", e2eTimeout)
	if strings.Contains(screen, "│") {
		t.Errorf("at 80 columns the inspector is shown beside the transcript:\n%s", screen)
	}
	if w := maxWidth(screen); w > 80 {
		t.Errorf("a line of %d columns at 80x24:\n%s", w, screen)
	}

	p.run("resize-window", "-t", "s", "-x", "100", "-y", "30")
	screen = waitUntil(t, p, "the screen reflowed to 100x30 with the inspector", e2eTimeout, func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return len(lines) >= 29 && strings.Contains(s, "│") && strings.Contains(inspectorColumn(s), "Why")
	})
	if !strings.Contains(screen, "Hello from aimock, turn one.") || !strings.Contains(screen, "hello workbench") {
		t.Errorf("after the resize the turn is gone:\n%s", screen)
	}
	if w := maxWidth(screen); w > 100 {
		t.Errorf("a line of %d columns at 100x30:\n%s", w, screen)
	}
	if strings.Contains(screen, "ctxlab exited") || strings.Contains(p.lastWords(), "panic") {
		t.Fatalf("the workbench died on resize:\n%s\n%s", screen, p.lastWords())
	}
	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)
}

// maxWidth is the widest line of a screen, in runes (the workbench's frames are
// single-width text under the mono theme).
func maxWidth(screen string) int {
	w := 0
	for _, l := range strings.Split(screen, "\n") {
		w = max(w, len([]rune(l)))
	}
	return w
}

// hostileReply is what aimock answers "be hostile" with (testdata/aimock/workbench.json):
// text around a title change, a clear screen and an OSC 52 clipboard write.
const hostileReply = "before the storm \x1b]0;PWNED\x07 title \x1b[2J clear \x1b]52;c;UFdORUQgY2xpcGJvYXJk\x07 clipboard, after the storm"

// TestWorkbenchTmuxHostileReply sends a turn whose reply holds escape sequences (set the
// title, clear the screen, write the clipboard with OSC 52): the pane's title is
// unchanged, the transcript is still on screen and no paste buffer was set. A control
// pane that prints the same reply raw shows these checks see each sequence.
func TestWorkbenchTmuxHostileReply(t *testing.T) {
	s := setupE2E(t)

	// The control: the raw bytes do set the title and the buffer on this tmux.
	raw := filepath.Join(t.TempDir(), "hostile.txt")
	if err := os.WriteFile(raw, []byte(hostileReply+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctl := startPane(t, s.tmux, "cat", 80, 24, nil, raw)
	waitFor(t, ctl, "ctxlab exited: 0", e2eTimeout)
	if title := strings.TrimSpace(ctl.run("display", "-p", "-t", "s", "#{pane_title}")); title != "PWNED" {
		t.Fatalf("control: the raw reply set the title to %q, want PWNED: the title check would see nothing", title)
	}
	if buf, err := ctl.tmuxErr("show-buffer"); err != nil || !strings.Contains(buf, "PWNED clipboard") {
		t.Fatalf("control: the raw reply's OSC 52 set buffer %q (%v), want \"PWNED clipboard\": the clipboard check would see nothing", buf, err)
	}

	p := startPane(t, s.tmux, s.bin, 160, 45, s.env, s.args()...)
	waitFor(t, p, "ctxlab · new chat", e2eTimeout)
	title := strings.TrimSpace(p.run("display", "-p", "-t", "s", "#{pane_title}"))
	send(t, p, "hello workbench")
	waitFor(t, p, "Hello from aimock, turn one.", e2eTimeout)
	send(t, p, "now be hostile")
	screen := waitFor(t, p, "after the storm", e2eTimeout)

	if got := strings.TrimSpace(p.run("display", "-p", "-t", "s", "#{pane_title}")); got != title || strings.Contains(got, "PWNED") {
		t.Errorf("pane title %q after the reply, want %q unchanged", got, title)
	}
	for _, want := range []string{"hello workbench", "Hello from aimock, turn one.", "now be hostile", "before the storm"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q after the reply (cleared?):\n%s", want, screen)
		}
	}
	if buf, err := p.tmuxErr("show-buffer"); err == nil && buf != "" {
		t.Errorf("the reply set the paste buffer to %q", buf)
	}
	if out := p.run("list-buffers"); strings.TrimSpace(out) != "" {
		t.Errorf("paste buffers after the reply: %q, want none", out)
	}
	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)
}
