// Package jsonpos finds places in a JSON text, so that a problem found in a decoded value
// can be reported at its line and column in the file it came from: the offset of the value
// at a path of object keys and array indexes (Find), the path of the value at an offset
// (At), the first value that decoding into a Go type rejects (FirstProblem), and the line
// and column of an offset (LineCol).
//
// It reads valid JSON (check it with encoding/json first); on anything else it stops
// where it cannot go on, without panicking.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Path locates a value in a JSON text: each element is an object key (a string) or an
// array index (an int), from the top-level value down. The empty path is the top-level
// value.
type Path []any

// String writes the path as in JavaScript: messages[2].parts[0].type; a key that is not
// an identifier is written ["like this"]. The empty path is "".
func (p Path) String() string {
	var b strings.Builder
	for _, e := range p {
		switch e := e.(type) {
		case int:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e))
			b.WriteByte(']')
		case string:
			if isIdent(e) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(e)
			} else {
				q, _ := json.Marshal(e)
				b.WriteByte('[')
				b.Write(q)
				b.WriteByte(']')
			}
		}
	}
	return b.String()
}

// Append returns a new path: p followed by elems.
func (p Path) Append(elems ...any) Path {
	out := make(Path, 0, len(p)+len(elems))
	return append(append(out, p...), elems...)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && r != '$' && !('a' <= r && r <= 'z') && !('A' <= r && r <= 'Z') && (i == 0 || !('0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}

// LineCol returns the 1-based line and column of byte offset off of b, the column counted
// in Unicode code points (an invalid byte counts as one), as ctxlab's other loaders count
// them. An offset out of range is taken as the nearest end of b.
func LineCol(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	start := bytes.LastIndexByte(before, '\n') + 1
	return bytes.Count(before, []byte{'\n'}) + 1, utf8.RuneCount(before[start:]) + 1
}

// Start returns the offset of the first byte of b that is not JSON white space (len(b)
// for none): where the top-level value starts.
func Start(b []byte) int64 {
	s := scanner{b: b}
	s.ws()
	return int64(s.i)
}

// Find returns the offset of the value at path in the JSON text b, and how many elements
// of path lead to it: len(path) when the value is there; fewer when the path stops early
// (a key or index that is not there), and off is then the offset of the last value found
// on the way, the nearest enclosing one. A key matches as encoding/json matches a struct
// field: the last key of the object equal to it, else the last equal under Unicode case
// folding (a later key overwrites an earlier one when decoding).
func Find(b []byte, path Path) (off int64, n int) {
	val, _, n := find(b, path)
	return int64(val), n
}

// FindKey is Find for a problem with a key rather than its value (an unknown field): when
// the whole path is found and ends with a key, it returns the offset of that key's opening
// quote.
func FindKey(b []byte, path Path) (off int64, n int) {
	val, key, n := find(b, path)
	if n == len(path) && n > 0 && key >= 0 {
		return int64(key), n
	}
	return int64(val), n
}

// find returns the offsets of the value at path and of its key (-1 for none), and how much
// of path was found.
func find(b []byte, path Path) (val, key, n int) {
	s := scanner{b: b}
	s.ws()
	val, key = s.i, -1
	for n = 0; n < len(path); n++ {
		if s.i >= len(b) {
			return val, key, n
		}
		switch e := path[n].(type) {
		case string:
			if b[s.i] != '{' {
				return val, key, n
			}
			exactVal, exactKey, foldVal, foldKey := -1, -1, -1, -1
			s.object(func(k string, keyOff int) bool {
				switch {
				case k == e:
					exactVal, exactKey = s.i, keyOff
				case strings.EqualFold(k, e):
					foldVal, foldKey = s.i, keyOff
				}
				return s.skipValue()
			})
			switch {
			case exactVal >= 0:
				s.i, key = exactVal, exactKey
			case foldVal >= 0:
				s.i, key = foldVal, foldKey
			default:
				return val, key, n
			}
		case int:
			if b[s.i] != '[' {
				return val, key, n
			}
			found := -1
			s.array(func(i int) bool {
				if i == e {
					found = s.i
					return false
				}
				return s.skipValue()
			})
			if found < 0 {
				return val, key, n
			}
			s.i, key = found, -1
		default:
			return val, key, n
		}
		val = s.i
	}
	return val, key, n
}

// At returns the path of the innermost value of b that holds offset off (a value holds
// its key too), and that value's offset. Offsets outside the top-level value give the
// empty path.
func At(b []byte, off int64) (Path, int64) {
	s := scanner{b: b}
	s.ws()
	var path Path
	val := s.i
	for s.i < len(b) {
		switch b[s.i] {
		case '{':
			next := -1
			s.object(func(k string, keyOff int) bool {
				start := s.i
				if !s.skipValue() {
					return false
				}
				if int64(keyOff) <= off && off < int64(s.i) {
					path, next = append(path, k), start
					return false
				}
				return true
			})
			if next < 0 || int64(next) > off {
				return path, int64(max(next, val))
			}
			s.i, val = next, next
		case '[':
			next := -1
			s.array(func(i int) bool {
				start := s.i
				if !s.skipValue() {
					return false
				}
				if int64(start) <= off && off < int64(s.i) {
					path, next = append(path, i), start
					return false
				}
				return true
			})
			if next < 0 {
				return path, int64(val)
			}
			s.i, val = next, next
		default:
			return path, int64(val)
		}
	}
	return path, int64(val)
}

// Value returns the raw text of the value at path, when it is there.
func Value(b []byte, path Path) ([]byte, bool) {
	off, _, n := find(b, path)
	if n < len(path) {
		return nil, false
	}
	s := scanner{b: b, i: off}
	if !s.skipValue() {
		return nil, false
	}
	return b[off:s.i], true
}

// scanner steps through a JSON text.
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

// skipString steps over the string at s.i.
func (s *scanner) skipString() bool {
	for j := s.i + 1; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			j++
		case '"':
			s.i = j + 1
			return true
		}
	}
	s.i = len(s.b)
	return false
}

// str reads the string at s.i and returns its value.
func (s *scanner) str() (string, bool) {
	start := s.i
	if !s.skipString() {
		return "", false
	}
	raw := s.b[start:s.i]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// skipValue steps over the value at s.i (after white space) and reports whether it was a
// complete one.
func (s *scanner) skipValue() bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		return s.skipString()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if !s.skipString() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	case ',', ':', '}', ']':
		return false
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r', ',', ':', '}', ']', '{', '[', '"':
			return true
		}
		s.i++
	}
	return true
}

// object steps through the object at s.i, calling fn for each member with s.i at the
// start of its value; fn must leave s.i after the value and return true to go on. object
// reports whether it got to the end of the object.
func (s *scanner) object(fn func(key string, keyOff int) bool) bool {
	s.i++ // '{'
	for {
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case '}':
			s.i++
			return true
		case ',':
			s.i++
			continue
		case '"':
		default:
			return false
		}
		keyOff := s.i
		k, ok := s.str()
		if !ok {
			return false
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if !fn(k, keyOff) {
			return false
		}
	}
}

// array steps through the array at s.i, calling fn for each element with s.i at its
// start; fn must leave s.i after the element and return true to go on.
func (s *scanner) array(fn func(i int) bool) bool {
	s.i++ // '['
	for n := 0; ; {
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ']':
			s.i++
			return true
		case ',':
			s.i++
			continue
		}
		if !fn(n) {
			return false
		}
		n++
	}
}

// Kind names the type of a JSON value by its first byte, with an article ("an object",
// "a string", …; "nothing" for no value), for messages about a value of the wrong type.
func Kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
