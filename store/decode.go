package store

import (
	"encoding/json"
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
		body := b[len(pre) : len(b)-len(post)]
		if simpleString(body) {
			*parts = []chat.Part{{Type: chat.PartText, Text: string(body)}}
			return nil
		}
	}
	return json.Unmarshal(b, parts)
}

// simpleString reports whether b is the body of a JSON string without escapes and quotes,
// in valid UTF-8, so it is its own value.
func simpleString(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
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
