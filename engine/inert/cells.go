package inert

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
)

// Display is Visible for a screen laid out in columns (the workbench): besides what
// Visible removes and marks, the grapheme clusters terminals draw at different widths are
// rewritten as Cells does, so that every width measure and every terminal agree on each
// line's width. It is for display only: what is copied keeps the original characters
// (Visible), and what is exported or sent, the original text.
func Display(s string) string { return Cells(Visible(s)) }

// DisplayLine is VisibleLine for a screen laid out in columns (see Display).
func DisplayLine(s string) string { return Cells(VisibleLine(s)) }

// Cells rewrites, for display only, the grapheme clusters whose width terminals and width
// libraries disagree on, so that each cluster of the result is as wide in every terminal
// as every measure (x/ansi and lipgloss by grapheme cluster, go-runewidth rune by rune)
// says. Terminals differ on emoji sequences: tmux 3.3 draws 👍🏽 (an emoji and its skin
// tone) as 4 cells, kitty, wezterm, ghostty and iTerm2 as 2; ❤️ (with U+FE0F) is 1 cell in
// tmux and 2 in kitty; 👨‍💻 (a ZWJ sequence) is 2 cells in tmux 3.3 and kitty, 4 in xterm
// and VTE; and the libraries measure each of them by one rule or the other. So Cells
//
//   - drops the emoji modifiers (skin tones, U+1F3FB to U+1F3FF),
//   - drops the variation selectors U+FE0E and U+FE0F (text and emoji presentation),
//   - drops the tag characters (U+E0000 to U+E007F, the subdivision flags' tags),
//   - drops a zero-width joiner inside an emoji sequence (a cluster that starts with a
//     symbol), which leaves its emoji side by side: 👨‍💻 becomes 👨💻,
//   - writes a regional indicator that is not half of a flag as its letter;
//
// and keeps everything else: flags (a pair of regional indicators, 2 cells everywhere),
// letters with combining marks (e with U+0301), and the joiners of scripts that need them.
// Text without any of these characters is returned as it is, without copying.
func Cells(s string) string {
	i := firstOdd(s)
	if i < 0 {
		return s
	}
	// The clusters before the one that holds the first odd character stay as they are:
	// start the rewrite at the line (a cluster never spans a newline) that holds it.
	start := strings.LastIndexByte(s[:i], '\n') + 1
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:start])
	it := graphemes.FromString(s[start:])
	for it.Next() {
		c := it.Value()
		if len(c) == 1 || firstOdd(c) < 0 {
			b.WriteString(c)
			continue
		}
		writeCluster(&b, c)
	}
	return b.String()
}

// writeCluster writes cluster c as Cells rewrites it.
func writeCluster(b *strings.Builder, c string) {
	first, _ := utf8.DecodeRuneInString(c)
	// An emoji sequence starts with a symbol, a script's cluster with a letter; two
	// regional indicators make a flag.
	emoji, flag := unicode.IsSymbol(first), 0
	for _, r := range c {
		if regional(r) {
			flag++
		}
	}
	for _, r := range c {
		switch {
		case modifier(r), r == 0xFE0E, r == 0xFE0F, tag(r):
		case r == 0x200D && emoji:
		case regional(r) && flag != 2: // not half of a flag: its letter
			b.WriteByte(byte('A' + r - 0x1F1E6))
		default:
			b.WriteRune(r)
		}
	}
}

// firstOdd returns the index of the first character of s that Cells may rewrite (a
// joiner, a variation selector, a regional indicator, an emoji modifier, a tag), or -1.
// It looks at bytes only: text without such characters costs one pass, with no decoding.
func firstOdd[T string | []byte](s T) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0xE2 { // ASCII, and the two-byte characters: none is odd
			continue
		}
		switch s[i] {
		case 0xE2: // U+200D ZERO WIDTH JOINER: E2 80 8D
			if i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x8D {
				return i
			}
		case 0xEF: // U+FE0E, U+FE0F: EF B8 8E, EF B8 8F
			if i+2 < len(s) && s[i+1] == 0xB8 && (s[i+2] == 0x8E || s[i+2] == 0x8F) {
				return i
			}
		case 0xF0: // regional indicators U+1F1E6..U+1F1FF: F0 9F 87 A6..BF;
			// emoji modifiers U+1F3FB..U+1F3FF: F0 9F 8F BB..BF
			if i+3 < len(s) && s[i+1] == 0x9F &&
				(s[i+2] == 0x87 && s[i+3] >= 0xA6 || s[i+2] == 0x8F && s[i+3] >= 0xBB) {
				return i
			}
		case 0xF3: // tags U+E0000..U+E007F: F3 A0 80 80..F3 A0 81 BF
			if i+2 < len(s) && s[i+1] == 0xA0 && (s[i+2] == 0x80 || s[i+2] == 0x81) {
				return i
			}
		}
	}
	return -1
}

// regional reports whether r is a regional indicator (half of a flag).
func regional(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// modifier reports whether r is an emoji modifier (a skin tone).
func modifier(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF }

// tag reports whether r is a tag character.
func tag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }
