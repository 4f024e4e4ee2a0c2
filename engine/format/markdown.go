package format

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
)

// Input is the branch of a chat that Markdown shows.
type Input struct {
	Chat chat.Chat
	// Branch is the name of the branch shown; "" is Chat.ActiveBranch.
	Branch string
	// Messages is the branch's path, root first.
	Messages []*chat.Message
	// Turns are the turn records of the path, as the store returns them with the usage
	// stats (light records show the reminders that fired, and no tokens). A turn is shown
	// after its assistant message, or after its user message when it has no reply.
	Turns []chat.Turn
	// Branches and Checkpoints, when set, are listed in the header; checkpoints are also
	// marked after the message they name.
	Branches    []chat.BranchInfo
	Checkpoints []chat.Checkpoint
	// Usage, when not zero, is the chat's usage on every branch, shown in the header.
	Usage chat.Usage
}

// WriteMarkdown writes a readable transcript of a branch: the chat's title, id and branch, then
// turn by turn the user message, each reminder baked into it set apart as a quote
// ("> ⟨reminder concise⟩ Stay concise.") after the user's own text, the assistant reply
// with its tool calls and their outputs or errors, and a line with the reminders that
// fired and the tokens of the turn. A reminder that fired but is not in the message (a
// system or run-start placement) is listed as "(ephemeral)".
func WriteMarkdown(w io.Writer, in Input) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	m := &mdWriter{w: bw}
	m.write(&in)
	return bw.Flush()
}

type mdWriter struct {
	w *bufio.Writer
}

// printf and str are the writer's only ways out: every piece passes through inert, so a
// message, a tool's data or a title can never drive the terminal the transcript is read in,
// nor hide a bidi control or an invisible character there (inert.Visible).
func (m *mdWriter) printf(format string, args ...any) { m.str(fmt.Sprintf(format, args...)) }
func (m *mdWriter) str(s string)                      { m.w.WriteString(inert.Visible(s)) }

func (m *mdWriter) write(in *Input) {
	branch := in.Branch
	if branch == "" {
		branch = in.Chat.ActiveBranch
	}
	byAssistant := make(map[string]*chat.Turn, len(in.Turns))
	byUser := make(map[string]*chat.Turn)
	for i := range in.Turns {
		t := &in.Turns[i]
		switch {
		case t.AssistantMessageID != "":
			byAssistant[t.AssistantMessageID] = t
		case t.UserMessageID != "":
			byUser[t.UserMessageID] = t
		}
	}
	users := make(map[string]*chat.Message)
	turns := 0
	for _, msg := range in.Messages {
		if msg != nil && msg.Role == chat.RoleUser {
			users[msg.ID] = msg
			turns++
		}
	}
	checkpoints := make(map[string][]string)
	for _, c := range in.Checkpoints {
		checkpoints[c.MessageID] = append(checkpoints[c.MessageID], c.Name)
	}

	title := oneLine(in.Chat.Title)
	if title == "" {
		title = "Untitled chat"
	}
	m.printf("# %s\n\n", title)
	m.printf("- chat: %s\n", code(in.Chat.ID))
	m.printf("- branch: %s · %s · %s\n", code(branch), plural(turns, "turn"), plural(len(in.Messages), "message"))
	var others []string
	for _, b := range in.Branches {
		if b.Name != branch {
			others = append(others, fmt.Sprintf("%s (%s)", code(b.Name), plural(b.Turns, "turn")))
		}
	}
	if len(others) > 0 {
		m.printf("- other branches: %s\n", strings.Join(others, ", "))
	}
	if len(in.Checkpoints) > 0 {
		names := make([]string, len(in.Checkpoints))
		for i, c := range in.Checkpoints {
			names[i] = code(c.Name)
		}
		m.printf("- checkpoints: %s\n", strings.Join(names, ", "))
	}
	system, hasSystem := in.Chat.Metadata[MetaSystemPrompt].(string)
	if meta := metadataLine(in.Chat.Metadata, hasSystem); meta != "" {
		m.printf("- metadata: %s\n", code(meta))
	}
	if in.Usage != (chat.Usage{}) {
		m.printf("- tokens: %d for the whole chat (%d prompt + %d completion)\n", in.Usage.Total(),
			in.Usage.PromptTokens, in.Usage.CompletionTokens)
	}
	if hasSystem {
		m.str("\n## System prompt\n\n")
		m.block(system)
	}

	n := 0
	for _, msg := range in.Messages {
		if msg == nil {
			continue
		}
		switch msg.Role {
		case chat.RoleUser:
			n++
			m.printf("\n## Turn %d", n)
			if !msg.CreatedAt.IsZero() {
				m.printf(" · %s", msg.CreatedAt.UTC().Format(time.DateTime)+" UTC")
			}
			m.str("\n\n**User**")
			if l := msg.Locale; l != nil {
				for _, s := range []string{l.Language, l.TimeZone} {
					if s != "" {
						m.printf(" · %s", oneLine(s))
					}
				}
			}
			m.str("\n")
			m.user(msg)
			if t := byUser[msg.ID]; t != nil {
				m.turnLine(t, msg, nil)
			}
		case chat.RoleAssistant:
			m.str("\n**Assistant**")
			if msg.Interrupted {
				m.str(" · interrupted")
			}
			m.str("\n")
			m.assistant(msg)
			if t := byAssistant[msg.ID]; t != nil {
				m.turnLine(t, users[t.UserMessageID], msg)
			}
		default:
			m.printf("\n**%s**\n\n", roleName(msg.Role))
			m.block(msg.PlainText())
		}
		for _, name := range checkpoints[msg.ID] {
			m.printf("\n*checkpoint* %s\n", code(name))
		}
	}
}

// metadataLine is the chat's metadata as compact JSON, without the system prompt (shown
// as a section of its own).
func metadataLine(meta map[string]any, hasSystem bool) string {
	if len(meta) == 0 {
		return ""
	}
	if hasSystem {
		rest := make(map[string]any, len(meta))
		for k, v := range meta {
			if k != MetaSystemPrompt {
				rest[k] = v
			}
		}
		if len(rest) == 0 {
			return ""
		}
		meta = rest
	}
	b, err := chat.Marshal(meta)
	if err != nil {
		return ""
	}
	return string(b)
}

// user writes the user's own text, then each baked reminder as a quote.
func (m *mdWriter) user(msg *chat.Message) {
	texts, spans := splitReminders(msg)
	wrote := false
	for _, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		m.str("\n")
		m.block(t)
		wrote = true
	}
	if !wrote {
		m.str("\n*(no text)*\n")
	}
	for _, s := range spans {
		label := "⟨reminder"
		if s.id != "" {
			label += " " + s.id
		}
		if s.mode == chat.SpanPart {
			label += " · part"
		}
		label += "⟩"
		body, ok := strings.CutPrefix(s.text, "<system-reminder>")
		if ok {
			body, ok = strings.CutSuffix(body, "</system-reminder>")
		}
		if !ok {
			body = s.text // not one tagged block: show it as it was sent
		}
		m.str("\n")
		lines := strings.Split(demoteHeadings(strings.TrimRight(body, "\n")), "\n")
		for i, l := range lines {
			switch {
			case i == 0 && l == "":
				m.printf("> %s\n", label)
			case i == 0:
				m.printf("> %s %s\n", label, l)
			case l == "":
				m.str(">\n")
			default:
				m.printf("> %s\n", l)
			}
		}
	}
}

// UserText returns the text of a user message as the user wrote it: its text parts with
// the baked reminders cut out, joined with a blank line, parts left empty dropped.
func UserText(m *chat.Message) string {
	texts, _ := splitReminders(m)
	kept := texts[:0]
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

// span is a reminder cut out of a user message.
type span struct {
	id, mode, text string
	part, start    int
}

// splitReminders returns the text parts of a user message with the reminder spans cut out,
// and the spans in message order. Spans out of range are left in the text.
func splitReminders(msg *chat.Message) ([]string, []span) {
	var spans []span
	for _, r := range msg.Reminders {
		if r.Part < 0 || r.Part >= len(msg.Parts) || msg.Parts[r.Part].Type != chat.PartText {
			continue
		}
		text := msg.Parts[r.Part].Text
		if r.Start < 0 || r.Start > r.End || r.End > len(text) {
			continue
		}
		spans = append(spans, span{id: r.ID, mode: r.Mode, text: text[r.Start:r.End], part: r.Part, start: r.Start})
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].part != spans[j].part {
			return spans[i].part < spans[j].part
		}
		return spans[i].start < spans[j].start
	})
	var texts []string
	k := 0
	for i, p := range msg.Parts {
		if p.Type != chat.PartText {
			continue
		}
		if k == len(spans) || spans[k].part != i { // no reminder in it: the text as it is
			texts = append(texts, p.Text)
			continue
		}
		var b strings.Builder
		at := 0
		for ; k < len(spans) && spans[k].part == i; k++ {
			s := spans[k]
			if s.start > at {
				b.WriteString(p.Text[at:s.start])
			}
			at = max(at, s.start+len(s.text))
		}
		b.WriteString(p.Text[min(at, len(p.Text)):])
		texts = append(texts, b.String())
	}
	return texts, spans
}

// assistant writes the parts of a reply in order: texts as paragraphs, tool calls as a
// list with their outcome.
func (m *mdWriter) assistant(msg *chat.Message) {
	inList := false
	wrote := false
	for _, p := range msg.Parts {
		switch p.Type {
		case chat.PartText:
			if strings.TrimSpace(p.Text) == "" {
				continue
			}
			m.str("\n")
			m.block(p.Text)
			inList = false
		case chat.PartTool:
			if !inList {
				m.str("\n")
				inList = true
			}
			m.tool(&p)
		default:
			continue
		}
		wrote = true
	}
	if !wrote {
		m.str("\n*(no text)*\n")
	}
}

func (m *mdWriter) tool(p *chat.Part) {
	input := string(p.Input)
	if input == "" {
		input = "{}"
	}
	m.printf("- tool %s %s", code(p.ToolName), code(input))
	var label, text string
	switch p.State {
	case chat.ToolOutputAvailable:
		label, text = "output", p.Output
	case chat.ToolOutputError:
		label, text = "error", p.ErrorText
	case chat.ToolInputStreaming:
		m.str(" → no result (cut short)\n")
		return
	default:
		m.str(" → no result\n")
		return
	}
	switch {
	case text == "":
		m.printf(" → %s: (empty)\n", label)
	case !strings.Contains(text, "\n") && label == "error":
		m.printf(" → **error**: %s\n", text)
	case !strings.Contains(text, "\n"):
		m.printf(" → %s: %s\n", label, code(text))
	default:
		if label == "error" {
			label = "**error**"
		}
		m.printf(" → %s:\n\n", label)
		f := fence(text)
		m.printf("  %s\n", f)
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			if l == "" {
				m.str("\n")
				continue
			}
			m.printf("  %s\n", l)
		}
		m.printf("  %s\n", f)
	}
}

// turnLine writes the reminders that fired during a turn and its tokens, and how it
// ended when that was not with the reply finished: its finish reason, cancelled (the
// reply, reply nil for none, kept as far as it had come) or its error.
func (m *mdWriter) turnLine(t *chat.Turn, user, reply *chat.Message) {
	baked := map[string]bool{}
	if user != nil {
		for _, r := range user.Reminders {
			baked[r.ID] = true
		}
	}
	fired := make([]string, 0, len(t.Fired))
	for _, f := range t.Fired {
		s := code(f.ID)
		if !baked[f.ID] {
			s += " (ephemeral)"
		}
		fired = append(fired, s)
	}
	line := "none"
	if len(fired) > 0 {
		line = strings.Join(fired, ", ")
	}
	m.printf("\n*fired:* %s", line)
	switch {
	case t.Reported != nil:
		r := t.Reported
		m.printf(" · *tokens:* %d reported (%d prompt + %d completion)", r.Total(), r.PromptTokens, r.CompletionTokens)
	case t.Estimated != (chat.Usage{}):
		e := t.Estimated
		m.printf(" · *tokens:* ~%d estimated (%d prompt + %d completion)", e.Total(), e.PromptTokens, e.CompletionTokens)
	}
	if t.FinishReason != "" && t.FinishReason != "stop" {
		m.printf(" · *finish:* %s", oneLine(t.FinishReason))
	}
	switch {
	case t.Error == context.Canceled.Error(): // the user cancelled (esc, ctrl+c, a signal)
		if hasContent(reply) {
			m.str(" · *interrupted:* cancelled; the reply above is what had arrived")
		} else {
			m.str(" · *interrupted:* cancelled before any reply arrived")
		}
	case t.Error != "":
		m.printf(" · *error:* %s", oneLine(t.Error))
	}
	m.str("\n")
}

// hasContent reports whether a reply holds text or a tool call.
func hasContent(msg *chat.Message) bool {
	if msg == nil {
		return false
	}
	for _, p := range msg.Parts {
		if p.Type == chat.PartTool || p.Type == chat.PartText && strings.TrimSpace(p.Text) != "" {
			return true
		}
	}
	return false
}

// block writes a message's text as a paragraph ending with a newline, its headings
// demoted below the transcript's own (demoteHeadings).
func (m *mdWriter) block(s string) {
	m.str(demoteHeadings(strings.TrimRight(s, "\n")))
	m.str("\n")
}

// code returns s as inline code, with a fence longer than any run of backticks in it.
func code(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	f := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return f + " " + s + " " + f
	}
	return f + s + f
}

// fence returns a code fence longer than any run of backticks in s.
func fence(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func roleName(r chat.Role) string {
	switch r {
	case chat.RoleSystem:
		return "System"
	case chat.RoleTool:
		return "Tool"
	}
	return oneLine(string(r))
}
