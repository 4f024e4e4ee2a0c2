package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/script"
)

// writeFiles writes files into a new temporary directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	scriptSrc = `context: ./test.ctx.yaml
chat: {id: chat-1, title: Test}
turns:
  - user: hello
    at: 2026-02-01T10:00:00Z
    assistant: Hi.
  - user: more
    at: 2026-02-01T10:01:00Z
    assistant: Sure.
  - regenerate: {assistant: Of course.}
    at: 2026-02-01T10:02:00Z
`
	// editedCtx drops the reminder of testCtx: every turn's decision is removed.
	editedCtx = "version: 1\nsystem:\n  - role: You are terse.\n"
)

func TestRunScript(t *testing.T) {
	isolate(t)
	dir := writeFiles(t, map[string]string{"test.ctx.yaml": testCtx, "edited.ctx.yaml": editedCtx, "run.script.yaml": scriptSrc,
		"bad-step.script.yaml": "context: ./test.ctx.yaml\nturns:\n  - user: hi\n    assistant: ok\n  - restore: nowhere\n",
		"asks.script.yaml":     "context: ./test.ctx.yaml\nturns:\n  - user: hi\n",
	})
	ctx := context.Background()
	opt := Options{DB: filepath.Join(dir, "ctxlab.db")}

	// Scripts that cannot be played save nothing, and say where they fail: the checks come
	// before the database is opened, the dry run (a step the chat cannot do) after.
	for _, tt := range []struct {
		name, want string
		opened     bool
	}{
		{"asks", "asks.script.yaml:3:", false},
		{"bad-step", "bad-step.script.yaml:5:", true},
	} {
		_, err := RunScript(ctx, opt, ScriptRun{Path: filepath.Join(dir, tt.name+".script.yaml")})
		if !diag.IsInvalidInput(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want invalid input at %s", tt.name, err, tt.want)
		}
		if _, err := os.Stat(opt.DB); errors.Is(err, os.ErrNotExist) == tt.opened {
			t.Fatalf("%s: got database created %v, want %v", tt.name, !tt.opened, tt.opened)
		}
	}
	w, err := OpenSaved(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if last, err := w.LastChat(ctx); err != nil || last != "" {
		t.Fatalf("after the failed runs: got chat %q, %v, want none saved", last, err)
	}
	w.Close()

	var turns, steps []string
	res, err := RunScript(ctx, opt, ScriptRun{Path: filepath.Join(dir, "run.script.yaml"),
		OnTurn: func(st *script.Step, r *engine.TurnResult) { turns = append(turns, r.Assistant.PlainText()) },
		OnStep: func(st *script.Step, what string) { steps = append(steps, what) }})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Hi.", "Sure.", "Of course."}; !slices.Equal(turns, want) {
		t.Errorf("got turns %q, want %q", turns, want)
	}
	if res.Session.Chat().ID != "chat-1" || res.Session.Branch() != "main-v2" || res.RunPriced || res.ChatPriced {
		t.Errorf("got chat %s on %s, priced %v/%v, want chat-1 on main-v2 with no price (scripted)",
			res.Session.Chat().ID, res.Session.Branch(), res.RunPriced, res.ChatPriced)
	}

	// The saved chat: its branches, its replay as recorded and under an edited file.
	w, err = OpenSaved(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	c, branches, err := w.Branches(ctx, "chat-1")
	// The workbench opens the chat on the file the script played it under.
	if path, err := w.ChatContext(ctx, "chat-1"); err != nil || path != filepath.Join(dir, "test.ctx.yaml") {
		t.Errorf("recorded context file: got %q, %v, want %s", path, err, filepath.Join(dir, "test.ctx.yaml"))
	}
	w.Close()
	if err != nil || c.ActiveBranch != "main-v2" || len(branches) != 2 {
		t.Fatalf("got active %s, %d branches, %v, want main-v2 and 2", c.ActiveBranch, len(branches), err)
	}
	for _, tt := range []struct {
		context      string
		turns, moved int
	}{
		{"", 2, 0},
		{filepath.Join(dir, "test.ctx.yaml"), 2, 0},
		{filepath.Join(dir, "edited.ctx.yaml"), 2, 2},
	} {
		var replies []string
		stats, err := Replay(ctx, opt, "chat-1", tt.context, func(tr *engine.Trace) error {
			replies = append(replies, tr.Assistant.Text)
			return nil
		})
		if err != nil || stats.Turns != tt.turns || stats.Changed != tt.moved || !slices.Equal(replies, []string{"Hi.", "Of course."}) {
			t.Errorf("replay under %q: got %+v, %q, %v, want %d turns, %d changed", tt.context, stats, replies, err, tt.turns, tt.moved)
		}
	}
	if _, err := Replay(ctx, Options{DB: filepath.Join(dir, "none.db")}, "chat-1", "", nil); !errors.As(err, new(*NoDatabaseError)) {
		t.Errorf("replay of a missing database: got %v, want a NoDatabaseError", err)
	}
}

func TestPrompt(t *testing.T) {
	isolate(t)
	dir := writeFiles(t, map[string]string{"test.ctx.yaml": testCtx})
	path := filepath.Join(dir, "test.ctx.yaml")
	ctx := context.Background()
	res, err := Prompt(ctx, Flags{}, path, "hello", "2026-03-27T14:30:00Z")
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Turn != 1 || res.Trace.At != "2026-03-27T14:30:00Z" || res.Plan.Request.Model != "scripted" ||
		!slices.ContainsFunc(res.Trace.Decisions, fired("every")) || res.File.Path != path {
		t.Errorf("got turn %d at %s model %s, want turn 1 at the given time, scripted, every fired", res.Plan.Turn, res.Trace.At, res.Plan.Request.Model)
	}
	_, err = Prompt(ctx, Flags{}, path, "hello", "yesterday")
	var usage *UsageError
	if !errors.As(err, &usage) || err.Error() != `--at "yesterday" is not an RFC 3339 time like 2026-03-27T14:30:00Z` {
		t.Errorf("got %v, want a usage error for --at", err)
	}
	if _, err := Prompt(ctx, Flags{}, filepath.Join(dir, "none.ctx.yaml"), "", ""); err == nil {
		t.Error("a missing context file: got no error")
	}
}

func TestSettingsAndModels(t *testing.T) {
	isolate(t)
	dir := writeFiles(t, map[string]string{"model.ctx.yaml": "version: 1\nmodel: {name: gpt-4o}\n"})
	s, err := LoadSettings(Flags{}, filepath.Join(dir, "model.ctx.yaml"), true)
	if err != nil || s.ModelName() != "gpt-4o" {
		t.Errorf("got model %q, %v, want the context file's gpt-4o", s.ModelName(), err)
	}
	if s, err := LoadSettings(Flags{Model: "o3"}, "", true); err != nil || s.ModelName() != "o3" {
		t.Errorf("got model %q, %v, want the flag's o3", s.ModelName(), err)
	}
	if ModelLabel(s) != "SCRIPTED" {
		t.Errorf("got label %q with no server, want SCRIPTED", ModelLabel(s))
	}
	if _, err := ServerModels(context.Background(), Flags{}); !errors.Is(err, ErrNoServer) {
		t.Errorf("got %v, want ErrNoServer", err)
	}
	url := fakeServer(t, []string{"b", "a"}, "")
	if names, err := ServerModels(context.Background(), Flags{BaseURL: url}); err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("got %q, %v, want [a b]", names, err)
	}
}

// TestRunScriptChatCost checks the chat's cost a run reports: none for a new chat of
// scripted turns (the run does not even sum it), the sum of its priced turns for a chat
// that has some, also when the run that continues it is scripted.
func TestRunScriptChatCost(t *testing.T) {
	isolate(t)
	ctxFile := "version: 1\nmodel: {name: gpt-4o-mini}\nsystem:\n  - role: You are terse.\n"
	dir := writeFiles(t, map[string]string{"c.ctx.yaml": ctxFile,
		"new.script.yaml":    "context: ./c.ctx.yaml\nchat: {id: new}\nturns:\n  - user: hi\n    assistant: ok\n",
		"priced.script.yaml": "context: ./c.ctx.yaml\nchat: {id: priced}\nturns:\n  - user: hi\n    assistant: ok\n    usage: {prompt_tokens: 1000000, completion_tokens: 0, total_tokens: 1000000}\n",
		"again.script.yaml":  "context: ./c.ctx.yaml\nchat: {id: priced}\nturns:\n  - user: more\n    assistant: sure\n",
	})
	ctx := context.Background()
	opt := Options{DB: filepath.Join(dir, "ctxlab.db")}
	run := func(name string) *ScriptResult {
		t.Helper()
		res, err := RunScript(ctx, opt, ScriptRun{Path: filepath.Join(dir, name)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	if res := run("new.script.yaml"); res.ChatPriced || res.RunPriced {
		t.Errorf("a new chat of scripted turns: priced %v/%v, want no price", res.RunPriced, res.ChatPriced)
	}
	first := run("priced.script.yaml")
	if !first.RunPriced || !first.ChatPriced || first.ChatCost <= 0 || first.ChatCost != first.RunCost {
		t.Fatalf("a turn with usage: run %v $%v, chat %v $%v; want both priced, equal", first.RunPriced, first.RunCost, first.ChatPriced, first.ChatCost)
	}
	if again := run("again.script.yaml"); again.RunPriced || !again.ChatPriced || again.ChatCost != first.ChatCost {
		t.Errorf("a scripted run continuing it: run priced %v, chat %v $%v; want the chat's $%v", again.RunPriced, again.ChatPriced, again.ChatCost, first.ChatCost)
	}
}
