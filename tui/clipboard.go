package tui

import (
	"fmt"

	"os"
	"strings"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// copiedMsg is text copied to the clipboard (or why it could not be).
type copiedMsg struct {
	what string
	n    int
	err  error
}

// errNoClipboard is a terminal that cannot take the clipboard through OSC 52.
var errNoClipboard = fmt.Errorf("this terminal cannot take the clipboard (OSC 52 needs a terminal; TERM=dumb or no terminal here)")

// copyText copies text to the terminal's clipboard with OSC 52 in a Cmd: written to the
// program's output (Options.Clipboard), wrapped for tmux or screen when inside one.
func (m *Model) copyText(what, text string) tea.Cmd {
	w := m.opt.Clipboard
	if w == nil || os.Getenv("TERM") == "dumb" {
		return func() tea.Msg { return copiedMsg{what: what, err: errNoClipboard} }
	}
	return func() tea.Msg {
		seq := osc52.New(text)
		switch {
		case os.Getenv("TMUX") != "":
			seq = seq.Tmux()
		case strings.HasPrefix(os.Getenv("TERM"), "screen"):
			seq = seq.Screen()
		}
		if _, err := seq.WriteTo(w); err != nil {
			return copiedMsg{what: what, err: fmt.Errorf("copy: %w", err)}
		}
		return copiedMsg{what: what, n: len(text)}
	}
}

// copied says in the status line what was copied.
func (m *Model) copied(msg copiedMsg) {
	if msg.err != nil {
		m.setErr(msg.err)
		return
	}
	m.notice = fmt.Sprintf("copied %s: %s bytes (OSC 52)", msg.what, thousands(msg.n))
}

// copyMessage copies the selected turn's reply, or its user message when it has none.
func (m *Model) copyMessage() tea.Cmd {
	it := m.tr.Item(m.tr.Current())
	switch {
	case it == nil:
		m.setErr(fmt.Errorf("copy: no turn is selected"))
		return nil
	case it.reply != nil:
		return m.copyText("the reply", messageText(it.reply))
	case it.user != nil:
		return m.copyText("the user message", userText(it.user))
	}
	return nil
}

// copyRequest copies the selected turn's request body, as recorded (it holds no API key).
func (m *Model) copyRequest() tea.Cmd {
	it := m.tr.Item(m.tr.Current())
	var t = m.traces[""]
	if it != nil && it.user != nil {
		t = m.traces[it.user.ID]
	}
	if t == nil {
		m.setErr(fmt.Errorf("copy: the selected turn has no request recorded"))
		return nil
	}
	raw, err := t.Request.AppendJSON(nil)
	if err != nil {
		m.setErr(fmt.Errorf("copy: %w", err))
		return nil
	}
	return m.copyText("the request JSON", string(raw))
}

// messageText is a message's text parts, joined by blank lines.
func messageText(msg *chat.Message) string {
	var parts []string
	for _, p := range msg.Parts {
		if p.Type == chat.PartText {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}
