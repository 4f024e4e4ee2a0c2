package main

// Tests that the human-readable output of the headless commands shows what a terminal
// would draw as nothing or reorder (issue 22, item 7): a right-to-left override, a
// zero-width space and a joiner between Latin letters in a reply, a title, a tool name, a
// model id, a server error and a file name are printed as ⟨U+…⟩ by the real binary, the
// joiners of Hindi, Persian and emoji text are kept, and --json keeps the exact bytes.

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

const (
	// rlo makes "txt.exe" after it read "exe.txt" where the terminal applies bidi.
	rlo = "\u202e"
	// spoofText holds, besides the override, a zero-width space and a joiner between
	// Latin letters (both shown), and text whose joiners do their job (kept).
	spoofText  = "open invoice_" + rlo + "txt.exe, not pay\u200dpal or gpt\u200b-4o; क्\u200dष, می\u200cخواهم, 👨\u200d💻"
	spoofShown = "open invoice_⟨U+202E⟩txt.exe, not pay⟨U+200D⟩pal or gpt⟨U+200B⟩-4o; क्\u200dष, می\u200cخواهم, 👨\u200d💻"
)

// checkShown fails if out holds a bidi control, a zero-width space or a joiner between
// Latin letters unshown, or lacks one of want.
func checkShown(t *testing.T, what, out string, want ...string) {
	t.Helper()
	checkInert(t, what, out)
	for _, bad := range []string{rlo, "\u200b", "y\u200dp"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s: %+q unshown in:\n%s", what, bad, out)
		}
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s: lacks %q in:\n%s", what, w, out)
		}
	}
}

// TestVisibleHumanOutput runs the binary on a script, a context file and a server whose
// texts hide characters: run, replay, prompt, chats, export --format markdown, models,
// config and the error printing show them; run --json keeps them as they are.
func TestVisibleHumanOutput(t *testing.T) {
	bin := buildCtxlab(t)
	env := ctxlabProcessEnv(t)
	const (
		id     = "spoof" + rlo + "-1"
		title  = "Invoice " + rlo + "txt.exe"
		model  = "gpt" + rlo + "-4o"
		tool   = "run" + rlo + "_sql"
		failed = "quota " + rlo + "exceeded"
	)
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, _ <-chan struct{}) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"object":"list","data":[{"id":%s,"object":"model","owned_by":"local"}]}`, yq(model))
			return
		}
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		if c, _ := last["content"].(string); strings.Contains(c, "fail") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error": {"message": %s, "type": "invalid_request_error"}}`, yq(failed))
			return
		}
		sseStart(w)
		if last["role"] == "tool" {
			sseLine(w, sseText(spoofText, "stop"))
		} else {
			sseLine(w, fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":%s,"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, yq(tool)))
		}
		sseLine(w, "[DONE]")
	})
	dir := t.TempDir()
	ctxFile := "spoof" + rlo + ".ctx.yaml"
	writeTestFile(t, dir, ctxFile, fmt.Sprintf("version: 1\nmodel:\n  name: %s\nsystem:\n  - role: %s\n", yq(model), yq(spoofText)))
	bad := writeTestFile(t, dir, "bad"+rlo+".ctx.yaml", "version: 1\nreminders:\n  - id: a\n    text: hi\n    when: nope(\n")
	script := writeTestFile(t, dir, "spoof.script.yaml", fmt.Sprintf("context: %s\nchat: {id: %s, title: %s}\nturns:\n  - user: %s\n    at: 2026-04-10T10:00:00Z\n",
		yq(ctxFile), yq(id), yq(title), yq("deploy "+rlo+"txt.exe")))
	fail := writeTestFile(t, dir, "fail.script.yaml", fmt.Sprintf("context: %s\nchat: {id: fail}\nturns:\n  - user: please fail\n", yq(ctxFile)))
	db := filepath.Join(dir, "ctxlab.db")
	run := func(args ...string) cliResult {
		t.Helper()
		cmd, out, errb := ctxlabProcess(bin, env, append(args, "--base-url", s.url)...)
		return cliResult{code: exitCode(cmd.Run()), stdout: out.String(), stderr: errb.String()}
	}

	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"run", []string{"run", script, "--db", db}, 0, []string{spoofShown, "user:            deploy ⟨U+202E⟩txt.exe",
			"[run⟨U+202E⟩_sql ", "[gpt⟨U+202E⟩-4o]", "chat spoof⟨U+202E⟩-1"}},
		{"replay", []string{"replay", id, "--db", db}, 0, []string{spoofShown, "[run⟨U+202E⟩_sql ", "chat spoof⟨U+202E⟩-1"}},
		{"prompt", []string{"prompt", "--context", filepath.Join(dir, ctxFile), "--user", "hi"}, 0,
			[]string{spoofShown, "model gpt⟨U+202E⟩-4o"}},
		{"chats", []string{"chats", "--db", db}, 0, []string{"spoof⟨U+202E⟩-1  Invoice ⟨U+202E⟩txt.exe"}},
		{"markdown export", []string{"export", id, "--format", "markdown", "--db", db}, 0, []string{"# Invoice ⟨U+202E⟩txt.exe", spoofShown}},
		{"models", []string{"models"}, 0, []string{"gpt⟨U+202E⟩-4o\n"}},
		{"config", []string{"config", "--context", filepath.Join(dir, ctxFile)}, 0, []string{"gpt⟨U+202E⟩-4o", "spoof⟨U+202E⟩.ctx.yaml"}},
		{"server error", []string{"run", fail, "--db", ":memory:"}, exitFailure, []string{"quota ⟨U+202E⟩exceeded"}},
		{"file name in an error", []string{"prompt", "--context", bad}, exitInvalid, []string{"bad⟨U+202E⟩.ctx.yaml:5:"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			checkShown(t, "stdout", r.stdout)
			checkShown(t, "stderr", r.stderr)
			checkShown(t, "stdout and stderr", r.stdout+r.stderr, tt.want...)
		})
	}

	t.Run("json", func(t *testing.T) {
		r := run("run", script, "--db", ":memory:", "--json")
		if r.code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
		traces, _ := liveTraces(t, r.stdout)
		if len(traces) != 1 || traces[0].Assistant == nil {
			t.Fatalf("got %d traces, want 1 with a reply", len(traces))
		}
		a := traces[0].Assistant
		if !strings.Contains(a.Text, spoofText) || len(a.Tools) != 1 || a.Tools[0].Name != tool || traces[0].Request.Model != model {
			t.Errorf("got reply %+q, tools %+v, model %+q; want the exact bytes %+q, %+q, %+q", a.Text, a.Tools, traces[0].Request.Model, spoofText, tool, model)
		}
	})
}
