package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/themes"
)

// TestComposerKeys: newlines, the messages sent brought back with up (and down), and a
// failed message put back before the draft.
func TestComposerKeys(t *testing.T) {
	tests := []struct {
		name string
		sent []string
		keys []string
		want string
	}{
		{"alt+enter makes a new line", nil, []string{"type:a", "alt+enter", "type:b"}, "a\nb"},
		{"ctrl+j makes a new line", nil, []string{"type:a", "ctrl+j", "type:b"}, "a\nb"},
		{"up on an empty draft: the last message sent", []string{"one", "two"}, []string{"up"}, "two"},
		{"up again: the one before", []string{"one", "two"}, []string{"up", "up"}, "one"},
		{"up past the first stays on it", []string{"one", "two"}, []string{"up", "up", "up"}, "one"},
		{"down walks forward to an empty draft", []string{"one", "two"}, []string{"up", "up", "down", "down"}, ""},
		{"up with a draft moves in the draft", []string{"one"}, []string{"type:draft", "up"}, "draft"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newComposer(themes.Mono())
			c.Focus()
			c.Render(60, 5, true)
			for _, s := range tt.sent {
				c.Sent(s)
			}
			for _, k := range tt.keys {
				if text, ok := cutType(k); ok {
					for _, r := range text {
						c.Update(keyMsg(string(r)))
					}
					continue
				}
				c.Update(keyMsg(k))
			}
			if got := c.Value(); got != tt.want {
				t.Errorf("composer holds %q, want %q", got, tt.want)
			}
		})
	}
}

func cutType(k string) (string, bool) {
	if len(k) > 5 && k[:5] == "type:" {
		return k[5:], true
	}
	return "", false
}

// TestComposerRestore: a message that could not be sent comes back, before a draft
// typed since.
func TestComposerRestore(t *testing.T) {
	c := newComposer(themes.Mono())
	c.Restore("failed message")
	if got := c.Value(); got != "failed message" {
		t.Fatalf("got %q", got)
	}
	c.SetValue("new draft")
	c.Restore("failed message")
	if got := c.Value(); got != "failed message\nnew draft" {
		t.Errorf("got %q, want the failed message before the draft", got)
	}
}

// TestComposerReplyStep: during the scripted-reply step the draft (what the inspector
// previews) is the message waiting for its reply; the step ends on an empty composer.
func TestComposerReplyStep(t *testing.T) {
	c := newComposer(themes.Mono())
	c.AskReply("the question")
	if c.Draft() != "the question" || c.Value() != "" {
		t.Fatalf("reply step: draft %q, value %q", c.Draft(), c.Value())
	}
	c.SetValue("the reply")
	c.EndReply()
	if c.mode != composeMessage || c.Value() != "" {
		t.Errorf("after the step: mode %v, value %q", c.mode, c.Value())
	}
}

// TestComposerGrows: a draft of a few lines is shown whole, never scrolled out of its
// first line as it grows.
func TestComposerGrows(t *testing.T) {
	c := newComposer(themes.Mono())
	c.Focus()
	c.Render(60, c.Height(10), true)
	for _, k := range []string{"o", "n", "e", "alt+enter", "t", "w", "o", "ctrl+j", "x"} {
		c.Update(keyMsg(k))
		c.Render(60, c.Height(10), true)
	}
	got := c.Render(60, c.Height(10), true)
	for _, want := range []string{"one", "two", "x"} {
		if !strings.Contains(got, want) {
			t.Errorf("the composer does not show %q:\n%s", want, got)
		}
	}
}

// TestComposerDrawsEmojiAsTerminals: the textarea holds the draft as drawn (emoji
// sequences terminals measure differently rewritten, inert.Cells), while the draft that is
// sent keeps what was typed, through typing, pasting, moving and deleting.
func TestComposerDrawsEmojiAsTerminals(t *testing.T) {
	const tone, coder = "👍🏽", "👨\u200d💻"
	tests := []struct {
		name        string
		keys        []string
		value, draw string
	}{
		{"typed rune by rune", []string{"type:hi " + tone}, "hi " + tone, "hi 👍"},
		{"a burst", []string{"burst:" + tone + " " + coder + " 🇫🇷"}, tone + " " + coder + " 🇫🇷", "👍 👨💻 🇫🇷"},
		{"a paste", []string{"paste:\tby " + coder}, "    by " + coder, "    by 👨💻"},
		{"typing after the emoji", []string{"type:" + tone, "type:!"}, tone + "!", "👍!"},
		{"typing before it", []string{"type:" + tone + "b", "left", "left", "type:a"}, "a" + tone + "b", "a👍b"},
		{"typing between the emoji and the next", []string{"type:" + tone + tone, "left", "type:-"}, tone + "-" + tone, "👍-👍"},
		{"backspace deletes the emoji and its tone", []string{"type:a" + tone + "b", "left", "backspace"}, "ab", "ab"},
		{"backspace in a ZWJ sequence leaves what is drawn", []string{"burst:" + coder, "backspace"}, "👨", "👨"},
		{"on a later line", []string{"type:one", "alt+enter", "type:" + tone + "x", "up", "type:!"}, "one!\n" + tone + "x", "one!\n👍x"},
		{"the tone typed alone, on an earlier line", []string{"type:a", "alt+enter", "type:b", "up", "type:👍", "type:🏽", "type:!"},
			"a" + tone + "!\nb", "a👍!\nb"},
		{"plain text as it is", []string{"type:plain ✓ é 日本"}, "plain ✓ é 日本", "plain ✓ é 日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newComposer(themes.Mono())
			c.Focus()
			c.Render(60, 5, true)
			for _, k := range tt.keys {
				switch {
				case strings.HasPrefix(k, "type:"):
					for _, r := range k[5:] {
						c.Update(keyMsg(string(r)))
					}
				case strings.HasPrefix(k, "burst:"):
					c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k[6:])})
				case strings.HasPrefix(k, "paste:"):
					c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k[6:]), Paste: true})
				case k == "left":
					c.Update(tea.KeyMsg{Type: tea.KeyLeft})
				default:
					c.Update(keyMsg(k))
				}
			}
			if got := c.Value(); got != tt.value {
				t.Errorf("draft = %+q, want %+q", got, tt.value)
			}
			if got := c.ta.Value(); got != tt.draw {
				t.Errorf("drawn = %+q, want %+q", got, tt.draw)
			}
		})
	}
}

// TestComposerShowsTheCursorRow: a draft whose long run of emoji the textarea wraps onto
// more rows than the composer has still shows the row the cursor is on.
func TestComposerShowsTheCursorRow(t *testing.T) {
	c := newComposer(themes.Mono())
	c.Focus()
	c.Render(80, 5, true)
	c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("draft 👍🏽 x " + strings.Repeat("👨\u200d💻", 40) + " TAIL")})
	out := c.Render(80, c.Height(20), true)
	if !strings.Contains(out, "TAIL") {
		t.Errorf("the cursor's row is not shown:\n%s", out)
	}
}
