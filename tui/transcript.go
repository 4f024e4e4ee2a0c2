package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// turnItem is one turn of the transcript: the user message, the reply and the turn
// record, or a turn in progress (streaming, waiting for its scripted reply, failed).
type turnItem struct {
	num   int
	user  *chat.Message
	reply *chat.Message
	rec   *chat.Turn

	// A turn in progress has live set; its text and tools stream in.
	live *liveTurn
	// err is the error of a turn that saved nothing (shown under the user message);
	// unsaved the error of a turn whose reply came but could not be saved (shown under the
	// reply).
	err, unsaved string
	// pendingReply marks a user message waiting for its scripted reply.
	pendingReply bool
	// typing marks a reply being typed out (presentation mode): how it ended is shown
	// once it is whole.
	typing bool

	toolsOpen bool
	version   int

	// The cached render: lines at width, for version and spans.
	cw, cv int
	cspans bool
	cgen   int
	lines  []string
	// mdPending says the cached render shows a Markdown layout still running as plain
	// text: the turn is drawn again when it is done (MarkdownReady).
	mdPending bool
}

// liveTurn is the state of a reply as it streams.
type liveTurn struct {
	sent   time.Time
	ttft   time.Duration // 0 until the first token
	stable int           // bytes of text before the tail, in blocks
	tail   string
	// blocks are the text up to the last paragraph break outside a fence, a block for
	// each advance of the split point, each laid out once (at a width); blockLines are
	// the lines of the first built of them.
	blocks     []liveBlock
	blockLines []string
	built      int
	// left is how many bytes arrived past ReplyMaxShown (not shown).
	left int
	// The tail's lines, the width they were laid out at, whether they are its layout
	// (else an earlier tail's, or the tail plain) and whether the tail changed since.
	tailLines []string
	tailW     int
	tailFresh bool
	tailDirty bool
	tools     []chat.Part      // answered tool calls
	calls     map[int]liveCall // tool calls streaming in the current step
	step      int
	// finish is the finish reason of the current step's request once it ended ("" before).
	finish string
}

type liveCall struct{ name, args string }

// liveBlock is a finished block of a streaming reply and its lines: laid out at width w,
// or shown plain meanwhile (ready false).
type liveBlock struct {
	text  string
	w     int
	ready bool
	lines []string
}

// transcript is the list of turns on the left: a lazy list that renders only the turns
// on screen, each once per width and version.
type transcript struct {
	th    *themes.Theme
	md    *markdown
	loc   *time.Location
	items []*turnItem
	// versions marks the turns that have other versions ("‹2/3›"), by user message id.
	versions map[string]string
	// traces are the recorded traces of the turns, by user message id.
	traces map[string]*engine.Trace
	// gen is bumped when every cached render goes stale (theme).
	gen int
	// emptyHint is what an empty transcript says: how to start.
	emptyHint string

	showSpans bool
	// sel is the selected turn; explicit says the user chose it (else the last turn is
	// the current one and follows new turns).
	sel      int
	explicit bool

	// The viewport: the top line is line off of item top; follow keeps the end in view.
	top, off int
	follow   bool
	width    int
	height   int
	// wantSel asks the next render to bring the selected turn into view.
	wantSel bool

	spinner string
	now     func() time.Time
	// rows is the turn shown on each row of the last frame (-1: none).
	rows []int
	// pending is set while a turn is rendered when a Markdown layout of it is not done.
	pending bool
}

func newTranscript(th *themes.Theme, loc *time.Location, now func() time.Time) *transcript {
	return &transcript{th: th, md: newMarkdown(th.Glamour), loc: loc, now: now, showSpans: true, follow: true, sel: -1}
}

// SetMessages rebuilds the turns from a branch's path and its turn records.
func (t *transcript) SetMessages(path []*chat.Message, turns []*chat.Turn) {
	byUser := make(map[string]*chat.Turn, len(turns))
	for _, tr := range turns {
		byUser[tr.UserMessageID] = tr
	}
	items := make([]*turnItem, 0, len(turns)+1)
	var cur *turnItem
	for _, m := range path {
		switch m.Role {
		case chat.RoleUser:
			cur = &turnItem{num: len(items) + 1, user: m, rec: byUser[m.ID]}
			if cur.rec != nil && cur.rec.Number > 0 {
				cur.num = cur.rec.Number
			}
			items = append(items, cur)
		case chat.RoleAssistant:
			if cur == nil {
				cur = &turnItem{num: 0}
				items = append(items, cur)
			}
			cur.reply = m
		}
	}
	t.items = items
	if t.sel >= len(items) {
		t.sel, t.explicit = -1, false
	}
	t.follow = !t.explicit
	t.wantSel = t.explicit
}

// SetTraces gives the turns' recorded traces (by user message id), which their header
// lines show.
func (t *transcript) SetTraces(traces map[string]*engine.Trace) {
	t.traces = traces
	t.gen++
}

// Len is the number of turns.
func (t *transcript) Len() int { return len(t.items) }

// Current is the index of the turn the inspector shows: the selected one, else the last
// (-1 when there is none).
func (t *transcript) Current() int {
	if t.explicit && t.sel >= 0 && t.sel < len(t.items) {
		return t.sel
	}
	return len(t.items) - 1
}

// Explicit reports whether the user selected a turn.
func (t *transcript) Explicit() bool { return t.explicit }

// ClearSelection goes back to following the last turn.
func (t *transcript) ClearSelection() {
	t.explicit, t.sel = false, -1
	t.follow = true
}

// Select selects turn i (clamped) and brings it into view.
func (t *transcript) Select(i int) {
	if len(t.items) == 0 {
		return
	}
	i = max(0, min(i, len(t.items)-1))
	t.sel, t.explicit, t.wantSel = i, true, true
	t.follow = false
}

// Move moves the selection by n turns (from the last turn when none was selected).
func (t *transcript) Move(n int) { t.Select(t.Current() + n) }

// Item returns turn i.
func (t *transcript) Item(i int) *turnItem {
	if i < 0 || i >= len(t.items) {
		return nil
	}
	return t.items[i]
}

// ToggleSpans shows or hides the injected reminder spans.
func (t *transcript) ToggleSpans() { t.showSpans = !t.showSpans }

// ToggleTools opens or closes the tool calls of the current turn.
func (t *transcript) ToggleTools() {
	if it := t.Item(t.Current()); it != nil {
		it.toolsOpen = !it.toolsOpen
		it.version++
	}
}

// Append adds a turn in progress at the end and follows it.
func (t *transcript) Append(it *turnItem) {
	if it.num == 0 {
		it.num = 1
		if n := len(t.items); n > 0 {
			it.num = t.items[n-1].num + 1
		}
	}
	t.items = append(t.items, it)
	t.ClearSelection()
}

// Last returns the last turn, or nil.
func (t *transcript) Last() *turnItem { return t.Item(len(t.items) - 1) }

// RemoveLast drops the last turn (a turn in progress that saved nothing).
func (t *transcript) RemoveLast() {
	if len(t.items) > 0 {
		t.items = t.items[:len(t.items)-1]
	}
	if t.sel >= len(t.items) {
		t.ClearSelection()
	}
}

// SetSpinner sets the spinner frame shown on streaming turns.
func (t *transcript) SetSpinner(s string) { t.spinner = s }

// ScrollBy scrolls by n lines (negative: up).
func (t *transcript) ScrollBy(n int) {
	if len(t.items) == 0 || t.width < 1 {
		return
	}
	t.follow = false
	t.off += n
	for t.off < 0 && t.top > 0 {
		t.top--
		t.off += len(t.render(t.top))
	}
	if t.off < 0 {
		t.off = 0
	}
	for t.top < len(t.items)-1 && t.off >= len(t.render(t.top)) {
		t.off -= len(t.render(t.top))
		t.top++
	}
	// Not past the end: the last line stays at the bottom at most.
	rest := -t.off
	for i := t.top; i < len(t.items) && rest < t.height; i++ {
		rest += len(t.render(i))
	}
	if rest < t.height {
		t.follow = true
	}
}

// TopTurn and BottomTurn are the turns at the top and the bottom of the last frame.
func (t *transcript) TopTurn() int { return t.top }

// BottomTurn is the turn at the last line of the last frame.
func (t *transcript) BottomTurn() int {
	used := -t.off
	i := t.top
	for ; i < len(t.items); i++ {
		used += len(t.render(i))
		if used >= t.height {
			break
		}
	}
	return min(i, len(t.items)-1)
}

// alignBottom places the viewport so that item i's last line is the last line.
func (t *transcript) alignBottom(i int) {
	used := 0
	for j := i; j >= 0; j-- {
		n := len(t.render(j))
		if used+n >= t.height {
			t.top, t.off = j, used+n-t.height
			return
		}
		used += n
	}
	t.top, t.off = 0, 0
}

// Render draws the transcript at width x height: only the turns on screen are rendered.
func (t *transcript) Render(width, height int, focused bool) string {
	if width < 1 || height < 1 {
		return ""
	}
	t.width, t.height = width, height
	if len(t.items) == 0 {
		t.rows = t.rows[:0]
		msg := []string{"", t.th.Render(themes.Muted, "  "+t.emptyHint)}
		return strings.Join(fitBlock(msg, width, height), "\n")
	}
	if t.top >= len(t.items) {
		t.top, t.off = len(t.items)-1, 0
	}
	switch {
	case t.follow:
		t.alignBottom(len(t.items) - 1)
	case t.wantSel && t.sel >= 0:
		t.bringIntoView(t.sel)
	}
	t.wantSel = false
	cur := t.Current()
	out := make([]string, 0, height)
	t.rows = t.rows[:0]
	skip := t.off
	for i := t.top; i < len(t.items) && len(out) < height; i++ {
		lines := t.render(i)
		gutter := "  "
		if i == cur && (t.explicit || focused) {
			gutter = t.th.Render(themes.Focus, "▌ ")
		}
		for _, l := range lines {
			if skip > 0 {
				skip--
				continue
			}
			if len(out) == height {
				break
			}
			out = append(out, gutter+l)
			t.rows = append(t.rows, i)
		}
	}
	return strings.Join(fitBlock(out, width, height), "\n")
}

// TurnAt is the turn on row y of the last frame, or -1.
func (t *transcript) TurnAt(y int) int {
	if y < 0 || y >= len(t.rows) {
		return -1
	}
	return t.rows[y]
}

func (t *transcript) bringIntoView(i int) {
	if i < t.top || (i == t.top && t.off > 0) {
		t.top, t.off = i, 0
		return
	}
	if i-t.top > t.height { // far below: certainly off screen
		t.alignBottom(i)
		if len(t.render(i)) > t.height {
			t.top, t.off = i, 0
		}
		return
	}
	used := -t.off
	for j := t.top; j <= i; j++ {
		used += len(t.render(j))
	}
	if used > t.height {
		t.alignBottom(i)
		if len(t.render(i)) > t.height {
			t.top, t.off = i, 0
		}
	}
}

// render returns turn i's lines at the current width (without the gutter), from the
// cache when nothing changed.
func (t *transcript) render(i int) []string {
	it := t.items[i]
	w := max(t.width-2, 1)
	if it.live == nil && it.lines != nil && it.cw == w && it.cv == it.version && it.cspans == t.showSpans && it.cgen == t.gen {
		return it.lines
	}
	t.pending = false
	lines := t.renderTurn(it, w)
	it.lines, it.cw, it.cv, it.cspans, it.cgen = lines, w, it.version, t.showSpans, t.gen
	it.mdPending = t.pending
	return lines
}

// MarkdownReady draws again the turns drawn while a Markdown layout of theirs ran.
func (t *transcript) MarkdownReady() {
	for _, it := range t.items {
		if it.mdPending {
			it.lines, it.mdPending = nil, false
		}
	}
}

// renderTurn draws one turn: its header, the user message, the reply.
func (t *transcript) renderTurn(it *turnItem, w int) []string {
	th := t.th
	var out []string
	out = append(out, truncate(t.header(it), w))
	if it.user != nil {
		out = append(out, t.userLines(it.user, w)...)
	}
	if it.err != "" {
		for _, l := range wrapToWidth("✗ "+inert.Display(it.err), max(w-2, 1)) {
			out = append(out, "  "+th.Render(themes.Error, l))
		}
	}
	if it.pendingReply {
		out = append(out, "  "+th.Render(themes.Accent, " SCRIPTED ")+" "+th.Render(themes.Muted, "waiting for the reply you write below"))
	}
	switch {
	case it.live != nil:
		out = append(out, t.liveLines(it, w)...)
	case it.reply != nil:
		out = append(out, t.replyLines(it, w)...)
	case it.user != nil && (it.rec != nil || t.traces[it.user.ID] != nil) && it.err == "" && !it.pendingReply:
		out = append(out, "  "+th.Render(themes.Muted, "(no reply)"))
	}
	if it.unsaved != "" {
		for _, l := range wrapToWidth("✗ NOT SAVED: "+inert.Display(it.unsaved), max(w-2, 1)) {
			out = append(out, "  "+th.Render(themes.Error, l))
		}
	}
	if msg := t.turnError(it); msg != "" && it.err == "" && it.unsaved == "" && (it.reply != nil || it.live != nil) {
		if msg == context.Canceled.Error() {
			msg = "cancelled"
		}
		for _, l := range wrapToWidth("✗ "+msg, max(w-2, 1)) {
			out = append(out, "  "+th.Render(themes.Error, l))
		}
	}
	out = append(out, "")
	return out
}

// turnError is the error recorded with a saved turn (a reply cut short), inert.
func (t *transcript) turnError(it *turnItem) string {
	if it.rec != nil && it.rec.Error != "" {
		return inert.Display(it.rec.Error)
	}
	if it.user != nil {
		if tr := t.traces[it.user.ID]; tr != nil {
			return inert.Display(tr.Error)
		}
	}
	return ""
}

// header is a turn's header line: number, time, reminders fired, prompt tokens, model.
func (t *transcript) header(it *turnItem) string {
	th := t.th
	parts := []string{th.Render(themes.Focus, fmt.Sprintf("turn %d", it.num))}
	var at time.Time
	switch {
	case it.rec != nil && !it.rec.At.IsZero():
		at = it.rec.At
	case it.user != nil:
		at = it.user.CreatedAt
	}
	if !at.IsZero() {
		parts = append(parts, th.Render(themes.Muted, at.In(t.loc).Format("2006-01-02 15:04")))
	}
	if it.user != nil && t.versions[it.user.ID] != "" { // ‹2/3›: the turn has other versions
		parts = append(parts, th.Render(themes.Accent, t.versions[it.user.ID]))
	}
	var tr *engine.Trace
	if it.user != nil {
		tr = t.traces[it.user.ID]
	}
	if r := it.rec; r != nil || tr != nil {
		n := 0
		if r != nil {
			n = len(r.Fired)
		} else {
			for _, d := range tr.Decisions {
				if d.Fired && d.Placement != "" {
					n++
				}
			}
		}
		s := fmt.Sprintf("%d reminders", n)
		if n == 1 {
			s = "1 reminder"
		}
		parts = append(parts, th.Render(themes.Muted, s))
		if tr != nil {
			if rep := tr.Usage.Reported; rep != nil {
				parts = append(parts, th.Render(themes.Muted, fmt.Sprintf("%d tok", rep.PromptTokens)))
			} else {
				parts = append(parts, th.Render(themes.Muted, fmt.Sprintf("~%d tok", tr.Usage.Estimated.PromptTokens)))
			}
			model := "[scripted]"
			if tr.Latency.Total > 0 || tr.Latency.TTFT > 0 || (r != nil && r.Request.Model != "" && !r.Request.Scripted) {
				model = inert.DisplayLine(tr.Request.Model)
			}
			parts = append(parts, th.Render(themes.Muted, model))
		}
	}
	if lv := it.live; lv != nil {
		s := t.spinner + " " + fmtDur(t.now().Sub(lv.sent))
		if lv.ttft > 0 {
			s += " · ttft " + fmtDur(lv.ttft)
		}
		parts = append(parts, th.Render(themes.Warning, s))
	}
	return strings.Join(parts, th.Render(themes.Muted, " · "))
}

func fmtDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// userLines draws a user message with its injected reminder spans set apart: each span
// on lines of its own, marked ┊ and styled as a reminder (hidden with `s`).
func (t *transcript) userLines(m *chat.Message, w int) []string {
	th := t.th
	type seg struct {
		text     string
		reminder string // the span's id and mode, "" for the user's own text
	}
	var segs []seg
	for pi, p := range m.Parts {
		if p.Type != chat.PartText {
			continue
		}
		var spans []chat.ReminderSpan
		for _, s := range m.Reminders {
			if s.Part == pi && s.Start >= 0 && s.End <= len(p.Text) && s.Start < s.End {
				spans = append(spans, s)
			}
		}
		sort.Slice(spans, func(a, b int) bool { return spans[a].Start < spans[b].Start })
		at := 0
		for _, s := range spans {
			if s.Start < at {
				continue
			}
			if s.Start > at {
				segs = append(segs, seg{text: p.Text[at:s.Start]})
			}
			segs = append(segs, seg{text: p.Text[s.Start:s.End], reminder: inert.DisplayLine(s.ID) + " · " + inert.DisplayLine(s.Mode)})
			at = s.End
		}
		if at < len(p.Text) {
			segs = append(segs, seg{text: p.Text[at:]})
		}
	}
	var out []string
	first := true
	hidden := 0
	for _, s := range segs {
		text := inert.ExpandTabs(inert.Display(s.text), 4)
		if s.reminder != "" {
			if !t.showSpans {
				hidden++
				continue
			}
			out = append(out, "  "+th.Render(themes.Reminder, "┊ ⟪injected: "+s.reminder+"⟫"))
			for _, l := range wrapToWidth(strings.TrimSpace(text), max(w-4, 1)) {
				out = append(out, "  "+th.Render(themes.Reminder, "┊ "+l))
			}
			continue
		}
		text = strings.TrimRight(text, "\n ")
		if text == "" {
			continue
		}
		for _, l := range wrapToWidth(text, max(w-6, 1)) {
			prefix := "      "
			if first {
				prefix, first = th.Render(themes.User, "you ")+"  ", false
			}
			out = append(out, "  "+prefix+th.Render(themes.User, l))
		}
	}
	if first {
		out = append([]string{"  " + th.Render(themes.User, "you ") + "  " + th.Render(themes.Muted, "(empty)")}, out...)
	}
	if hidden > 0 {
		out = append(out, "  "+th.Render(themes.Muted, "┊ "+countNoun(hidden, "injected reminder")+" hidden (s shows them)"))
	}
	return out
}

// replyLines draws a saved reply: tool blocks, then the text as Markdown, "(empty reply)"
// when it has neither, and how it ended when that was not simply stop (interrupted, cut
// at max_tokens, …: engine.FinishNote).
func (t *transcript) replyLines(it *turnItem, w int) []string {
	var out []string
	var text strings.Builder
	tools := 0
	for _, p := range it.reply.Parts {
		switch p.Type {
		case chat.PartTool:
			tools++
			out = append(out, t.toolLines(p, it.toolsOpen, w)...)
		case chat.PartText:
			if text.Len() > 0 {
				text.WriteString("\n\n")
			}
			text.WriteString(p.Text)
		}
	}
	if s := strings.TrimSpace(text.String()); s != "" {
		shown, left := cutShown(s, ReplyMaxShown)
		out = append(out, t.markdownLines(inert.Text(shown), w)...)
		if left > 0 {
			out = append(out, t.leftOutLines(len(s), w)...)
		}
	} else if tools == 0 && !it.typing {
		out = append(out, "  "+t.th.Render(themes.Muted, "(empty reply)"))
	}
	if it.reply.Interrupted {
		out = append(out, "  "+t.th.Render(themes.Warning, "⚠ interrupted: the reply was cut short"))
	}
	if tr := t.traceOf(it); tr != nil && tr.Assistant != nil && !it.typing {
		out = append(out, t.finishLines(tr.Assistant.FinishReason, len(tr.Responses), w)...)
	}
	return out
}

// traceOf is the recorded trace of a turn, or nil.
func (t *transcript) traceOf(it *turnItem) *engine.Trace {
	if it.user == nil {
		return nil
	}
	return t.traces[it.user.ID]
}

// finishLines are the lines that say how a reply ended when it did not simply stop
// (engine.FinishNote of its finish reason; requests is how many the turn sent, 0 when
// not known): none for stop.
func (t *transcript) finishLines(reason string, requests, w int) []string {
	note := engine.FinishNote(reason, requests)
	if note == "" {
		return nil
	}
	var out []string
	for _, l := range wrapToWidth("⚠ "+inert.DisplayLine(note), max(w-2, 1)) {
		out = append(out, "  "+t.th.Render(themes.Warning, l))
	}
	return out
}

// markdownLines lays out a reply's inert text as Markdown, indented: in pieces when it is
// longer than MarkdownMaxBytes (mdPieces), each shown as plain text past a bound, with a
// line saying why. A piece whose layout is not done shows plain meanwhile, and sets
// t.pending.
func (t *transcript) markdownLines(text string, w int) []string {
	var out []string
	for _, piece := range mdPieces(mdText(text)) {
		if piece == "" {
			continue
		}
		if out != nil {
			out = append(out, "")
		}
		res, ready := t.md.Render(piece, max(w-2, 1))
		if !ready {
			t.pending = true
		}
		out = append(out, t.mdLines(res, w)...)
	}
	return out
}

// mdText is a reply's inert text as it is laid out: its invisible characters shown
// (Visible), tabs expanded and emoji sequences rewritten for display (Cells). A streamed
// reply's deltas are joined before this (into paragraphs, the tail), so that these see
// whole sequences.
func mdText(s string) string { return inert.Cells(inert.ExpandTabs(inert.Visible(s), 4)) }

// mdLines are a layout's lines indented, and under them, for a text shown plain, why.
func (t *transcript) mdLines(res mdResult, w int) []string {
	out := make([]string, 0, len(res.lines)+1)
	for _, l := range res.lines {
		out = append(out, "  "+l)
	}
	if res.note != "" {
		for _, l := range wrapToWidth("⚠ shown as plain text: "+res.note, max(w-2, 1)) {
			out = append(out, "  "+t.th.Render(themes.Muted, l))
		}
	}
	return out
}

// leftOutLines say that a reply of size bytes is shown up to ReplyMaxShown.
func (t *transcript) leftOutLines(size, w int) []string {
	var out []string
	msg := fmt.Sprintf("⚠ only the first %d MiB of this %.1f MiB reply is shown: the chat's export has it all", ReplyMaxShown>>20, float64(size)/(1<<20))
	for _, l := range wrapToWidth(msg, max(w-2, 1)) {
		out = append(out, "  "+t.th.Render(themes.Warning, l))
	}
	return out
}

// cutShown cuts s to at most max bytes, at a line break when there is one in its last
// quarter, else at a character boundary; left is the bytes cut off.
func cutShown(s string, max int) (shown string, left int) {
	if len(s) <= max {
		return s, 0
	}
	cut := max
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl >= max*3/4 {
		cut = nl
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], len(s) - cut
}

// toolLines draws a tool call: one line, or the block with its input and result.
func (t *transcript) toolLines(p chat.Part, open bool, w int) []string {
	th := t.th
	name := inert.DisplayLine(p.ToolName)
	input := inert.DisplayLine(string(p.Input))
	state := "ok"
	result := inert.DisplayLine(p.Output)
	role := themes.Tool
	switch p.State {
	case chat.ToolOutputError:
		state, result, role = "error", inert.DisplayLine(p.ErrorText), themes.Error
	case chat.ToolInputStreaming, chat.ToolInputAvailable:
		state, result = "running", ""
	}
	mark := "▸"
	if open {
		mark = "▾"
	}
	if !open {
		line := fmt.Sprintf("%s tool %s(%s) → %s", mark, name, input, state)
		if result != "" {
			line += ": " + result
		}
		return []string{"  " + th.Render(role, truncate(line, max(w-2, 1)))}
	}
	out := []string{"  " + th.Render(role, truncate(fmt.Sprintf("%s tool %s · %s", mark, name, state), max(w-2, 1)))}
	add := func(label, body string) {
		out = append(out, "    "+th.Render(themes.Muted, label))
		for _, l := range wrapToWidth(body, max(w-6, 1)) {
			out = append(out, "      "+th.Render(themes.Tool, l))
		}
	}
	add("input", prettyJSON(p.Input))
	switch p.State {
	case chat.ToolOutputError:
		add("error", inert.ExpandTabs(inert.Display(p.ErrorText), 4))
	case chat.ToolOutputAvailable:
		add("result", inert.ExpandTabs(inert.Display(p.Output), 4))
	}
	return out
}

// prettyJSON indents a tool input; input that is not JSON is shown as it is.
func prettyJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return inert.Display(string(raw))
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return inert.Display(string(raw))
	}
	return inert.ExpandTabs(inert.Display(string(b)), 4)
}

// liveLines draws a reply as it streams: the tools so far, the finished blocks (each laid
// out once) and the tail (laid out again when it changed; while a layout of it runs, the
// last layout of an earlier tail shows).
func (t *transcript) liveLines(it *turnItem, w int) []string {
	lv := it.live
	out := make([]string, 0, len(lv.blockLines)+len(lv.tailLines)+8)
	for _, p := range lv.tools {
		out = append(out, t.toolLines(p, it.toolsOpen, w)...)
	}
	idx := make([]int, 0, len(lv.calls))
	for i := range lv.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		c := lv.calls[i]
		out = append(out, "  "+t.th.Render(themes.Tool, truncate("▸ tool "+inert.DisplayLine(c.name)+"("+inert.DisplayLine(c.args)+") → running", max(w-2, 1))))
	}
	mw := max(w-2, 1)
	for i := range lv.blocks {
		b := &lv.blocks[i]
		if b.w != mw || !b.ready && !t.md.Busy() {
			res, ready := t.md.Render(b.text, mw)
			b.lines, b.w, b.ready = append(t.mdLines(res, w), ""), mw, ready
			if i < lv.built {
				lv.blockLines, lv.built = nil, 0 // laid out again: build them again
			}
		}
	}
	for ; lv.built < len(lv.blocks); lv.built++ {
		lv.blockLines = append(lv.blockLines, lv.blocks[lv.built].lines...)
	}
	out = append(out, lv.blockLines...)
	blank := strings.TrimSpace(lv.tail) == ""
	switch {
	case blank:
		lv.tailLines = nil
	case lv.tailDirty || lv.tailW != mw || !lv.tailFresh:
		res, fresh := t.md.Live(mdText(lv.tail), mw)
		lv.tailLines, lv.tailW, lv.tailFresh, lv.tailDirty = t.mdLines(res, w), mw, fresh, false
	}
	out = append(out, lv.tailLines...)
	if lv.left > 0 {
		out = append(out, t.leftOutLines(lv.stable+len(lv.tail)+lv.left, w)...)
	}
	empty := len(lv.blocks) == 0 && blank && len(lv.tools) == 0 && len(lv.calls) == 0
	switch {
	case empty && lv.finish != "":
		out = append(out, "  "+t.th.Render(themes.Muted, "(empty reply)"))
	case empty:
		out = append(out, "  "+t.th.Render(themes.Muted, "waiting for the model…"))
	}
	if lv.finish != "tool_calls" { // a tool round, answered and sent back
		out = append(out, t.finishLines(lv.finish, 0, w)...)
	}
	return out
}

// AddText appends a streamed text delta to turn it: the finished blocks grow by whole
// paragraphs, laid out once each; only the tail is laid out again. Past ReplyMaxShown,
// the text is counted, not kept.
func (t *transcript) AddText(it *turnItem, delta string) {
	lv := it.live
	if lv == nil || delta == "" {
		return
	}
	if lv.ttft == 0 {
		lv.ttft = max(t.now().Sub(lv.sent), time.Millisecond)
	}
	if lv.left > 0 {
		lv.left += len(delta)
		return
	}
	if room := ReplyMaxShown - lv.stable - len(lv.tail); len(delta) > room {
		shown, _ := cutShown(delta, max(room, 0))
		lv.left += len(delta) - len(shown)
		delta = shown
	}
	lv.tail += inert.Text(delta)
	stable, tail := splitStable(lv.tail)
	if stable != "" {
		lv.stable += len(stable)
		for _, piece := range mdPieces(strings.TrimSpace(stable)) {
			if piece != "" {
				lv.blocks = append(lv.blocks, liveBlock{text: mdText(piece)})
			}
		}
		lv.tail = tail
	}
	lv.tailDirty = true
}
