package tui

import (
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders replies with glamour: one renderer per width, in the style the theme
// names (never glamour's auto style, which asks the terminal). A renderer is not safe for
// two goroutines at once; the transcript uses it from Update and View only.
type markdown struct {
	style string
	width int
	r     *glamour.TermRenderer
}

func newMarkdown(style string) *markdown { return &markdown{style: style} }

// Render renders inert Markdown text at width columns and returns its lines, without the
// blank lines glamour puts around a document. On a renderer error the text is wrapped
// as it is.
func (m *markdown) Render(text string, width int) []string {
	width = max(width, 1)
	if m.r == nil || m.width != width {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(m.style), glamour.WithWordWrap(width),
			glamour.WithColorProfile(lipgloss.ColorProfile()))
		if err != nil {
			return wrapToWidth(text, width)
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(text)
	if err != nil {
		return wrapToWidth(text, width)
	}
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// splitStable splits a streaming Markdown text at its last paragraph break outside a
// code fence: the head will not change as more text arrives and can be rendered once.
func splitStable(s string) (stable, tail string) {
	cut := -1
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
			cut = i + 1
		}
		lineStart = i + 1
	}
	if cut <= 0 {
		return "", s
	}
	return s[:cut], s[cut:]
}
