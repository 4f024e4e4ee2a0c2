package tui

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/uniseg"
)

// wideText holds the characters terminals and width libraries disagree on: an emoji with
// a skin tone, a ZWJ sequence, a flag, a heart with U+FE0F, a keycap, a subdivision flag
// (tag characters), then e with a combining accent and Hangul, which they agree on.
const wideText = "👍🏽 👨\u200d💻 🇫🇷 ❤\ufe0f 1\ufe0f\u20e3 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F e\u0301 한글"

// wideContext is a context file whose system prompt, instruction and reminder hold them.
const wideContext = `version: 1
system:
  - role: "You answer with emoji: ` + wideText + `"
instructions:
  - id: cheer
    kind: should
    prompt: "Cheer the user on ` + wideText + `"
reminders:
  - id: tone
    text: "Mind the tone ` + wideText + `"
    when: contentIncludes(['ship'])
`

// TestGoldenWideCharacters: emoji with a skin tone, ZWJ sequences and flags in a reply, a
// user message, the chat's title (header and chats overlay), the composer's draft, an
// injected reminder and the inspector's Why and Request tabs: every line of every frame is
// exactly as wide as the screen by every measure the libraries use (x/ansi and lipgloss
// by grapheme, the textarea's uniseg, glamour's go-runewidth rune by rune), so a terminal
// draws each as wide as it was laid out (tmux: TestWorkbenchWideCharactersTmux).
func TestGoldenWideCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.ctx.yaml")
	if err := os.WriteFile(path, []byte(wideContext), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("TMUX", "")
	t.Setenv("STY", "")
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v := newEnvAt(t, path)
			model := &streamModel{turns: [][]step{{textStep("Shipped ", wideText+".\n\n- a list item 👍🏽 by 👨\u200d💻\n- ",
				"and a flag 🇫🇷 at the end of a line long enough to wrap 👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽 ok")}}}
			dir := t.TempDir()
			var clip bytes.Buffer
			m := newModel(t, v, v.chat(t, "", model), sz.w, sz.h, Options{ContextWindow: 128000, Library: v.library(dir), ExportDir: dir, Clipboard: &clip})
			press(m, "type:ship it "+wideText, "enter")
			press(m, "type:next 👍🏽 👨\u200d💻 🇫🇷 then a draft long enough to wrap in the composer 👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽")
			if got, want := m.comp.Value(), "next 👍🏽 👨\u200d💻 🇫🇷 then a draft long enough to wrap in the composer "+strings.Repeat("👍🏽", 18); got != want {
				t.Errorf("the draft is %+q, want %+q as typed", got, want)
			}
			frames := map[string]string{}
			frames["wide"] = m.View() // the transcript, the draft, the Why tab's preview
			press(m, "tab", "home")   // the turn sent, selected in the transcript
			if sz.w < 100 {
				press(m, "alt+i")
			}
			frames["wide_why"] = m.View()
			press(m, "3")
			frames["wide_request"] = m.View()
			send(m, ctrl(tea.KeyCtrlO))
			if !m.chats.open {
				t.Fatal("ctrl+o did not open the chats")
			}
			frames["wide_chats"] = m.View()
			for _, name := range []string{"wide", "wide_why", "wide_request", "wide_chats"} {
				goldenFrame(t, fmt.Sprintf("%s_%dx%d", name, sz.w, sz.h), frames[name])
				checkEveryMeasure(t, name, frames[name], sz.w, sz.h)
			}
			// What is copied keeps the characters as they were written.
			press(m, "esc", "c")
			if got := copiedText(t, clip.String()); !strings.Contains(got, "Shipped "+wideText) {
				t.Errorf("copied %+q, want the reply as written", got)
			}
			clip.Reset()
			press(m, "y")
			if got := copiedText(t, clip.String()); !strings.Contains(got, `"ship it `+wideText) {
				t.Errorf("copied %+q, want the request as sent", got)
			}
		})
	}
}

// copiedText decodes the text of an OSC 52 clipboard write.
func copiedText(t *testing.T, seq string) string {
	t.Helper()
	text, ok := decodeOSC52(seq)
	if !ok {
		t.Fatalf("not an OSC 52 sequence: %q", seq)
	}
	return text
}

// decodeOSC52 decodes the text of a plain OSC 52 clipboard write.
func decodeOSC52(seq string) (string, bool) {
	enc, ok := strings.CutPrefix(seq, "\x1b]52;c;")
	if !ok || !strings.HasSuffix(enc, "\x07") {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "\x07"))
	return string(raw), err == nil
}

// checkEveryMeasure checks that a frame is h lines, each w cells wide by every measure.
func checkEveryMeasure(t *testing.T, name, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", name, len(lines), h)
	}
	for i, l := range lines {
		plain := ansi.Strip(l)
		runes := 0
		for _, r := range plain {
			runes += runewidth.RuneWidth(r)
		}
		for _, m := range []struct {
			name string
			n    int
		}{{"x/ansi", ansi.StringWidth(l)}, {"lipgloss", lipgloss.Width(l)}, {"uniseg", uniseg.StringWidth(plain)}, {"go-runewidth", runes}} {
			if m.n != w {
				t.Errorf("%s line %d is %d cells by %s, want %d: %q", name, i, m.n, m.name, w, l)
			}
		}
	}
}
