package main

// The worked example of SCRIPTS.md, run as the reference shows it: a script that continues
// a saved chat by its id and branches it. If this test fails, the reference is wrong.

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const (
	refFirstScript    = "testdata/demo/support.script.yaml"
	refContinueScript = "testdata/demo/continue/continue.script.yaml"
)

func TestReferenceContinueScript(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	mustRunCtxlab(t, "run", refFirstScript, "--db", db)
	traces := parseTraces(t, mustRunCtxlab(t, "run", refContinueScript, "--db", db, "--json"))
	if len(traces) != 4 {
		t.Fatalf("got %d traces, want 4 (a turn, an edit, a regenerate, a turn)", len(traces))
	}
	reason := func(tr traceLine, id string) string {
		for _, d := range tr.Decisions {
			if d.ID == id {
				return d.Reason
			}
		}
		return "(missing)"
	}
	tests := []struct {
		name      string
		tr        traceLine
		turn      int
		branch    string
		reply     string
		sqlSafety string // the once('sql-safety') latch follows the branch
		longChat  string // so do the spacing counters
	}{
		{"continued on main", traces[0], 5, "main", "It hit the same permission error; I will ask for access.", "predicate_false", "rate_limited"},
		{"edit of turn 3", traces[1], 3, "main-v2", "The secrets table; your role cannot read it.", "fired", "fired"},
		{"regenerate", traces[2], 3, "main-v2-v2", "It was the secrets table.", "fired", "fired"},
		{"after switch to main", traces[3], 6, "main", "You're welcome.", "predicate_false", "rate_limited"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.tr.ChatID != "demo-1" || tt.tr.Turn != tt.turn || tt.tr.Branch != tt.branch {
				t.Errorf("got turn %d of %s on %s, want turn %d of demo-1 on %s",
					tt.tr.Turn, tt.tr.ChatID, tt.tr.Branch, tt.turn, tt.branch)
			}
			if tt.tr.Assistant == nil || tt.tr.Assistant.Text != tt.reply {
				t.Errorf("reply: got %+v, want %q", tt.tr.Assistant, tt.reply)
			}
			if got := reason(tt.tr, "sql-safety"); got != tt.sqlSafety {
				t.Errorf("sql-safety: got %s, want %s", got, tt.sqlSafety)
			}
			if got := reason(tt.tr, "long-chat"); got != tt.longChat {
				t.Errorf("long-chat: got %s, want %s", got, tt.longChat)
			}
			// Every turn continues the first run's chat: its first message is in the request.
			if !bytes.Contains(tt.tr.RawRequest, []byte("hello, how many customers do we have?")) {
				t.Errorf("the request does not carry the first run's history")
			}
		})
	}
	if !bytes.Equal(traces[2].RawRequest, traces[1].RawRequest) || traces[2].UserMessageID != traces[1].UserMessageID {
		t.Errorf("regenerate: want the edit's user message and request again")
	}
	// The edit branches from turn 2's reply: the first run's turn 3 and later are not sent.
	if bytes.Contains(traces[1].RawRequest, []byte("why did the first query fail")) {
		t.Errorf("the edit of turn 3 sends main's turn 3")
	}

	out := mustRunCtxlab(t, "branches", "demo-1", "--db", db)
	for _, want := range []string{"*  main ", "   main-v2 ", "   main-v2-v2 "} {
		if !strings.Contains(out, want) {
			t.Errorf("branches: no line starting %q in\n%s", want, out)
		}
	}
}

// TestReferenceContinueScriptAlone checks what SCRIPTS.md says of the example run on a
// database without the chat: invalid input at the edit step, and no chat saved.
func TestReferenceContinueScriptAlone(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	r := runCtxlab(t, "run", refContinueScript, "--db", db)
	want := refContinueScript + ":" + strconv.Itoa(stepLine(t, refContinueScript, "- edit:")) +
		":5: edit: turn 3 does not exist on branch main"
	if r.code != exitInvalid || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("got exit %d, stdout %q, stderr %q; want exit 2, nothing printed and %q", r.code, r.stdout, r.stderr, want)
	}
	if out := mustRunCtxlab(t, "chats", "--db", db, "--json"); out != "" {
		t.Errorf("a chat was saved: %s", out)
	}
}

// stepLine returns the line number of the first line of path that starts, after its
// indentation, with prefix.
func stepLine(t *testing.T, path, prefix string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), prefix) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line starting %q", path, prefix)
	return 0
}
