package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// configValues runs `ctxlab config --json` with args and returns its values by key.
func configValues(t *testing.T, args ...string) map[string]string {
	t.Helper()
	out := mustRunCtxlab(t, append([]string{"config", "--json"}, args...)...)
	values := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var line struct{ Key, Value, Source string }
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("config --json line %q: %v", l, err)
		}
		values[line.Key] = line.Value
		values[line.Key+".source"] = line.Source
	}
	return values
}

// TestConfigAgreesWithWorkbench: `ctxlab config` shows the context file the workbench
// would open a new chat on, chosen by the one rule (--context, else ./ctxlab.ctx.yaml,
// else none), and the model the workbench would use under it, which a model block of
// ./ctxlab.ctx.yaml can set.
func TestConfigAgreesWithWorkbench(t *testing.T) {
	tests := []struct {
		name        string
		files       map[string]string
		args        []string
		wantContext string
		wantModel   string
	}{
		{name: "nothing", wantContext: "none: a plain chat (no system prompt, no tools)", wantModel: "scripted"},
		{name: "./ctxlab.ctx.yaml names the model", files: map[string]string{"ctxlab.ctx.yaml": "model: {name: gpt-4o}\n"},
			wantContext: "ctxlab.ctx.yaml", wantModel: "gpt-4o"},
		{name: "a flag over the file", files: map[string]string{"ctxlab.ctx.yaml": "model: {name: gpt-4o}\n"},
			args: []string{"--model", "o3"}, wantContext: "ctxlab.ctx.yaml", wantModel: "o3"},
		{name: "--context over ./ctxlab.ctx.yaml",
			files: map[string]string{"ctxlab.ctx.yaml": "model: {name: gpt-4o}\n", "other.ctx.yaml": "model: {name: gpt-4.1}\n"},
			args:  []string{"--context", "other.ctx.yaml"}, wantContext: "other.ctx.yaml", wantModel: "gpt-4.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateCtxlabEnv(t)
			t.Chdir(t.TempDir())
			for name, data := range tt.files {
				if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got := configValues(t, append(tt.args, "--db", ":memory:")...)
			if got["context_file"] != tt.wantContext || got["model"] != tt.wantModel {
				t.Errorf("config: context_file %q, model %q; want %q, %q", got["context_file"], got["model"], tt.wantContext, tt.wantModel)
			}

			// What the workbench starts on, from the same command line.
			a := &app{}
			root := a.rootCommand()
			if err := root.ParseFlags(tt.args); err != nil {
				t.Fatal(err)
			}
			var closers []func()
			defer func() {
				for _, c := range closers {
					c()
				}
			}()
			wf := workbenchFlags{context: root.Flags().Lookup("context").Value.String()}
			st, err := a.workbenchStart(context.Background(), wf, false, func(f func()) { closers = append(closers, f) })
			if err != nil {
				t.Fatal(err)
			}
			if st.settings.ModelName() != got["model"] || contextLine(st.choice).Value != got["context_file"] {
				t.Errorf("the workbench starts on %q with model %q; config says %q, %q",
					contextLine(st.choice).Value, st.settings.ModelName(), got["context_file"], got["model"])
			}
		})
	}
}

// TestPromptWithoutContext: prompt with no --context in a folder without
// ./ctxlab.ctx.yaml works and says plainly that the chat is plain: no system prompt, no
// tools, no decisions.
func TestPromptWithoutContext(t *testing.T) {
	isolateCtxlabEnv(t)
	t.Chdir(t.TempDir())
	out := mustRunCtxlab(t, "prompt", "--user", "hello", "--at", "2026-03-27T14:30:00Z")
	for _, want := range []string{"── system prompt · none: no context file (no --context, no ./ctxlab.ctx.yaml): a plain chat\n",
		"  fired:           none\n", "request:         model scripted · 1 message · 0 tools\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	var tr struct {
		SystemPrompt string            `json:"system_prompt"`
		Decisions    []json.RawMessage `json:"decisions"`
		Request      struct {
			Messages []struct{ Role string } `json:"messages"`
		} `json:"request"`
	}
	if err := json.Unmarshal([]byte(mustRunCtxlab(t, "prompt", "--user", "hello", "--json")), &tr); err != nil {
		t.Fatal(err)
	}
	if tr.SystemPrompt != "" || len(tr.Decisions) != 0 || len(tr.Request.Messages) != 1 || tr.Request.Messages[0].Role != "user" {
		t.Errorf("prompt --json: %+v; want no system prompt, no decisions, the user message alone", tr)
	}
}
