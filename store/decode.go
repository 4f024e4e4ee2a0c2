package store

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
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

// decodeParts decodes a parts column. The form marshalJSON writes is read by hand:
// encoding/json is the cost of loading a long path.
func decodeParts(b []byte, parts *[]chat.Part) error {
	if out, ok := parseArray(b, parsePart); ok {
		*parts = out
		return nil
	}
	return json.Unmarshal(b, parts)
}

// parsePart parses one part as marshalJSON writes it: "type" first, then the fields that
// are set, in the order of chat.Part.
func parsePart(b []byte) (p chat.Part, rest []byte, ok bool) {
	if rest, text := eat(b, `{"type":"text"`); text { // the known types, without allocating
		p.Type, b = chat.PartText, rest
	} else if rest, tool := eat(b, `{"type":"tool"`); tool {
		p.Type, b = chat.PartTool, rest
	} else {
		var typ string
		if typ, b, ok = fieldQuoted(b, `{"type":`); !ok {
			return p, nil, false
		}
		p.Type = chat.PartType(typ)
	}
	var state string
	for _, f := range []struct {
		key string
		str *string
		raw *json.RawMessage
		num *int
	}{
		{key: `,"text":`, str: &p.Text},
		{key: `,"tool_call_id":`, str: &p.ToolCallID},
		{key: `,"tool_name":`, str: &p.ToolName},
		{key: `,"state":`, str: &state},
		{key: `,"input":`, raw: &p.Input},
		{key: `,"output":`, str: &p.Output},
		{key: `,"error_text":`, str: &p.ErrorText},
		{key: `,"round":`, num: &p.Round},
	} {
		if _, set := eat(b, f.key); !set {
			continue
		}
		switch {
		case f.str != nil:
			*f.str, b, ok = fieldQuoted(b, f.key)
		case f.raw != nil:
			*f.raw, b, ok = fieldRaw(b, f.key)
		default:
			*f.num, b, ok = fieldInt(b, f.key)
		}
		if !ok {
			return p, nil, false
		}
	}
	p.State = chat.ToolState(state)
	b, ok = eat(b, "}")
	return p, b, ok
}

// fieldRaw reads key, then a JSON object, array or string, kept as it is (as
// encoding/json fills a json.RawMessage).
func fieldRaw(b []byte, key string) (json.RawMessage, []byte, bool) {
	b, ok := eat(b, key)
	if !ok || len(b) == 0 {
		return nil, nil, false
	}
	depth, end := 0, -1
	for i := 0; i < len(b) && end < 0; i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				end = i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				end = i + 1
			}
		default:
			if depth == 0 {
				return nil, nil, false // a bare number or literal: left to encoding/json
			}
		}
	}
	if end < 0 || end > len(b) || !json.Valid(b[:end]) {
		return nil, nil, false
	}
	return json.RawMessage(bytes.Clone(b[:end])), b[end:], true
}

// fieldQuoted reads key, then a JSON string, decoded. It refuses (ok false) what it does
// not decode exactly as encoding/json would: an unescaped control byte, a bad escape,
// invalid UTF-8 and unpaired surrogates (which encoding/json replaces with U+FFFD).
func fieldQuoted(b []byte, key string) (text string, rest []byte, ok bool) {
	if b, ok = eat(b, key); ok {
		b, ok = eat(b, `"`)
	}
	if !ok {
		return "", nil, false
	}
	plain := func(i int) int { // the end of the run of plain bytes from i
		for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
			i++
		}
		return i
	}
	i := plain(0)
	if !utf8.Valid(b[:i]) {
		return "", nil, false
	}
	if i < len(b) && b[i] == '"' { // no escapes: the common case, one copy
		return string(b[:i]), b[i+1:], true
	}
	end := i // the closing quote, to size the text: at most the string's body
	for end < len(b) && b[end] != '"' {
		if b[end] == '\\' {
			end++
		}
		end++
	}
	var out strings.Builder
	out.Grow(end)
	out.Write(b[:i])
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return out.String(), b[i+1:], true
		case c < 0x20:
			return "", nil, false
		case c != '\\':
			j := plain(i)
			if !utf8.Valid(b[i:j]) {
				return "", nil, false
			}
			out.Write(b[i:j])
			i = j
			continue
		}
		if i+1 == len(b) {
			return "", nil, false
		}
		switch b[i+1] {
		case '"', '\\', '/':
			out.WriteByte(b[i+1])
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, ok := hex4(b[i+2:])
			if !ok {
				return "", nil, false
			}
			if utf16.IsSurrogate(r) {
				lo, ok := rune(0), i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u'
				if ok {
					lo, ok = hex4(b[i+8:])
				}
				if r = utf16.DecodeRune(r, lo); !ok || r == utf8.RuneError {
					return "", nil, false
				}
				i += 6
			}
			out.WriteRune(r)
			i += 4
		default:
			return "", nil, false
		}
		i += 2
	}
	return "", nil, false
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

// decodeReminders decodes a reminders column: the form marshalJSON writes, with simple
// strings, by hand (one on most user messages of a long path), anything else with
// encoding/json.
func decodeReminders(b []byte, spans *[]chat.ReminderSpan) error {
	if out, ok := parseReminders(b); ok {
		*spans = out
		return nil
	}
	return json.Unmarshal(b, spans)
}

// parseFired parses [{"id":"A","latches":["B","C"]},{"id":"D"}] with simple strings.
func parseFired(b []byte) ([]chat.Fired, bool) {
	return parseArray(b, func(b []byte) (f chat.Fired, rest []byte, ok bool) {
		if f.ID, b, ok = fieldStr(b, `{"id":`); !ok {
			return f, nil, false
		}
		if rest, isLatches := eat(b, `,"latches":[`); isLatches {
			b = rest
			for {
				var l string
				if l, b, ok = fieldStr(b, ""); !ok {
					return f, nil, false
				}
				f.Latches = append(f.Latches, l)
				if rest, more := eat(b, ","); more {
					b = rest
					continue
				}
				if b, ok = eat(b, "]"); !ok {
					return f, nil, false
				}
				break
			}
		}
		b, ok = eat(b, "}")
		return f, b, ok
	})
}

// parseReminders parses [{"id":"A","part_index":0,"start":6,"end":57,"mode":"inline"}, …]
// with simple strings and small non-negative integers.
func parseReminders(b []byte) ([]chat.ReminderSpan, bool) {
	return parseArray(b, func(b []byte) (s chat.ReminderSpan, rest []byte, ok bool) {
		if s.ID, b, ok = fieldStr(b, `{"id":`); !ok {
			return s, nil, false
		}
		for _, f := range []struct {
			key string
			n   *int
		}{{`,"part_index":`, &s.Part}, {`,"start":`, &s.Start}, {`,"end":`, &s.End}} {
			if *f.n, b, ok = fieldInt(b, f.key); !ok {
				return s, nil, false
			}
		}
		if s.Mode, b, ok = fieldStr(b, `,"mode":`); !ok {
			return s, nil, false
		}
		b, ok = eat(b, "}")
		return s, b, ok
	})
}

// parseArray parses a non-empty JSON array, without spaces, of the elements elem parses.
func parseArray[T any](b []byte, elem func(b []byte) (T, []byte, bool)) ([]T, bool) {
	var out []T
	var ok bool
	if b, ok = eat(b, "["); !ok {
		return nil, false
	}
	for {
		var v T
		if v, b, ok = elem(b); !ok {
			return nil, false
		}
		out = append(out, v)
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

// eat returns b after the literal lit it starts with.
func eat(b []byte, lit string) ([]byte, bool) {
	if len(b) < len(lit) || string(b[:len(lit)]) != lit {
		return nil, false
	}
	return b[len(lit):], true
}

// fieldStr reads key, then a JSON string without escapes or control bytes, in valid UTF-8.
func fieldStr(b []byte, key string) (string, []byte, bool) {
	b, ok := eat(b, key+`"`)
	if !ok {
		return "", nil, false
	}
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

// fieldInt reads key, then a non-negative integer of at most nine digits, without a
// leading zero.
func fieldInt(b []byte, key string) (int, []byte, bool) {
	b, ok := eat(b, key)
	if !ok {
		return 0, nil, false
	}
	n, i := 0, 0
	for i < len(b) && i < 10 && '0' <= b[i] && b[i] <= '9' {
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == 0 || i > 9 || (i > 1 && b[0] == '0') {
		return 0, nil, false
	}
	return n, b[i:], true
}

// decodeResponses decodes a responses column: the form chat.AppendResponsesJSON writes,
// with a simple finish reason, by hand (one on every turn of a long path), anything else
// with encoding/json.
func decodeResponses(b []byte, rs *[]chat.Response) error {
	if out, ok := parseResponses(b); ok {
		*rs = out
		return nil
	}
	return json.Unmarshal(b, rs)
}

// parseResponses parses [{"finish_reason":"stop","usage":{"prompt_tokens":9,
// "completion_tokens":2,"total_tokens":11},"estimated_prompt_tokens":8,"ttft":5,
// "latency":9}, …], usage null or with cached_tokens and reasoning_tokens when not 0, with
// a simple finish reason and non-negative integers.
func parseResponses(b []byte) ([]chat.Response, bool) {
	return parseArray(b, func(b []byte) (r chat.Response, rest []byte, ok bool) {
		var finish []byte
		if finish, b, ok = fieldBytes(b, `{"finish_reason":`); !ok {
			return r, nil, false
		}
		r.FinishReason = internFinish(finish)
		if rest, null := eat(b, `,"usage":null`); null {
			b = rest
		} else {
			var u chat.Usage
			if u, b, ok = parseUsage(b, `,"usage":`); !ok {
				return r, nil, false
			}
			r.Usage = &u
		}
		var est, ttft, lat int64
		for _, f := range []struct {
			key string
			n   *int64
		}{{`,"estimated_prompt_tokens":`, &est}, {`,"ttft":`, &ttft}, {`,"latency":`, &lat}} {
			if *f.n, b, ok = fieldLong(b, f.key); !ok {
				return r, nil, false
			}
		}
		r.EstimatedPrompt, r.TTFT, r.Latency = int(est), time.Duration(ttft), time.Duration(lat)
		b, ok = eat(b, "}")
		return r, b, ok
	})
}

// parseUsage reads key, then a usage object as chat.AppendResponsesJSON writes it.
func parseUsage(b []byte, key string) (u chat.Usage, rest []byte, ok bool) {
	if b, ok = eat(b, key+"{"); !ok {
		return u, nil, false
	}
	var n int64
	for i, f := range []struct {
		key string
		n   *int
	}{{`"prompt_tokens":`, &u.PromptTokens}, {`,"completion_tokens":`, &u.CompletionTokens}, {`,"total_tokens":`, &u.TotalTokens},
		{`,"cached_tokens":`, &u.CachedTokens}, {`,"reasoning_tokens":`, &u.ReasoningTokens}} {
		if _, set := eat(b, f.key); !set && i >= 3 { // cached and reasoning only when not 0
			continue
		}
		if n, b, ok = fieldLong(b, f.key); !ok {
			return u, nil, false
		}
		*f.n = int(n)
	}
	b, ok = eat(b, "}")
	return u, b, ok
}

// fieldBytes is fieldStr without the copy: the string's bytes in b.
func fieldBytes(b []byte, key string) ([]byte, []byte, bool) {
	b, ok := eat(b, key+`"`)
	if !ok {
		return nil, nil, false
	}
	for i, c := range b {
		if c == '"' {
			if !utf8.Valid(b[:i]) {
				return nil, nil, false
			}
			return b[:i], b[i+1:], true
		}
		if c == '\\' || c < 0x20 {
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// internFinish returns the finish reason b, without allocating for the usual ones.
func internFinish(b []byte) string {
	for _, r := range [...]string{"stop", "tool_calls", "length", "error", "content_filter", ""} {
		if string(b) == r {
			return r
		}
	}
	return string(b)
}

// fieldLong reads key, then a non-negative integer of at most 18 digits, without a
// leading zero.
func fieldLong(b []byte, key string) (int64, []byte, bool) {
	b, ok := eat(b, key)
	if !ok {
		return 0, nil, false
	}
	var n int64
	i := 0
	for i < len(b) && i < 19 && '0' <= b[i] && b[i] <= '9' {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 || i > 18 || (i > 1 && b[0] == '0') {
		return 0, nil, false
	}
	return n, b[i:], true
}
