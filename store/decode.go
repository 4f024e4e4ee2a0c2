package store

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Hand-written decoders for the forms of the JSON columns the store writes itself, which
// make most of the cost of loading a long path; every other form goes to encoding/json.
// FuzzDecodeFired and FuzzDecodeParts check that they agree with it.

// internRole returns the Role of b without allocating for the known roles.
func internRole(b []byte) chat.Role {
	for _, r := range [...]chat.Role{chat.RoleUser, chat.RoleAssistant, chat.RoleTool, chat.RoleSystem} {
		if string(b) == string(r) {
			return r
		}
	}
	return chat.Role(b)
}

// decodeParts decodes a parts column. The common single text part is decoded by hand:
// encoding/json is the cost of loading a long path.
func decodeParts(b []byte, parts *[]chat.Part) error {
	const pre, post = `[{"type":"text","text":"`, `"}]`
	if len(b) >= len(pre)+len(post) && string(b[:len(pre)]) == pre && string(b[len(b)-len(post):]) == post {
		if text, ok := unquote(b[len(pre) : len(b)-len(post)]); ok {
			*parts = []chat.Part{{Type: chat.PartText, Text: text}}
			return nil
		}
	}
	return json.Unmarshal(b, parts)
}

// unquote decodes the body of a JSON string (the text between its quotes). It refuses
// (ok false) what it does not decode exactly as encoding/json would: an unescaped quote or
// control byte, a bad escape, invalid UTF-8 and unpaired surrogates (which encoding/json
// replaces with U+FFFD).
func unquote(b []byte) (text string, ok bool) {
	i := 0
	for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
		i++
	}
	if i == len(b) { // no escapes: the common case, one copy
		return string(b), utf8.Valid(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x20 || c == '"':
			return "", false
		case c != '\\':
			j := i + 1
			for j < len(b) && b[j] >= 0x20 && b[j] != '"' && b[j] != '\\' {
				j++
			}
			if !utf8.Valid(b[i:j]) {
				return "", false
			}
			out = append(out, b[i:j]...)
			i = j
			continue
		}
		if i+1 == len(b) {
			return "", false
		}
		switch b[i+1] {
		case '"', '\\', '/':
			out = append(out, b[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b[i+2:])
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				lo, ok := rune(0), i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u'
				if ok {
					lo, ok = hex4(b[i+8:])
				}
				if r = utf16.DecodeRune(r, lo); !ok || r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
			i += 4
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}

// hex4 decodes the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// decodeFired decodes a fired column. The form marshalJSON writes for ids and latches
// without escapes is read by hand (it is most of the cost of loading light turns);
// anything else goes to encoding/json.
func decodeFired(b []byte, fired *[]chat.Fired) error {
	if out, ok := parseFired(b); ok {
		*fired = out
		return nil
	}
	return json.Unmarshal(b, fired)
}

// parseFired parses [{"id":"A","latches":["B","C"]},{"id":"D"}] with simple strings.
func parseFired(b []byte) ([]chat.Fired, bool) {
	str := func(b []byte) (string, []byte, bool) { // b after an opening quote
		for i, c := range b {
			if c == '"' {
				if !utf8.Valid(b[:i]) {
					return "", nil, false
				}
				return string(b[:i]), b[i+1:], true
			}
			if c == '\\' || c < 0x20 {
				return "", nil, false
			}
		}
		return "", nil, false
	}
	eat := func(b []byte, lit string) ([]byte, bool) {
		if len(b) < len(lit) || string(b[:len(lit)]) != lit {
			return nil, false
		}
		return b[len(lit):], true
	}
	var out []chat.Fired
	var ok bool
	if b, ok = eat(b, "["); !ok {
		return nil, false
	}
	for {
		var f chat.Fired
		if b, ok = eat(b, `{"id":"`); !ok {
			return nil, false
		}
		if f.ID, b, ok = str(b); !ok {
			return nil, false
		}
		if rest, isLatches := eat(b, `,"latches":[`); isLatches {
			b = rest
			for {
				if b, ok = eat(b, `"`); !ok {
					return nil, false
				}
				var l string
				if l, b, ok = str(b); !ok {
					return nil, false
				}
				f.Latches = append(f.Latches, l)
				if rest, more := eat(b, ","); more {
					b = rest
					continue
				}
				if b, ok = eat(b, "]"); !ok {
					return nil, false
				}
				break
			}
		}
		if b, ok = eat(b, "}"); !ok {
			return nil, false
		}
		out = append(out, f)
		if rest, more := eat(b, ","); more {
			b = rest
			continue
		}
		if b, ok = eat(b, "]"); !ok || len(b) != 0 {
			return nil, false
		}
		return out, true
	}
}
