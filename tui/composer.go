package tui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
	"github.com/ctxlab/ctxlab/tui/keybind"
)

// composerMode is what the composer's text is for.
type composerMode int

const (
	// composeMessage: the text is the next user message.
	composeMessage composerMode = iota
	// composeReply: the scripted-reply step; the text is the assistant's reply to the
	// user message waiting above it.
	composeReply
)

// composer is the message editor under the transcript: a textarea, the messages sent
// (for `up` on an empty draft), and the scripted-reply step.
//
// The textarea holds the draft as it is drawn: with the emoji sequences terminals draw at
// different widths rewritten (inert.Cells), so that what the textarea measures is what the
// terminal draws. draft is the text as typed, which is what is sent: each edit of the
// textarea's text is carried into it (sync).
type composer struct {
	ta    textarea.Model
	draft string
	th    *themes.Theme
	mode  composerMode
	// pending is the user message waiting for its scripted reply (composeReply).
	pending string
	// saved is the draft put aside while the scripted reply is written.
	saved string
	// banner replaces the title, and hint the placeholder, while the text is for
	// something else than a new message (editing a turn, naming a checkpoint).
	banner, hint string
	// history is the messages sent, oldest first; back is how far `up` walked back
	// (0: not walking).
	history []string
	back    int
	// keys are the keymap's (history, new line, and the placeholder's keys).
	keys *keyMap
}

func newComposer(th *themes.Theme) *composer {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.Prompt = ""
	ta.Cursor.SetMode(cursor.CursorStatic) // idle means idle: no blink timer
	c := &composer{ta: ta}
	c.SetTheme(th)
	c.SetKeys(newKeyMap(nil))
	return c
}

// SetKeys takes the keymap's keys: the new line, the history, and the keys the
// placeholder names.
func (c *composer) SetKeys(km *keyMap) {
	c.keys = km
	c.ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys(km.Newline.Keys()...))
	c.setPlaceholder()
}

// SetTheme restyles the composer.
func (c *composer) SetTheme(th *themes.Theme) {
	c.th = th
	st := textarea.Style{
		Base:        lipgloss.NewStyle(),
		Text:        th.Style(themes.Text),
		Placeholder: th.Style(themes.Muted),
		CursorLine:  lipgloss.NewStyle(),
		EndOfBuffer: th.Style(themes.Muted),
	}
	c.ta.FocusedStyle, c.ta.BlurredStyle = st, st
}

func (c *composer) setPlaceholder() {
	k := c.keys
	first := func(b key.Binding) string { return keybind.Label(b.Keys()[:1]) }
	switch {
	case c.hint != "":
		save := k.Send
		if c.mode == composeReply {
			save = k.SaveReply
		}
		c.ta.Placeholder = c.hint + " (" + first(save) + " saves, " + first(k.Esc) + " cancels)"
		return
	case c.mode == composeReply:
		c.ta.Placeholder = "reply as the model (" + first(k.SaveReply) + " saves it, " + first(k.Unanswered) + " leaves the message unanswered)"
		return
	}
	c.ta.Placeholder = "message (" + first(k.Send) + " sends, " + first(k.Newline) + " new line, " + first(k.Editor) + " $EDITOR)"
}

// SetHint gives the placeholder to a branching action's text ("checkpoint name"), or
// back to the message's ("").
func (c *composer) SetHint(hint string) {
	c.hint = hint
	c.setPlaceholder()
}

// Value is the text in the composer, as typed.
func (c *composer) Value() string { return c.draft }

// SetValue replaces the text, cursor at its end.
func (c *composer) SetValue(s string) {
	c.draft = inert.ExpandTabs(inert.Text(s), 4)
	c.ta.SetValue(inert.Cells(c.draft))
	c.ta.CursorEnd()
}

// Reset empties the composer.
func (c *composer) Reset() {
	c.draft = ""
	c.ta.Reset()
}

// Draft is the user message the inspector previews: the text, or the message waiting
// for its scripted reply.
func (c *composer) Draft() string {
	if c.mode == composeReply {
		return c.pending
	}
	return c.draft
}

// Focus gives the composer the keyboard.
func (c *composer) Focus() { c.ta.Focus() }

// Blur takes the keyboard away.
func (c *composer) Blur() { c.ta.Blur() }

// Sent records a message sent, for `up`, and empties the composer.
func (c *composer) Sent(text string) {
	if n := len(c.history); n == 0 || c.history[n-1] != text {
		c.history = append(c.history, text)
	}
	c.back = 0
	c.Reset()
}

// AskReply starts the scripted-reply step for the user message text.
func (c *composer) AskReply(text string) {
	c.mode, c.pending, c.saved = composeReply, text, ""
	c.Reset()
	c.setPlaceholder()
}

// EndReply ends the scripted-reply step, back to an empty message draft.
func (c *composer) EndReply() {
	c.mode, c.pending = composeMessage, ""
	c.Reset()
	if c.saved != "" {
		c.SetValue(c.saved)
	}
	c.saved = ""
	c.setPlaceholder()
}

// Restore puts a message that could not be sent back in the composer, before what is
// there (a failed send never loses the draft).
func (c *composer) Restore(text string) {
	cur := c.Value()
	if cur != "" && cur != text {
		text = text + "\n" + cur
	}
	c.SetValue(text)
}

// walkBack shows the previous message sent (`up` on an empty draft, or while walking);
// it reports whether it did.
func (c *composer) walkBack() bool {
	if c.back == 0 && c.draft != "" {
		return false
	}
	if c.back >= len(c.history) {
		return c.back > 0
	}
	c.back++
	c.SetValue(c.history[len(c.history)-c.back])
	return true
}

// walkForward undoes one walkBack (`down` while walking); it reports whether it did.
func (c *composer) walkForward() bool {
	if c.back == 0 {
		return false
	}
	c.back--
	if c.back == 0 {
		c.Reset()
		return true
	}
	c.SetValue(c.history[len(c.history)-c.back])
	return true
}

// Update passes a key or paste to the textarea.
func (c *composer) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		if c.mode == composeMessage && key.Matches(k, c.keys.History) && c.ta.Line() == 0 && c.walkBack() {
			return nil
		}
		if c.mode == composeMessage && k.Type == tea.KeyDown && c.back > 0 && c.walkForward() {
			return nil
		}
		if k.Type == tea.KeyRunes || k.Type == tea.KeySpace || k.Type == tea.KeyBackspace {
			c.back = 0
		}
		if k.Paste {
			k.Runes = []rune(inert.ExpandTabs(inert.Text(string(k.Runes)), 4))
			msg = k
		}
	}
	// The textarea scrolls its text when a new line does not fit its height; it is given
	// the most rows the composer grows to first, so a draft that fits is never scrolled
	// (Render then sets the height the text needs).
	c.ta.SetHeight(max(c.ta.Height(), composerMaxLines))
	before := c.ta.Value()
	var cmd tea.Cmd
	c.ta, cmd = c.ta.Update(msg)
	if after := c.ta.Value(); after != before {
		c.sync(before, after)
	}
	return cmd
}

// sync carries an edit of the textarea's text, from before to after (both as drawn), into
// the draft. The text around the edit keeps the characters it was typed with; the edited
// stretch, widened to the whole of any rewritten emoji sequence it touches, takes what the
// textarea holds there now (deleting the 💻 of a drawn 👨💻 leaves 👨). When the new text
// draws differently (a skin tone typed after its emoji, a paste), the textarea is given the
// draft as drawn, its cursor as far from the end as it was.
func (c *composer) sync(before, after string) {
	drawn, spans := drawnSpans(c.draft)
	if drawn != before || spans == nil && inert.Cells(after) == after {
		// Not the text the textarea was given, or nothing is drawn rewritten: the draft
		// is what the textarea holds.
		c.draft = after
		return
	}
	p, q := commonEnds(before, after)
	from, to := p, len(before)-q
	for _, sp := range spans {
		if sp.dFrom < to && sp.dTo > from { // overlaps the edit, or holds an insertion inside it
			from, to = min(from, sp.dFrom), max(to, sp.dTo)
		}
	}
	c.draft = c.draft[:draftOffset(spans, from)] + after[from:len(after)-(len(before)-to)] + c.draft[draftOffset(spans, to):]
	if now := inert.Cells(c.draft); now != after {
		back := utf8.RuneCountInString(after) - c.cursorRunes()
		c.ta.SetValue(now)
		c.setCursorRunes(utf8.RuneCountInString(now) - back)
	}
}

// cursorRunes is the textarea's cursor as a count of runes from the start of its text.
func (c *composer) cursorRunes() int {
	lines := strings.Split(c.ta.Value(), "\n")
	row := min(c.ta.Line(), len(lines)-1)
	n := row // the newlines before the cursor's line
	for _, l := range lines[:row] {
		n += utf8.RuneCountInString(l)
	}
	li := c.ta.LineInfo()
	return n + li.StartColumn + li.ColumnOffset
}

// setCursorRunes puts the textarea's cursor n runes from the start of its text (which
// SetValue left at the end).
func (c *composer) setCursorRunes(n int) {
	lines := strings.Split(c.ta.Value(), "\n")
	row, col := 0, max(n, 0)
	for row < len(lines)-1 && col > utf8.RuneCountInString(lines[row]) {
		col -= utf8.RuneCountInString(lines[row]) + 1
		row++
	}
	for i := 0; c.ta.Line() > row && i < 1<<16; i++ {
		c.ta.CursorUp()
	}
	c.ta.SetCursor(col)
}

// drawnSpan is a stretch of a draft that is drawn rewritten: draft[from:to] is drawn as
// drawn[dFrom:dTo].
type drawnSpan struct{ from, to, dFrom, dTo int }

// drawnSpans returns the draft as drawn (inert.Cells) and the stretches it rewrote.
func drawnSpans(draft string) (string, []drawnSpan) {
	drawn := inert.Cells(draft)
	if drawn == draft {
		return drawn, nil
	}
	var spans []drawnSpan
	var b strings.Builder
	b.Grow(len(draft))
	for i := 0; i < len(draft); {
		cl, _ := ansi.FirstGraphemeCluster(draft[i:], ansi.GraphemeWidth)
		if len(cl) == 0 {
			cl = draft[i : i+1]
		}
		d := inert.Cells(cl)
		if d != cl {
			spans = append(spans, drawnSpan{i, i + len(cl), b.Len(), b.Len() + len(d)})
		}
		b.WriteString(d)
		i += len(cl)
	}
	return b.String(), spans
}

// draftOffset maps an offset in the drawn text that is not inside a rewritten stretch to
// the draft.
func draftOffset(spans []drawnSpan, at int) int {
	shift := 0
	for _, sp := range spans {
		if sp.dTo > at {
			break
		}
		shift += (sp.to - sp.from) - (sp.dTo - sp.dFrom)
	}
	return at + shift
}

// commonEnds returns the lengths in bytes of the longest common prefix and, in what is left
// of each, the longest common suffix of a and b, both on rune boundaries.
func commonEnds(a, b string) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) {
		ra, n := utf8.DecodeRuneInString(a[prefix:])
		rb, _ := utf8.DecodeRuneInString(b[prefix:])
		if ra != rb {
			break
		}
		prefix += n
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix {
		ra, n := utf8.DecodeLastRuneInString(a[:len(a)-suffix])
		rb, _ := utf8.DecodeLastRuneInString(b[:len(b)-suffix])
		if ra != rb || len(a)-suffix-n < prefix || len(b)-suffix-n < prefix {
			break
		}
		suffix += n
	}
	return prefix, suffix
}

// composerMaxLines is the most lines of text the composer grows to.
const composerMaxLines = 6

// Height is the rows the composer wants for its text at width (a title line plus 1 to 6
// lines of text).
func (c *composer) Height(maxH int) int {
	lines := strings.Count(c.ta.Value(), "\n") + 1
	if w := c.ta.Width(); w > 0 {
		lines = 0
		for _, l := range strings.Split(c.ta.Value(), "\n") {
			lines += max(1, (lipgloss.Width(l)+w-1)/w)
		}
	}
	h := min(max(lines, 1), composerMaxLines) + 1
	return max(min(h, maxH), 1)
}

// Render draws the composer in width x height: a title line, then the text.
func (c *composer) Render(width, height int, focused bool) string {
	if width < 1 || height < 1 {
		return ""
	}
	th := c.th
	title := "message"
	if c.mode == composeReply {
		title = "reply as the model to: " + inert.DisplayLine(c.pending)
	}
	if c.banner != "" {
		title = c.banner
	}
	mark := "  "
	role := themes.Muted
	if focused {
		mark, role = "▸ ", themes.Focus
	}
	head := th.Render(role, truncate(mark+title, width))
	if c.mode == composeReply {
		head = th.Render(role, mark) + th.Render(themes.Accent, " SCRIPTED ") + " " +
			th.Render(role, truncate(title, max(width-13, 1)))
	}
	if height == 1 {
		return fitLine(head, width)
	}
	c.ta.SetWidth(width - 2)
	c.ta.SetHeight(height - 1)
	// The textarea wraps a word wider than a row (a run of emoji) onto rows of its own,
	// which Height does not count: scroll its text so that the cursor's row is shown.
	c.ta, _ = c.ta.Update(nil)
	body := c.ta.View()
	lines := strings.Split(body, "\n")
	out := make([]string, 0, height)
	out = append(out, fitLine(head, width))
	for _, l := range lines {
		if len(out) == height {
			break
		}
		out = append(out, fitLine("  "+l, width))
	}
	for len(out) < height {
		out = append(out, strings.Repeat(" ", width))
	}
	return strings.Join(out, "\n")
}

// editorCommand writes the draft to a temp file and returns the command that edits it
// in $VISUAL, else $EDITOR, else vi.
func editorCommand(draft string) (*exec.Cmd, string, error) {
	ed := os.Getenv("VISUAL")
	if ed == "" {
		ed = os.Getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	f, err := os.CreateTemp("", "ctxlab-draft-*.md")
	if err != nil {
		return nil, "", fmt.Errorf("editor: %w", err)
	}
	_, werr := f.WriteString(draft)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return nil, "", fmt.Errorf("editor: write the draft: %w", errors.Join(werr, cerr))
	}
	fields := strings.Fields(ed)
	cmd := exec.Command(fields[0], append(fields[1:], f.Name())...)
	return cmd, f.Name(), nil
}

// readEditorFile reads the draft back and removes the temp file.
func readEditorFile(path string, runErr error) tea.Msg {
	defer os.Remove(path)
	if runErr != nil {
		return editorMsg{err: runErr}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return editorMsg{err: err}
	}
	return editorMsg{text: string(b)}
}
