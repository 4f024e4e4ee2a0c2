package chat

import (
	"encoding/binary"
	"math/bits"
)

// maxJSONDepth is the nesting encoding/json accepts (its scanner's maxNestingDepth).
const maxJSONDepth = 10000

// ScanJSON reports whether b is valid JSON, exactly as encoding/json.Valid does, and
// whether it is compact: no white space outside strings, so that json.Compact would
// return it unchanged. It makes one pass without allocating, several times faster than
// json.Valid, for the large JSON values (a turn's decisions) that are checked before
// every commit.
func ScanJSON(b []byte) (valid, compact bool) {
	return ScanJSONStrings(b, nil)
}

// ScanJSONStrings is ScanJSON that also calls str, when set, with the bounds of each
// string of b (keys and values, quotes included: b[start:end]) in order, as it scans them:
// what the store needs to cut a decision list into pieces in the same pass. The calls
// made before a scan that fails mean nothing.
func ScanJSONStrings(b []byte, str func(start, end int)) (valid, compact bool) {
	s := jsonScanner{b: b, compact: true, onStr: str}
	s.space()
	if !s.value(0) {
		return false, false
	}
	s.space()
	if s.i != len(b) {
		return false, false
	}
	return true, s.compact
}

// ScanJSONValue scans, as ScanJSONStrings does, the one JSON value that starts at
// b[start] (an element of an array, say: its depth counts as one), and returns where it
// ends. str gets bounds within b. A caller that walks the array around the value itself
// checks an element without scanning the others.
func ScanJSONValue(b []byte, start int, str func(start, end int)) (end int, valid, compact bool) {
	s := jsonScanner{b: b, i: start, compact: true, onStr: str}
	if !s.value(1) {
		return 0, false, false
	}
	return s.i, true, s.compact
}

type jsonScanner struct {
	b       []byte
	i       int
	compact bool
	onStr   func(start, end int)
}

// space skips white space, noting that the value is not compact.
func (s *jsonScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
			s.compact = false
		default:
			return
		}
	}
}

func (s *jsonScanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *jsonScanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

func (s *jsonScanner) object(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	s.i++ // {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
			return false
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *jsonScanner) array(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	s.i++ // [
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str scans a string from its opening quote. Bytes of 0x80 and above pass as they are
// (encoding/json does not check UTF-8 either).
func (s *jsonScanner) str() bool {
	b := s.b
	i := s.i + 1
	for i < len(b) {
		// Eight bytes at a time while none is a quote, a backslash or a control character,
		// then straight to the first that is.
		for i+8 <= len(b) {
			if m := stop8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			if s.onStr != nil {
				s.onStr(s.i, i+1)
			}
			s.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 {
					return false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return false
					}
				}
				i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			i++
		}
	}
	return false
}

// stop8 returns the high bits of the bytes of x (little-endian) that may be a quote, a
// backslash or a control character (below 0x20): the bytes str must look at one by one.
// It is 0 when there are none, and its lowest bit marks the first (a borrow only reaches
// bytes above a match, so only higher bits can be false).
func stop8(x uint64) uint64 {
	quote := x ^ ('"' * ones)
	slash := x ^ ('\\' * ones)
	m := (x - 0x20*ones) & ^x
	m |= (quote-ones) & ^quote | (slash-ones) & ^slash
	return m & highs
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *jsonScanner) number() bool {
	b, i := s.b, s.i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return true
}
