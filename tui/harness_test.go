package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/themes"
)

// updating (inspector_test.go) reads -update, which rewrites the golden files.

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	// No test reads the user's configuration or model settings.
	home, err := os.MkdirTemp("", "ctxlab-tui-test-")
	if err != nil {
		panic(err)
	}
	cfg := filepath.Join(home, "empty-config.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		panic(err)
	}
	for k, v := range map[string]string{"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OPENAI_MODEL": "",
		"CTXLAB_CONFIG": cfg, "CTXLAB_DB": "", "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_DATA_HOME": filepath.Join(home, "data")} {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// testClock is a fixed clock that moves a minute on each turn the tests send.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func newClock() *testClock { return &testClock{t: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)} }

// env is an in-memory workspace on the demo context file.
type env struct {
	ws    *ctxapp.Workspace
	file  *ctxfile.File
	s     ctxapp.Settings
	e     *engine.Engine
	clock *testClock
}

// newEnv is a workspace in memory with an engine on the demo context file.
func newEnv(tb testing.TB) *env {
	tb.Helper()
	return newEnvAt(tb, "../testdata/demo/support.ctx.yaml")
}

// playScript plays a script of testdata/demo into the workspace.
func (v *env) playScript(tb testing.TB, name string) {
	tb.Helper()
	sc, err := script.Load(filepath.Join("../testdata/demo", name))
	if err != nil {
		tb.Fatal(err)
	}
	r := script.Runner{Engine: v.e}
	if _, err := r.Run(context.Background(), sc); err != nil {
		tb.Fatal(err)
	}
}

// labelled names a test model in the header.
type labelled struct{ *ctxapp.Chat }

func (labelled) ModelLabel() string { return "test-model @ 127.0.0.1" }

// chat opens chat id (new when ""), answered by model (nil: scripted).
func (v *env) chat(tb testing.TB, id string, model engine.Replier) Chat {
	tb.Helper()
	var c *ctxapp.Chat
	if id == "" {
		c = v.ws.NewChat(v.s, v.e, model)
	} else {
		var err error
		if c, err = v.ws.OpenChat(context.Background(), v.s, v.e, model, id); err != nil {
			tb.Fatal(err)
		}
	}
	if model != nil {
		return labelled{c}
	}
	return c
}

// newModel returns the workbench on c at a size, loaded.
func newModel(tb testing.TB, v *env, c Chat, w, h int, opt Options) *Model {
	tb.Helper()
	opt.Chat = c
	if opt.Theme == nil {
		opt.Theme = themes.Mono()
	}
	opt.Now, opt.Location = v.clock.Now, time.UTC
	if opt.ContextName == "" {
		opt.ContextName = "support.ctx.yaml"
	}
	m := New(opt)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(m, m.Init())
	return m
}

// drive runs a command as the program would, synchronously, feeding what it returns to
// Update, and the commands that returns, and so on. Spinner ticks are dropped (they
// would tick forever).
func drive(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			drive(m, c)
		}
	case spinner.TickMsg, tea.QuitMsg:
	default:
		_, next := m.Update(msg)
		drive(m, next)
	}
}

// keyMsg returns the key message for a key name ("enter", "alt+i", "f1") or text.
func keyMsg(s string) tea.KeyMsg {
	alt := false
	if strings.HasPrefix(s, "alt+") && len(s) > 4 {
		alt, s = true, s[4:]
	}
	if t, ok := keyTypes[s]; ok {
		return tea.KeyMsg{Type: t, Alt: alt}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Alt: alt}
}

// keyTypes are Bubble Tea's keys by name ("enter", "left", "ctrl+o", "space"): the
// events a key press sends. (A name sent as runes would be a word typed, which is text,
// never a key.)
var keyTypes = func() map[string]tea.KeyType {
	m := map[string]tea.KeyType{"space": tea.KeySpace}
	for t := tea.KeyType(-200); t <= 127; t++ {
		if name := (tea.Key{Type: t}).String(); name != "" && t != tea.KeyRunes && t != tea.KeySpace {
			if _, ok := m[name]; !ok {
				m[name] = t
			}
		}
	}
	return m
}()

// press sends keys, each a key name or, with type:, text typed rune by rune.
func press(m *Model, keys ...string) {
	for _, k := range keys {
		if text, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range text {
				_, cmd := m.Update(keyMsg(string(r)))
				drive(m, cmd)
			}
			continue
		}
		_, cmd := m.Update(keyMsg(k))
		drive(m, cmd)
	}
}

// goldenFrame compares a frame with testdata/name.golden (rewritten with -update).
func goldenFrame(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s: frame differs from %s:\n--- got\n%s\n--- want\n%s", t.Name(), path, got, want)
	}
}

// step is one request of a test model's reply: text deltas and tool calls.
type step struct {
	deltas []string
	tools  []chat.WireToolCall
	// failAfter makes the request fail after that many deltas (-1: never).
	failAfter int
	err       error
}

// streamModel is a model for tests: it streams its steps' deltas with a pause between
// them, answers tool calls from the context file, and stops when cancelled (the partial
// reply is kept, interrupted).
type streamModel struct {
	turns [][]step
	pause time.Duration
	n     int
	// started, when set, is signalled when the first delta of a turn is emitted.
	started chan struct{}
}

func (s *streamModel) Reply(ctx context.Context, t *engine.TurnRequest, emit func(engine.Event)) (*engine.Outcome, error) {
	steps := s.turns[s.n%len(s.turns)]
	s.n++
	out := &engine.Outcome{FinishReason: "stop", TTFT: 120 * time.Millisecond, Total: 900 * time.Millisecond}
	for i, st := range steps {
		req := t.Plan.Request
		if i > 0 {
			req = t.LoopRequest(out.Parts)
		}
		emit(engine.EventRequest{Step: i + 1, Request: req})
		var text strings.Builder
		for j, d := range st.deltas {
			if st.failAfter >= 0 && j == st.failAfter {
				return s.cut(out, text.String(), st.err, emit, s.response(t, i, len(steps)))
			}
			if s.pause > 0 {
				select {
				case <-ctx.Done():
					return s.cut(out, text.String(), ctx.Err(), emit, s.response(t, i, len(steps)))
				case <-time.After(s.pause):
				}
			}
			text.WriteString(d)
			emit(engine.EventText{Step: i + 1, Text: d})
			if s.started != nil && j == 0 && i == 0 {
				select {
				case s.started <- struct{}{}:
				default:
				}
			}
		}
		if st.failAfter >= 0 && st.failAfter >= len(st.deltas) {
			return s.cut(out, text.String(), st.err, emit, s.response(t, i, len(steps)))
		}
		if text.Len() > 0 {
			out.Parts = append(out.Parts, chat.TextPart(text.String()))
		}
		r := s.response(t, i, len(steps))
		if i > 0 {
			out.ExtraPrompt += r.EstimatedPrompt
		}
		if len(st.tools) > 0 {
			r.FinishReason = "tool_calls"
		}
		emit(engine.EventUsage{Step: i + 1, Usage: *r.Usage})
		emit(engine.EventResponse{Step: i + 1, Response: r})
		out.Responses = append(out.Responses, r)
		for _, call := range st.tools {
			emit(engine.EventToolCall{Step: i + 1, ID: call.ID, Name: call.Function.Name, Arguments: call.Function.Arguments})
			p := t.AnswerTool(call)
			p.Round = i + 1
			emit(engine.EventToolAnswered{Step: i + 1, Part: p})
			out.Parts = append(out.Parts, p)
		}
	}
	out.Reported = &chat.Usage{PromptTokens: 700, CompletionTokens: 40, TotalTokens: 740}
	return out, nil
}

// response is what the test model's server says of request i of n: the turn's 700 prompt
// and 40 completion tokens shared among the requests, each request estimated 25 tokens
// more than the one before, 120 ms to the turn's first token, 900 ms in all.
func (s *streamModel) response(t *engine.TurnRequest, i, n int) chat.Response {
	u := chat.Usage{PromptTokens: 700 / n, CompletionTokens: 40 / n}
	if i == n-1 {
		u.PromptTokens, u.CompletionTokens = 700-(n-1)*(700/n), 40-(n-1)*(40/n)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	r := chat.Response{FinishReason: "stop", Usage: &u, EstimatedPrompt: t.Plan.Estimate.Total + 25*i,
		TTFT: 40 * time.Millisecond, Latency: 900 * time.Millisecond / time.Duration(n)}
	if i == 0 {
		r.TTFT = 120 * time.Millisecond
	}
	return r
}

// cut ends a reply early: what arrived is kept, marked interrupted; nothing arrived is a
// failure. The request cut short has the response r, its finish reason error and no usage.
func (s *streamModel) cut(out *engine.Outcome, text string, err error, emit func(engine.Event), r chat.Response) (*engine.Outcome, error) {
	if err == nil {
		err = errors.New("stream broken")
	}
	r.FinishReason, r.Usage = "error", nil
	emit(engine.EventResponse{Step: len(out.Responses) + 1, Response: r})
	out.Responses = append(out.Responses, r)
	if text != "" {
		out.Parts = append(out.Parts, chat.TextPart(text))
	}
	if len(out.Parts) == 0 {
		return nil, err
	}
	out.Interrupted, out.FinishReason, out.Err = true, "error", err
	return out, err
}

// textStep is a step that streams text in pieces.
func textStep(pieces ...string) step { return step{deltas: pieces, failAfter: -1} }
