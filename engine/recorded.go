package engine

import (
	"encoding/json"
	"errors"
	"strings"
)

// errScan is a recorded decisions array the fast scan does not take: json.Unmarshal
// decodes it (and reports what is wrong with it).
var errScan = errors.New("scan")

// scanRemoved decodes a recorded decisions array into what a re-evaluation compares: the
// id, source, fired and reason of each. It reads only those four members of each object
// and skips the rest (predicate trees, details) without decoding them, which is most of
// the bytes; anything it does not expect (not an array of objects, a string it cannot
// read) is errScan, and json.Unmarshal decodes the array instead.
func scanRemoved(b []byte) ([]Removed, error) {
	s := &scanner{b: b}
	s.ws()
	if !s.eat('[') {
		return nil, errScan
	}
	out := []Removed{}
	s.ws()
	if s.eat(']') {
		return out, s.end()
	}
	for {
		var r Removed
		if err := s.object(&r); err != nil {
			return nil, err
		}
		out = append(out, r)
		s.ws()
		if s.eat(']') {
			return out, s.end()
		}
		if !s.eat(',') {
			return nil, errScan
		}
		s.ws()
	}
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end checks that nothing but white space follows.
func (s *scanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return errScan
	}
	return nil
}

// object reads one decision object into r.
func (s *scanner) object(r *Removed) error {
	if !s.eat('{') {
		return errScan
	}
	s.ws()
	if s.eat('}') {
		return nil
	}
	for {
		start := s.i
		if err := s.skipString(); err != nil {
			return err
		}
		key := s.b[start:s.i]
		if !plainKey(key) {
			return errScan // an escaped or differently cased name: json.Unmarshal matches it
		}
		s.ws()
		if !s.eat(':') {
			return errScan
		}
		s.ws()
		vstart := s.i
		if err := s.skipValue(0); err != nil {
			return err
		}
		val := s.b[vstart:s.i]
		var err error
		switch string(key) {
		case `"id"`:
			err = scanString(val, &r.ID)
		case `"source"`:
			err = scanString(val, &r.Source)
		case `"fired"`:
			switch string(val) {
			case "true":
				r.Fired = true
			case "false":
				r.Fired = false
			case "null":
			default:
				err = errScan
			}
		case `"reason"`:
			err = scanString(val, &r.Reason)
		}
		if err != nil {
			return errScan
		}
		s.ws()
		if s.eat('}') {
			return nil
		}
		if !s.eat(',') {
			return errScan
		}
		s.ws()
	}
}

// skipString moves past a string (at its opening quote).
func (s *scanner) skipString() error {
	if !s.eat('"') {
		return errScan
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return errScan
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return errScan
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return errScan
					}
				}
				s.i += 6
			default:
				return errScan
			}
		case c < 0x20:
			return errScan
		default:
			s.i++
		}
	}
	return errScan
}

// maxScanDepth bounds the nesting skipValue follows.
const maxScanDepth = 10000

// skipValue moves past one value: a string, a number, true, false, null, an object or
// an array.
func (s *scanner) skipValue(depth int) error {
	if s.i >= len(s.b) || depth > maxScanDepth {
		return errScan
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.skipString()
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		s.ws()
		if s.eat(closer) {
			return nil
		}
		for {
			if c == '{' {
				if err := s.skipString(); err != nil {
					return err
				}
				s.ws()
				if !s.eat(':') {
					return errScan
				}
				s.ws()
			}
			if err := s.skipValue(depth + 1); err != nil {
				return err
			}
			s.ws()
			if s.eat(closer) {
				return nil
			}
			if !s.eat(',') {
				return errScan
			}
			s.ws()
		}
	default: // a number, true, false or null: up to the next delimiter
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if !validLiteral(s.b[start:s.i]) {
					return errScan
				}
				return nil
			}
			s.i++
		}
		if !validLiteral(s.b[start:s.i]) {
			return errScan
		}
		return nil
	}
}

// plainKey reports whether a quoted member name is safe to compare byte for byte with the
// four names scanRemoved reads: no escape, and not one of them in another case (which
// json.Unmarshal would match).
func plainKey(q []byte) bool {
	k := q[1 : len(q)-1]
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	switch string(k) {
	case "id", "source", "fired", "reason":
		return true
	}
	if n := len(k); n != 2 && n != 5 && n != 6 {
		return true
	}
	switch k[0] | 0x20 { // the first letter, lower case, of a name in another case
	case 'i', 's', 'f', 'r':
		for _, name := range [...]string{"id", "source", "fired", "reason"} {
			if strings.EqualFold(string(k), name) {
				return false
			}
		}
	}
	return true
}

// validLiteral reports whether b is a JSON number, true, false or null.
func validLiteral(b []byte) bool {
	switch string(b) {
	case "true", "false", "null":
		return true
	}
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// scanString decodes a string value (already checked by skipString) into p: directly
// when it has no escape, else with json.Unmarshal. null leaves p as it is, as
// json.Unmarshal does; another kind of value is errScan.
func scanString(val []byte, p *string) error {
	switch {
	case string(val) == "null":
		return nil
	case len(val) < 2 || val[0] != '"':
		return errScan
	}
	inner := val[1 : len(val)-1]
	for _, c := range inner {
		if c == '\\' || c >= 0x80 {
			return json.Unmarshal(val, p) // escapes, and invalid UTF-8 made U+FFFD
		}
	}
	*p = string(inner)
	return nil
}
