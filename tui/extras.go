package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// The root model's hooks for the reload, the chats overlay and the clipboard: the root
// calls each in one place, so these features live in their own files.

// initExtras starts the watch of the context file; the first read of the traces compares
// the file each turn was sent with with it.
func (m *Model) initExtras() tea.Cmd {
	if r, ok := m.chat.(reloader); ok { // no Cmd runs yet: the chat can be read
		m.rl.file = r.File()
		if m.opt.BuiltIn && m.rl.file != nil {
			m.rl.builtInPath = m.rl.file.Path
		}
	}
	m.rl.opened, m.rl.recheck = m.fileDigest(), true
	return m.startWatch()
}

// extraMsg handles the messages of these features; ok is false for another message.
func (m *Model) extraMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case watchStartedMsg:
		if msg.gen != m.rl.watchGen {
			return nil, true
		}
		if msg.err != nil {
			m.setErr(msg.err)
			return nil, true
		}
		m.rl.watchCh = msg.ch
		return waitWatch(msg.gen, msg.ch), true
	case watchEventMsg:
		if msg.gen != m.rl.watchGen || msg.closed {
			return nil, true
		}
		return tea.Batch(m.reload(), m.rewatch(msg.gen)), true
	case reloadedMsg:
		return m.reloaded(msg), true
	case reloadTickMsg:
		return m.reloadTicked(msg), true
	case copiedMsg:
		m.copied(msg)
		return nil, true
	case reevaluatedMsg:
		m.reevaluated(msg)
		return nil, true
	}
	if cmd, ok := m.branchingMsg(msg); ok {
		return cmd, true
	}
	return m.chatsMsg(msg)
}

// rewatch waits for the watch's next change (the channel is kept by the pending Cmd's
// closure: a new watchStartedMsg is not needed).
func (m *Model) rewatch(gen int) tea.Cmd {
	ch := m.rl.watchCh
	if ch == nil {
		return nil
	}
	return waitWatch(gen, ch)
}

// extraKey handles the keys of these features before the root's; ok is false when the
// key is not theirs.
func (m *Model) extraKey(k tea.KeyMsg) (tea.Cmd, bool) {
	km := m.keys
	switch {
	case m.chats.open:
		return m.chatsKey(k), true
	case m.rl.errs != nil:
		switch {
		case key.Matches(k, km.Esc):
			m.closeReloadErrors()
		case key.Matches(k, km.Reload):
			return m.reload(), true
		case key.Matches(k, km.Quit):
			return m.quitOrCancel(), true
		case k.Paste || k.Type == tea.KeyRunes || k.Type == tea.KeySpace:
			// Typing goes on in the composer: the overlay gives way, and the status
			// line keeps what it said.
			m.closeReloadErrors()
			m.setFocus(areaComposer)
			return m.key(k), true
		}
		return nil, true
	case key.Matches(k, km.Reload):
		return m.reload(), true
	case key.Matches(k, km.Chats):
		return m.openChats(), true
	}
	if cmd, ok := m.branchingKey(k); ok {
		return cmd, true
	}
	switch m.focus {
	case areaComposer:
		if key.Matches(k, km.Send) && m.comp.mode != composeReply && m.comp.Draft() != "" && m.stream == nil {
			m.sentClearsReload() // the recorded traces are shown again after a send
		}
	case areaTranscript:
		switch {
		case key.Matches(k, km.Copy):
			return m.copyMessage(), true
		case key.Matches(k, km.CopyRequest):
			return m.copyRequest(), true
		}
	case areaInspector:
		if m.insp.Tab() == tabRequest && m.rl.reeval != nil && key.Matches(k, km.WouldSend) {
			m.rl.wouldSend = !m.rl.wouldSend
			return nil, true
		}
	}
	return nil, false
}

// overlayMouse handles the mouse while an overlay of these features is open (the chats:
// chatsMouse; nothing reaches the panes under it); ok is false when none is open.
func (m *Model) overlayMouse(msg tea.MouseMsg) (cmd tea.Cmd, ok bool) {
	switch {
	case m.chats.open:
		return m.chatsMouse(msg), true
	case m.rl.errs != nil:
		return nil, true
	}
	return nil, false
}

// overlayView draws an open overlay of these features in w x h; ok is false when none
// is open.
func (m *Model) overlayView(w, h int) ([]string, bool) {
	switch {
	case m.chats.open:
		return m.chatsView(w, h), true
	case m.rl.errs != nil:
		return m.reloadOverlay(w, h), true
	}
	return nil, false
}

// extraStatus are status lines of these features: the reload's summary.
func (m *Model) extraStatus(w int) []string {
	switch {
	case m.rl.running:
		line := "reloading " + inert.DisplayLine(m.contextName()) + "…"
		if m.rl.what != "" { // the file changed since turns of the chat opened were sent
			line = m.rl.what + ":"
		}
		if m.rl.total > 0 {
			line += fmt.Sprintf(" re-evaluating turn %d of %d", m.rl.done, m.rl.total)
		} else if m.rl.what != "" {
			line += " re-evaluating…"
		}
		return []string{fitLine(" "+m.th.Render(themes.Muted, line), w)}
	case m.rl.summary == "":
		return nil
	}
	return []string{fitLine(" "+m.th.Render(themes.Warning, m.rl.summary), w)}
}
