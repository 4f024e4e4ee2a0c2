package tui

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	gansi "github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The bounds on what the workbench lays out as Markdown. glamour's cost grows faster than
// its input on some shapes (measured: 100 nested blockquotes, 201 bytes, take minutes and
// gigabytes; an unbroken token is quadratic, 64 KB in 17 s; a list's items, a table's
// columns are quadratic; emphasis nested 40,000 deep overflows the stack). Past any of
// these bounds a reply's text is shown as plain wrapped text, with a line saying why.
const (
	// MarkdownMaxBytes is the most text laid out as one Markdown document. A longer reply is
	// laid out in pieces cut at paragraph breaks outside code fences; a piece still longer
	// (one paragraph or code block) is plain text.
	MarkdownMaxBytes = 64 << 10
	// MarkdownMaxWord is the longest run of bytes without white space laid out as Markdown
	// (a URL, base64, minified code, CJK text): glamour's wrapping is quadratic in it.
	MarkdownMaxWord = 1024
	// MarkdownMaxDepth is the deepest nesting of blockquotes and lists laid out as Markdown,
	// and at narrow widths a level for every 4 columns at most: each level indents, and
	// past the width glamour's margins multiply the lines.
	MarkdownMaxDepth = 16
	// MarkdownMaxNodeDepth is the deepest nesting of anything (emphasis, links, list items
	// included): glamour lays out a node with a recursion of about 14 KB of stack.
	MarkdownMaxNodeDepth = 48
	// MarkdownMaxListItems is the most items of one list: glamour numbers an item by
	// counting the items before it.
	MarkdownMaxListItems = 1000
	// MarkdownMaxColumns is the most columns of one table.
	MarkdownMaxColumns = 128
	// ReplyMaxShown is the most of one reply the transcript shows; a line says how much is
	// left out (the chat's export and `c` have it all).
	ReplyMaxShown = 1 << 20
)

// mdBudget is how long layouts may keep the UI goroutine waiting, all together, within a
// window of that length (a frame): past it a text is shown plain meanwhile, and its
// layout goes on off the UI goroutine and shows once it is done.
const mdBudget = 50 * time.Millisecond

// mdInlineBytes is the size up to which a text is laid out on the UI goroutine itself:
// within the bounds that takes a few milliseconds at most, less than handing it over.
const mdInlineBytes = 1 << 10

// mdCacheBytes bounds the layouts kept (text and lines), in two generations of about this
// size each.
const mdCacheBytes = 8 << 20

// mdResult is a text laid out at a width: its lines, and note, when the text is shown
// plain, the reason.
type mdResult struct {
	lines []string
	note  string
}

type mdKey struct {
	width int
	text  string
}

// markdown lays out replies' Markdown with glamour, off the UI goroutine, one layout at a
// time. Render and Live are called from the UI goroutine (Update and View); each layout
// runs on a goroutine of its own, which owns the renderer of its width until it is done.
// Render waits for a layout up to its budget; past it the text shows plain and, once the
// layout is done, wake (when set) is called from the layout's goroutine, so that the UI
// draws it. What reaches glamour is bounded first (textBounds, treeBounds): a layout is
// never long.
type markdown struct {
	style   string
	profile termenv.Profile
	budget  time.Duration
	// until is the end of the window the UI goroutine's waits are counted in.
	until time.Time

	mu sync.Mutex
	// wake is called, from a layout's goroutine, when a layout Render stopped waiting for
	// is done.
	wake func()
	// busy is the layout running (nil: none); waited says Render is waiting for it;
	// blocked says a text was shown plain because it ran (its turn is drawn again when
	// it is done).
	busy    *mdJob
	waited  bool
	blocked bool
	// idle is the renderer no layout holds, of the last width laid out; inline the one the
	// UI goroutine lays out small texts with itself.
	idle   *mdLayout
	inline *mdLayout
	cache  mdCache
	// live is the last layout of a streaming reply's tail.
	live *mdJob
	// lastLive is how long the last layout of a tail took.
	lastLive time.Duration
}

// mdJob is one layout.
type mdJob struct {
	key      mdKey
	tail     bool
	done     chan struct{}
	finished bool
	res      mdResult
	took     time.Duration
}

func newMarkdown(style string) *markdown {
	return &markdown{style: style, profile: lipgloss.ColorProfile(), budget: mdBudget}
}

// setWake sets the function called when a layout the UI stopped waiting for is done.
func (m *markdown) setWake(wake func()) {
	m.mu.Lock()
	m.wake = wake
	m.mu.Unlock()
}

// Render lays out inert Markdown text at width columns: its lines, without the blank lines
// glamour puts around a document, and ready. Past a bound the lines are the text wrapped
// plain, with the reason in the note. When the layout is not done within the budget (or
// another one runs), the lines are the text wrapped plain and ready is false: the layout
// goes on, and wake is called when it is done (Render then returns it).
func (m *markdown) Render(text string, width int) (res mdResult, ready bool) {
	width = max(width, 1)
	key := mdKey{width, text}
	m.mu.Lock()
	if r, ok := m.cache.get(key); ok {
		m.mu.Unlock()
		return r, true
	}
	if why := textBounds(text); why != "" {
		m.mu.Unlock()
		return mdResult{lines: wrapToWidth(text, width), note: why}, true
	}
	if len(text) <= mdInlineBytes {
		m.mu.Unlock()
		r := m.layInline(text, width)
		m.mu.Lock()
		m.cache.put(key, r)
		m.mu.Unlock()
		return r, true
	}
	if m.busy != nil {
		m.blocked = true
		m.mu.Unlock()
		return mdResult{lines: wrapToWidth(text, width)}, false
	}
	job := m.start(key, false)
	m.mu.Unlock()
	if r, ok := m.await(job, m.window()); ok {
		return r, true
	}
	return mdResult{lines: wrapToWidth(text, width)}, false
}

// Live lays out the unfinished tail of a streaming reply, which grows until a paragraph
// break moves it on: fresh is false when the layout of this text is not done, and res
// is then the last layout of an earlier tail this one extends, or the text wrapped plain.
// A tail's layout is never cached, and never wakes: the next frame of the stream takes it.
func (m *markdown) Live(text string, width int) (res mdResult, fresh bool) {
	width = max(width, 1)
	key := mdKey{width, text}
	if why := textBounds(text); why != "" {
		return mdResult{lines: wrapToWidth(text, width), note: why}, true
	}
	if len(text) <= mdInlineBytes {
		r := m.layInline(text, width)
		m.mu.Lock()
		m.live = &mdJob{key: key, tail: true, finished: true, res: r}
		m.mu.Unlock()
		return r, true
	}
	m.mu.Lock()
	if l := m.live; l != nil && l.key == key {
		m.mu.Unlock()
		return l.res, true
	}
	var job *mdJob
	wait := m.window()
	if m.lastLive >= m.budget {
		wait = 0 // the tail lays out slower than a frame: show the last layout meanwhile
	}
	if m.busy == nil {
		job = m.start(key, true)
	}
	m.mu.Unlock()
	if job != nil {
		if r, ok := m.await(job, wait); ok {
			return r, true
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.live; l != nil && l.key.width == width && strings.HasPrefix(text, l.key.text) {
		return l.res, false
	}
	return mdResult{lines: wrapToWidth(text, width)}, false
}

// window is how long the UI goroutine may still wait for a layout: what is left of the
// current window, or of a new one when it is over.
func (m *markdown) window() time.Duration {
	now := time.Now()
	if !now.Before(m.until) {
		m.until = now.Add(m.budget)
	}
	return m.until.Sub(now)
}

// layInline lays out a small text on the calling (UI) goroutine.
func (m *markdown) layInline(text string, width int) mdResult {
	if m.inline == nil || m.inline.width != width {
		m.inline = newLayout(m.style, m.profile, width)
	}
	return m.inline.lay(text)
}

// Busy reports whether a layout runs.
func (m *markdown) Busy() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.busy != nil
}

// start starts a layout of key on a goroutine of its own (m.mu held, no layout running).
func (m *markdown) start(key mdKey, tail bool) *mdJob {
	l := m.idle
	if l == nil || l.width != key.width {
		l = newLayout(m.style, m.profile, key.width)
	}
	m.idle = nil
	job := &mdJob{key: key, tail: tail, done: make(chan struct{})}
	m.busy, m.waited = job, true
	go m.run(job, l)
	return job
}

// run lays out a job with l, on the job's goroutine.
func (m *markdown) run(job *mdJob, l *mdLayout) {
	start := time.Now()
	res := l.lay(job.key.text)
	m.mu.Lock()
	job.res, job.finished, job.took = res, true, time.Since(start)
	m.busy, m.idle = nil, l
	if job.tail {
		m.live, m.lastLive = job, job.took
	} else {
		m.cache.put(job.key, res)
	}
	wake := m.wake
	if (m.waited || job.tail) && !m.blocked {
		wake = nil // nothing shows plain waiting for this layout, or for the slot
	}
	m.waited, m.blocked = false, false
	m.mu.Unlock()
	close(job.done)
	if wake != nil {
		wake()
	}
}

// await waits up to d for job; when it stops waiting first, the job wakes when done.
func (m *markdown) await(job *mdJob, d time.Duration) (mdResult, bool) {
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-job.done:
		case <-t.C:
		}
		t.Stop()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if job.finished {
		return job.res, true
	}
	m.waited = false
	return mdResult{}, false
}

// markdownReadyMsg says a Markdown layout the transcript showed plain meanwhile is done.
type markdownReadyMsg struct{}

// Notify gives the workbench the program's Send (tea.Program.Send): a Markdown layout
// that outlasts a frame's budget is done off the UI goroutine, and reports through it so
// that its turn is drawn again. Without it, such a turn shows plain until it is drawn
// again for another reason.
func (m *Model) Notify(send func(tea.Msg)) {
	m.tr.md.setWake(func() { send(markdownReadyMsg{}) })
}

// mdLayout lays out Markdown at one width: goldmark as glamour's NewTermRenderer sets it
// up (GitHub Flavored Markdown, definition lists) with glamour's ANSI renderer, but
// without heading ids, which glamour does not show and whose making is quadratic in a
// document's headings. It parses once, checks the tree (treeBounds), then renders that
// tree. Not safe for concurrent use.
type mdLayout struct {
	width int
	md    goldmark.Markdown
	// bad is why the renderer could not be made ("": it was).
	bad string
}

func newLayout(style string, profile termenv.Profile, width int) *mdLayout {
	l := &mdLayout{width: width}
	st, ok := styles.DefaultStyles[style]
	if !ok {
		l.bad = fmt.Sprintf("no Markdown style %q", style)
		return l
	}
	l.md = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList))
	ar := gansi.NewRenderer(gansi.Options{WordWrap: width, ColorProfile: profile, Styles: *st})
	l.md.SetRenderer(renderer.NewRenderer(renderer.WithNodeRenderers(util.Prioritized(ar, 1000))))
	return l
}

// lay lays text out (textBounds already holds): as Markdown, or as plain text with the
// reason.
func (l *mdLayout) lay(src string) mdResult {
	if l.bad != "" {
		return mdResult{lines: wrapToWidth(src, l.width), note: l.bad}
	}
	b := []byte(src)
	doc := l.md.Parser().Parse(text.NewReader(b))
	if why := treeBounds(doc, l.width); why != "" {
		return mdResult{lines: wrapToWidth(src, l.width), note: why}
	}
	var out bytes.Buffer
	if err := l.md.Renderer().Render(&out, b, doc); err != nil {
		return mdResult{lines: wrapToWidth(src, l.width), note: "the Markdown renderer failed: " + err.Error()}
	}
	lines := strings.Split(out.String(), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return mdResult{lines: lines}
}

// textBounds says why text is not laid out as Markdown, before it is parsed: a run of
// more than MarkdownMaxWord bytes without white space (looked for in the first
// MarkdownMaxBytes+1 bytes), or more than MarkdownMaxBytes; "" when neither.
func textBounds(s string) string {
	run := 0
	for i := 0; i < len(s) && i <= MarkdownMaxBytes; i++ {
		switch s[i] {
		case ' ', '\n', '\t', '\r', '\v', '\f':
			run = 0
		default:
			if run++; run > MarkdownMaxWord {
				return fmt.Sprintf("more than %d bytes without a space", MarkdownMaxWord)
			}
		}
	}
	if len(s) > MarkdownMaxBytes {
		return fmt.Sprintf("longer than %d KiB", MarkdownMaxBytes>>10)
	}
	return ""
}

// treeBounds says why a parsed document is not laid out at width: nesting deeper than
// MarkdownMaxDepth (or a level for every 4 columns) or MarkdownMaxNodeDepth, a list of
// more than MarkdownMaxListItems items, a table of more than MarkdownMaxColumns columns;
// "" when none. It walks the tree without recursion.
func treeBounds(doc gast.Node, width int) string {
	maxDepth := max(min(MarkdownMaxDepth, width/4), 1)
	type entry struct {
		n            gast.Node
		depth, block int
	}
	stack := []entry{{n: doc}}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.depth > MarkdownMaxNodeDepth {
			return fmt.Sprintf("nested deeper than %d levels", MarkdownMaxNodeDepth)
		}
		switch n := e.n.(type) {
		case *gast.Blockquote:
			e.block++
		case *gast.List:
			e.block++
			if n.ChildCount() > MarkdownMaxListItems {
				return fmt.Sprintf("a list of more than %d items", MarkdownMaxListItems)
			}
		case *east.Table:
			if len(n.Alignments) > MarkdownMaxColumns {
				return fmt.Sprintf("a table of more than %d columns", MarkdownMaxColumns)
			}
		}
		if e.block > maxDepth {
			if maxDepth < MarkdownMaxDepth {
				return fmt.Sprintf("nested deeper than %d levels at %d columns", maxDepth, width)
			}
			return fmt.Sprintf("nested deeper than %d levels", maxDepth)
		}
		for c := e.n.FirstChild(); c != nil; c = c.NextSibling() {
			stack = append(stack, entry{n: c, depth: e.depth + 1, block: e.block})
		}
	}
	return ""
}

// mdCache keeps layouts by width and text: two generations of about mdCacheBytes each,
// the older dropped when the newer fills (a layout read from the older moves to the
// newer).
type mdCache struct {
	cur, old map[mdKey]mdResult
	size     int
}

func (c *mdCache) get(k mdKey) (mdResult, bool) {
	if r, ok := c.cur[k]; ok {
		return r, true
	}
	if r, ok := c.old[k]; ok {
		c.put(k, r)
		return r, true
	}
	return mdResult{}, false
}

func (c *mdCache) put(k mdKey, r mdResult) {
	if c.cur == nil {
		c.cur = map[mdKey]mdResult{}
	}
	c.cur[k] = r
	c.size += len(k.text) + len(r.note)
	for _, l := range r.lines {
		c.size += len(l) + 16
	}
	if c.size > mdCacheBytes {
		c.old, c.cur, c.size = c.cur, map[mdKey]mdResult{}, 0
	}
}

// paragraphBreaks calls cut with the offset after each paragraph break of s (a blank line)
// outside a code fence.
func paragraphBreaks(s string, cut func(int)) {
	inFence := false
	lineStart := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '\n' {
			continue
		}
		line := s[lineStart:i]
		if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		// A blank line outside a fence ends a paragraph.
		if !inFence && strings.TrimSpace(line) == "" && lineStart > 0 && i < len(s) {
			cut(i + 1)
		}
		lineStart = i + 1
	}
}

// splitStable splits a streaming Markdown text at its last paragraph break outside a
// code fence: the head will not change as more text arrives and can be rendered once.
func splitStable(s string) (stable, tail string) {
	last := -1
	paragraphBreaks(s, func(at int) { last = at })
	if last <= 0 {
		return "", s
	}
	return s[:last], s[last:]
}

// mdPieces cuts a reply's text longer than MarkdownMaxBytes into pieces of at most that
// (each laid out as a document of its own), at paragraph breaks outside code fences; a
// paragraph or code block longer than that is a piece of its own.
func mdPieces(s string) []string {
	if len(s) <= MarkdownMaxBytes {
		return []string{s}
	}
	var pieces []string
	start, last := 0, 0
	paragraphBreaks(s, func(at int) {
		if at-start > MarkdownMaxBytes && last > start {
			pieces = append(pieces, s[start:last])
			start = last
		}
		last = at
	})
	if len(s)-start > MarkdownMaxBytes && last > start {
		pieces = append(pieces, s[start:last])
		start = last
	}
	pieces = append(pieces, s[start:])
	for i := range pieces {
		pieces[i] = strings.TrimSpace(pieces[i])
	}
	return pieces
}
