package tui

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
)

// A reply that came but could not be saved (a read-only or full database, a lock held too
// long) is not lost: its turn stays under the transcript, the reply shown with the error,
// until it is saved again (save_again) or the next message is sent.

// keepUnsaved shows the turn it, whose reply could not be saved, with its reply.
func (m *Model) keepUnsaved(it *turnItem, u *engine.UnsavedError) {
	r := u.Result
	reply := r.Assistant
	it.user, it.reply, it.live = &r.Plan.User, &reply, nil
	it.unsaved = u.Err.Error() + " · " + m.keys.SaveAgain.Help().Key + " saves it again"
	it.version++
	tr := r.Trace(r.Turn.ChatID)
	m.traces[r.Plan.User.ID] = &tr
	m.failed, m.unsaved = it, u
	m.setErr(fmt.Errorf("the reply came but could not be saved: %w (%s saves it again)", u.Err, m.keys.SaveAgain.Help().Key))
}

// savedAgainMsg is the result of saving an unsaved turn again.
type savedAgainMsg struct {
	u   *engine.UnsavedError
	res *engine.TurnResult
	err error
}

// saveAgain saves the unsaved turn again, in a Cmd.
func (m *Model) saveAgain() tea.Cmd {
	u := m.unsaved
	switch {
	case u == nil:
		m.notice = "nothing to save again: every reply is saved"
		return nil
	case m.stream != nil:
		m.setErr(fmt.Errorf("a reply is still streaming (esc cancels it)"))
		return nil
	}
	c, mu := m.chat, m.chatMu
	m.notice = "saving the reply again…"
	return func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		res, err := c.SaveAgain(context.Background(), u)
		return savedAgainMsg{u: u, res: res, err: err}
	}
}

// savedAgain takes the result of saveAgain.
func (m *Model) savedAgain(msg savedAgainMsg) tea.Cmd {
	if msg.u != m.unsaved || m.failed == nil {
		return nil // dropped meanwhile (a message was sent)
	}
	it := m.failed
	var again *engine.UnsavedError
	switch {
	case msg.res == nil && errors.As(msg.err, &again):
		m.notice = ""
		m.keepUnsaved(it, again)
		return nil
	case msg.res == nil:
		m.notice = ""
		m.setErr(fmt.Errorf("save again: %w", msg.err))
		return nil
	}
	r := msg.res
	tr := r.Trace(r.Turn.ChatID)
	m.traces[r.Plan.User.ID] = &tr
	m.sent[r.Plan.User.ID] = &tr
	m.failed, m.unsaved, m.lastErr = nil, nil, ""
	it.unsaved = ""
	it.version++
	m.notice = "the reply is saved"
	if msg.err != nil { // the reply's own error (cut short): saved, as a send shows it
		m.setErr(msg.err)
	}
	if r.PlannedOn != "" {
		m.notice = fmt.Sprintf("the reply is saved, on a new branch: %s (another writer changed %s meanwhile)", r.Turn.Branch, r.PlannedOn)
	}
	return m.load(r.PlannedOn != "")
}
