package tui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// The recorded traces are read without their decisions (Chat.LightTraces): on a long chat
// those are most of what a replay reads and decodes, and the inspector shows one turn at a
// time. The decisions of the turn it shows are read in a Cmd when it is first shown, with
// the requests of its tool loop, and kept.

// turnLoop is the requests of a turn, in order: its planned request, then one for each
// tool round sent back to the model; while the turn is sent, with what came back to those
// that ended (from the turn's events; a saved turn's trace has them all). A new value is
// made when one is added, so the inspector sees the change.
type turnLoop struct {
	requests  []chat.Request
	responses []engine.ResponseTrace
}

// detailMsg is what a turn's detail read gave.
type detailMsg struct {
	trace  *engine.Trace // the light trace it was read for
	detail []engine.Decision
	loop   []chat.Request
	err    error
	header bool // a transcript header counts its reminders from the decisions
}

// readDetail reads, in a Cmd, the decisions and loop requests of the turn the inspector
// shows, when its trace was read without them; nil when there is nothing to read.
func (m *Model) readDetail() tea.Cmd {
	if !m.inspectorVisible() {
		return nil
	}
	v := m.turnView()
	if v.Preview {
		return nil
	}
	return m.readDetailOf(v.Trace, false)
}

// readHeaderDetails reads the decisions of the turns whose header counts its reminders
// from them: those without a turn record on the branch (saved without a reply), rare.
func (m *Model) readHeaderDetails() tea.Cmd {
	var cmds []tea.Cmd
	for _, it := range m.tr.items {
		if it.rec == nil && it.user != nil {
			cmds = append(cmds, m.readDetailOf(m.traces[it.user.ID], true))
		}
	}
	return tea.Batch(cmds...)
}

// readAllDetails reads, in one Cmd, the detail of every turn read without it: in
// presentation mode, where the inspector follows each turn played and must not wait.
func (m *Model) readAllDetails() tea.Cmd {
	var light []*engine.Trace
	for _, it := range m.tr.items {
		if it.user == nil {
			continue
		}
		if t := m.traces[it.user.ID]; t != nil && t.Decisions == nil && !m.details[it.user.ID] {
			m.details[it.user.ID] = true
			light = append(light, t)
		}
	}
	if len(light) == 0 {
		return nil
	}
	c := m.chat
	return func() tea.Msg {
		out := make(detailsMsg, 0, len(light))
		for _, t := range light {
			d, err := c.TurnDetail(context.Background(), t)
			out = append(out, detailMsg{trace: t, detail: d.Decisions, loop: d.Requests, err: err, header: true})
		}
		return out
	}
}

// detailsMsg is the details of several turns.
type detailsMsg []detailMsg

// readDetailOf reads the detail of a recorded trace read without its decisions (nil when
// t is not one, or its read is in flight or failed). The read touches only the database,
// so it does not wait for a turn being sent. header says a transcript header shows it.
func (m *Model) readDetailOf(t *engine.Trace, header bool) tea.Cmd {
	if t == nil || t.Decisions != nil || t.UserMessageID == "" || m.details[t.UserMessageID] || m.traces[t.UserMessageID] != t {
		return nil
	}
	m.details[t.UserMessageID] = true
	c := m.chat
	return func() tea.Msg {
		d, err := c.TurnDetail(context.Background(), t)
		return detailMsg{trace: t, detail: d.Decisions, loop: d.Requests, err: err, header: header}
	}
}

// detailRead keeps what a detail read gave, if the trace it was read for is still the
// turn's. The trace is replaced, not changed, so the inspector renders it again.
func (m *Model) detailRead(msg detailMsg) {
	id := msg.trace.UserMessageID
	if m.traces[id] != msg.trace {
		return // a load replaced it since
	}
	if msg.err != nil {
		m.setErr(fmt.Errorf("read turn %d: %w", msg.trace.Turn, msg.err))
		return // m.details keeps it from being read again and again
	}
	t := *msg.trace
	t.Decisions = msg.detail
	m.traces[id] = &t
	if len(msg.loop) > 1 {
		m.loops[id] = &turnLoop{requests: msg.loop}
	}
	if msg.header {
		m.tr.SetTraces(m.traces) // its header is drawn again
	}
}

// forgetDetails drops the loops and the reads of turns whose traces were read again; those
// of the turns sent in this session, whose traces are kept, stay.
func (m *Model) forgetDetails() {
	for id := range m.loops {
		if m.sent[id] == nil {
			delete(m.loops, id)
		}
	}
	clear(m.details)
}
