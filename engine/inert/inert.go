// Package inert turns untrusted text (model output, tool data, imported messages, server
// errors, context-file text, file names) into text that cannot drive a terminal and shows
// what it holds. Text removes escape sequences (CSI, OSC, DCS, APC, PM, SOS), C0 control
// characters but newline and tab, DEL and C1 controls, and makes the text valid UTF-8;
// Visible then writes the characters a terminal draws as nothing or that reorder the
// text (bidi controls, zero-width characters) as marks such as ⟨U+202E⟩, where they could
// mislead; Display, for the workbench, also rewrites what terminals draw at different
// widths; JSON escapes the same characters in a JSON text.
//
// It is the one sanitizer of ctxlab: the workbench, what it copies, and every
// human-readable output of the headless commands pass untrusted text through Visible (or
// Display, or JSON). Text alone is for text that stays content (a draft being typed).
// JSON output of the commands does not pass through it: it is lossless, and its encoder
// escapes control characters itself.
package inert

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text returns s with every escape sequence removed and every other control character
// dropped, except newline and tab; invalid UTF-8 becomes U+FFFD. Text that holds none of
// these is returned as it is, without copying.
func Text(s string) string {
	if clean(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.Contains(s, "\x1b") {
		s = ansi.Strip(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if !control(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line is Text on one line: newlines and tabs become spaces (for titles, names, ids and
// error messages shown on a single line).
func Line(s string) string {
	s = Text(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// ExpandTabs replaces each tab with spaces up to the next multiple of width columns,
// counting columns from the start of each line by runes. Layout code measures widths after
// this, so a tab never makes two measures disagree.
func ExpandTabs(s string, width int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	if width <= 0 {
		width = 4
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := width - col%width
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// control reports whether r may not reach a terminal: C0 but newline and tab, DEL, C1.
func control(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	}
	return false
}

// Clean reports whether b is valid UTF-8 without any character Text removes or Visible
// may mark, which Visible returns unchanged. A writer of bytes checks them so, without
// making a string of them.
func Clean(b []byte) bool { return plain(b, true) }

// clean reports whether s is valid UTF-8 without any character Text removes.
func clean[T string | []byte](s T) bool { return plain(s, false) }

// plain reports whether s is valid UTF-8 without any character Text removes and, with
// marks, without any character Visible may mark. ASCII costs a comparison a byte.
func plain[T string | []byte](s T, marks bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ' ' <= c && c < 0x7f { // most bytes: one test, and on
			continue
		}
		switch {
		case c < 0x20:
			if c != '\n' && c != '\t' {
				return false
			}
		case c == 0x7f:
			return false
		default:
			var rb [utf8.UTFMax]byte
			r, size := utf8.DecodeRune(rb[:copy(rb[:], s[i:])])
			if r == utf8.RuneError && size <= 1 || control(r) || marks && hiddenLead[c] && hidden(r) {
				return false
			}
			i += size - 1
		}
	}
	return true
}
