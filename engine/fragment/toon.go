package fragment

import (
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// toonRenderer renders fragments as TOON (Token-Oriented Object Notation, spec v3/v4):
// `key: value` lines with two-space indentation, inline primitive arrays (`tags[3]: a,b,c`),
// tabular arrays of uniform objects (`rows[2]{id,name}:` then one row per line) and list
// items (`- …`) for everything else. Same-named fragments share a key (see tree.go).
type toonRenderer struct{ opt Options }

// Render implements Renderer.
func (r toonRenderer) Render(frags []Fragment) string {
	w := toonWriter{buf: make([]byte, 0, 4096)}
	w.fields(buildTree(frags, treeOptions{group: r.opt.GroupFragments, childList: true}), 0)
	return trimNewline(w.buf)
}

type toonWriter struct {
	buf []byte
}

func (w *toonWriter) fields(o *tobj, depth int) {
	for i, k := range o.keys {
		w.field(spaces(depth), k, o.vals[i], depth)
	}
}

// field writes `key: …` after prefix (the indentation, or the indentation and "- " of a list
// item); the fields of a nested object go at depth+1.
func (w *toonWriter) field(prefix, k string, v any, depth int) {
	switch x := v.(type) {
	case *tobj:
		w.buf = append(w.buf, prefix...)
		w.buf = appendTOONKey(w.buf, k)
		w.buf = append(w.buf, ":\n"...)
		w.fields(x, depth+1)
	case tarr:
		w.array(prefix, k, true, x, depth+1, false)
	case tkids:
		w.array(prefix, k, true, tarr(x), depth+1, true)
	default:
		w.buf = append(w.buf, prefix...)
		w.buf = appendTOONKey(w.buf, k)
		w.buf = append(w.buf, ": "...)
		w.buf = appendTOONValue(w.buf, x, ',')
		w.buf = append(w.buf, '\n')
	}
}

// array writes an array header after prefix (with the key when keyed) and its rows or items
// at depth; asList writes list items even when the values could be inline or tabular.
func (w *toonWriter) array(prefix, k string, keyed bool, a tarr, depth int, asList bool) {
	head := func(fields []string) {
		w.buf = append(w.buf, prefix...)
		if keyed {
			w.buf = appendTOONKey(w.buf, k)
		}
		w.buf = append(w.buf, '[')
		w.buf = strconv.AppendInt(w.buf, int64(len(a)), 10)
		w.buf = append(w.buf, ']')
		if fields != nil {
			w.buf = append(w.buf, '{')
			for i, f := range fields {
				if i > 0 {
					w.buf = append(w.buf, ',')
				}
				w.buf = appendTOONKey(w.buf, f)
			}
			w.buf = append(w.buf, '}')
		}
		w.buf = append(w.buf, ':')
	}
	if !asList && allScalars(a) {
		head(nil)
		for i, e := range a {
			if i == 0 {
				w.buf = append(w.buf, ' ')
			} else {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendTOONValue(w.buf, e, ',')
		}
		w.buf = append(w.buf, '\n')
		return
	}
	if fields := tabularFields(a); !asList && fields != nil {
		head(fields)
		w.buf = append(w.buf, '\n')
		for _, e := range a {
			o := e.(*tobj)
			w.buf = append(w.buf, spaces(depth)...)
			for i, f := range fields {
				if i > 0 {
					w.buf = append(w.buf, ',')
				}
				w.buf = appendTOONValue(w.buf, o.vals[o.index(f)], ',')
			}
			w.buf = append(w.buf, '\n')
		}
		return
	}
	head(nil)
	w.buf = append(w.buf, '\n')
	for _, e := range a {
		w.item(e, depth)
	}
}

// item writes one list item at depth.
func (w *toonWriter) item(v any, depth int) {
	prefix := spaces(depth) + "- "
	switch x := v.(type) {
	case *tobj:
		// the first field on the hyphen line, its content and the other fields below
		w.field(prefix, x.keys[0], x.vals[0], depth+1)
		for i := 1; i < len(x.keys); i++ {
			w.field(spaces(depth+1), x.keys[i], x.vals[i], depth+1)
		}
	case tarr:
		w.array(prefix, "", false, x, depth+1, false)
	case tkids:
		w.array(prefix, "", false, tarr(x), depth+1, true)
	default:
		w.buf = append(w.buf, prefix...)
		w.buf = appendTOONValue(w.buf, x, ',')
		w.buf = append(w.buf, '\n')
	}
}

func allScalars(a tarr) bool {
	for _, e := range a {
		if !isScalar(e) {
			return false
		}
	}
	return true
}

// tabularFields returns the fields of an array of objects that share one set of keys and
// hold only scalars (in the first object's order), or nil.
func tabularFields(a tarr) []string {
	first, ok := a[0].(*tobj)
	if !ok {
		return nil
	}
	for _, e := range a {
		o, ok := e.(*tobj)
		if !ok || len(o.keys) != len(first.keys) {
			return nil
		}
		for i, k := range o.keys {
			if !isScalar(o.vals[i]) || first.index(k) < 0 {
				return nil
			}
		}
	}
	return first.keys
}

// appendTOONKey appends a key, quoted unless it matches ^[A-Za-z_][A-Za-z0-9_.]*$.
func appendTOONKey(buf []byte, k string) []byte {
	bare := k != ""
	for i := 0; i < len(k) && bare; i++ {
		c := k[i]
		bare = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && (c >= '0' && c <= '9' || c == '.')
	}
	if bare {
		return append(buf, k...)
	}
	return appendTOONQuoted(buf, k)
}

// appendTOONValue appends a primitive; strings are quoted only when the spec requires it.
func appendTOONValue(buf []byte, v any, delim byte) []byte {
	switch x := v.(type) {
	case String:
		if toonNeedsQuotes(string(x), delim) {
			return appendTOONQuoted(buf, string(x))
		}
		return append(buf, x...)
	case Int:
		return strconv.AppendInt(buf, int64(x), 10)
	case Float:
		f := float64(x)
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			return append(buf, "null"...)
		case f == 0:
			return append(buf, '0')
		}
		return strconv.AppendFloat(buf, f, 'f', -1, 64)
	case Bool:
		return strconv.AppendBool(buf, bool(x))
	}
	return append(buf, "null"...)
}

// toonNeedsQuotes applies the quoting rules of TOON §7.2.
func toonNeedsQuotes(s string, delim byte) bool {
	if s == "" || s == "true" || s == "false" || s == "null" || s[0] == '-' || numericLike(s) {
		return true
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ':' || c == '"' || c == '\\' || c == '[' || c == ']' || c == '{' || c == '}' || c == delim:
			return true
		case c < 0x20 || c == 0x7f:
			return true
		}
	}
	return false
}

// numericLike reports whether s looks like a number: -?\d+(\.\d+)?(e[+-]?\d+)? or 0\d+.
func numericLike(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// appendTOONQuoted appends s in double quotes with the five TOON escapes (\\ \" \n \r \t);
// other control characters, which TOON cannot escape, become U+FFFD.
func appendTOONQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch c := s[i]; {
		case c == '\\':
			rep = `\\`
		case c == '"':
			rep = `\"`
		case c == '\n':
			rep = `\n`
		case c == '\r':
			rep = `\r`
		case c == '\t':
			rep = `\t`
		case c < 0x20 || c == 0x7f:
			rep = "\uFFFD"
		}
		if rep != "" {
			buf = append(buf, s[start:i]...)
			buf = append(buf, rep...)
			start = i + 1
		}
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
