package main

// Tests of the headless commands as an everyday tool (issue 13): whole replies, wrapped on
// a terminal; streaming; run -, ask; version; chat id prefixes; warnings; --show-messages;
// the small things. Regenerate the goldens with
//
//	go test . -run TestHeadless -update

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
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
			checkGolden(t, "headless/"+tt.name+".txt", normaliseIDs(r.stdout))
		})
	}
}
