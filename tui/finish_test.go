package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// serverModel is a model server for tests (an engine.Model, which engine.Live drives as it
// drives llm.Client): it answers each request with the next of its replies, the text
// streamed word by word and the tool calls in one piece each.
type serverModel struct {
	replies []chat.Reply
	n       int
}

func (s *serverModel) Stream(_ context.Context, _ chat.Request, onDelta func(chat.Delta)) (*chat.Reply, error) {
	rep := s.replies[min(s.n, len(s.replies)-1)]
	s.n++
	for _, w := range strings.SplitAfter(rep.Text, " ") {
		if w != "" {
			onDelta(chat.Delta{Text: w})
		}
	}
	for i, c := range rep.ToolCalls {
		onDelta(chat.Delta{ToolCallIndex: i, ToolCallID: c.ID, ToolName: c.Function.Name, Arguments: c.Function.Arguments})
	}
	rep.TTFT, rep.Total = 80*time.Millisecond, 400*time.Millisecond
	return &rep, nil
}

// TestTranscriptMarksHowAReplyEnded: a reply that did not simply stop says how it ended
// under it (cut at max_tokens, the content filter, a tool loop stopped at its limit, a
// finish reason ctxlab does not know), and a reply with no text and no tool call says
// "(empty reply)" instead of leaving blank lines: right after it streamed, and when the
// chat is opened again.
func TestTranscriptMarksHowAReplyEnded(t *testing.T) {
	usage := &chat.Usage{PromptTokens: 61, CompletionTokens: 8}
	call := chat.Reply{ToolCalls: []chat.WireToolCall{toolCall("call_1", "run_sql", `{"query":"select 1"}`)},
		FinishReason: "tool_calls", Usage: usage}
	tests := []struct {
		name    string
		replies []chat.Reply
		want    []string // on screen after the turn, and after reopening the chat
		notWant []string
	}{
		{"cut at max_tokens", []chat.Reply{{Text: "Roses are red, violets are", FinishReason: "length", Usage: usage}},
			[]string{"Roses are red, violets are", "⚠ cut at max_tokens: the reply is incomplete"}, []string{"(empty reply)"}},
		{"empty reply", []chat.Reply{{FinishReason: "stop", Usage: usage}},
			[]string{"(empty reply)"}, []string{"⚠"}},
		{"empty and cut", []chat.Reply{{Text: " \n", FinishReason: "length", Usage: usage}},
			[]string{"(empty reply)", "⚠ cut at max_tokens"}, nil},
		{"content filter", []chat.Reply{{Text: "I cannot", FinishReason: "content_filter", Usage: usage}},
			[]string{"I cannot", "⚠ stopped by the server's content filter: the reply is incomplete"}, nil},
		{"tool loop limit", []chat.Reply{call},
			[]string{"⚠ tool loop stopped after 8 requests: the model kept calling tools"}, []string{"(empty reply)"}},
		{"an unknown finish reason", []chat.Reply{{Text: "Done", FinishReason: "eos", Usage: usage}},
			[]string{"Done", `⚠ ended with finish reason "eos"`}, nil},
		{"stop", []chat.Reply{{Text: "All good.", FinishReason: "stop", Usage: usage}},
			[]string{"All good."}, []string{"⚠", "(empty reply)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newEnv(t)
			c := v.chat(t, "", &engine.Live{Model: &serverModel{replies: tt.replies}})
			m := newModel(t, v, c, 120, 40, Options{})
			press(m, "type:write me a poem", "enter")
			check := func(when, frame string) {
				t.Helper()
				for _, w := range tt.want {
					if !strings.Contains(frame, w) {
						t.Errorf("%s: the transcript lacks %q:\n%s", when, w, frame)
					}
				}
				for _, w := range tt.notWant {
					if strings.Contains(frame, w) {
						t.Errorf("%s: the transcript shows %q:\n%s", when, w, frame)
					}
				}
			}
			check("after the turn", transcriptText(m))
			again := newModel(t, v, v.chat(t, c.Session().Chat().ID, nil), 120, 40, Options{})
			check("reopened", transcriptText(again))
		})
	}
}

// transcriptText is the transcript's column of a frame.
func transcriptText(m *Model) string {
	var out []string
	for _, l := range strings.Split(m.View(), "\n") {
		left, _, _ := strings.Cut(l, "│")
		out = append(out, left)
	}
	return strings.Join(out, "\n")
}

// TestTranscriptFinishGolden draws a reply cut at max_tokens and an empty reply.
func TestTranscriptFinishGolden(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v := newEnv(t)
			model := &serverModel{replies: []chat.Reply{
				{Text: "Roses are red, violets are", FinishReason: "length", Usage: &chat.Usage{PromptTokens: 61, CompletionTokens: 8}},
				{FinishReason: "stop", Usage: &chat.Usage{PromptTokens: 90, CompletionTokens: 0}},
			}}
			m := newModel(t, v, v.chat(t, "", &engine.Live{Model: model}), sz.w, sz.h, Options{})
			press(m, "type:write me a poem", "enter", "type:now say nothing", "enter")
			goldenFrame(t, fmt.Sprintf("finish_%dx%d", sz.w, sz.h), m.View())
		})
	}
}

// TestLiveTurnMarksHowItEnded: while a turn is still on screen as it streamed (its reply
// not read back yet), a request cut at max_tokens is marked as soon as its response
// arrives, and a reply that ended with nothing says so instead of "waiting for the model".
func TestLiveTurnMarksHowItEnded(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 120, 40, Options{})
	for _, tt := range []struct {
		name   string
		events []engine.Event
		want   string
	}{
		{"cut", []engine.Event{engine.EventRequest{Step: 1}, engine.EventText{Step: 1, Text: "Roses are"},
			engine.EventResponse{Step: 1, Response: chat.Response{FinishReason: "length"}}}, "⚠ cut at max_tokens"},
		{"empty", []engine.Event{engine.EventRequest{Step: 1}, engine.EventResponse{Step: 1, Response: chat.Response{FinishReason: "stop"}}},
			"(empty reply)"},
		{"streaming", []engine.Event{engine.EventRequest{Step: 1}}, "waiting for the model…"},
		{"the next request of a tool loop", []engine.Event{engine.EventRequest{Step: 1},
			engine.EventResponse{Step: 1, Response: chat.Response{FinishReason: "length"}}, engine.EventRequest{Step: 2}},
			"waiting for the model…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			it := &turnItem{user: &chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("a poem")}}, live: &liveTurn{sent: v.clock.Now()}}
			m.tr.Append(it)
			s := &stream{item: it}
			for _, ev := range tt.events {
				m.apply(s, it, ev)
			}
			frame := transcriptText(m)
			if !strings.Contains(frame, tt.want) {
				t.Errorf("the live turn lacks %q:\n%s", tt.want, frame)
			}
			if tt.want == "waiting for the model…" && strings.Contains(frame, "⚠") {
				t.Errorf("a request still streaming is marked:\n%s", frame)
			}
			m.tr.RemoveLast()
		})
	}
}
