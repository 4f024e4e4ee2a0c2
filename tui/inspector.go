package tui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// inspectorTab is an inspector tab: Why, Prompt, Request, Branches, Usage.
type inspectorTab int

// The inspector tabs, in the order of the tab bar (alt+1 … alt+5).
const (
	tabWhy inspectorTab = iota
	tabPrompt
	tabRequest
	tabBranches
	tabUsage
	numTabs
)

// tabNames are the tabs' titles, long and short (for a narrow inspector).
var tabNames = [numTabs][2]string{
	{"Why", "Why"}, {"Prompt", "Pr"}, {"Request", "Req"}, {"Branches", "Br"}, {"Usage", "Use"},
}

// String returns the tab's title.
func (t inspectorTab) String() string {
	if t < 0 || t >= numTabs {
		return "tab " + strconv.Itoa(int(t))
	}
	return tabNames[t][0]
}

// turnView is what the inspector shows of one turn.
type turnView struct {
	Trace   *engine.Trace // the turn's trace: recorded (replay), just sent, or a preview
	Prev    *engine.Trace // the previous turn's trace on the branch (for the Request diff), or nil
	Preview bool          // Trace is the PREVIEW of the draft (nothing sent)
	Loop    *turnLoop     // the requests of the turn's tool loop (nil: its one request)
	Note    string        // a line pinned above the tab's own (a reload's re-evaluation)
	// Unsent says Trace's request was never sent: what a reloaded file would send.
	Unsent bool
	// Streaming says the turn is being sent: Trace is its plan, its reply streams.
	Streaming bool
	// Live says a model answers: while Streaming, the turn is sent to it; for a Preview
	// or an Unsent request, it is what would be sent. A recorded turn says itself
	// whether it was sent (engine.Trace.Sent).
	Live bool
}

// chatView is what the inspector shows of the chat.
type chatView struct {
	Branches      []chat.BranchInfo
	Checkpoints   []chat.Checkpoint // listed under the branches; enter restores one
	Active        string
	Totals        chat.Usage // the chat's usage over all branches
	CostUSD       float64
	CostKnown     bool
	ContextWindow int // the model's context window in tokens; 0 when unknown
}

// inspectorAction is what a key or a click in the inspector asks the root model to do
// (nil for nothing).
type inspectorAction interface{}

// switchBranchAction asks the root model to switch the chat to a branch.
type switchBranchAction struct{ Name string }

// tabBody is a tab rendered for one width: pinned lines under the tab bar, then lines that
// scroll. Lines are styled and at most the width wide. Tabs with a cursor (Why, Branches)
// number their items; each item's first line starts with two spaces, where the cursor
// mark goes.
type tabBody struct {
	head  []string
	lines []string
	item  []int // per line, the item it belongs to (-1: none)
	first []int // per item, its first line
}

// tabBodyKey says what a cached body was rendered for.
type tabBodyKey struct {
	tab      inspectorTab
	width    int
	turn     int // turn generation: a new trace
	chat     int // chat generation
	expanded int // expanded-tree generation
	onlyNew  bool
	step     int // Request: the request of the tool loop shown
	theme    *themes.Theme
}

// inspector is the right-hand pane of the workbench: a tab bar and five tabs showing the
// selected turn (or the preview of the draft) and the chat. It is a plain struct driven by
// the root model; bodies are rendered once per turn, tab, width, expanded state and theme,
// so scrolling costs only the lines on screen.
type inspector struct {
	th   *themes.Theme
	tab  inspectorTab
	turn turnView
	chat chatView

	turnGen, chatGen, expandGen int
	turnID                      string // identity of the shown turn: a new one resets scroll and cursors

	scroll   [numTabs]int
	cursor   [numTabs]int
	expanded map[int]bool // Why: the decisions (by item) whose predicate tree is open
	onlyNew  bool         // Request: only what is new since the previous request
	// reqStep is the request of the turn's tool loop the Request tab shows (0: the
	// first); loopKey steps it (the keymap's binding).
	reqStep int
	loopKey *key.Binding

	// emptyHint says how to get a turn to show, when there is none.
	emptyHint string

	width, height int // of the last Render
	cache         map[tabBodyKey]*tabBody
	builds        int // bodies rendered: cache misses
	keys          inspectorKeys
}

// inspectorKeys are the keys of the focused inspector.
type inspectorKeys struct {
	Up, Down, PageUp, PageDown, Home, End, Enter, OnlyNew key.Binding
}

func newInspectorKeys() inspectorKeys { return newKeyMap(nil).Insp }

// newInspector returns an inspector on the Why tab, with nothing to show yet.
func newInspector(th *themes.Theme) *inspector {
	return &inspector{th: th, expanded: map[int]bool{}, cache: map[tabBodyKey]*tabBody{}, keys: newInspectorKeys()}
}

// SetTurn shows a turn. Showing another turn (another chat, branch or turn number, or
// the preview instead of a sent turn) resets the scroll, the cursors and the open trees;
// a new trace of the same turn (the preview as the draft changes) keeps them.
func (in *inspector) SetTurn(v turnView) {
	if v == in.turn {
		return
	}
	in.turn = v
	in.turnGen++
	id := ""
	if t := v.Trace; t != nil {
		id = t.ChatID + "\x00" + t.Branch + "\x00" + strconv.Itoa(t.Turn) + "\x00" + strconv.FormatBool(v.Preview)
	}
	if id != in.turnID {
		in.turnID = id
		for _, t := range []inspectorTab{tabWhy, tabPrompt, tabRequest, tabUsage} {
			in.scroll[t], in.cursor[t] = 0, 0
		}
		clear(in.expanded)
		in.expandGen++
		in.reqStep = 0
	}
	in.prune()
}

// loopLen is the number of requests of the turn shown (1 without a tool loop).
func (in *inspector) loopLen() int {
	if l := in.turn.Loop; l != nil && len(l.requests) > 0 {
		return len(l.requests)
	}
	return 1
}

// responses is what came back to each request of the turn shown, in order: the trace's
// or, while the turn is sent, those of the requests that ended so far; nil when nothing
// was sent (a preview, what a reloaded file would send) or it is not known.
func (in *inspector) responses() []engine.ResponseTrace {
	v := in.turn
	switch {
	case v.Trace == nil || v.Preview || v.Unsent:
		return nil
	case len(v.Trace.Responses) > 0:
		return v.Trace.Responses
	case v.Loop != nil:
		return v.Loop.responses
	}
	return nil
}

// SetChat shows the chat's branches and totals. When the active branch or the number
// of branches changes, the Branches cursor goes to the active branch.
func (in *inspector) SetChat(c chatView) {
	if c.Active != in.chat.Active || len(c.Branches) != len(in.chat.Branches) {
		for i, b := range branchOrder(c.Branches) {
			if b.Name == c.Active {
				in.cursor[tabBranches] = i
			}
		}
	}
	in.chat = c
	in.chatGen++
	in.prune()
}

// SetTab selects a tab.
func (in *inspector) SetTab(t inspectorTab) {
	if t >= 0 && t < numTabs {
		in.tab = t
	}
}

// Tab returns the selected tab.
func (in *inspector) Tab() inspectorTab { return in.tab }

// SetTheme changes the theme.
func (in *inspector) SetTheme(th *themes.Theme) {
	in.th = th
	in.prune()
}

// prune drops cached bodies that can no longer be shown.
func (in *inspector) prune() {
	for k := range in.cache {
		if k.turn != in.turnGen || k.chat != in.chatGen || k.theme != in.th || k.expanded != in.expandGen {
			delete(in.cache, k)
		}
	}
}

// tabBody returns the selected tab rendered for a width, from the cache when it can.
func (in *inspector) tabBody(width int) *tabBody {
	k := tabBodyKey{tab: in.tab, width: width, turn: in.turnGen, chat: in.chatGen, expanded: in.expandGen,
		onlyNew: in.onlyNew && in.tab == tabRequest, theme: in.th}
	if in.tab == tabRequest {
		k.step = min(in.reqStep, in.loopLen()-1)
	}
	if b, ok := in.cache[k]; ok {
		return b
	}
	if len(in.cache) > 32 {
		clear(in.cache)
	}
	in.builds++
	bb := &tabBuilder{th: in.th, width: width, itemNow: -1}
	if in.turn.Note != "" && in.turn.Trace != nil {
		bb.head(themes.Warning, in.turn.Note)
	}
	switch in.tab {
	case tabWhy:
		in.renderWhy(bb)
	case tabPrompt:
		in.renderPrompt(bb)
	case tabRequest:
		in.renderRequest(bb)
	case tabBranches:
		in.renderBranches(bb)
	case tabUsage:
		in.renderUsage(bb)
	}
	if len(bb.b.head) > 0 { // a rule under the pinned lines
		bb.b.head = append(bb.b.head, in.th.Render(themes.Border, strings.Repeat("─", width)))
	}
	b := bb.done()
	in.cache[k] = b
	return b
}

// hasCursor reports whether the tab moves a cursor over items rather than scrolling lines.
func (t inspectorTab) hasCursor() bool { return t == tabWhy || t == tabBranches }

// tabBodyHeight is the number of scrolling lines a Render of height shows under a body's
// pinned lines.
func tabBodyHeight(b *tabBody, height int) int {
	return max(0, height-1-len(b.head))
}

// HandleKey handles a key while the inspector has focus: up/down/j/k/pgup/pgdown/home/end
// scroll or move the cursor, enter toggles a decision's predicate tree (Why) or picks a
// branch (Branches), d toggles "only what is new" (Request). It returns an action for the
// root model (nil for none).
func (in *inspector) HandleKey(msg tea.KeyMsg) inspectorAction {
	width, height := in.width, in.height
	if width <= 0 {
		width, height = 48, 38
	}
	b := in.tabBody(width)
	page := max(1, tabBodyHeight(b, height)-1)
	k := &in.keys
	switch {
	case key.Matches(msg, k.Up):
		in.move(b, -1, height)
	case key.Matches(msg, k.Down):
		in.move(b, 1, height)
	case key.Matches(msg, k.PageUp):
		in.page(b, -page, height)
	case key.Matches(msg, k.PageDown):
		in.page(b, page, height)
	case key.Matches(msg, k.Home):
		in.scroll[in.tab], in.cursor[in.tab] = 0, 0
	case key.Matches(msg, k.End):
		if in.tab.hasCursor() && len(b.first) > 0 {
			in.cursor[in.tab] = len(b.first) - 1
		}
		in.scroll[in.tab] = max(0, len(b.lines)-tabBodyHeight(b, height))
	case key.Matches(msg, k.Enter):
		return in.activate(b, in.cursor[in.tab])
	case in.tab == tabRequest && key.Matches(msg, k.OnlyNew):
		in.onlyNew = !in.onlyNew
		in.scroll[tabRequest] = 0
	case in.tab == tabRequest && in.loopKey != nil && key.Matches(msg, *in.loopKey) && in.loopLen() > 1:
		in.reqStep = (min(in.reqStep, in.loopLen()-1) + 1) % in.loopLen()
		in.scroll[tabRequest] = 0
	}
	return nil
}

// move moves the cursor by n items (tabs with a cursor) or scrolls by n lines.
func (in *inspector) move(b *tabBody, n, height int) {
	if !in.tab.hasCursor() || len(b.first) == 0 {
		in.ScrollBy(n)
		return
	}
	c := min(max(in.cursor[in.tab]+n, 0), len(b.first)-1)
	in.cursor[in.tab] = c
	in.reveal(b, c, height)
}

// page scrolls by n lines; in a tab with a cursor, the cursor follows to the first item
// that starts in view.
func (in *inspector) page(b *tabBody, n, height int) {
	in.ScrollBy(n)
	if !in.tab.hasCursor() || len(b.first) == 0 {
		return
	}
	top := min(max(in.scroll[in.tab], 0), max(0, len(b.lines)-tabBodyHeight(b, height)))
	in.scroll[in.tab] = top
	for i, l := range b.first {
		if l >= top {
			in.cursor[in.tab] = i
			return
		}
	}
	in.cursor[in.tab] = len(b.first) - 1
}

// reveal scrolls so that item i is in view: all of it when it fits, else its first line,
// with the group title or blank line just above it when the item is at the top.
func (in *inspector) reveal(b *tabBody, i, height int) {
	h := tabBodyHeight(b, height)
	first := b.first[i]
	for n := 0; n < 2 && first > 0 && b.item[first-1] < 0; n++ {
		first--
	}
	last := b.first[i]
	for last+1 < len(b.item) && b.item[last+1] == i {
		last++
	}
	s := &in.scroll[in.tab]
	room := max(h-1, 1) // the last row may hold the "more" line
	if last >= *s+room {
		*s = last - room + 1
	}
	if first < *s || last-first >= room {
		*s = first
	}
}

// activate runs enter on item i of the selected tab.
func (in *inspector) activate(b *tabBody, i int) inspectorAction {
	switch in.tab {
	case tabWhy:
		if i < 0 || i >= len(b.first) {
			return nil
		}
		if in.expanded[i] {
			delete(in.expanded, i)
		} else {
			in.expanded[i] = true
		}
		in.expandGen++
		in.prune()
	case tabBranches:
		names := branchOrder(in.chat.Branches)
		if i >= 0 && i < len(names) {
			return switchBranchAction{Name: names[i].Name}
		}
		if j := i - len(names); j >= 0 && j < len(in.chat.Checkpoints) {
			return restoreAction{Name: in.chat.Checkpoints[j].Name}
		}
	}
	return nil
}

// ScrollBy scrolls the selected tab by n lines (the mouse wheel); Render keeps it in range.
func (in *inspector) ScrollBy(n int) {
	in.scroll[in.tab] = max(0, in.scroll[in.tab]+n)
	if in.width > 0 {
		b := in.tabBody(in.width)
		in.scroll[in.tab] = min(in.scroll[in.tab], max(0, len(b.lines)-tabBodyHeight(b, in.height)))
	}
}

// ClickAt handles a click on line (0-based, counted from the top of the last Render):
// on a decision or a branch it moves the cursor there; on the one already under the
// cursor it does what enter does (opens the tree, or asks to switch to the branch).
func (in *inspector) ClickAt(line int) inspectorAction {
	if in.width <= 0 || !in.tab.hasCursor() {
		return nil
	}
	b := in.tabBody(in.width)
	at := line - 1 - len(b.head)
	if at < 0 || at >= tabBodyHeight(b, in.height) {
		return nil
	}
	l := in.scroll[in.tab] + at
	if l >= len(b.lines) || b.item[l] < 0 {
		return nil
	}
	if in.cursor[in.tab] != b.item[l] {
		in.cursor[in.tab] = b.item[l]
		return nil
	}
	return in.activate(b, b.item[l])
}

// Render renders the tab bar and the selected tab: exactly height lines of at most width
// cells. The body comes from the cache; only the lines on screen are assembled.
func (in *inspector) Render(width, height int, focused bool) string {
	width, height = max(width, 1), max(height, 1)
	in.width, in.height = width, height
	out := make([]string, 0, height)
	out = append(out, in.tabBar(width, focused))
	b := in.tabBody(width)
	head := b.head
	if len(head) > height-1 {
		head = head[:height-1]
	}
	out = append(out, head...)
	h := tabBodyHeight(b, height)
	s := &in.scroll[in.tab]
	*s = min(max(*s, 0), max(0, len(b.lines)-h))
	end := min(*s+h, len(b.lines))
	cur := -1
	if in.tab.hasCursor() && len(b.first) > 0 {
		in.cursor[in.tab] = min(max(in.cursor[in.tab], 0), len(b.first)-1)
		cur = b.first[in.cursor[in.tab]]
	}
	for l := *s; l < end; l++ {
		line := b.lines[l]
		switch {
		case l == end-1 && end < len(b.lines) && h >= 3:
			line = cutToWidth(in.th.Render(themes.Muted, "  ↓ "+strconv.Itoa(len(b.lines)-end+1)+" more lines"), width)
		case l == cur && strings.HasPrefix(line, "  ") && width >= 2:
			role := themes.Muted
			if focused {
				role = themes.Focus
			}
			line = in.th.Render(role, "▸") + " " + line[2:]
		}
		out = append(out, line)
	}
	for len(out) < height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// tabBar renders the tab bar: every title, the selected one in brackets; shorter titles,
// then only the selected one, when the width is short.
func (in *inspector) tabBar(width int, focused bool) string {
	active := themes.TabActive
	if focused {
		active = themes.Focus
	}
	for form := 0; form < 2; form++ {
		w := 0
		for t := range numTabs {
			w += len(tabNames[t][form]) + 1
		}
		if w+1 > width { // the names, a space between each, and the brackets
			continue
		}
		var b strings.Builder
		for t := range numTabs {
			if t > 0 {
				b.WriteByte(' ')
			}
			name := tabNames[t][form]
			if t == in.tab {
				b.WriteString(in.th.Render(active, "["+name+"]"))
			} else {
				b.WriteString(in.th.Render(themes.Tab, name))
			}
		}
		return b.String()
	}
	label := "[" + tabNames[in.tab][0] + "] " + strconv.Itoa(int(in.tab)+1) + "/" + strconv.Itoa(int(numTabs))
	return cutToWidth(in.th.Render(active, label), width)
}

// Keys returns the keys of the focused inspector on its selected tab, with help texts.
func (in *inspector) Keys() []key.Binding {
	k := in.keys
	move := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}
	switch in.tab {
	case tabWhy:
		k.Up.SetHelp(k.Up.Help().Key, "previous decision")
		k.Down.SetHelp(k.Down.Help().Key, "next decision")
		return []key.Binding{k.Up, k.Down, k.Enter, k.PageUp, k.PageDown, k.Home, k.End}
	case tabBranches:
		k.Up.SetHelp(k.Up.Help().Key, "previous branch")
		k.Down.SetHelp(k.Down.Help().Key, "next branch")
		k.Enter.SetHelp(k.Enter.Help().Key, "switch to the branch")
		return []key.Binding{k.Up, k.Down, k.Enter, k.PageUp, k.PageDown, k.Home, k.End}
	case tabRequest:
		if in.onlyNew {
			k.OnlyNew.SetHelp(k.OnlyNew.Help().Key, "the whole request")
		}
		if in.loopKey != nil && in.loopLen() > 1 {
			return append(move, k.OnlyNew, *in.loopKey)
		}
		return append(move, k.OnlyNew)
	}
	return move
}

// cutToWidth cuts a generated line (a label, never untrusted text, which is wrapped) to width.
func cutToWidth(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "")
}

// tabBuilder collects the lines of a body for one width.
type tabBuilder struct {
	th      *themes.Theme
	width   int
	b       tabBody
	itemNow int // the item the next lines belong to (-1: none)
	around  map[themes.Role][2]string
}

// paint draws one line of text in a role, as the theme's Render does. Each role's style
// is rendered once per body, around a marker, and its two ends reused for every text in
// the role: lipgloss's Render was most of the cost of a long body (a 10,000-message
// request). Underlined and struck-through roles, which lipgloss draws rune by rune, go
// through Render.
func (bb *tabBuilder) paint(role themes.Role, s string) string {
	if s == "" {
		return ""
	}
	if st := bb.th.Style(role); st.GetUnderline() || st.GetStrikethrough() {
		return bb.th.Render(role, s) // lipgloss draws these rune by rune
	}
	a, ok := bb.around[role]
	if !ok {
		const marker = "\uE000"
		out := bb.th.Render(role, marker)
		i := strings.Index(out, marker)
		if i < 0 { // a style that changes its text: no ends to reuse
			return bb.th.Render(role, s)
		}
		a = [2]string{out[:i], out[i+len(marker):]}
		if bb.around == nil {
			bb.around = map[themes.Role][2]string{}
		}
		bb.around[role] = a
	}
	return a[0] + s + a[1]
}

// tabSeg is a piece of a line and its role.
type tabSeg struct {
	role themes.Role
	text string
}

// head adds a pinned line under the tab bar, wrapped.
func (bb *tabBuilder) head(role themes.Role, text string) {
	for _, l := range wrapToWidth(text, bb.width) {
		bb.b.head = append(bb.b.head, bb.paint(role, l))
	}
}

// headSegs adds a pinned line made of segments (wrapped in one role when too wide).
func (bb *tabBuilder) headSegs(segs ...tabSeg) {
	bb.b.head = append(bb.b.head, bb.segLines(0, segs)...)
}

// item starts item i: the lines added next belong to it. -1 ends the current item.
func (bb *tabBuilder) item(i int) {
	bb.itemNow = i
	if i >= 0 {
		for len(bb.b.first) <= i {
			bb.b.first = append(bb.b.first, len(bb.b.lines))
		}
	}
}

// blank adds an empty line.
func (bb *tabBuilder) blank() { bb.add("") }

// add adds a styled line that fits the width.
func (bb *tabBuilder) add(line string) {
	bb.b.lines = append(bb.b.lines, cutToWidth(line, bb.width))
	bb.b.item = append(bb.b.item, bb.itemNow)
}

// text adds text (already made inert) wrapped to the width after an indent of indent
// cells, in one role. Continuation lines get hang more cells; an indented line (code)
// continues two cells under its own indent.
func (bb *tabBuilder) text(role themes.Role, indent, hang int, text string) {
	for _, l := range wrapHanging(text, indent, hang, bb.width) {
		bb.add(l.pad + bb.paint(role, l.text))
	}
}

// wrappedLine is a wrapped line: its indent and its text.
type wrappedLine struct{ pad, text string }

// wrapHanging wraps text (tabs expanded here) for a width after an indent, continuation
// lines hang cells further in (two cells under the leading spaces of an indented line).
func wrapHanging(text string, indent, hang, width int) []wrappedLine {
	first, w := roomFor(indent, width)
	var out []wrappedLine
	for _, para := range strings.Split(inert.ExpandTabs(text, 4), "\n") {
		lines := wrapLineToWidth(para, w)
		next, w2 := roomFor(indent+hang, width)
		if lead := len(para) - len(strings.TrimLeft(para, " ")); lead > 0 {
			next, w2 = roomFor(first+lead+2, width)
		}
		if next != first && len(lines) > 1 && strings.HasPrefix(para, lines[0]) {
			lines = append(lines[:1], wrapLineToWidth(strings.TrimLeft(para[len(lines[0]):], " "), w2)...)
		}
		for i, l := range lines {
			pad := first
			if i > 0 {
				pad = next
			}
			out = append(out, wrappedLine{strings.Repeat(" ", pad), l})
		}
	}
	return out
}

// segs adds a line made of segments after an indent; when the segments do not fit they
// are wrapped as one text in the first segment's role, continuing two cells further in.
func (bb *tabBuilder) segs(indent int, segs ...tabSeg) {
	for _, l := range bb.segLines(indent, segs) {
		bb.add(l)
	}
}

func (bb *tabBuilder) segLines(indent int, segs []tabSeg) []string {
	pad, w := roomFor(indent, bb.width)
	plain := 0
	for _, s := range segs {
		plain += ansi.StringWidth(s.text)
	}
	if plain <= w {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", pad))
		for _, s := range segs {
			if s.text != "" {
				b.WriteString(bb.paint(s.role, s.text))
			}
		}
		return []string{b.String()}
	}
	var all strings.Builder
	for _, s := range segs {
		all.WriteString(s.text)
	}
	role := themes.Text
	if len(segs) > 0 {
		role = segs[0].role
	}
	var out []string
	for _, l := range wrapHanging(all.String(), indent, 2, bb.width) {
		out = append(out, l.pad+bb.paint(role, l.text))
	}
	return out
}

// done returns the body.
func (bb *tabBuilder) done() *tabBody { return &bb.b }

// roomFor keeps an indent that leaves room for text: at least a quarter of the width
// (and one cell) for the text itself.
func roomFor(indent, width int) (int, int) {
	if room := width - indent; room < max(1, width/4) {
		indent = max(0, width-max(1, width/4))
	}
	return indent, width - indent
}

// wrapToWidth wraps text (made inert, tabs expanded here) to width cells: at spaces when it
// can, inside a word when the word alone is wider than the width. Every line it returns
// is at most width cells wide.
func wrapToWidth(text string, width int) []string {
	text = inert.ExpandTabs(text, 4)
	width = max(width, 1)
	var out []string
	for _, para := range strings.Split(text, "\n") {
		out = append(out, wrapLineToWidth(para, width)...)
	}
	return out
}

// wrapLineToWidth wraps one line: greedy, breaking at the last space that fits, else at the
// width. Leading spaces (indentation of code and JSON) are kept on the first line.
func wrapLineToWidth(s string, width int) []string {
	if ansi.StringWidth(s) <= width {
		return []string{s}
	}
	var out []string
	for _, p := range wrapRanges(s, width) {
		out = append(out, s[p[0]:p[1]])
	}
	return out
}

// wrapRanges returns the byte ranges of the lines wrapLineToWidth makes of s: trailing spaces
// left out, and the spaces a line breaks at dropped. A rune wider than the width (a wide
// character at width 1) is left out: it cannot be shown.
func wrapRanges(s string, width int) [][2]int {
	width = max(width, 1)
	var out [][2]int
	start := 0
	for start < len(s) {
		cut, lastSpace, w := start, -1, 0
		for i := start; i < len(s); {
			size, cw := clusterCells(s[i:])
			if w+cw > width {
				break
			}
			w += cw
			if s[i] == ' ' && i > start {
				lastSpace = i
			}
			i += size
			cut = i
		}
		if cut == start { // a character wider than the width
			size, _ := clusterCells(s[start:])
			start += size
			continue
		}
		if cut < len(s) && s[cut] != ' ' && lastSpace > start {
			cut = lastSpace
		}
		end := cut
		for end > start && s[end-1] == ' ' {
			end--
		}
		out = append(out, [2]int{start, end})
		for cut < len(s) && s[cut] == ' ' {
			cut++
		}
		start = cut
	}
	if len(out) == 0 {
		out = [][2]int{{0, 0}}
	}
	return out
}

// clusterCells returns the length in bytes of the grapheme cluster s starts with and the
// cells it takes, by the one width measure: a line is cut between clusters, never inside
// one (a flag, a letter and its accent).
func clusterCells(s string) (size, cells int) {
	if s[0] < utf8.RuneSelf && (len(s) == 1 || s[1] < utf8.RuneSelf && s[0] != '\r') {
		return 1, 1 // ASCII followed by ASCII: a cluster of its own
	}
	c, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
	return max(len(c), 1), w
}
