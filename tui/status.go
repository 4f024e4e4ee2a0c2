package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/bubbles/key"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// headerLine is the top line: title, branch and how many branches, the model (or
// SCRIPTED / DEMO), the context file.
func (m *Model) headerLine(w int) string {
	th := m.th
	title := inert.DisplayLine(m.title)
	if it := m.tr.Item(0); title == "" && it != nil && it.user != nil && it.live == nil && !it.pendingReply && it.err == "" {
		title = inert.DisplayLine(chat.TitleFrom(userText(it.user)))
	}
	if title == "" {
		title = "new chat"
	}
	branch := m.branch
	if branch == "" {
		branch = "main"
	}
	nb := len(m.branches)
	if nb == 0 {
		nb = 1
	}
	bs := fmt.Sprintf("branch %s (%d branch", inert.DisplayLine(branch), nb)
	if nb != 1 {
		bs += "es"
	}
	bs += ")"
	var badge string
	switch {
	case m.opt.Badge != "":
		badge = " " + m.opt.Badge + " "
	case m.scripted:
		badge = " SCRIPTED "
	}
	model := ""
	if badge == "" {
		model = inert.DisplayLine(m.model)
	}
	file := ""
	if m.opt.ContextName != "" {
		file = inert.DisplayLine(m.opt.ContextName) + m.fileMark()
	}
	room := w // the header's width but for the badge
	if badge != "" {
		room = max(w-ansi.StringWidth(badge)-1, 0)
	}
	brand := "ctxlab"
	join := func() []string {
		var parts []string
		for _, p := range []string{brand, title, bs, model, file} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		return parts
	}
	over := func() int { return ansi.StringWidth(" "+strings.Join(join(), " · ")+" ") - room }
	// When the line does not fit, these give way in turn, so that the branch and its
	// count, the model and the file stay in sight: the title (down to a few characters),
	// the word ctxlab, the model's host (its name stays).
	if o := over(); o > 0 {
		tw := ansi.StringWidth(title)
		title = truncate(title, max(tw-o, min(tw, 12)))
	}
	if over() > 0 {
		brand = ""
	}
	if name, _, ok := strings.Cut(model, " @ "); ok && over() > 0 {
		model = name
	}
	parts := join()
	line := " " + strings.Join(parts, " · ") + " "
	if badge != "" {
		return th.Render(themes.Header, fitLine(line, room)) + th.Render(themes.Accent, badge) + th.Render(themes.Header, " ")
	}
	return th.Render(themes.Header, fitLine(line, w))
}

// shortKeys renders bindings as "key desc" pairs for the status line.
func shortKeys(th *themes.Theme, bs []key.Binding) []string {
	var out []string
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		h := b.Help()
		out = append(out, th.Render(themes.Key, h.Key)+" "+h.Desc)
	}
	return out
}

// relabel is b described as doing what it does in an overlay.
func relabel(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// helpOnly is a line of the status line's keys that is no binding ("typing").
func helpOnly(what, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(what), key.WithHelp(what, desc))
}

// statusLines is the bottom: the focused area's keys, then the last error in full.
func (m *Model) statusLines(w int) []string {
	th := m.th
	k := m.keys
	var keys []key.Binding
	area := ""
	overlay := m.help || m.chats.open || m.rl.errs != nil
	switch {
	case m.help:
		area, keys = "help", []key.Binding{k.CloseHelp}
	case m.chats.open:
		area, keys = "chats", k.chats()
	case m.rl.errs != nil:
		area = "context file errors"
		keys = []key.Binding{relabel(k.Esc, "close"), relabel(k.Reload, "reload"), helpOnly("typing", "goes to the composer"), relabel(k.Quit, "quit")}
	case m.opt.Present:
		area, keys = "presentation", k.present()
	case m.focus == areaComposer && m.comp.mode == composeReply:
		area, keys = "scripted reply", k.scripted()
	case m.focus == areaComposer:
		area, keys = "composer", k.composer()
	case m.focus == areaTranscript:
		area, keys = "transcript", k.transcript()
	default:
		area, keys = "inspector", m.insp.Keys()
	}
	if !overlay && !m.opt.Present {
		keys = append(keys, k.NextFocus, k.Help)
		if m.width < 100 { // the inspector is hidden: say how to see it, first
			keys = append([]key.Binding{k.Inspector}, keys...)
		}
	}
	items := append([]string{th.Render(themes.Focus, area)}, shortKeys(th, keys)...)
	line := " " + strings.Join(items, th.Render(themes.Muted, " · "))
	if m.stream != nil {
		line = " " + th.Render(themes.Warning, "streaming: "+k.Esc.Help().Key+" or "+k.Quit.Help().Key+" cancels") + th.Render(themes.Muted, " · ") + line[1:]
	}
	out := []string{th.Render(themes.Status, fitLine(line, w))}
	out = append(out, m.extraStatus(w)...)
	notes := []string{m.notice}
	if f := m.rl.file; m.opt.Hint != "" && !m.opt.Present && m.tr.Len() == 0 && (f == nil || f.Path == "") {
		notes = append(notes, m.opt.Hint)
	}
	for _, n := range notes {
		if n == "" {
			continue
		}
		for _, l := range wrapToWidth(n, max(w-2, 1)) {
			out = append(out, fitLine(" "+th.Render(themes.Muted, l), w))
		}
	}
	if m.lastErr != "" {
		lines := wrapToWidth("error: "+m.lastErr, max(w-2, 1))
		if len(lines) > 4 {
			lines = append(lines[:3], "… (the error continues; resize to read it whole)")
		}
		for _, l := range lines {
			out = append(out, fitLine(" "+th.Render(themes.Error, l), w))
		}
	}
	return out
}

// userText is what the user typed in a message: its text without the injected
// reminder spans.
func userText(m *chat.Message) string {
	var b strings.Builder
	for pi, p := range m.Parts {
		if p.Type != chat.PartText {
			continue
		}
		text := p.Text
		for i := len(m.Reminders) - 1; i >= 0; i-- {
			r := m.Reminders[i]
			if r.Part == pi && r.Start >= 0 && r.End <= len(text) && r.Start <= r.End {
				text = text[:r.Start] + text[r.End:]
			}
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(text)
	}
	return b.String()
}
