package main

// The last probes of issue 12 (items 5, 7, 8), rerun through run() as main runs them, or
// through the real binary where a file on disk must be left untouched.

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestProbeTooManyToolCalls is item 5: a model streaming 2,000 tool calls in one reply
// made `run` fail with exit 2 (`save turn: … more than 10000 parts`, as if the script
// were wrong) and lost the reply. It is the model's failure (exit 1, naming the model
// and the limit), and what fits is saved: the first chat.MaxToolCalls calls, in a reply
// marked interrupted.
func TestProbeTooManyToolCalls(t *testing.T) {
	liveEnv(t)
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, _ <-chan struct{}) {
		sseStart(w)
		for i := range 2000 {
			sseLine(w, fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"run_sql","arguments":"{}"}}]},"finish_reason":null}]}`, i, i))
		}
		sseLine(w, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		sseLine(w, "[DONE]")
	})
	db := filepath.Join(t.TempDir(), "probe.db")
	r := ctxlabLive(context.Background(), "run", "testdata/live/one-question.script.yaml", "--db", db,
		"--base-url", s.url, "--model", "m")
	want := "ctxlab: testdata/live/one-question.script.yaml:4:5: user: model: malformed stream from " + s.url +
		": a reply holds at most 256 tool calls\n"
	if r.code != exitFailure || !strings.HasSuffix(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 1 ending %q", r.code, r.stderr, want)
	}
	a := savedChat(t, db, "live-one")
	if len(a.Messages) != 2 {
		t.Fatalf("saved %d messages, want the question and the interrupted reply", len(a.Messages))
	}
	reply := a.Messages[1]
	if reply.Role != chat.RoleAssistant || !reply.Interrupted || len(reply.ToolParts()) != chat.MaxToolCalls {
		t.Errorf("saved reply %s interrupted %v with %d tool calls, want an interrupted assistant reply with %d",
			reply.Role, reply.Interrupted, len(reply.ToolParts()), chat.MaxToolCalls)
	}
	if len(a.Turns) != 1 || !strings.Contains(a.Turns[0].Error, "a reply holds at most 256 tool calls") {
		t.Errorf("saved turns %+v, want one recording the error", a.Turns)
	}
	noKey(t, db, r)
}
