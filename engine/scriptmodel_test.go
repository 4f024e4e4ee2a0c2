package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// scriptModel is a test double of a model server (formerly llm.Scripted, which only tests
// used): it answers each Stream call with the next prepared reply, streamed through the
// same Delta callback as a live server (text word by word, then each tool call), so tests
// run engine.Live without a server. It records the requests it was given. It is safe for
// concurrent use.
type scriptModel struct {
	mu       sync.Mutex
	steps    []scriptStep
	next     int
	calls    int
	requests []chat.Request
}

type scriptStep struct {
	reply chat.Reply
	err   error
}

// newScriptModel returns a model that replays replies in order. Of each reply it uses Text,
// ToolCalls, FinishReason and Usage: a tool call without an ID gets `call_N` (N counting
// the model's calls from 1), a missing FinishReason becomes "tool_calls" or "stop".
func newScriptModel(replies ...chat.Reply) *scriptModel {
	s := &scriptModel{}
	for _, r := range replies {
		s.steps = append(s.steps, scriptStep{reply: r})
	}
	return s
}

// Then appends a reply to the script and returns s.
func (s *scriptModel) Then(r chat.Reply) *scriptModel {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, scriptStep{reply: r})
	return s
}

// Fail appends a step that fails with err, and returns s.
func (s *scriptModel) Fail(err error) *scriptModel {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, scriptStep{err: err})
	return s
}

// Requests returns the requests received so far, oldest first.
func (s *scriptModel) Requests() []chat.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chat.Request(nil), s.requests...)
}

// Remaining returns the number of steps not yet played.
func (s *scriptModel) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

// Stream plays the next step: it delivers the reply's deltas and returns a copy of it, or
// returns the step's error. When ctx is done mid-reply it returns the partial reply,
// Interrupted, with ctx.Err(). Running out of steps is an error.
func (s *scriptModel) Stream(ctx context.Context, req chat.Request, onDelta func(chat.Delta)) (*chat.Reply, error) {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	if s.next >= len(s.steps) {
		s.mu.Unlock()
		return &chat.Reply{}, fmt.Errorf("scripted model: no reply left for request %d (%d scripted)", n, len(s.steps))
	}
	st := s.steps[s.next]
	s.next++
	want := st.reply
	want.ToolCalls = append([]chat.WireToolCall(nil), st.reply.ToolCalls...)
	for i := range want.ToolCalls {
		s.calls++
		if want.ToolCalls[i].ID == "" {
			want.ToolCalls[i].ID = fmt.Sprintf("call_%d", s.calls)
		}
		if want.ToolCalls[i].Type == "" {
			want.ToolCalls[i].Type = "function"
		}
	}
	s.mu.Unlock()

	out := &chat.Reply{Attempts: 1}
	if st.err != nil {
		return out, st.err
	}
	if onDelta == nil {
		onDelta = func(chat.Delta) {}
	}
	var text strings.Builder
	stop := func() (*chat.Reply, error) {
		out.Text = text.String()
		out.Interrupted = true
		return out, ctx.Err()
	}
	for _, w := range strings.SplitAfter(want.Text, " ") {
		if w == "" {
			continue
		}
		if ctx.Err() != nil {
			return stop()
		}
		text.WriteString(w)
		onDelta(chat.Delta{Text: w})
	}
	for i, tc := range want.ToolCalls {
		if ctx.Err() != nil {
			return stop()
		}
		onDelta(chat.Delta{ToolCallIndex: i, ToolCallID: tc.ID, ToolName: tc.Function.Name, Arguments: tc.Function.Arguments})
		out.ToolCalls = append(out.ToolCalls, tc)
	}
	out.Text = text.String()
	out.FinishReason = want.FinishReason
	if out.FinishReason == "" {
		out.FinishReason = "stop"
		if len(want.ToolCalls) > 0 {
			out.FinishReason = "tool_calls"
		}
	}
	if want.Usage != nil {
		u := *want.Usage
		out.Usage = &u
	}
	return out, nil
}
