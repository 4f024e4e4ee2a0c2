package main

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/llm/aimocktest"
	"github.com/ctxlab/ctxlab/store"
)

// finishSetup is setupE2E with the fixtures of testdata/aimock/finish.json: a reply cut
// by max_tokens ("write me a poem"), an empty reply ("now say nothing") and a tool loop of
// two requests ("paris weather").
func finishSetup(t *testing.T) *e2eSetup {
	t.Helper()
	tmux := needTmux(t)
	srv := aimocktest.Start(t, aimocktest.Options{Fixtures: "testdata/aimock/finish.json", APIKeys: []string{liveKey}})
	bin := buildCtxlab(t)
	liveEnv(t)
	return &e2eSetup{tmux: tmux, bin: bin, db: filepath.Join(t.TempDir(), "w.db"), srv: srv,
		env: []string{e2eKeyEnv + "=" + liveKey, "OPENAI_API_KEY=", "NO_COLOR=1"}}
}

// collapsed is a screen's text with its white space collapsed, so that a phrase wrapped
// over two lines is found.
func collapsed(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestWorkbenchTmuxHowRepliesEnded runs the real binary in tmux against aimock: a reply
// aimock cuts with finish_reason length is marked "⚠ cut at max_tokens" in the
// transcript, an empty reply says "(empty reply)"; the Request tab shows, for each request
// of a tool loop, the finish reason and the usage aimock sent for it, and the Usage tab the
// context window's share of the larger request, not of their sum; the database keeps each
// request's response; and the marks are there when the chat is opened again, at 80x24.
func TestWorkbenchTmuxHowRepliesEnded(t *testing.T) {
	s := finishSetup(t)
	p := startPane(t, s.tmux, s.bin, 160, 45, s.env, s.args()...)
	waitFor(t, p, "ctxlab · new chat", e2eTimeout)

	send(t, p, "write me a poem")
	screen := waitFor(t, p, "⚠ cut at max_tokens: the reply is incomplete", e2eTimeout)
	if !strings.Contains(screen, "Roses are red, violets are") {
		t.Errorf("the cut reply's text is not on screen:\n%s", screen)
	}
	send(t, p, "now say nothing")
	waitFor(t, p, "(empty reply)", e2eTimeout)
	send(t, p, "check the paris weather")
	waitFor(t, p, "Paris is at 293 kelvin.", e2eTimeout)
	waitIdle(t, p)

	// Turn 3's two requests in the Request tab, each with what aimock answered.
	p.keys("Tab") // the transcript
	waitFor(t, p, " transcript · ", e2eTimeout)
	p.keys("3")
	focusInspector(t, p)
	waitUntil(t, p, "turn 3's first response", e2eTimeout, func(s string) bool {
		in := collapsed(inspectorColumn(s))
		return strings.Contains(in, "turn 3") && strings.Contains(in, "request 1/2 of the tool loop") &&
			strings.Contains(in, "response: tool_calls") && strings.Contains(in, "usage reported: prompt 373 · completion 12 ·")
	})
	p.keys("t")
	waitUntil(t, p, "turn 3's second response", e2eTimeout, func(s string) bool {
		in := collapsed(inspectorColumn(s))
		return strings.Contains(in, "request 2/2 of the tool loop") && strings.Contains(in, "response: stop") &&
			strings.Contains(in, "usage reported: prompt 377 · completion 29 ·")
	})

	// Its Usage: the two prompts add up to 750, but the context window holds one request
	// at a time: its share is the larger, 377.
	p.keys("5")
	waitUntil(t, p, "turn 3's usage", e2eTimeout, func(s string) bool {
		in := collapsed(inspectorColumn(s))
		return strings.Contains(in, "turn 3") && strings.Contains(in, "prompt 750 ~") &&
			strings.Contains(in, "request 1 prompt 373 / ~") && strings.Contains(in, "request 2 prompt 377 / ~") &&
			strings.Contains(in, "context window: the largest prompt, request 2 of 2, used 377 of 128000 tokens (reported")
	})

	// Turn 1: cut at max_tokens, as aimock said, with its usage.
	p.keys("Tab", "Tab") // the composer, the transcript
	waitFor(t, p, " transcript · ", e2eTimeout)
	p.keys("Up", "Up", "3")
	waitUntil(t, p, "turn 1's response", e2eTimeout, func(s string) bool {
		in := collapsed(inspectorColumn(s))
		return strings.Contains(in, "turn 1") && strings.Contains(in, "response: length ⚠ cut at max_tokens") &&
			strings.Contains(in, "usage reported: prompt 61 · completion 8 ·")
	})
	p.keys("C-c")
	waitFor(t, p, "ctxlab exited: 0", e2eTimeout)

	// Saved: each request's response, as aimock sent it.
	d := savedChatOnly(t, s.db)
	want := [][]chat.Response{
		{{FinishReason: "length", Usage: &chat.Usage{PromptTokens: 61, CompletionTokens: 8, TotalTokens: 69}}},
		{{FinishReason: "stop", Usage: &chat.Usage{PromptTokens: 97, TotalTokens: 97}}},
		{{FinishReason: "tool_calls", Usage: &chat.Usage{PromptTokens: 373, CompletionTokens: 12, TotalTokens: 385}},
			{FinishReason: "stop", Usage: &chat.Usage{PromptTokens: 377, CompletionTokens: 29, TotalTokens: 406}}},
	}
	if len(d.Turns) != len(want) {
		t.Fatalf("saved %d turns, want %d", len(d.Turns), len(want))
	}
	for i, tr := range d.Turns {
		var got []chat.Response
		for _, r := range tr.Responses {
			if r.EstimatedPrompt <= 0 || r.Latency <= 0 {
				t.Errorf("turn %d: response %+v has no estimate or no time", i+1, r)
			}
			got = append(got, chat.Response{FinishReason: r.FinishReason, Usage: r.Usage})
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("turn %d: saved responses %+v, want %+v", i+1, got, want[i])
		}
	}

	// Opened again, at 80x24: the transcript still says how each reply ended (once the
	// turns' records are read, after the first frame).
	again := startPane(t, s.tmux, s.bin, 80, 24, s.env, append(s.args(), "--continue")...)
	waitUntil(t, again, "the marks of turns 1 and 2 at 80x24", e2eTimeout, func(s string) bool {
		return strings.Contains(s, "Paris is at 293 kelvin.") && strings.Contains(s, "⚠ cut at max_tokens") &&
			strings.Contains(s, "(empty reply)")
	})
	again.keys("C-c")
	waitFor(t, again, "ctxlab exited: 0", e2eTimeout)
}

// savedChatOnly reads the one chat of a database.
func savedChatOnly(t *testing.T, db string) chat.Archive {
	t.Helper()
	d, err := store.Open(db)
	if err != nil {
		t.Fatalf("open %s: %v", db, err)
	}
	chats, err := d.ListChats(context.Background(), store.ListOptions{})
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) != 1 {
		t.Fatalf("got %d chats saved, want 1", len(chats))
	}
	return savedChat(t, db, chats[0].ID)
}
