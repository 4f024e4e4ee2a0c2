package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/ctxlab/ctxlab/themes"
)

// helpRow is one line of the help overlay: keys and what they do.
type helpRow struct{ keys, desc string }

// helpRows lists the bindings of a group, enabled ones only. The five tab bindings
// (alt+1 … alt+5, 1 … 5) are each shown on one row.
func helpRows(bs []key.Binding) []helpRow {
	var rows []helpRow
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		h := b.Help()
		rows = append(rows, helpRow{h.Key, h.Desc})
	}
	return rows
}

// helpGroups is every binding in force, by area, from the keymap and the inspector.
func (m *Model) helpGroups() []helpGroup {
	k := m.keys
	groups := []helpGroup{{Title: "anywhere", Keys: k.anywhere()}}
	groups = append(groups, helpGroup{Title: "composer", Keys: k.composer()})
	if m.scripted {
		groups = append(groups, helpGroup{Title: "composer, scripted reply step", Keys: []key.Binding{k.SaveReply, k.Unanswered}})
	}
	groups = append(groups, helpGroup{Title: "transcript", Keys: k.transcript(), Extra: []helpRow{mouseRow}})
	if ks := m.insp.Keys(); len(ks) > 0 {
		groups = append(groups, helpGroup{Title: "inspector", Keys: ks})
	}
	groups = append(groups, helpGroup{Title: "inspector, after a reload", Keys: []key.Binding{k.WouldSend}})
	groups = append(groups, helpGroup{Title: "inspector, a turn of a tool loop", Keys: []key.Binding{k.NextRequest}})
	groups = append(groups, helpGroup{Title: "chats (" + k.Chats.Help().Key + "); type to filter", Keys: k.chats(), Extra: []helpRow{chatsMouseRow}})
	groups = append(groups, helpGroup{Title: "presentation (--present)", Keys: []key.Binding{k.PresentNext, k.PresentBack}})
	groups = append(groups, helpGroup{Title: "help", Keys: []key.Binding{k.CloseHelp}})
	return groups
}

// chatsMouseRow documents the mouse in the chats overlay.
var chatsMouseRow = helpRow{"click, wheel", "select a chat; click the selected one to open it"}

// mouseRow documents the mouse, which has no key binding.
var mouseRow = helpRow{"wheel, click", "scroll the pane under the pointer; select a turn"}

// helpLines renders the help overlay's lines for a width: a title per group and one
// row per binding, the five tab bindings of a kind folded into one row.
func (m *Model) helpLines(width int) []string {
	th := m.th
	var out []string
	groups := m.helpGroups()
	keyW := 0
	for _, g := range groups {
		for _, r := range append(foldTabs(helpRows(g.Keys)), g.Extra...) {
			keyW = max(keyW, len([]rune(r.keys))+2)
		}
	}
	for _, g := range groups {
		out = append(out, th.Render(themes.Focus, g.Title))
		for _, r := range append(foldTabs(helpRows(g.Keys)), g.Extra...) {
			// The description wraps under itself rather than being cut.
			for i, d := range wrapToWidth(r.desc, max(width-2-keyW-1, 8)) {
				k := ""
				if i == 0 {
					k = r.keys
				}
				out = append(out, truncate("  "+th.Render(themes.Key, padRight(k, keyW))+" "+d, width))
			}
		}

	}
	return out
}

// foldTabs folds the rows of alt+1 … alt+5 and 1 … 5 into one row each.
func foldTabs(rows []helpRow) []helpRow {
	var out []helpRow
	for i := 0; i < len(rows); i++ {
		r := rows[i]
		if i+4 < len(rows) && (r.keys == "alt+1" || r.keys == "1") && strings.HasSuffix(rows[i+4].keys, "5") {
			desc := "tab Why, Prompt, Request, Branches, Usage"
			if r.keys == "1" {
				desc = "the same, outside the composer"
			}
			out = append(out, helpRow{r.keys + "…" + rows[i+4].keys, desc})
			i += 4
			continue
		}
		out = append(out, r)
	}
	return out
}

func padRight(s string, w int) string {
	if n := len([]rune(s)); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// renderHelp draws the help overlay in width x height: the groups in as many columns
// as fit, scrolled by m.helpScroll.
func (m *Model) renderHelp(width, height int) []string {
	th := m.th
	closes := m.keys.CloseHelp.Help().Key
	if closes == "esc/f1/?" {
		closes = "esc, f1 or ?"
	}
	title := th.Render(themes.Focus, "help") + th.Render(themes.Muted, " · every binding in force · "+closes+" closes")
	colW := 48
	cols := max(1, min(2, (width-2)/colW))
	if cols == 1 {
		colW = width - 2
	} else {
		colW = (width - 2) / cols
	}
	lines := m.helpLines(colW - 1)
	rowsPer := (len(lines) + cols - 1) / cols
	// Break columns at a group title where possible.
	var columns [][]string
	start := 0
	for c := 0; c < cols && start < len(lines); c++ {
		end := min(start+rowsPer, len(lines))
		if c < cols-1 {
			for e := end; e > start+rowsPer/2; e-- {
				if e < len(lines) && !strings.HasPrefix(lines[e], "  ") {
					end = e
					break
				}
			}
		} else {
			end = len(lines)
		}
		columns = append(columns, lines[start:end])
		start = end
	}
	var body []string
	n := 0
	for _, c := range columns {
		n = max(n, len(c))
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		b.WriteString(" ")
		for _, c := range columns {
			l := ""
			if i < len(c) {
				l = c[i]
			}
			b.WriteString(fitLine(l, colW))
		}
		body = append(body, b.String())
	}
	m.helpScroll = max(0, min(m.helpScroll, len(body)-(height-2)))
	body = body[min(m.helpScroll, len(body)):]
	out := append([]string{" " + title, ""}, body...)
	if len(out) > height && height > 0 {
		out = out[:height]
		out[height-1] = fitLine(th.Render(themes.Muted, " … more below (down/j scrolls)"), width)
	}
	return fitBlock(out, width, height)
}
