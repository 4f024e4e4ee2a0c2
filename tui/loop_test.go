package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// loopModel answers its one turn with a tool loop: two rounds of a run_sql call, then
// text: three requests.
func loopModel() *streamModel {
	return &streamModel{turns: [][]step{{
		{tools: []chat.WireToolCall{toolCall("call_1", "run_sql", `{"query":"select count(*) from customers"}`)}, failAfter: -1},
		{tools: []chat.WireToolCall{toolCall("call_2", "run_sql", `{"query":"select count(*) from orders"}`)}, failAfter: -1},
		textStep("There are ", "**42** customers and **42** orders."),
	}}}
}

// focusRequestTab shows the inspector's Request tab, focused (below 100 columns, instead of
// the transcript).
func focusRequestTab(t *testing.T, m *Model) {
	t.Helper()
	if m.width < 100 {
		press(m, "alt+i")
	}
	press(m, "alt+3")
	for range 3 {
		if m.focus == areaInspector {
			break
		}
		press(m, "tab")
	}
	if m.focus != areaInspector || m.insp.Tab() != tabRequest {
		t.Fatalf("focus %v tab %v, want the inspector's Request tab", m.focus, m.insp.Tab())
	}
}

// requestBody is the Request tab's pinned and scrolling lines, as the frame draws them.
func requestBody(m *Model) string {
	m.View()
	b := m.insp.tabBody(m.insp.width)
	return strings.Join(b.head, "\n") + "\n" + strings.Join(b.lines, "\n")
}

// TestRequestTabToolLoop: a turn whose model called a tool twice sent three requests. The
// Request tab shows each of them (request N/3; t steps to the next, after the last back
// to the first; d shows what a request adds to the one before it), for the turn just sent
// (from its events) and, the same, for the turn read back from the database.
func TestRequestTabToolLoop(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v := newEnv(t)
			c := v.chat(t, "", loopModel())
			m := newModel(t, v, c, sz.w, sz.h, Options{})
			press(m, "type:count the customers and the orders", "enter")
			if n := len(c.Session().Messages()); n != 2 {
				t.Fatalf("the chat holds %d messages, want the user message and the reply", n)
			}
			focusRequestTab(t, m)
			m.View()
			if !slices.ContainsFunc(m.insp.Keys(), func(b key.Binding) bool { return b.Help().Key == "t" }) {
				t.Error("the inspector's keys (status line, help) lack t on a turn of a tool loop")
			}
			var live []string
			for i := 1; i <= 3; i++ {
				f := m.View()
				if want := fmt.Sprintf("request %d/3", i); !strings.Contains(f, want) {
					t.Fatalf("the frame lacks %q:\n%s", want, f)
				}
				if i < 3 {
					goldenFrame(t, fmt.Sprintf("loop_request%d_%dx%d", i, sz.w, sz.h), f)
				}
				live = append(live, requestBody(m))
				// What came back to the request, as the turn's trace (the server) has it.
				r := m.insp.turn.Trace.Responses[i-1]
				want := fmt.Sprintf("usage reported: prompt %d · completion %d · estimated prompt ~%d",
					r.Usage.PromptTokens, r.Usage.CompletionTokens, r.EstimatedPromptTokens)
				if !strings.Contains(strings.Join(strings.Fields(live[i-1]), " "), want) ||
					!strings.Contains(live[i-1], "response: "+r.FinishReason) {
					t.Errorf("request %d: the Request tab lacks %q and finish %s:\n%s", i, want, r.FinishReason, live[i-1])
				}
				press(m, "t")
			}
			if f := m.View(); !strings.Contains(f, "request 1/3") {
				t.Errorf("t after the last request: the frame lacks request 1/3:\n%s", f)
			}
			// Each request sends the tool round before it back: one more assistant
			// message with its call, and the call's result.
			for i := 1; i < 3; i++ {
				if !strings.Contains(live[i], `"tool_call_id": "call_`+fmt.Sprint(i)+`"`) {
					t.Errorf("request %d lacks the result of call_%d:\n%s", i+1, i, live[i])
				}
			}
			press(m, "t", "d")
			f := m.View()
			if !strings.Contains(f, "only what is new since request 1: 2 messages") {
				t.Errorf("d on request 2: the frame lacks what it adds to request 1:\n%s", f)
			}
			goldenFrame(t, fmt.Sprintf("loop_new2_%dx%d", sz.w, sz.h), f)
			press(m, "d")

			// The same turn, read back: the chat opened again.
			m2 := newModel(t, v, v.chat(t, c.Session().Chat().ID, nil), sz.w, sz.h, Options{})
			focusRequestTab(t, m2)
			for i := 1; i <= 3; i++ {
				if got := requestBody(m2); got != live[i-1] {
					t.Errorf("request %d read back:\n%s\nwant as sent:\n%s", i, got, live[i-1])
				}
				press(m2, "t")
			}
		})
	}
}

// TestRequestTabOneRequest: a turn that sent one request says nothing of a loop, and t
// does nothing.
func TestRequestTabOneRequest(t *testing.T) {
	v := newEnv(t)
	c := v.chat(t, "", &streamModel{turns: [][]step{{textStep("Hello.")}}})
	m := newModel(t, v, c, 120, 40, Options{})
	press(m, "type:hi", "enter")
	focusRequestTab(t, m)
	before := m.View()
	press(m, "t")
	if after := m.View(); after != before || strings.Contains(after, "request 1/") {
		t.Errorf("a turn of one request: t changed the frame, or it shows a loop:\n%s", after)
	}
	if slices.ContainsFunc(m.insp.Keys(), func(b key.Binding) bool { return b.Help().Key == "t" }) {
		t.Error("the inspector's keys offer t on a turn of one request")
	}
}

// TestRequestTabLiveLoop: while a turn's tool loop streams, the Request tab shows the
// requests sent so far, from the turn's events.
func TestRequestTabLiveLoop(t *testing.T) {
	v := newEnv(t)
	words := make([]string, 200)
	for i := range words {
		words[i] = "word "
	}
	model := &streamModel{pause: 20 * time.Millisecond, turns: [][]step{{
		{tools: []chat.WireToolCall{toolCall("call_1", "run_sql", `{"query":"select 1"}`)}, failAfter: -1},
		textStep(append([]string{"Counting "}, words...)...),
	}}}
	c := v.chat(t, "", model)
	tm := startFlow(t, v, c)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("3"), Alt: true}) // the Request tab
	tm.Type("count the rows")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	// The first request's response has come (its tool call answered), the second streams.
	waitOutput(t, tm, "Counting", "request 1/2 of the tool loop", "response: tool_calls")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc}) // cancel: the partial reply is saved
	waitOutput(t, tm, "interrupted")
	quit(t, tm)
}
