package tui

import (
	"errors"
	"strings"
	"testing"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// spoofed reads "invoice_exe.txt" where a terminal applies the right-to-left override.
const spoofed = "invoice_\u202etxt.exe"

// spoofLabel names the model with a right-to-left override in the header.
type spoofLabel struct{ *ctxapp.Chat }

func (spoofLabel) ModelLabel() string { return "gpt\u202e-4o @ 127.0.0.1" }

// TestSpoofingIsShown: a bidi control or an invisible character is shown as ⟨U+…⟩ in the
// transcript (user message, reply, tool name), the Request tab, the header (title, model,
// context file), the chats overlay and the status line's error; joiners that do their job
// in Hindi, Persian and emoji text are not.
func TestSpoofingIsShown(t *testing.T) {
	const shown = "open invoice_⟨U+202E⟩txt.exe, not pay⟨U+200D⟩pal or gpt⟨U+200B⟩-4o; क्\u200dष, می\u200cخواهم, 👨💻"
	v := newEnv(t)
	model := &streamModel{turns: [][]step{
		{{tools: []chat.WireToolCall{toolCall("call_1", "run\u202e_sql", `{"query":"select 1"}`)}, failAfter: -1},
			textStep("open ", spoofed, ", not pay\u200d", "pal or gpt\u200b-4o; क्", "\u200dष, می\u200cخواهم, 👨\u200d💻")},
		{{failAfter: 0, err: errors.New("quota \u202eexceeded")}},
	}}
	c := spoofLabel{v.chat(t, "", model).(labelled).Chat}
	m := newModel(t, v, c, 160, 40, Options{ContextName: "support\u202e.ctx.yaml"})
	press(m, "type:deploy "+spoofed, "enter")
	frames := map[string]string{"transcript": m.View()}
	press(m, "tab", "enter")
	frames["tool block"] = m.View()
	press(m, "alt+3", "tab", "end", "pgup")
	frames["Request tab"] = rightOf(m.View())
	press(m, "esc", "type:again", "enter")
	frames["status line"] = m.View()
	press(m, "ctrl+o")
	frames["chats overlay"] = m.View()

	for _, tt := range []struct{ frame, want string }{
		{"transcript", "deploy invoice_⟨U+202E⟩txt.exe"},
		{"transcript", shown},
		{"transcript", "gpt⟨U+202E⟩-4o @ 127.0.0.1"},
		{"transcript", "support⟨U+202E⟩.ctx.yaml"},
		{"tool block", "run⟨U+202E⟩_sql"},
		{"Request tab", `"content": "deploy invoice_⟨U+202E⟩txt.exe`},
		{"status line", "quota ⟨U+202E⟩exceeded"},
		{"chats overlay", "deploy invoice_⟨U+202E⟩txt.exe"},
	} {
		if !strings.Contains(strings.Join(strings.Fields(frames[tt.frame]), " "), strings.Join(strings.Fields(tt.want), " ")) {
			t.Errorf("the %s lacks %q:\n%s", tt.frame, tt.want, frames[tt.frame])
		}
	}
	for name, f := range frames {
		for _, r := range []rune{0x202e, 0x200b} {
			if strings.ContainsRune(f, r) {
				t.Errorf("the %s holds %U unshown:\n%s", name, r, f)
			}
		}
		if strings.Contains(f, "pay\u200dpal") {
			t.Errorf("the %s holds a joiner between Latin letters unshown", name)
		}
	}
}

// rightOf is the part of a frame's lines right of the transcript's separator (the
// inspector).
func rightOf(frame string) string {
	var out []string
	for _, l := range strings.Split(frame, "\n") {
		if _, right, ok := strings.Cut(l, "│"); ok {
			out = append(out, right)
		}
	}
	return strings.Join(out, "\n")
}
