package chat

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSONString appends s as a JSON string, escaping what JSON requires (quotes,
// backslashes, control characters, invalid UTF-8, U+2028 and U+2029) but not <, > and &.
// Hand-written encoders of hot records (decisions, traces) use it to stay fast.
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look: most text is plain ASCII.
		for i+8 <= len(s) && !special8(load8(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendJSONField appends `"key":` to dst, after a comma unless dst ends an opening brace.
func AppendJSONField(dst []byte, key string) []byte {
	if n := len(dst); n > 0 && dst[n-1] != '{' && dst[n-1] != '[' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// AppendJSONBool appends true or false.
func AppendJSONBool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

// Masks of SWAR tests over the eight bytes of a uint64.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load8 returns the eight bytes of s from i, little-endian (one load on most machines).
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// special8 reports whether any of the eight bytes of x is a control character (below
// 0x20), a quote, a backslash or 0x80 and above: the bytes AppendJSONString must look at
// one by one. Each test is exact for "any byte" (a borrow only reaches bytes above a match).
func special8(x uint64) bool {
	quote := x ^ ('"' * ones)
	slash := x ^ ('\\' * ones)
	m := (x - 0x20*ones) & ^x                          // a byte below 0x20 (exact for "any")
	m |= (quote-ones) & ^quote | (slash-ones) & ^slash // a zero byte: '"' or '\\'
	m |= x                                             // a byte of 0x80 or above
	return m&highs != 0
}
