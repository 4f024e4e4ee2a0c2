package tui

import (
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

const hostileReply = "ok \x1b]0;PWNED\x07 \x1b[2J\x1b[H \x1b]52;c;cHduZWQ=\x07 \x9b31m \x1bP1$qm\x1b\\ \r\x08 done"

// noEscape fails when a frame holds anything that can drive a terminal (the frames
// are drawn with the ASCII profile, so a clean frame holds no escape at all).
func noEscape(t *testing.T, what, frame string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\x9b", "\r", "\x08", "PWNED\x07"} {
		if strings.Contains(frame, bad) {
			t.Errorf("%s: the frame holds %q", what, bad)
		}
	}
	if !strings.Contains(frame, "PWNED") && !strings.Contains(frame, "done") {
		t.Errorf("%s: the hostileReply text is not shown at all", what)
	}
}

// TestHostileReplyIsInert: escape sequences in a reply (scripted or streamed), a tool's
// arguments and result, and the user's message never reach the frame.
func TestHostileReplyIsInert(t *testing.T) {
	v := newEnv(t)
	model := &streamModel{turns: [][]step{
		{{tools: []chat.WireToolCall{toolCall("call_1", "run_sql", `{"query":"`+strings.ReplaceAll(hostileReply, "\x1b", `\u001b`)+`"}`)}, failAfter: -1},
			textStep("a ", hostileReply, " b")},
	}}
	c := v.chat(t, "", model)
	m := newModel(t, v, c, 120, 40, Options{})
	press(m, "type:"+hostileReply, "enter")
	noEscape(t, "streamed reply", m.View())
	press(m, "tab", "enter")
	noEscape(t, "tool block open", m.View())

	v2 := newEnv(t)
	m2 := newModel(t, v2, v2.chat(t, "", nil), 80, 24, Options{})
	press(m2, "type:hi", "enter", "type:"+hostileReply, "enter")
	noEscape(t, "scripted reply", m2.View())
}
