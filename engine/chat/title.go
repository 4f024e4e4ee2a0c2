package chat

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTitleLen is the longest chat title a store accepts, in bytes.
const MaxTitleLen = 4096

// TitleLen is the length, in characters, of a title made by TitleFrom.
const TitleLen = 60

// TitleFrom makes a chat title from a text (the first user message): its white space and
// control characters collapsed into single spaces, and at most TitleLen characters, the
// cut marked with "…". It reads no more of the text than the title needs: a first
// message may be megabytes long.
func TitleFrom(text string) string {
	var b strings.Builder
	n, space := 0, false // characters written; white space is pending
	for i, r := range text {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = n > 0
			continue
		}
		if space && n < TitleLen {
			b.WriteByte(' ')
			n++
		}
		if n >= TitleLen { // the text goes on past the title: cut
			// As a string of runes: a byte that is not UTF-8 is written U+FFFD.
			return strings.TrimSpace(string([]rune(b.String()))) + "…"
		}
		space = false
		_, size := utf8.DecodeRuneInString(text[i:])
		b.WriteString(text[i : i+size])
		n++
	}
	return b.String()
}

// CheckTitle reports a title that a store refuses: longer than MaxTitleLen, or holding a
// control character other than a tab or a line break. The error wraps ErrInvalid.
func CheckTitle(s string) error {
	if len(s) > MaxTitleLen {
		return nameError(fmt.Sprintf("title longer than %d bytes", MaxTitleLen))
	}
	for _, r := range s {
		if (r < 0x20 || r == 0x7f) && r != '\t' && r != '\n' && r != '\r' {
			return nameError(fmt.Sprintf("title %.40q: control character", s))
		}
	}
	return nil
}
