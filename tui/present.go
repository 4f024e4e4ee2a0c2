package tui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/themes"
)

// Presentation mode (Options.Present, `--present`): the transcript starts empty; space
// plays the next turn (its user message, then its reply typed out at a steady pace),
// backspace steps back, and the inspector follows the turn shown. The layout is the
// transcript and the inspector with wide margins, no composer.

// presentEvery is the pace of the typing: presentChars characters every presentEvery.
const (
	presentEvery = 50 * time.Millisecond
	presentChars = 60
)

// presentState is the root model's state in presentation mode.
type presentState struct {
	started bool
	// items are the turns of the branch; shown of them are on screen, the last one
	// typing its reply (typed runes of it) while typing is set.
	items  []*turnItem
	shown  int
	typed  int
	typing bool
	// tick numbers the typing's ticks: a tick of an earlier turn is dropped.
	tick int
	// early counts the turns asked for (space) before the chat was loaded: they play once
	// it is, rather than finding no turn to play.
	early int
}

// presentTickMsg types the next characters of the reply.
type presentTickMsg struct{ seq int }

// presentLoaded follows a load in presentation mode: the turns loaded are the script,
// the transcript shows those played so far. The turns asked for before the first load
// play now; the Cmd types the reply of the last one.
func (m *Model) presentLoaded() tea.Cmd {
	if !m.opt.Present {
		return nil
	}
	p := &m.pr
	p.items = m.tr.items
	if !p.started {
		p.started, p.shown = true, 0
		m.setFocus(areaTranscript)
	}
	p.shown = min(p.shown, len(p.items))
	m.applyPresent()
	var cmd tea.Cmd
	if p.early > 0 {
		m.notice = ""
	}
	for ; p.early > 0; p.early-- {
		p.typing = false // the turn before, shown whole
		cmd = m.presentNext()
	}
	return cmd
}

// presentKey handles the keys of presentation mode; ok is false for the keys the root
// handles as usual (tabs, scrolling, help, quit). Keys that would change the chat or
// focus the hidden composer do nothing.
func (m *Model) presentKey(k tea.KeyMsg) (tea.Cmd, bool) {
	km := m.keys
	switch {
	case m.help:
		return nil, false
	case key.Matches(k, km.PresentNext):
		return m.presentNext(), true
	case key.Matches(k, km.PresentBack):
		m.presentBack()
		return nil, true
	case key.Matches(k, km.Quit):
		return nil, false
	case key.Matches(k, km.Esc), key.Matches(k, km.NextFocus), key.Matches(k, km.PrevFocus), key.Matches(k, km.Inspector):
		return nil, true
	}
	for _, b := range []key.Binding{km.EditTurn, km.Regenerate, km.Correct, km.PrevVersion, km.NextVersion, km.Rewind, km.Checkpoint} {
		if key.Matches(k, b) {
			return nil, true
		}
	}
	return nil, false
}

// presentNext plays the next turn; while a reply is being typed, it shows it whole.
func (m *Model) presentNext() tea.Cmd {
	p := &m.pr
	if !p.started {
		p.early++
		m.notice = "loading the chat: the turn plays once it is loaded"
		return nil
	}
	if p.typing {
		p.typing = false
		m.applyPresent()
		return nil
	}
	if p.shown >= len(p.items) {
		m.notice = "the end: every turn is shown (backspace steps back)"
		return nil
	}
	p.shown++
	p.typed, p.typing = 0, p.items[p.shown-1].reply != nil
	p.tick++
	m.applyPresent()
	if !p.typing {
		return nil
	}
	return presentTick(p.tick)
}

// presentBack takes the last turn shown off the screen.
func (m *Model) presentBack() {
	p := &m.pr
	p.typing = false
	if p.shown > 0 {
		p.shown--
	}
	m.applyPresent()
}

func presentTick(seq int) tea.Cmd {
	return tea.Tick(presentEvery, func(time.Time) tea.Msg { return presentTickMsg{seq: seq} })
}

// presentTicked types the next characters; it ticks again only while typing.
func (m *Model) presentTicked(msg presentTickMsg) tea.Cmd {
	p := &m.pr
	if msg.seq != p.tick || !p.typing {
		return nil
	}
	p.typed += presentChars
	m.applyPresent()
	if !p.typing {
		return nil
	}
	return presentTick(p.tick)
}

// applyPresent puts the turns played on the transcript, the last one's reply cut at what
// is typed so far, and selects it (the inspector follows).
func (m *Model) applyPresent() {
	p := &m.pr
	n := min(p.shown, len(p.items))
	items := make([]*turnItem, n)
	copy(items, p.items[:n])
	if p.typing && n > 0 {
		last := items[n-1]
		text := []rune(last.reply.PlainText())
		if p.typed >= len(text) {
			p.typing = false
		} else {
			part := &turnItem{num: last.num, user: last.user, rec: last.rec, typing: true}
			if p.typed > 0 {
				r := *last.reply
				r.Parts = []chat.Part{chat.TextPart(string(text[:p.typed]))}
				part.reply = &r
			}
			items[n-1] = part
		}
	}
	m.tr.items = items
	if n > 0 {
		m.tr.Select(n - 1)
	} else {
		m.tr.ClearSelection()
	}
}

// presentBody draws presentation mode in w x h: a blank line, then the transcript and
// the inspector side by side with wide margins (the inspector only from 90 columns).
func (m *Model) presentBody(w, h int) []string {
	m.syncInspector()
	margin := 2
	if w < 80 {
		margin = 1
	}
	inner := max(w-2*margin, 1)
	inspW, gap := 0, 5
	if inner >= 90 {
		inspW = inner * 40 / 100
	}
	trW := inner
	if inspW > 0 {
		trW = inner - inspW - gap
	}
	rows := max(h-1, 1)
	tr := fitBlock(strings.Split(m.tr.Render(trW, rows, true), "\n"), trW, rows)
	m.trX, m.trY, m.trW, m.trH = margin, 2, trW, rows
	var in []string
	if inspW > 0 {
		in = fitBlock(strings.Split(m.insp.Render(inspW, rows, false), "\n"), inspW, rows)
		m.inX, m.inY, m.inW, m.inH = margin+trW+gap, 2, inspW, rows
	} else {
		m.inW, m.inH = 0, 0
	}
	pad := strings.Repeat(" ", margin)
	sep := "  " + m.th.Render(themes.Border, "│") + "  "
	out := make([]string, 0, h)
	out = append(out, strings.Repeat(" ", w))
	for i := range rows {
		l := pad + tr[i]
		if inspW > 0 {
			l += sep + in[i]
		}
		out = append(out, fitLine(l, w))
	}
	return fitBlock(out, w, h)
}
