package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/script"
)

// TestTurnStream checks the reply lines the streaming output prints from pieces of text:
// pieces split inside a character or a word, wrapping between words, a word longer than a
// line, line breaks, escape sequences, joiners and bidi controls (shown as the whole text
// shows them, wherever the pieces are cut), and the tool calls printed after the reply.
func TestTurnStream(t *testing.T) {
	const indent = "                   "
	tests := []struct {
		name   string
		width  int
		pieces []string
		tools  []engine.ToolTrace
		want   string // the assistant line and those after it, up to tokens:
	}{
		{"one piece", 0, []string{"Hello."}, nil,
			"  assistant:       [m] Hello.\n"},
		{"a character split", 0, []string{"caf\xc3", "\xa9 ok"}, nil,
			"  assistant:       [m] café ok\n"},
		{"line breaks indented", 0, []string{"one\ntw", "o\n\nthree\n"}, nil,
			"  assistant:       [m] one\n" + indent + "two\n\n" + indent + "three\n"},
		{"wrapped between words", 40, []string{"aaaa bbbb cc", "cc dddd eeee ffff gggg"}, nil,
			"  assistant:       [m] aaaa bbbb cccc\n" + indent + "dddd eeee ffff gggg\n"},
		{"a word longer than a line", 40, []string{"x " + strings.Repeat("y", 30)}, nil,
			"  assistant:       [m] x\n" + indent + strings.Repeat("y", 21) + "\n" + indent + strings.Repeat("y", 9) + "\n"},
		{"escape sequences dropped", 0, []string{"a\x1b[2Jb", "\x1b]0;title\x07c"}, nil,
			"  assistant:       [m] abc\n"},
		// A joiner is shown or kept by what is before it, in the piece before.
		{"joiners split from their letters", 0, []string{"क्", "\u200dष, 👨", "\u200d💻 and pay", "\u200dpal \u202e"}, nil,
			"  assistant:       [m] क्\u200dष, 👨\u200d💻 and pay⟨U+200D⟩pal ⟨U+202E⟩\n"},
		{"joiners split, wrapped", 40, []string{"क्", "\u200dष, 👨", "\u200d💻 and pay", "\u200dpal \u202etxt.exe"}, nil,
			"  assistant:       [m] क्\u200dष, 👨\u200d💻 and\n" + indent + "pay⟨U+200D⟩pal\n" + indent + "⟨U+202E⟩txt.exe\n"},
		{"tools after the reply", 0, []string{"Checked."},
			[]engine.ToolTrace{{Name: "run_sql", State: chat.ToolOutputError, Error: "denied"}, {Name: "run_sql", State: chat.ToolOutputAvailable}},
			"  assistant:       [m] Checked.\n" + indent + "[run_sql failed: denied] [run_sql ok]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			s := newTurnStream(&b, turnView{Width: tt.width})
			st := &script.Step{Kind: script.StepTurn, User: "hi"}
			plan := &engine.Plan{Turn: 1, Branch: "main", At: time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC),
				Request: chat.Request{Model: "m"}}
			s.event(st, "c-1", engine.EventPlanned{Plan: plan})
			for _, p := range tt.pieces {
				s.event(st, "c-1", engine.EventText{Step: 1, Text: p})
			}
			tr := engine.Trace{ChatID: "c-1", Turn: 1, Branch: "main", Request: plan.Request,
				Assistant: &engine.AssistantTrace{Text: strings.Join(tt.pieces, ""), Tools: tt.tools, FinishReason: "stop"}}
			s.turn(st, &tr, "")
			out := b.String()
			if !strings.HasPrefix(out, "── turn 1 · main · 2026-03-27T14:30:00Z · chat c-1\n  user:            hi\n") {
				t.Errorf("no header first:\n%s", out)
			}
			i, j := strings.Index(out, "  assistant:"), strings.Index(out, "  tokens:")
			if i < 0 || j < i {
				t.Fatalf("no assistant and tokens lines:\n%s", out)
			}
			if got := out[i:j]; got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
