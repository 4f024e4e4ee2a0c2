package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// truncate cuts s (which may hold styles) to at most w columns, marking a cut with "…".
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// fitLine makes s exactly w columns: cut with "…" or padded with spaces.
func fitLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = truncate(s, w)
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// fitBlock makes a block exactly w x h: each line fitted, cut or padded with blank lines.
func fitBlock(lines []string, w, h int) []string {
	out := make([]string, h)
	blank := strings.Repeat(" ", max(w, 0))
	for i := range out {
		if i < len(lines) {
			out[i] = fitLine(lines[i], w)
		} else {
			out[i] = blank
		}
	}
	return out
}
