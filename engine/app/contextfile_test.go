package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/script"
)

// TestChooseContext checks the one rule of every command, in a working directory that
// holds ./ctxlab.ctx.yaml or not: a named file first, then the file the saved chat was
// last used with while it exists, then ./ctxlab.ctx.yaml, then none; the recorded file is
// read only when no file is named.
func TestChooseContext(t *testing.T) {
	const rec = "recorded.ctx.yaml"
	tests := []struct {
		name                 string
		named                string
		recorded             string // "" none recorded
		recordedExists, dflt bool
		want                 ContextChoice
		label                string
	}{
		{name: "nothing: a plain chat", want: ContextChoice{Source: ContextNone}, label: "no context file"},
		{name: "the default", dflt: true, want: ContextChoice{Path: DefaultContextFile, Source: ContextDefault}, label: "ctxlab.ctx.yaml"},
		{name: "named over everything", named: "other.ctx.yaml", recorded: rec, recordedExists: true, dflt: true,
			want: ContextChoice{Path: "other.ctx.yaml", Source: ContextNamed}, label: "other.ctx.yaml"},
		{name: "named, even missing", named: "missing.ctx.yaml", want: ContextChoice{Path: "missing.ctx.yaml", Source: ContextNamed}},
		{name: "recorded over the default", recorded: rec, recordedExists: true, dflt: true,
			want: ContextChoice{Path: rec, Source: ContextRecorded}, label: rec},
		{name: "recorded gone: the default", recorded: rec, dflt: true,
			want: ContextChoice{Path: DefaultContextFile, Source: ContextDefault, Gone: rec}},
		{name: "recorded gone, no default: none", recorded: rec,
			want: ContextChoice{Source: ContextNone, Gone: rec}, label: "no context file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if tt.dflt {
				writeFile(t, DefaultContextFile, testCtx)
			}
			if tt.recordedExists {
				writeFile(t, rec, testCtx)
			}
			asked := 0
			got := ChooseContext(tt.named, func() string { asked++; return tt.recorded })
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if tt.label != "" && got.Label() != tt.label {
				t.Errorf("label %q, want %q", got.Label(), tt.label)
			}
			if want := 0; tt.named != "" && asked != want {
				t.Errorf("the recorded file was read %d times with a file named, want %d", asked, want)
			}
			if f, err := LoadContext(got); got.Source != ContextNamed && (err != nil || f.Path != got.Path) {
				t.Errorf("LoadContext: %v, %v; want the file chosen", f, err)
			}
		})
	}
	if got := ChooseContext("", nil); got.Source != ContextNone {
		t.Errorf("a new chat (recorded nil) in an empty folder: %+v, want none", got)
	}
}

// writeFile writes a file in the working directory.
func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPromptWithoutContextFile: prompt with no file named plans a plain chat in a folder
// without ./ctxlab.ctx.yaml (an empty system prompt, no system message, no tools, no
// decisions), and uses ./ctxlab.ctx.yaml where there is one.
func TestPromptWithoutContextFile(t *testing.T) {
	isolate(t)
	t.Chdir(t.TempDir())
	ctx := context.Background()
	res, err := Prompt(ctx, Flags{}, "", "hello", "")
	if err != nil {
		t.Fatalf("prompt with no context file: %v", err)
	}
	if res.Context.Source != ContextNone || res.Plan.SystemPrompt != "" || len(res.Trace.Decisions) != 0 ||
		len(res.Plan.Request.Tools) != 0 || res.Plan.Request.Len() != 1 || res.Plan.Request.At(0).Role != chat.RoleUser {
		t.Errorf("got %+v, system prompt %q, %d decisions, %d tools, %d messages; want a plain chat: the user message alone",
			res.Context, res.Plan.SystemPrompt, len(res.Trace.Decisions), len(res.Plan.Request.Tools), res.Plan.Request.Len())
	}
	writeFile(t, DefaultContextFile, testCtx)
	res, err = Prompt(ctx, Flags{}, "", "hello", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Context.Source != ContextDefault || !strings.Contains(res.Plan.SystemPrompt, "You are terse.") || len(res.Trace.Decisions) != 1 {
		t.Errorf("with ./ctxlab.ctx.yaml: got %+v, system prompt %q; want the file's", res.Context, res.Plan.SystemPrompt)
	}
}

// recordingServer is a model server that answers every chat request "ok" and keeps the
// bodies it was sent.
func recordingServer(t *testing.T) (url string, bodies func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// TestAskFollowsTheContextRule: ask with no --context sends a plain chat (no system
// message, no tools) where there is no ./ctxlab.ctx.yaml, uses the file a continued chat
// was last used with, and ./ctxlab.ctx.yaml for a new chat where there is one.
func TestAskFollowsTheContextRule(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	t.Chdir(dir)
	ctx := context.Background()
	url, bodies := recordingServer(t)
	opt := Options{DB: filepath.Join(dir, "ctxlab.db"), Flags: Flags{BaseURL: url, Model: "m"}}
	writeFile(t, "other.ctx.yaml", testCtx)

	plain, err := Ask(ctx, opt, AskRequest{Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if b := bodies()[0]; plain.Context.Source != ContextNone || strings.Contains(b, `"system"`) || strings.Contains(b, `"tools"`) {
		t.Errorf("a new chat with no context file: %+v sent %s; want no system message, no tools", plain.Context, b)
	}
	if _, err := Ask(ctx, opt, AskRequest{Text: "more", Chat: plain.ChatID, Context: "other.ctx.yaml"}); err != nil {
		t.Fatal(err)
	}
	again, err := Ask(ctx, opt, AskRequest{Text: "and more", Chat: "last"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Context.Source != ContextRecorded || len(again.Turn.Plan.Decisions) != 1 || !strings.Contains(bodies()[2], "You are terse.") {
		t.Errorf("ask --chat last after a turn under other.ctx.yaml: %+v, %d decisions; want the recorded file", again.Context, len(again.Turn.Plan.Decisions))
	}
	writeFile(t, DefaultContextFile, "version: 1\nsystem:\n  - role: You are the default.\n")
	fresh, err := Ask(ctx, opt, AskRequest{Text: "new"})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Context.Source != ContextDefault || !strings.Contains(bodies()[3], "You are the default.") {
		t.Errorf("a new chat beside ./ctxlab.ctx.yaml: %+v; want it", fresh.Context)
	}
}

// TestRunScriptFollowsTheContextRule: a script that names no context file plays under
// the file the chat it continues was last used with, else ./ctxlab.ctx.yaml, else none
// (a plain chat), instead of being refused.
func TestRunScriptFollowsTheContextRule(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	t.Chdir(dir)
	ctx := context.Background()
	opt := Options{DB: filepath.Join(dir, "ctxlab.db")}
	writeFile(t, "plain.script.yaml", "chat: {id: plain}\nturns:\n  - user: hi\n    assistant: ok\n")
	writeFile(t, "named.script.yaml", "context: ./other.ctx.yaml\nchat: {id: named}\nturns:\n  - user: hi\n    assistant: ok\n")
	writeFile(t, "continue.script.yaml", "chat: {id: named}\nturns:\n  - user: more\n    assistant: ok\n")
	writeFile(t, "fresh.script.yaml", "chat: {id: fresh}\nturns:\n  - user: hi\n    assistant: ok\n")
	writeFile(t, "other.ctx.yaml", testCtx)

	play := func(name string) (system string, decisions int, recorded string) {
		t.Helper()
		var last *engine.TurnResult
		res, err := RunScript(ctx, opt, ScriptRun{Path: name, OnTurn: func(_ *script.Step, r *engine.TurnResult) { last = r }})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w, err := OpenSaved(ctx, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		return last.Plan.SystemPrompt, len(last.Plan.Decisions), w.RecordedContext(ctx, res.Session.Chat().ID)
	}
	if sys, n, rec := play("plain.script.yaml"); sys != "" || n != 0 || rec != "" {
		t.Errorf("no context file anywhere: system %q, %d decisions, recorded %q; want a plain chat, nothing recorded", sys, n, rec)
	}
	other, _ := filepath.Abs("other.ctx.yaml")
	play("named.script.yaml")
	if sys, n, rec := play("continue.script.yaml"); !strings.Contains(sys, "You are terse.") || n != 1 || rec != other {
		t.Errorf("continuing a chat played under other.ctx.yaml: system %q, %d decisions, recorded %q; want that file", sys, n, rec)
	}
	writeFile(t, DefaultContextFile, "version: 1\nsystem:\n  - role: You are the default.\n")
	dflt, _ := filepath.Abs(DefaultContextFile)
	if sys, _, rec := play("fresh.script.yaml"); !strings.Contains(sys, "You are the default.") || rec != dflt {
		t.Errorf("a new chat beside ./ctxlab.ctx.yaml: system %q, recorded %q; want that file", sys, rec)
	}
}
