package chat

import (
	"fmt"
	"strings"
	"unicode"
)

// MaxTitleLen is the longest chat title a store accepts, in bytes.
const MaxTitleLen = 4096

// TitleLen is the length, in characters, of a title made by TitleFrom.
const TitleLen = 60

// TitleFrom makes a chat title from a text (the first user message): its white space and
// control characters collapsed into single spaces, and at most TitleLen characters, the
// cut marked with "…".
func TitleFrom(text string) string {
	s := strings.Join(strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(s); len(r) > TitleLen {
		return strings.TrimSpace(string(r[:TitleLen])) + "…"
	}
	return s
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
