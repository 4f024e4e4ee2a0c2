package chat

import (
	"fmt"
	"unicode/utf8"
)

// MaxNameLen is the longest id or name a store accepts, in bytes: chat, message and turn
// ids, branch and checkpoint names. Branch names grow by three bytes with each branch made
// from a branch (main-v2-v2-…), so this leaves room for about 340 levels.
const MaxNameLen = 1024

// CheckName reports an id or name that a store refuses: empty, longer than MaxNameLen,
// not valid UTF-8, or holding a control character (C0, DEL or C1: ids and names are printed
// as they are, and a C1 CSI could drive a terminal). kind names it in the message ("branch
// name"). The error wraps ErrInvalid.
func CheckName(kind, s string) error {
	switch {
	case s == "":
		return nameError("empty " + kind)
	case len(s) > MaxNameLen:
		return nameError(fmt.Sprintf("%s %.40q…: longer than %d bytes", kind, s, MaxNameLen))
	case !utf8.ValidString(s):
		return nameError(fmt.Sprintf("%s %q: not valid UTF-8", kind, s))
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return nameError(fmt.Sprintf("%s %q: control character", kind, s))
		}
	}
	return nil
}

// nameError is an error of CheckName: its message, and ErrInvalid for errors.Is.
type nameError string

func (e nameError) Error() string { return string(e) }
func (nameError) Unwrap() error   { return ErrInvalid }
