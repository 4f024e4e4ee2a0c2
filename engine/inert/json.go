package inert

import (
	"unicode/utf16"
	"unicode/utf8"
)

// JSON returns the JSON text b with every character that could act on a terminal or
// mislead a reader written as a \u escape: control characters (C0 in strings, DEL, C1),
// and in each string what Visible would mark (bidi controls, invisible characters, a
// joiner or a selector out of place); invalid UTF-8 becomes \ufffd. Escapes are what JSON
// means by these characters, so the value is the same: this is the JSON to put on a
// clipboard. Emoji sequences and the joiners of scripts stay as they are; outside strings,
// a carriage return is dropped (it is white space there) and any other such character
// escaped. b itself is returned when nothing needs escaping.
func JSON(b []byte) []byte {
	if plain(b, true) {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	inString, escaped, hex := false, false, 0
	c := lookback{tags: -1}
	for i := 0; i < len(b); {
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		raw := b[i : i+size]
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			out = appendEscape(out, utf8.RuneError)
			c, escaped, hex = lookback{tags: -1}, false, 0
			continue
		case r == '\r' && !inString:
			continue
		case control(r) || hidden(r) && (!inString || escaped || hex > 0 || !c.keeps(r)):
			out = appendEscape(out, r)
			c, escaped, hex = lookback{tags: -1}, false, 0
			continue
		case escaped: // the character after a backslash; \u takes four hex digits
			escaped = false
			if r == 'u' {
				hex = 4
			}
			c = lookback{tags: -1}
		case hex > 0:
			hex--
		case r == '"':
			inString = !inString
			c = lookback{tags: -1}
		case r == '\\' && inString:
			escaped = true
			c = lookback{tags: -1}
		case inString:
			c.next(r)
		}
		out = append(out, raw...)
	}
	return out
}

// appendEscape appends r as JSON's \u escape (a surrogate pair beyond the BMP).
func appendEscape(dst []byte, r rune) []byte {
	if r > 0xFFFF {
		r1, r2 := utf16.EncodeRune(r)
		return appendEscape(appendEscape(dst, r1), r2)
	}
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
}
