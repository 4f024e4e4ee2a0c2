package tui

import (
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/themes"
)

// TestRequestTabSplit checks that the Request tab shows a request whose messages are cut
// into Head, Shared and Messages (as the engine builds them, sharing a chat's history)
// exactly as the same request built whole, in full and with only what is new.
func TestRequestTabSplit(t *testing.T) {
	sys := func(s string) chat.WireMessage { return chat.WireMessage{Role: chat.RoleSystem, Content: s} }
	user := func(s string) chat.WireMessage { return chat.WireMessage{Role: chat.RoleUser, Content: s} }
	asst := func(s string) chat.WireMessage { return chat.WireMessage{Role: chat.RoleAssistant, Content: s} }
	tests := []struct {
		name      string
		prev, cur []chat.WireMessage
		heads     [2]int // the system messages at the start of prev and cur
		histories [2]int // the history after them
	}{
		{"same system prompt",
			[]chat.WireMessage{sys("<role>R.</role>"), user("one")},
			[]chat.WireMessage{sys("<role>R.</role>"), user("one"), asst("two"), user("three")},
			[2]int{1, 1}, [2]int{0, 2}},
		{"system prompt changed, system reminders",
			[]chat.WireMessage{sys("<role>R.</role>"), user("one"), asst("two"), sys("<system-reminder>S.</system-reminder>"), user("three")},
			[]chat.WireMessage{sys("<system-reminder>Start.</system-reminder>\n\n<role>R.</role>"), user("one"), asst("two"), user("three"), asst("four"),
				sys("<system-reminder>S.</system-reminder>"), user("five")},
			[2]int{1, 1}, [2]int{2, 4}},
		{"no system prompt",
			[]chat.WireMessage{user("one"), asst("two"), user("three")},
			[]chat.WireMessage{user("one"), asst("two"), user("three"), asst("four"), user("five")},
			[2]int{0, 0}, [2]int{2, 4}},
	}
	render := func(cur, prev chat.Request, onlyNew bool) string {
		in := newInspector(themes.Dark())
		in.SetTurn(turnView{Trace: &engine.Trace{Turn: 2, Branch: "main", Request: cur}, Prev: &engine.Trace{Turn: 1, Branch: "main", Request: prev}})
		in.SetTab(tabRequest)
		if onlyNew {
			in.HandleKey(inspectorKey("d"))
		}
		return in.Render(80, 60, true)
	}
	cut := func(msgs []chat.WireMessage, head, hist int) chat.Request {
		shared := make([]chat.WireMessage, hist)
		for i := range shared {
			shared[i] = msgs[head+i].Encoded()
		}
		return chat.Request{Model: "m", Head: msgs[:head:head], Shared: shared, Messages: msgs[head+hist:]}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wholeCur, wholePrev := chat.Request{Model: "m", Messages: tt.cur}, chat.Request{Model: "m", Messages: tt.prev}
			splitCur, splitPrev := cut(tt.cur, tt.heads[1], tt.histories[1]), cut(tt.prev, tt.heads[0], tt.histories[0])
			for _, onlyNew := range []bool{false, true} {
				want := render(wholeCur, wholePrev, onlyNew)
				if mark := map[bool]string{false: `"messages"`, true: "only what is new since turn 1"}[onlyNew]; !strings.Contains(want, mark) {
					t.Fatalf("only new %v: the tab lacks %q:\n%s", onlyNew, mark, want)
				}
				if got := render(splitCur, splitPrev, onlyNew); got != want {
					t.Errorf("only new %v: the cut request shows\n%s\nwant as whole\n%s", onlyNew, got, want)
				}
			}
		})
	}
}
