package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rebuildRequests turns the JSON lines of `--request new` back into the default form:
// each {"previous": [FROM, TO]} element of a request's messages becomes the messages FROM
// to TO-1 of the request of the line before, and request_form and request_since go. It
// works on the text, so that the lines it gives can be compared byte for byte.
func rebuildRequests(t *testing.T, out string) string {
	t.Helper()
	var prev []json.RawMessage // the messages of the line before, whole
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var tr struct {
			Form    string          `json:"request_form"`
			Since   json.RawMessage `json:"request_since"`
			Request json.RawMessage `json:"request"`
			Turn    int             `json:"turn"`
			Branch  string          `json:"branch"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if tr.Form != "new" {
			t.Fatalf("line %d: request_form %q, want new", i+1, tr.Form)
		}
		form := `"request_form":"new",`
		if i == 0 {
			if tr.Since != nil {
				t.Errorf("line 1: request_since %s, want none (nothing is before it)", tr.Since)
			}
		} else {
			form += `"request_since":` + string(tr.Since) + ","
		}
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(tr.Request, &req); err != nil {
			t.Fatalf("line %d: request: %v", i+1, err)
		}
		var whole []json.RawMessage
		for _, m := range req.Messages {
			var ref struct {
				Previous []int `json:"previous"`
			}
			if err := json.Unmarshal(m, &ref); err != nil {
				t.Fatal(err)
			}
			if ref.Previous == nil {
				whole = append(whole, m)
				continue
			}
			if len(ref.Previous) != 2 || ref.Previous[0] < 0 || ref.Previous[0] >= ref.Previous[1] || ref.Previous[1] > len(prev) {
				t.Fatalf("line %d: %s is not a run of the %d messages of the line before", i+1, m, len(prev))
			}
			whole = append(whole, prev[ref.Previous[0]:ref.Previous[1]]...)
		}
		prev = whole
		start := bytes.Index(tr.Request, []byte(`"messages":[`)) + len(`"messages":[`)
		end := bytes.Index(tr.Request, []byte(`],"tools":`))
		var msgs []string
		for _, m := range whole {
			msgs = append(msgs, string(m))
		}
		request := string(tr.Request[:start]) + strings.Join(msgs, ",") + string(tr.Request[end:])
		at := strings.Index(line, form+`"request":`)
		if at < 0 {
			t.Fatalf("line %d: no %s before the request", i+1, form)
		}
		rest := line[at+len(form)+len(`"request":`)+len(tr.Request):]
		b.WriteString(line[:at] + `"request":` + request + rest + "\n")
	}
	return b.String()
}

// TestRequestNewRebuildsEachRequest checks `--request new` on run and replay: put back,
// the messages each line refers to give every line of the default form, byte for byte,
// across tool calls, system and run-start reminders, edits, regenerates, restores,
// rewinds and re-evaluation under another file.
func TestRequestNewRebuildsEachRequest(t *testing.T) {
	isolateCtxlabEnv(t)
	db := replayFixture(t)
	tests := []struct {
		name  string
		args  []string
		fresh bool // a run: into a database of its own each time (the ids are new)
	}{
		{"run support", []string{"run", "testdata/demo/support.script.yaml"}, true},
		{"run branching", []string{"run", "testdata/demo/branching.script.yaml"}, true},
		{"replay support", []string{"replay", "demo-1", "--db", db}, false},
		{"replay branching", []string{"replay", "branching-1", "--db", db}, false},
		{"replay under another file", []string{"replay", "demo-1", "--db", db, "--context", "testdata/demo/support-edited.ctx.yaml"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := func(more ...string) []string {
				a := append(append([]string(nil), tt.args...), more...)
				if tt.fresh {
					a = append(a, "--db", filepath.Join(t.TempDir(), "ctxlab.db"))
				}
				return a
			}
			full := mustRunCtxlab(t, args("--json")...)
			news := mustRunCtxlab(t, args("--json", "--request", "new")...)
			if explicit := mustRunCtxlab(t, args("--json", "--request", "full")...); tt.fresh && normaliseIDs(explicit) != normaliseIDs(full) ||
				!tt.fresh && explicit != full {
				t.Errorf("--request full is not the default form")
			}
			got := rebuildRequests(t, news)
			if tt.fresh { // each run has ids of its own
				full, got = normaliseIDs(full), normaliseIDs(got)
			}
			fl, gl := strings.Split(full, "\n"), strings.Split(got, "\n")
			if len(fl) != len(gl) {
				t.Fatalf("--request new printed %d lines, the default %d", len(gl), len(fl))
			}
			for i := range fl {
				if fl[i] != gl[i] {
					t.Errorf("line %d rebuilt:\n%s\nwant:\n%s", i+1, clip(gl[i], 600), clip(fl[i], 600))
				}
			}
		})
	}

	// What each line of the branching script's run holds: the line before's messages it
	// sent again, as runs, and the new ones.
	var shape []string
	for _, line := range strings.Split(strings.TrimSpace(mustRunCtxlab(t, "run", "testdata/demo/branching.script.yaml",
		"--db", filepath.Join(t.TempDir(), "b.db"), "--json", "--request", "new")), "\n") {
		var tr struct {
			Turn   int    `json:"turn"`
			Branch string `json:"branch"`
			Since  *struct {
				Line, Turn int
				Branch     string
			} `json:"request_since"`
			Request struct {
				Messages []struct {
					Previous []int  `json:"previous"`
					Role     string `json:"role"`
				} `json:"messages"`
			} `json:"request"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprintf("turn %d %s since", tr.Turn, tr.Branch)
		if tr.Since == nil {
			s += " -"
		} else {
			s += fmt.Sprintf(" line %d (turn %d %s)", tr.Since.Line, tr.Since.Turn, tr.Since.Branch)
		}
		s += ":"
		for _, m := range tr.Request.Messages {
			if m.Previous != nil {
				s += fmt.Sprintf(" %v", m.Previous)
			} else {
				s += " " + m.Role
			}
		}
		shape = append(shape, s)
	}
	want := []string{
		"turn 1 main since -: system user",
		"turn 2 main since line 1 (turn 1 main): [0 2] assistant user",
		"turn 3 main since line 2 (turn 2 main): [0 4] assistant tool assistant user",
		"turn 1 main-v2 since line 3 (turn 3 main): [0 1] user",  // edit of turn 1
		"turn 1 main-v2-v2 since line 4 (turn 1 main-v2): [0 2]", // regenerate: the same request
		"turn 3 main-v2-v2-v2 since line 5 (turn 1 main-v2-v2): [0 1] " + // restored at main's turn 2
			"user assistant user assistant tool assistant user",
	}
	if strings.Join(shape, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines of the branching run:\n%s\nwant:\n%s", strings.Join(shape, "\n"), strings.Join(want, "\n"))
	}

	for _, args := range [][]string{
		{"replay", "demo-1", "--db", db, "--json", "--request", "whole"},
		{"replay", "demo-1", "--db", db, "--request", "new"},
		{"run", "testdata/demo/support.script.yaml", "--db", ":memory:", "--request", "new"},
	} {
		if r := runCtxlab(t, args...); r.code != 2 || !strings.Contains(r.stderr, "--request") || r.stdout != "" {
			t.Errorf("ctxlab %s: exit %d, stdout %q, stderr %q; want 2 and the flag named", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// TestRequestNewIsLinear replays a 1,000-turn chat: in the default form each line repeats
// the history, so the last line is many times the first; with --request new every line
// stays the size of a turn.
func TestRequestNewIsLinear(t *testing.T) {
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	const turns = 1000
	var sc strings.Builder
	sc.WriteString("chat: {id: long-1, title: Long}\nturns:\n")
	for i := range turns {
		fmt.Fprintf(&sc, "  - user: question %d about the customers table, and why the query failed with an error\n"+
			"    assistant: answer %d, with the figures you asked for and a short explanation of them\n", i, i)
	}
	script, db := filepath.Join(dir, "long.script.yaml"), filepath.Join(dir, "long.db")
	if err := os.WriteFile(script, []byte(sc.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		{"run", script, "--db", db, "--context", "testdata/demo/support.ctx.yaml"},
		{"replay", "long-1", "--db", db},
	} {
		sizes := func(out string) []int {
			var n []int
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				n = append(n, len(l))
			}
			return n
		}
		if cmd[0] == "run" {
			news := sizes(mustRunCtxlab(t, append(cmd, "--json", "--request", "new")...))
			checkLinear(t, "run", news, turns)
			continue
		}
		full, news := sizes(mustRunCtxlab(t, append(cmd, "--json")...)), sizes(mustRunCtxlab(t, append(cmd, "--json", "--request", "new")...))
		if full[turns-1] < 10*full[0] {
			t.Fatalf("the default form's last line is %d bytes, its first %d: the chat is too short to tell", full[turns-1], full[0])
		}
		checkLinear(t, "replay", news, turns)
	}
}

// checkLinear checks that no line of a --request new output is larger than twice the
// largest of its first ten.
func checkLinear(t *testing.T, what string, sizes []int, turns int) {
	t.Helper()
	if len(sizes) != turns {
		t.Fatalf("%s: %d lines, want %d", what, len(sizes), turns)
	}
	first := 0
	for _, n := range sizes[:10] {
		first = max(first, n)
	}
	for i, n := range sizes {
		if n > 2*first {
			t.Fatalf("%s --request new: line %d is %d bytes, the first lines at most %d: it grows with the chat", what, i+1, n, first)
		}
	}
}

// TestRequestNewJQRecipe runs the jq program TRACES.md gives for rebuilding the requests
// of --request new: it gives the default form.
func TestRequestNewJQRecipe(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq is not installed")
	}
	doc, err := os.ReadFile("TRACES.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+jq -nc '(foreach inputs[^']*)'$`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("TRACES.md gives no jq -nc 'foreach inputs …' program")
	}
	isolateCtxlabEnv(t)
	db := replayFixture(t)
	full := mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--json")
	news := mustRunCtxlab(t, "replay", "demo-1", "--db", db, "--json", "--request", "new")
	runJQ := func(program, in string, args ...string) string {
		cmd := exec.Command(jq, append(args, program)...)
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("jq %s: %v", program, err)
		}
		return string(out)
	}
	if got, want := runJQ(string(m[1]), news, "-nc"), runJQ(".", full, "-c"); got != want {
		t.Errorf("the jq program of TRACES.md gives:\n%s\nwant:\n%s", clip(got, 1000), clip(want, 1000))
	}
}
