package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

var screenSizes = []struct{ w, h int }{{120, 40}, {80, 24}}

// TestGoldenDemo: the demo chat (injected spans, tool blocks, the inspector), the demo
// badge.
func TestGoldenDemo(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v := newEnv(t)
			v.playScript(t, "support.script.yaml")
			m := newModel(t, v, v.chat(t, "demo-1", nil), sz.w, sz.h, Options{Badge: "DEMO", ContextName: "built-in demo context"})
			goldenFrame(t, fmt.Sprintf("demo_%dx%d", sz.w, sz.h), m.View())
			// The second turn selected, its tool calls opened.
			press(m, "tab", "up", "up", "enter")
			goldenFrame(t, fmt.Sprintf("demo_tools_%dx%d", sz.w, sz.h), m.View())
			press(m, "s")
			goldenFrame(t, fmt.Sprintf("demo_nospans_%dx%d", sz.w, sz.h), m.View())
		})
	}
}

// TestGoldenHelp: the help overlay lists every binding.
func TestGoldenHelp(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v := newEnv(t)
			m := newModel(t, v, v.chat(t, "", nil), sz.w, sz.h, Options{})
			press(m, "f1")
			goldenFrame(t, fmt.Sprintf("help_%dx%d", sz.w, sz.h), m.View())
			press(m, "esc")
			if m.help {
				t.Fatal("esc did not close the help")
			}
		})
	}
}

// TestGoldenScripted: no model: the composer asks for the reply; enter saves it, esc
// leaves the message unanswered.
func TestGoldenScripted(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v := newEnv(t)
			c := v.chat(t, "", nil)
			m := newModel(t, v, c, sz.w, sz.h, Options{Notice: "No model is configured: you write the replies. `ctxlab demo` opens a demo chat."})
			goldenFrame(t, fmt.Sprintf("scripted_fresh_%dx%d", sz.w, sz.h), m.View())
			press(m, "type:why did my query fail with an error?")
			goldenFrame(t, fmt.Sprintf("scripted_preview_%dx%d", sz.w, sz.h), m.View())
			press(m, "enter")
			goldenFrame(t, fmt.Sprintf("scripted_step_%dx%d", sz.w, sz.h), m.View())
			press(m, "type:It used a **column** that does not exist.", "enter")
			press(m, "type:and now?", "enter", "esc")
			goldenFrame(t, fmt.Sprintf("scripted_saved_%dx%d", sz.w, sz.h), m.View())
			s := c.Session()
			if got := len(s.Messages()); got != 3 {
				t.Errorf("the chat holds %d messages, want 3 (user, reply, unanswered user)", got)
			}
			if got := s.Messages()[1].PlainText(); got != "It used a **column** that does not exist." {
				t.Errorf("scripted reply saved as %q", got)
			}
		})
	}
}

// TestGoldenTranscriptStates: a tool block, an interrupted reply, a failed turn (the
// error under the user message, the draft back in the composer).
func TestGoldenTranscriptStates(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v := newEnv(t)
			model := &streamModel{turns: [][]step{
				{{tools: []chat.WireToolCall{toolCall("call_1", "run_sql", `{"query":"select count(*) from customers"}`)}, failAfter: -1},
					textStep("There are ", "**42** customers.")},
				{{deltas: []string{"The first ", "half of a reply"}, failAfter: 2, err: errors.New("model: stream broken by the server")}},
				{{failAfter: 0, err: errors.New("model: 401 Unauthorized from http://127.0.0.1:1/v1: invalid api key")}},
			}}
			c := v.chat(t, "", model)
			m := newModel(t, v, c, sz.w, sz.h, Options{ContextWindow: 128000})
			press(m, "type:count the customers", "enter")
			press(m, "type:why did my query fail with an error?", "enter")
			press(m, "type:and now?", "enter")
			if got := m.comp.Value(); got != "and now?" {
				t.Errorf("after a failed send the composer holds %q, want the message back", got)
			}
			if !strings.Contains(m.lastErr, "401 Unauthorized") {
				t.Errorf("status error = %q, want the model's error in full", m.lastErr)
			}
			goldenFrame(t, fmt.Sprintf("states_%dx%d", sz.w, sz.h), m.View())
			msgs := c.Session().Messages()
			if len(msgs) != 4 || !msgs[3].Interrupted {
				t.Errorf("saved %d messages (last interrupted: %v), want 4 with the last interrupted", len(msgs), len(msgs) > 0 && msgs[len(msgs)-1].Interrupted)
			}
		})
	}
}

func toolCall(id, name, args string) chat.WireToolCall {
	var c chat.WireToolCall
	c.ID, c.Type = id, "function"
	c.Function.Name, c.Function.Arguments = name, args
	return c
}

// TestHeaderNumbersMatchReplay: each turn's header shows the numbers `ctxlab replay
// --json` gives for it (prompt tokens reported, else estimated; reminders fired).
func TestHeaderNumbersMatchReplay(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 160, 50, Options{})
	var traces []*engine.Trace
	if err := v.ws.Replay(context.Background(), "demo-1", nil, func(tr *engine.Trace) error {
		traces = append(traces, tr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(traces) != m.tr.Len() || len(traces) < 4 {
		t.Fatalf("replay has %d turns, the transcript %d", len(traces), m.tr.Len())
	}
	for i, tr := range traces {
		head := m.tr.header(m.tr.Item(i))
		tokens := fmt.Sprintf("~%d tok", tr.Usage.Estimated.PromptTokens)
		if tr.Usage.Reported != nil {
			tokens = fmt.Sprintf(" %d tok", tr.Usage.Reported.PromptTokens)
		}
		fired := 0
		for _, d := range tr.Decisions {
			if d.Fired && d.Placement != "" {
				fired++
			}
		}
		reminders := fmt.Sprintf("%d reminders", fired)
		if fired == 1 {
			reminders = "1 reminder"
		}
		if !strings.Contains(head, fmt.Sprintf("turn %d ", tr.Turn)) || !strings.Contains(head, tokens) || !strings.Contains(head, reminders) {
			t.Errorf("turn %d: header %q, want %q and %q", tr.Turn, head, tokens, reminders)
		}
	}
}

// TestReopenedChatShowsErrors: a chat opened again shows its interrupted reply marked and
// the error it was cut by (the session's turn records do not hold it; the traces do).
func TestReopenedChatShowsErrors(t *testing.T) {
	v := newEnv(t)
	model := &streamModel{turns: [][]step{{{deltas: []string{"half ", "a reply"}, failAfter: 2, err: errors.New("model: stream broken by the server")}}}}
	c := v.chat(t, "", model)
	m := newModel(t, v, c, 120, 40, Options{})
	press(m, "type:go", "enter")
	id := c.Session().Chat().ID
	again := newModel(t, v, v.chat(t, id, nil), 120, 40, Options{})
	frame := again.View()
	for _, want := range []string{"half a reply", "⚠ interrupted", "✗ model: stream broken by the server"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the reopened chat does not show %q:\n%s", want, frame)
		}
	}
}
