package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
)

// writeJSONLine writes v as one line of JSON, with <, > and & left as they are.
func writeJSONLine(w io.Writer, v any) error {
	return (&jsonLines{w: w}).write(v)
}

// jsonLines writes values to w as lines of JSON, with <, > and & left as they are,
// reusing one buffer for the values that append their own JSON (traces, large). With
// news set (`--request new`), traces are written in the form it writes, each after the
// trace before (one jsonLines per command's output).
type jsonLines struct {
	w    io.Writer
	buf  []byte
	news *engine.NewRequests
}

// Values of the --request flag of `run` and `replay`.
const (
	requestFull = "full"
	requestNew  = "new"
)

// newJSONLines returns the JSON lines of a command whose --request flag is form.
func newJSONLines(w io.Writer, form string) *jsonLines {
	j := &jsonLines{w: w}
	if form == requestNew {
		j.news = new(engine.NewRequests)
	}
	return j
}

// addRequestFlag adds the --request flag of `run` and `replay` to cmd.
func addRequestFlag(cmd *cobra.Command, form *string) {
	cmd.Flags().StringVar(form, "request", requestFull, "with --json, each trace's request: full (as sent), or new (what is new since the trace before)")
	_ = cmd.RegisterFlagCompletionFunc("request", cobra.FixedCompletions([]string{requestFull, requestNew}, cobra.ShellCompDirectiveNoFileComp))
}

// checkRequestFlag checks the value of a --request flag, which only --json output takes.
func checkRequestFlag(form string, asJSON bool) error {
	if form != requestFull && form != requestNew {
		return &usageError{fmt.Sprintf("unknown --request %q (want %s or %s)", form, requestFull, requestNew)}
	}
	if form == requestNew && !asJSON {
		return &usageError{"--request new is a form of the --json output: add --json"}
	}
	return nil
}

func (j *jsonLines) write(v any) error {
	if t, ok := v.(*engine.Trace); ok && j.news != nil {
		b, err := j.news.AppendJSON(j.buf[:0], t)
		if err != nil {
			return err
		}
		j.buf = append(b, '\n')
		_, err = j.w.Write(j.buf)
		return err
	}
	if a, ok := v.(interface{ AppendJSON([]byte) ([]byte, error) }); ok {
		b, err := a.AppendJSON(j.buf[:0])
		if err != nil {
			return err
		}
		j.buf = append(b, '\n')
		_, err = j.w.Write(j.buf)
		return err
	}
	enc := json.NewEncoder(j.w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// inertWriter is the human-readable output of a command: every write passes through
// inert.Visible, so that no text it prints (model output, tool data, model ids, server
// errors, imported messages, context-file text) can drive the terminal, or hide a bidi
// control or an invisible character where it could mislead. Since what reaches
// w holds no control character but newline and tab, no escape sequence can form across
// two writes either; a character cut across two writes becomes U+FFFD, so give it whole
// lines or fields (as fmt's calls do), never a buffer's arbitrary chunks. JSON output never
// goes through it: it is lossless.
type inertWriter struct{ w io.Writer }

// humanOutput returns w as an inertWriter (w itself when it is one already).
func humanOutput(w io.Writer) io.Writer {
	if _, ok := w.(inertWriter); ok {
		return w
	}
	return inertWriter{w}
}

// Write writes p made inert and reports all of p written when that succeeds.
func (iw inertWriter) Write(p []byte) (int, error) {
	if inert.Clean(p) { // most writes: p as it is, not copied into a string first
		if _, err := iw.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if _, err := io.WriteString(iw.w, inert.Visible(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writePrompt prints what `ctxlab prompt` shows of a planned turn: the rendered system
// prompt (renderer "": there is no context file, and so none), the turn's block and a
// summary of the request.
func writePrompt(w io.Writer, renderer string, plan *engine.Plan, t *engine.Trace, user string, v turnView) {
	w = humanOutput(w)
	if renderer == "" {
		fmt.Fprintf(w, "── system prompt · none: no context file (no --context, no ./%s): a plain chat\n"+
			"(the request has no system message and no tools; `ctxlab init` writes a starter file)\n\n", ctxapp.DefaultContextFile)
	} else {
		fmt.Fprintf(w, "── system prompt · %s · ~%d tokens\n%s\n\n", renderer,
			plan.Estimate.Fragments+plan.Estimate.Instructions, plan.SystemPrompt)
	}
	writeTurnView(w, t, user, "", v)
	fmt.Fprintf(w, "  %-16s model %s · %s · %s\n", "request:",
		inert.VisibleLine(plan.Request.Model), plural(plan.Request.Len(), "message"), plural(len(plan.Request.Tools), "tool"))
}

// writeTurn prints the compact human-readable block of one turn: what fired and why, what
// did not and why (grouped), the instructions applied, the reply (labelled with where it
// came from, when known) and the tokens. Everything it prints is made inert.
func writeTurn(w io.Writer, t *engine.Trace, user, source string) {
	writeTurnView(w, t, user, source, turnView{})
}

// turnView is how a turn's block is laid out: Width is the terminal's width to wrap long
// lines to (0: not a terminal, lines are not wrapped); ShowMessages adds the final user
// message as sent (reminders baked in) and the system-placement message.
type turnView struct {
	Width        int
	ShowMessages bool
}

// labelWidth is the width of the labels of a turn's block ("  assistant:       ").
const labelWidth = 2 + 16 + 1

// writeBlock prints text under label: its first line beside the label, the others (its
// own lines, and the pieces of a line wrapped to width when width is not 0) indented
// under it. text is made inert first.
func writeBlock(w io.Writer, label, text string, width int) {
	_, _ = w.Write(appendBlock(nil, label, text, width))
}

// appendBlock appends what writeBlock prints to dst, each line as fmt's "  %-16s %s" would
// write it, with its trailing blanks dropped.
func appendBlock(dst []byte, label, text string, width int) []byte {
	text = inert.Visible(text)
	first := true
	line := func(l string) {
		if !first {
			label = ""
		}
		first = false
		start := len(dst)
		dst = appendLabel(dst, label)
		dst = append(dst, l...)
		end := len(dst)
		for end > start && dst[end-1] == ' ' {
			end--
		}
		dst = append(dst[:end], '\n')
	}
	for l := range strings.SplitSeq(text, "\n") {
		if width > labelWidth+10 {
			for piece := range strings.SplitSeq(ansi.Wrap(l, width-labelWidth, ""), "\n") {
				line(piece)
			}
			continue
		}
		line(l)
	}
	return dst
}

// appendLabel appends the start of a labelled line: two blanks, then label padded to 16
// characters, then a blank (what fmt's "  %-16s " writes).
func appendLabel(dst []byte, label string) []byte {
	dst = append(dst, "  "...)
	dst = append(dst, label...)
	for n := utf8.RuneCountInString(label); n < 16; n++ {
		dst = append(dst, ' ')
	}
	return append(dst, ' ')
}

// labelledList builds the lines of writeList item by item: the first beside its label,
// the others under it.
type labelledList struct {
	label string
	buf   []byte
	n     int
}

// item starts the line of the next item; the caller appends the item to l.buf, then
// calls end.
func (l *labelledList) item() {
	if l.n == 0 {
		l.buf = appendLabel(l.buf, l.label)
	} else {
		l.buf = appendLabel(l.buf, "")
	}
	l.n++
}

func (l *labelledList) end() { l.buf = append(l.buf, '\n') }

// write writes the list to w, or the label with none when it has no item.
func (l *labelledList) write(w io.Writer, none string) {
	if l.n == 0 {
		l.buf = append(appendLabel(l.buf[:0], l.label), none...)
		l.end()
	}
	_, _ = w.Write(l.buf)
}

// writeTurnView is writeTurn laid out as v says.
func writeTurnView(w io.Writer, t *engine.Trace, user, source string, v turnView) {
	w = humanOutput(w)
	writeTurnHead(w, t, user, v)
	writeTurnTail(w, t, source, v, false)
}

// writeTurnHead prints the part of a turn's block known before it is sent: the header,
// the user's message, the decisions and the instructions (and, for a replay, what
// changed). It runs for every turn of a script, so it builds its lines by appending, with
// one write per section.
func writeTurnHead(w io.Writer, t *engine.Trace, user string, v turnView) {
	w = humanOutput(w)
	head := append(make([]byte, 0, 256), "── turn "...)
	head = strconv.AppendInt(head, int64(t.Turn), 10)
	head = append(append(head, " · "...), t.Branch...)
	head = append(append(head, " · "...), toSecond(t.At)...)
	if t.ChatID != "" {
		head = append(append(head, " · chat "...), t.ChatID...)
	}
	if t.NotRecorded {
		head = append(head, " · no record (imported): rebuilt from the messages"...)
	}
	head = append(head, '\n')
	if user != "" {
		head = appendBlock(head, "user:", tidyText(user), v.Width)
	}
	_, _ = w.Write(head)
	fired := labelledList{label: "fired:", buf: make([]byte, 0, 4096)}
	skipped := labelledList{label: "held back:"}
	changed := labelledList{label: "changed:"}
	instr := labelledList{label: "instructions:"}
	var quiet quietGroups
	for i := range t.Decisions {
		d := &t.Decisions[i]
		if d.Was != nil {
			changed.item()
			changed.buf = append(append(append(append(append(changed.buf, d.ID...), ": "...), d.Reason...), " (was "...), d.Was.Reason...)
			changed.buf = append(changed.buf, ')')
			changed.end()
		}
		if d.Source == engine.SourceInstruction {
			if !d.Fired {
				quiet.add(d.Reason, d.ID, len(t.Decisions))
				continue
			}
			instr.item()
			instr.buf = append(append(append(append(instr.buf, '['), d.Kind...), "] "...), d.ID...)
			if d.Scope != "Always" {
				instr.buf = append(append(append(instr.buf, " ("...), d.Scope...), ')')
			}
			if d.Reason == engine.ReasonDeferredToModel {
				instr.buf = append(instr.buf, " (model judges when)"...)
			}
			instr.end()
			continue
		}
		if d.Fired {
			fired.item()
			fired.buf = append(append(append(fired.buf, d.ID...), " ["...), d.Placement...)
			if d.Tier == "safety" {
				fired.buf = append(fired.buf, ", safety"...)
			}
			fired.buf = append(fired.buf, ", "...)
			fired.buf = strconv.AppendInt(fired.buf, int64(d.Tokens), 10)
			fired.buf = append(fired.buf, " tok] "...)
			if d.Trace != nil {
				why := oneLine(d.Trace.Why, 90)
				if d.Trace.Expr != "" && d.Trace.Expr != d.ID {
					why = oneLinePrefixed(d.Trace.Expr, d.Trace.Why, 90)
				}
				fired.buf = append(fired.buf, why...)
			}
			fired.end()
			continue
		}
		if d.Reason == engine.ReasonPredicateFalse {
			quiet.add(d.Reason, d.ID, len(t.Decisions))
			continue
		}
		skipped.item()
		skipped.buf = append(append(append(skipped.buf, d.ID...), ": "...), d.Reason...)
		if d.Detail != "" {
			skipped.buf = append(append(append(skipped.buf, " ("...), oneLine(d.Detail, 90)...), ')')
		}
		skipped.end()
	}
	fired.write(w, "none")
	if skipped.n > 0 {
		skipped.write(w, "")
	}
	slices.SortFunc(quiet, func(a, b quietGroup) int { return strings.Compare(a.reason, b.reason) })
	var blocks []byte
	for _, g := range quiet {
		blocks = appendBlock(blocks, g.reason+":", strings.Join(g.ids, ", "), v.Width)
	}
	if len(blocks) > 0 {
		_, _ = w.Write(blocks)
	}
	if instr.n > 0 {
		instr.write(w, "")
	}
	for _, r := range t.Removed {
		fired := "held back"
		if r.Fired {
			fired = "fired"
		}
		changed.item()
		changed.buf = append(changed.buf, r.ID+": not in the file (was "+fired+": "+r.Reason+")"...)
		changed.end()
	}
	if changed.n > 0 {
		changed.write(w, "")
	}
	if v.ShowMessages {
		writeSent(w, t.Request, t.SystemPrompt, v.Width)
	}
}

// quietGroup is the ids of the decisions that did not fire for one reason, in the order
// of the list; quietGroups are those of a turn, a reason a group (a few at most, so a
// slice searched in order rather than a map).
type quietGroup struct {
	reason string
	ids    []string
}

type quietGroups []quietGroup

// add puts id in the group of reason; n bounds the ids of a group.
func (q *quietGroups) add(reason, id string, n int) {
	for i := range *q {
		if g := &(*q)[i]; g.reason == reason {
			g.ids = append(g.ids, id)
			return
		}
	}
	*q = append(*q, quietGroup{reason: reason, ids: append(make([]string, 0, n), id)})
}

// writeSent prints the end of a request as the model gets it: the system-placement
// message, if any, and the final user message with its reminders baked in, each part of
// a message with several on its own.
func writeSent(w io.Writer, req chat.Request, systemPrompt string, width int) {
	last := -1
	for i := req.Len() - 1; i >= 0; i-- {
		if req.At(i).Role == chat.RoleUser {
			last = i
			break
		}
	}
	if last < 0 {
		return
	}
	if i := last - 1; i >= 0 {
		if m := req.At(i); m.Role == chat.RoleSystem && (i > 0 || m.Content != systemPrompt) {
			writeBlock(w, "sent system:", m.Text(), width)
		}
	}
	m := req.At(last)
	if m.Parts == nil {
		writeBlock(w, "sent user:", m.Content, width)
		return
	}
	for n, p := range m.Parts {
		writeBlock(w, fmt.Sprintf("sent part %d:", n+1), p.Text, width)
	}
}

// writeTurnTail prints the rest of a turn's block: the reply (its text left out when
// streamed, since it was printed as it arrived), the finish reason, the tokens and the
// error.
func writeTurnTail(w io.Writer, t *engine.Trace, source string, v turnView, streamed bool) {
	w = humanOutput(w)
	if a := t.Assistant; a != nil {
		line := tidyText(a.Text)
		if streamed {
			line = ""
		}
		for _, tool := range a.Tools {
			switch tool.State {
			case chat.ToolOutputError:
				line += fmt.Sprintf(" [%s failed: %s]", tool.Name, oneLine(tool.Error, 40))
			case chat.ToolInputAvailable, chat.ToolInputStreaming: // never answered: the reply was cut short
				line += fmt.Sprintf(" [%s %s]", tool.Name, tool.State)
			default:
				line += fmt.Sprintf(" [%s ok]", tool.Name)
			}
		}
		if a.Interrupted {
			line += " [interrupted]"
		}
		if strings.TrimSpace(a.Text) == "" && len(a.Tools) == 0 && !a.Interrupted {
			line = "(empty reply)" // as the workbench says it
		}
		switch {
		case !streamed:
			if source != "" {
				line = "[" + source + "] " + line
			}
			writeBlock(w, "assistant:", line, v.Width)
		case line != "":
			writeBlock(w, "", strings.TrimSpace(line), v.Width)
		}
		if a.FinishReason != "" && a.FinishReason != "stop" {
			finish := a.FinishReason
			if note := engine.FinishNote(a.FinishReason, len(t.Responses)); note != "" {
				finish += " (" + note + ")" // as the workbench's transcript marks it
			}
			fmt.Fprintf(w, "  %-16s %s\n", "finish:", finish)
		}
	}
	if t.Assistant == nil && t.ChatID != "" { // a saved turn no reply answers (a preview has no chat)
		fmt.Fprintf(w, "  %-16s %s\n", "assistant:", "(no reply)")
	}
	if t.Assistant == nil { // a preview, or no reply
		fmt.Fprintf(w, "  %-16s prompt ~%d (estimated)\n", "tokens:", t.Usage.Estimated.PromptTokens)
	} else {
		fmt.Fprintf(w, "  %-16s %s\n", "tokens:", tokenLine(t.Usage))
	}
	if t.Error != "" {
		fmt.Fprintf(w, "  %-16s %s\n", "error:", t.Error)
	}
}

func tokenLine(u engine.UsageTrace) string {
	est := u.Estimated
	var line string
	if u.Reported == nil {
		line = fmt.Sprintf("prompt ~%d · completion ~%d (estimated; no usage reported)", est.PromptTokens, est.CompletionTokens)
	} else if r := u.Reported; u.Difference == nil { // re-evaluated: the report was for another request
		line = fmt.Sprintf("prompt %d reported as sent / ~%d estimated now · completion %d / ~%d",
			r.PromptTokens, est.PromptTokens, r.CompletionTokens, est.CompletionTokens)
	} else {
		line = fmt.Sprintf("prompt %d reported / ~%d estimated (%+d) · completion %d / ~%d",
			r.PromptTokens, est.PromptTokens, *u.Difference, r.CompletionTokens, est.CompletionTokens)
	}
	if u.CostUSD != nil {
		line += " · " + formatUSD(*u.CostUSD)
	}
	return line
}

// formatUSD prints a cost with enough digits to see small amounts.
func formatUSD(usd float64) string {
	if usd < 0.01 {
		return fmt.Sprintf("$%.6f", usd)
	}
	return fmt.Sprintf("$%.4f", usd)
}

// toSecond is an RFC 3339 time of a trace as the human output shows it: to the second,
// in UTC (as it is when it does not parse).
func toSecond(at string) string {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return at
	}
	return t.UTC().Format(time.RFC3339)
}

// tidyText is s made inert with its line breaks kept: blank lines at its ends dropped,
// and in each line the indentation kept, other runs of blanks made one space, trailing
// blanks dropped (so that what inert removed leaves no gap).
func tidyText(s string) string {
	s = inert.Visible(s)
	if tidy(s) { // most texts: one pass, no copy
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		body := strings.TrimLeft(l, " \t")
		indent := l[:len(l)-len(body)]
		lines[i] = indent + strings.Join(strings.Fields(body), " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// tidy reports whether tidyText leaves s, made inert, as it is: ASCII, no blank line at
// either end, and in each line after its indent no tab or other control character, no
// run of spaces and no space at the end.
func tidy(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == '\n' || s[len(s)-1] == '\n' {
		return false
	}
	indent := true // at the start of a line, in its indent
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			if !indent && s[i-1] == ' ' {
				return false
			}
			indent = true
		case indent && (c == ' ' || c == '\t'):
		case c == ' ':
			if s[i-1] == ' ' {
				return false
			}
		case c < ' ' || c >= 0x7f:
			return false
		default:
			indent = false
		}
	}
	return indent || s[len(s)-1] != ' '
}

// oneLine flattens s to one line of at most n characters, made inert first so that the
// characters counted are the ones shown.
func oneLine(s string, n int) string {
	// One pass over the sanitized text, collapsing white space as strings.Fields does and
	// stopping once the line is known to be longer than n: a long text (a reason naming
	// many matches) is neither split into words nor turned into runes whole.
	if plainLine(s) {
		if len(s) <= n {
			return s
		}
		return s[:n-1] + "…"
	}
	s = inert.Visible(s)
	var b strings.Builder
	count, cut, gap := 0, 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			gap = count > 0
			continue
		}
		if gap {
			if count == n-1 {
				cut = b.Len()
			}
			if count++; count > n {
				break
			}
			b.WriteByte(' ')
			gap = false
		}
		if count == n-1 {
			cut = b.Len()
		}
		if count++; count > n {
			break
		}
		b.WriteRune(r)
	}
	if count > n {
		return b.String()[:cut] + "…"
	}
	return b.String()
}

// oneLinePrefixed is oneLine(prefix+": "+s, n), without joining them when prefix alone
// fills the line with plain text (an expression can be kilobytes long: a contentMatches
// over 50 topics).
func oneLinePrefixed(prefix, s string, n int) string {
	if n >= 1 && len(prefix) >= n && plainLine(prefix[:n]) {
		// The first n characters are prefix's first n bytes, and the colon after them
		// makes the line longer than n.
		return prefix[:n-1] + "…"
	}
	return oneLine(prefix+": "+s, n)
}

// plainLine reports whether s is printable ASCII already on one line, with single blanks
// between its words and none at its ends: what oneLine returns for it, cut or not, is s
// itself, one character a byte.
func plainLine(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c >= 0x7f || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}
