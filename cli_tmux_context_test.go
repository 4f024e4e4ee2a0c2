package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestWorkbenchTmuxNoContextFile runs the real binary in tmux, against aimock, in an
// empty folder and with no --context: the chat is a plain one. The header says `no
// context file`, the status line says how to start one (ctxlab init), and the request
// aimock records holds no system message and no tools: never the demo's prompt. `ctxlab
// config`, run there with the same flags, names no context file and the model the header
// shows.
func TestWorkbenchTmuxNoContextFile(t *testing.T) {
	s := setupE2E(t)
	empty := t.TempDir()
	flags := []string{"--db", s.db, "--base-url", s.srv.BaseURL(), "--model", "gpt-4o-mini", "--api-key-env", e2eKeyEnv}
	var cmd strings.Builder
	cmd.WriteString("cd " + shellQuote(empty) + " && exec " + shellQuote(s.bin))
	for _, f := range append(flags, "--theme", "mono") {
		cmd.WriteString(" " + shellQuote(f))
	}
	p := startPane(t, s.tmux, "/bin/sh", 160, 45, s.env, "-c", cmd.String())

	screen := waitFor(t, p, "ctxlab · new chat", e2eTimeout)
	header := strings.SplitN(screen, "\n", 2)[0]
	if !strings.Contains(header, "gpt-4o-mini @ 127.0.0.1") || !strings.HasSuffix(strings.TrimSpace(header), "· no context file") {
		t.Errorf("header %q, want the model and `no context file`", header)
	}
	for _, want := range []string{"No context file: a plain chat (no system prompt, no tools).", "`ctxlab init` writes a starter"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the status line lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "demo") {
		t.Errorf("the screen mentions the demo:\n%s", screen)
	}

	send(t, p, "hello workbench")
	screen = waitFor(t, p, "Hello from aimock, turn one.", e2eTimeout)
	waitIdle(t, p)
	journal := s.srv.Journal(t, "/chat/completions")
	if len(journal) != 1 {
		t.Fatalf("aimock recorded %d requests, want 1", len(journal))
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(journal[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 1 || body.Messages[0].Role != "user" || body.Tools != nil {
		t.Errorf("the request sent: %s; want the user message alone, no system message, no tools", journal[0].Body)
	}
	if strings.Contains(screen, "No context file: a plain chat") {
		t.Errorf("the hint stays after the first turn:\n%s", screen)
	}
	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)

	// config, in the same folder with the same flags, shows what the workbench used.
	c := exec.Command(s.bin, append([]string{"config", "--json"}, flags...)...)
	c.Dir, c.Env = empty, append(os.Environ(), s.env...)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("config: %v: %s", err, out)
	}
	for _, want := range []string{`{"key":"model","value":"gpt-4o-mini","source":"flag --model"}`,
		`{"key":"context_file","value":"none: a plain chat (no system prompt, no tools)"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("config lacks %s:\n%s", want, out)
		}
	}
}
