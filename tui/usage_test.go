package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestUsageTabWhileStreaming: while a turn's reply streams, the Usage tab says so and
// that the server's usage is still to come; it never calls the turn a scripted reply or
// says no model was called. Once the turn is saved, the figures are the server's.
func TestUsageTabWhileStreaming(t *testing.T) {
	v := newEnv(t)
	c := v.chat(t, "", &engine.Live{Model: &serverModel{replies: []chat.Reply{
		{Text: "Counted.", FinishReason: "stop", Usage: &chat.Usage{PromptTokens: 373, CompletionTokens: 12}}}}})
	m := newModel(t, v, c, 120, 40, Options{ContextWindow: 128000})
	press(m, "alt+5")
	plan := c.Session().Preview(engine.UserInput{Text: "count the rows", At: v.clock.Now()})
	it := &turnItem{user: &plan.User, live: &liveTurn{sent: v.clock.Now()}}
	m.tr.Append(it)
	s := &stream{item: it}
	m.stream = s
	for _, ev := range []engine.Event{engine.EventPlanned{Plan: plan}, engine.EventRequest{Step: 1, Request: plan.Request},
		engine.EventText{Step: 1, Text: "Count"}} {
		m.apply(s, it, ev)
	}
	in := inspectorColumn(m.View())
	for _, want := range []string{"the reply is streaming: the server's usage comes when it ends", "time: the reply is streaming",
		"cost not known yet (the reply is streaming)", "so far: the reply is streaming"} {
		if !strings.Contains(strings.Join(strings.Fields(in), " "), want) {
			t.Errorf("streaming, the Usage tab lacks %q:\n%s", want, in)
		}
	}
	for _, wrong := range []string{"scripted", "no model was called", "not reported"} {
		if strings.Contains(in, wrong) {
			t.Errorf("streaming, the Usage tab says %q:\n%s", wrong, in)
		}
	}
	m.stream, it.live = nil, nil
	m.tr.RemoveLast()

	press(m, "type:count the rows", "enter")
	in = strings.Join(strings.Fields(inspectorColumn(m.View())), " ")
	if !regexp.MustCompile(`prompt 373 ~\d+ `).MatchString(in) || !strings.Contains(in, "used 373 of 128000 tokens (reported") ||
		strings.Contains(in, "streaming") {
		t.Errorf("saved, the Usage tab lacks the server's 373 prompt tokens:\n%s", in)
	}
}

// inspectorColumn is the inspector's column of a frame at 120 columns or more.
func inspectorColumn(frame string) string {
	var out []string
	for _, l := range strings.Split(frame, "\n") {
		if _, right, ok := strings.Cut(l, "│"); ok {
			out = append(out, right)
		}
	}
	return strings.Join(out, "\n")
}

// TestUsageTabToolLoop: a turn of two requests (a tool call, then the answer) reported
// 373 and 377 prompt tokens. The context window holds one request at a time: its share is
// the larger, 377, not the sum (750), which the table adds up beside the estimates; each
// request is listed with the server's figures, and the estimated total is explained as
// the sum of the two requests' estimates (the estimate by source is the first's). The
// same when the chat is opened again.
func TestUsageTabToolLoop(t *testing.T) {
	v := newEnv(t)
	model := &serverModel{replies: []chat.Reply{
		{ToolCalls: []chat.WireToolCall{toolCall("call_1", "run_sql", `{"query":"select 1"}`)}, FinishReason: "tool_calls",
			Usage: &chat.Usage{PromptTokens: 373, CompletionTokens: 12}},
		{Text: "One row.", FinishReason: "stop", Usage: &chat.Usage{PromptTokens: 377, CompletionTokens: 29}},
	}}
	c := v.chat(t, "", &engine.Live{Model: model})
	m := newModel(t, v, c, 120, 40, Options{ContextWindow: 128000})
	press(m, "type:count the rows", "enter", "alt+5")
	tr := m.traces[c.Session().Messages()[0].ID]
	if tr == nil || len(tr.Responses) != 2 {
		t.Fatalf("the turn's trace has responses %+v, want two", tr)
	}
	e1, e2 := tr.Responses[0].EstimatedPromptTokens, tr.Responses[1].EstimatedPromptTokens
	if e1+e2 != tr.Usage.Estimated.PromptTokens || tr.Usage.Estimated.BySource.Total != e1 {
		t.Fatalf("estimates %d + %d, want the turn's %d, the first the by-source total %d", e1, e2,
			tr.Usage.Estimated.PromptTokens, tr.Usage.Estimated.BySource.Total)
	}
	wants := []string{
		"the turn sent 2 requests (a tool loop): the figures add them up",
		fmt.Sprintf("prompt 750 ~%d", e1+e2),
		fmt.Sprintf("request 1 prompt 373 / ~%d · completion 12 · tool_calls", e1),
		fmt.Sprintf("request 2 prompt 377 / ~%d · completion 29 · stop", e2),
		fmt.Sprintf("ESTIMATE BY SOURCE, REQUEST 1 OF 2 ~%d tokens", e1),
		fmt.Sprintf("the estimated prompt ~%d adds up the 2 requests (each sends the prompt again, with the tool rounds so far): request 1 ~%d + request 2 ~%d", e1+e2, e1, e2),
		"context window: the largest prompt, request 2 of 2, used 377 of 128000 tokens (reported, 0.3%)",
	}
	check := func(when string, m *Model) {
		t.Helper()
		in := strings.Join(strings.Fields(inspectorColumn(m.View())), " ")
		for _, w := range wants {
			if !strings.Contains(in, w) {
				t.Errorf("%s: the Usage tab lacks %q:\n%s", when, w, in)
			}
		}
		if strings.Contains(in, "750 of 128000") {
			t.Errorf("%s: the Usage tab adds the requests' prompts up against the window:\n%s", when, in)
		}
	}
	check("sent", m)
	again := newModel(t, v, v.chat(t, c.Session().Chat().ID, nil), 120, 40, Options{ContextWindow: 128000})
	press(again, "alt+5")
	check("reopened", again)
}
