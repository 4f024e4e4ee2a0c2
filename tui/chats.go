package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// Library is the saved chats the chats overlay (ctrl+o) lists, opens and manages: the
// application layer's *app.Library.
type Library interface {
	Chats(ctx context.Context) ([]ctxapp.ChatSummary, error)
	Search(ctx context.Context, text string) (map[string]bool, error)
	Open(ctx context.Context, id string, inForce *ctxfile.File) (*ctxapp.Chat, string, error)
	New(file *ctxfile.File) (*ctxapp.Chat, error)
	Rename(ctx context.Context, id, title string) error
	Delete(ctx context.Context, id string) error
	ExportFile(ctx context.Context, dir, format, id string) (string, error)
}

// chatsMode is what the chats overlay is doing.
type chatsMode int

const (
	chatsBrowse  chatsMode = iota // filtering and moving
	chatsRename                   // an inline input for the title
	chatsConfirm                  // delete? y/n
	chatsExport                   // export as? j/m/o
)

// chatsOverlay is the chats overlay: the saved chats, loaded once per opening, filtered in
// memory by title as the user types, plus the chats whose messages match (from the
// store's index, in a Cmd with a sequence number).
type chatsOverlay struct {
	open    bool
	loading bool
	seq     int // numbers list loads
	list    []ctxapp.ChatSummary
	lower   []string // the titles (and ids) in lower case
	filter  string
	// text are the chats whose messages match textFor (a filter), from the store.
	textSeq int
	textFor string
	text    map[string]bool
	shown   []int // indexes into list, as filtered
	cursor  int
	top     int
	mode    chatsMode
	input   string // the title being typed (rename)
	// rowsAt is the body line of the first chat row in the last frame, rows how many
	// rows it showed (for the mouse).
	rowsAt, rows int
}

// chatsLoadedMsg is the chat list read.
type chatsLoadedMsg struct {
	seq  int
	list []ctxapp.ChatSummary
	err  error
}

// chatsTextMsg is the chats whose messages match a filter.
type chatsTextMsg struct {
	seq    int
	filter string
	ids    map[string]bool
	err    error
}

// chatOpenedMsg is a chat opened (or a new one started) from the overlay.
type chatOpenedMsg struct {
	chat *ctxapp.Chat
	note string
	err  error
}

// chatDoneMsg is a rename, delete or export done; reopen starts a new chat (the open one
// was deleted).
type chatDoneMsg struct {
	what   string
	id     string
	err    error
	reopen bool
}

// openChats opens the overlay and loads the list.
func (m *Model) openChats() tea.Cmd {
	if m.opt.Library == nil {
		m.setErr(fmt.Errorf("chats: there is no chat database here"))
		return nil
	}
	o := &m.chats
	o.open, o.mode, o.filter, o.input, o.cursor, o.top = true, chatsBrowse, "", "", 0, 0
	o.text, o.textFor = nil, ""
	return m.loadChats()
}

// loadChats reads the list in a Cmd.
func (m *Model) loadChats() tea.Cmd {
	o := &m.chats
	o.seq++
	o.loading = true
	seq, lib := o.seq, m.opt.Library
	return func() tea.Msg {
		list, err := lib.Chats(context.Background())
		return chatsLoadedMsg{seq: seq, list: list, err: err}
	}
}

// setChats takes the list read.
func (o *chatsOverlay) setChats(list []ctxapp.ChatSummary) {
	o.list = list
	o.lower = make([]string, len(list))
	for i, c := range list {
		o.lower[i] = strings.ToLower(c.Title + " " + c.ID)
	}
	o.refilter()
}

// refilter recomputes the chats shown: each word of the filter in the title or id, or the
// chat's messages matching the filter.
func (o *chatsOverlay) refilter() {
	words := strings.Fields(strings.ToLower(o.filter))
	o.shown = o.shown[:0]
	text := o.text
	if o.textFor != o.filter {
		text = nil
	}
	for i, l := range o.lower {
		ok := true
		for _, w := range words {
			if !strings.Contains(l, w) {
				ok = false
				break
			}
		}
		if ok || text[o.list[i].ID] {
			o.shown = append(o.shown, i)
		}
	}
	o.cursor = max(0, min(o.cursor, len(o.shown)-1))
}

// selected returns the chat under the cursor, or nil.
func (o *chatsOverlay) selected() *ctxapp.ChatSummary {
	if o.cursor < 0 || o.cursor >= len(o.shown) {
		return nil
	}
	return &o.list[o.shown[o.cursor]]
}

// searchText asks the store for the chats whose messages match the filter.
func (m *Model) searchText() tea.Cmd {
	o := &m.chats
	if strings.TrimSpace(o.filter) == "" {
		return nil
	}
	o.textSeq++
	seq, lib, filter := o.textSeq, m.opt.Library, o.filter
	return func() tea.Msg {
		ids, err := lib.Search(context.Background(), filter)
		return chatsTextMsg{seq: seq, filter: filter, ids: ids, err: err}
	}
}

// chatsMsg handles the overlay's messages; ok is false for another message.
func (m *Model) chatsMsg(msg tea.Msg) (tea.Cmd, bool) {
	o := &m.chats
	switch msg := msg.(type) {
	case chatsLoadedMsg:
		if msg.seq == o.seq {
			o.loading = false
			if msg.err != nil {
				m.setErr(fmt.Errorf("chats: %w", msg.err))
			}
			o.setChats(msg.list)
		}
		return nil, true
	case chatsTextMsg:
		if msg.seq == o.textSeq && msg.filter == o.filter {
			if msg.err != nil {
				m.setErr(fmt.Errorf("chats: search: %w", msg.err))
			}
			o.text, o.textFor = msg.ids, msg.filter
			o.refilter()
		}
		return nil, true
	case chatOpenedMsg:
		if msg.err != nil {
			m.setErr(fmt.Errorf("open chat: %w", msg.err))
			return nil, true
		}
		o.open = false
		if msg.note != "" {
			m.notice = inert.DisplayLine(msg.note)
		}
		return m.switchChat(msg.chat), true
	case chatDoneMsg:
		if msg.err != nil {
			m.setErr(fmt.Errorf("%s: %w", msg.what, msg.err))
			return nil, true
		}
		switch {
		case msg.what == "export":
			m.notice = "exported to " + inert.DisplayLine(msg.id)
			return nil, true
		case msg.reopen:
			return tea.Batch(m.loadChats(), m.newChat(false)), true
		case msg.id == m.chatID:
			return tea.Batch(m.loadChats(), m.load(false)), true
		}
		return m.loadChats(), true
	}
	return nil, false
}

// switchChat puts the workbench on another chat: everything shown is of the new chat.
func (m *Model) switchChat(c *ctxapp.Chat) tea.Cmd {
	if m.stream != nil {
		m.setErr(fmt.Errorf("open chat: wait for the reply to finish (esc cancels it)"))
		return nil
	}
	m.chat = c
	s := c.Session()
	m.title, m.chatID, m.model, m.scripted = s.Chat().Title, s.Chat().ID, c.ModelLabel(), c.Scripted()
	m.branch, m.branches, m.usage = s.Branch(), nil, s.Usage()
	m.traces, m.sent = map[string]*engine.Trace{}, map[string]*engine.Trace{}
	m.loops, m.details = map[string]*turnLoop{}, map[string]bool{}
	m.failed, m.preview, m.previewText, m.lastErr = nil, nil, "", ""
	m.rl.reeval, m.rl.summary, m.rl.wouldSend, m.rl.errs = nil, "", false, nil
	m.rl.seq++ // a reload in flight was of the other chat
	m.rl.running, m.rl.what, m.rl.recheck = false, "", true
	m.rl.file = c.File() // no Cmd has the new chat yet
	m.rl.opened = m.fileDigest()
	switch f := m.rl.file; {
	case f != nil && f.Path == "":
		m.opt.ContextName = ctxapp.NoContextLabel
	case f != nil && !(m.opt.BuiltIn && f.Path == m.rl.builtInPath):
		m.opt.ContextName = filepath.Base(f.Path)
	}
	m.tr.SetTraces(m.traces)
	m.tr.SetMessages(s.Messages(), s.Turns())
	m.tr.ClearSelection()
	return tea.Batch(m.load(true), m.startWatch())
}

// newChat starts a new chat (ctrl+n in the overlay) on the context file in force;
// closeOverlay closes the overlay.
func (m *Model) newChat(closeOverlay bool) tea.Cmd {
	lib := m.opt.Library
	file := m.rl.file
	if closeOverlay {
		m.chats.open = false
	}
	return func() tea.Msg {
		c, err := lib.New(file)
		return chatOpenedMsg{chat: c, err: err}
	}
}

// chatsKey handles a key while the overlay is open.
func (m *Model) chatsKey(k tea.KeyMsg) tea.Cmd {
	o := &m.chats
	km := m.keys
	lib := m.opt.Library
	sel := o.selected()
	ctx := context.Background()
	switch o.mode {
	case chatsConfirm:
		switch k.String() {
		case "y", "Y":
			o.mode = chatsBrowse
			if sel == nil {
				return nil
			}
			id, current := sel.ID, sel.ID == m.chatID
			return func() tea.Msg {
				return chatDoneMsg{what: "delete", id: id, err: lib.Delete(ctx, id), reopen: current}
			}
		case "n", "N", "esc":
			o.mode = chatsBrowse
		}
		return nil
	case chatsExport:
		formats := map[string]string{"j": "json", "m": "markdown", "o": "openai"}
		if f, ok := formats[k.String()]; ok && sel != nil {
			o.mode = chatsBrowse
			id, dir := sel.ID, m.opt.ExportDir
			if dir == "" {
				dir = "."
			}
			return func() tea.Msg {
				path, err := lib.ExportFile(ctx, dir, f, id)
				if abs, aerr := filepath.Abs(path); err == nil && aerr == nil {
					path = abs // say where, whatever the current directory
				}
				return chatDoneMsg{what: "export", id: path, err: err}
			}
		}
		if k.String() == "esc" {
			o.mode = chatsBrowse
		}
		return nil
	case chatsRename:
		switch k.Type {
		case tea.KeyEsc:
			o.mode = chatsBrowse
		case tea.KeyEnter:
			o.mode = chatsBrowse
			if sel == nil {
				return nil
			}
			id, title := sel.ID, strings.TrimSpace(o.input)
			// The open chat is reopened on its file: its session (and what predicates see
			// of it) takes the new title.
			r, _ := m.chat.(reloader)
			mu, file := m.chatMu, m.rl.file
			if id != m.chatID || file == nil {
				r = nil
			}
			return func() tea.Msg {
				err := lib.Rename(ctx, id, title)
				if err == nil && r != nil {
					mu.Lock()
					defer mu.Unlock()
					err = r.Reload(ctx, file)
				}
				return chatDoneMsg{what: "rename", id: id, err: err}
			}
		case tea.KeyBackspace:
			o.input = dropLastRune(o.input)
		case tea.KeyRunes, tea.KeySpace:
			o.input += cleanRunes(k.Runes)
		}
		return nil
	}
	switch {
	case key.Matches(k, km.ChatsClose):
		o.open = false
	case key.Matches(k, km.Quit):
		return m.quitOrCancel()
	case key.Matches(k, km.ChatsOpen):
		return m.openSelectedChat()
	case key.Matches(k, km.ChatsNew):
		return m.newChat(true)
	case key.Matches(k, km.ChatsRename):
		if sel != nil {
			o.mode, o.input = chatsRename, sel.Title
		}
	case key.Matches(k, km.ChatsDelete):
		if sel != nil {
			o.mode = chatsConfirm
		}
	case key.Matches(k, km.ChatsExport):
		if sel != nil {
			o.mode = chatsExport
		}
	case k.Type == tea.KeyUp:
		o.cursor = max(0, o.cursor-1)
	case k.Type == tea.KeyDown:
		o.cursor = min(len(o.shown)-1, o.cursor+1)
	case k.Type == tea.KeyPgUp:
		o.cursor = max(0, o.cursor-10)
	case k.Type == tea.KeyPgDown:
		o.cursor = max(0, min(len(o.shown)-1, o.cursor+10))
	case k.Type == tea.KeyBackspace:
		if o.filter != "" {
			o.filter = dropLastRune(o.filter)
			o.refilter()
			return m.searchText()
		}
	case k.Type == tea.KeyRunes || k.Type == tea.KeySpace:
		o.filter += cleanRunes(k.Runes)
		o.cursor = 0
		o.refilter()
		return m.searchText()
	}
	return nil
}

// openSelectedChat opens the chat under the cursor.
func (m *Model) openSelectedChat() tea.Cmd {
	sel, lib := m.chats.selected(), m.opt.Library
	if sel == nil {
		return nil
	}
	id, file := sel.ID, m.rl.file
	return func() tea.Msg {
		c, note, err := lib.Open(context.Background(), id, file)
		return chatOpenedMsg{chat: c, note: note, err: err}
	}
}

// chatsMouse handles the mouse over the overlay: the wheel moves through the chats, a
// click selects the chat under the pointer, and a click on the selected chat opens it
// (as enter does). While the overlay asks something (a new title, delete?, a format),
// clicks do nothing: the question is about the chat selected.
func (m *Model) chatsMouse(msg tea.MouseMsg) tea.Cmd {
	o := &m.chats
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		o.cursor = max(0, o.cursor-1)
	case tea.MouseButtonWheelDown:
		o.cursor = max(0, min(len(o.shown)-1, o.cursor+1))
	case tea.MouseButtonLeft:
		if msg.Action != tea.MouseActionPress || o.mode != chatsBrowse {
			return nil
		}
		row := msg.Y - 1 - o.rowsAt // the header line is above the body
		if row < 0 || row >= o.rows || o.top+row >= len(o.shown) {
			return nil
		}
		if o.top+row == o.cursor {
			return m.openSelectedChat()
		}
		o.cursor = o.top + row
	}
	return nil
}

func dropLastRune(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	return string(r[:len(r)-1])
}

// cleanRunes keeps the printable runes typed (a space for KeySpace).
func cleanRunes(rs []rune) string {
	if len(rs) == 0 {
		return " "
	}
	var b strings.Builder
	for _, r := range rs {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// chatsView draws the overlay in width x height.
func (m *Model) chatsView(width, height int) []string {
	th := m.th
	o := &m.chats
	out := []string{" " + th.Render(themes.Focus, "chats") + th.Render(themes.Muted, fmt.Sprintf(" · %d of %d · type to filter (title and messages)", len(o.shown), len(o.list)))}
	filter := " filter: " + inert.DisplayLine(o.filter) + "▏"
	out = append(out, th.Render(themes.Text, filter))
	switch o.mode {
	case chatsRename:
		out = append(out, " "+th.Render(themes.Warning, "new title: ")+inert.DisplayLine(o.input)+"▏"+th.Render(themes.Muted, "  enter saves · esc cancels"))
	case chatsConfirm:
		if s := o.selected(); s != nil {
			out = append(out, " "+th.Render(themes.Error, fmt.Sprintf("delete %q and everything of it (%s, %s)? y/n", inert.DisplayLine(s.Title), countNoun(s.Turns, "turn"), branchCount(s.Branches))))
		}
	case chatsExport:
		out = append(out, " "+th.Render(themes.Warning, "export as: j json · m markdown · o openai")+th.Render(themes.Muted, " · esc cancels"))
	default:
		out = append(out, "")
	}
	rows := height - len(out) - 1
	if o.loading && len(o.list) == 0 {
		out = append(out, "  "+th.Render(themes.Muted, "loading…"))
		return fitBlock(out, width, height)
	}
	if len(o.shown) == 0 {
		out = append(out, "  "+th.Render(themes.Muted, "no chat matches"))
		return fitBlock(out, width, height)
	}
	if o.cursor < o.top {
		o.top = o.cursor
	}
	if rows > 0 && o.cursor >= o.top+rows {
		o.top = o.cursor - rows + 1
	}
	loc := m.opt.Location
	if loc == nil {
		loc = time.Local
	}
	o.rowsAt, o.rows = len(out), 0
	statsW := min(62, max(width-24, 0))
	titleW := max(width-4-statsW, 8)
	for i := o.top; i < len(o.shown) && i < o.top+rows; i++ {
		c := &o.list[o.shown[i]]
		title := inert.DisplayLine(c.Title)
		if title == "" {
			title = "untitled"
		}
		cost := "—"
		if c.CostUSD != nil {
			cost = costText(*c.CostUSD)
		}
		if c.ID == m.chatID {
			title += " (open)"
		}
		stats := fmt.Sprintf("%3d br %5d %-5s %9s tok %10s  %s", c.Branches, c.Turns, nounFor(c.Turns, "turn"),
			thousands(c.Usage.TotalTokens), cost, c.UpdatedAt.In(loc).Format("2006-01-02 15:04"))
		mark, role := "  ", themes.Text
		if i == o.cursor {
			mark, role = "> ", themes.Selected
		}
		line := mark + fitLine(title, titleW) + "  " + truncate(stats, statsW)
		out = append(out, th.Render(role, fitLine(line, width)))
		o.rows++
	}
	keys := shortKeys(th, m.keys.chats())
	out = fitBlock(out, width, height-1)
	return append(out, fitLine(" "+strings.Join(keys, th.Render(themes.Muted, " · ")), width))
}

// thousands writes n with commas: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// branchCount is "1 branch", "3 branches".
func branchCount(n int) string {
	if n == 1 {
		return "1 branch"
	}
	return strconv.Itoa(n) + " branches"
}
