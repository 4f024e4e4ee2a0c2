package fragment

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tomlRenderer renders fragments as a valid TOML document. TOML needs every plain key of a
// table before its sub-tables, so at each level scalars and inline arrays come first (in
// order), then `[tables]` and `[[arrays of tables]]` (in order). Same-named fragments share a
// key (see tree.go). Multi-line texts are `"""` strings; keys are quoted when needed.
type tomlRenderer struct{ opt Options }

// Render implements Renderer.
func (r tomlRenderer) Render(frags []Fragment) string {
	w := tomlWriter{buf: make([]byte, 0, 4096)}
	w.body(nil, buildTree(frags, treeOptions{group: r.opt.GroupFragments}))
	return trimNewline(w.buf)
}

type tomlWriter struct {
	buf []byte
}

// tableLike reports whether a value is written as a table or an array of tables.
func tableLike(v any) bool {
	switch x := v.(type) {
	case *tobj:
		return true
	case tarr:
		for _, e := range x {
			if _, ok := e.(*tobj); !ok {
				return false
			}
		}
		return len(x) > 0
	}
	return false
}

// body writes the keys of o, then its tables. path is the dotted path of o (nil at the root,
// where every entry is set off by a blank line).
func (w *tomlWriter) body(path []string, o *tobj) {
	for i, k := range o.keys {
		v := o.vals[i]
		if tableLike(v) {
			continue
		}
		if path == nil && len(w.buf) > 0 {
			w.buf = append(w.buf, '\n')
		}
		w.buf = appendTOMLKey(w.buf, k)
		w.buf = append(w.buf, " = "...)
		w.buf = w.inline(w.buf, v, true)
		w.buf = append(w.buf, '\n')
	}
	for i, k := range o.keys {
		v := o.vals[i]
		if !tableLike(v) {
			continue
		}
		sub := append(path[:len(path):len(path)], k)
		switch x := v.(type) {
		case *tobj:
			w.header("[", sub, "]")
			w.body(sub, x)
		case tarr:
			for _, e := range x {
				w.header("[[", sub, "]]")
				w.body(sub, e.(*tobj))
			}
		}
	}
}

// header writes a table header after a blank line.
func (w *tomlWriter) header(open string, path []string, close string) {
	if len(w.buf) > 0 {
		w.buf = append(w.buf, '\n')
	}
	w.buf = append(w.buf, open...)
	for i, k := range path {
		if i > 0 {
			w.buf = append(w.buf, '.')
		}
		w.buf = appendTOMLKey(w.buf, k)
	}
	w.buf = append(w.buf, close...)
	w.buf = append(w.buf, '\n')
}

// inline appends a value written on the right of `key = `. top allows multi-line strings
// and arrays spread over several lines.
func (w *tomlWriter) inline(buf []byte, v any, top bool) []byte {
	switch x := v.(type) {
	case String:
		s := string(x)
		if top && strings.IndexByte(s, '\n') >= 0 {
			buf = append(buf, `"""`+"\n"...)
			buf = appendTOMLString(buf, s, true)
			return append(buf, `"""`...)
		}
		buf = append(buf, '"')
		buf = appendTOMLString(buf, s, false)
		return append(buf, '"')
	case Int:
		return strconv.AppendInt(buf, int64(x), 10)
	case Float:
		return appendTOMLFloat(buf, float64(x))
	case Bool:
		return strconv.AppendBool(buf, bool(x))
	case tarr:
		if top && spread(x) {
			buf = append(buf, "[\n"...)
			for _, e := range x {
				buf = append(buf, "  "...)
				_, str := e.(String)
				buf = w.inline(buf, e, str)
				buf = append(buf, ",\n"...)
			}
			return append(buf, ']')
		}
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = w.inline(buf, e, false)
		}
		return append(buf, ']')
	case *tobj:
		buf = append(buf, "{ "...)
		for i, k := range x.keys {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendTOMLKey(buf, k)
			buf = append(buf, " = "...)
			buf = w.inline(buf, x.vals[i], false)
		}
		return append(buf, " }"...)
	}
	return append(buf, `""`...)
}

// spread reports whether an array reads better one element per line: several elements and
// a multi-line text, an inline table, or more than 100 bytes of text.
func spread(a tarr) bool {
	if len(a) < 2 {
		return false
	}
	n := 0
	for _, e := range a {
		switch x := e.(type) {
		case String:
			if strings.IndexByte(string(x), '\n') >= 0 {
				return true
			}
			n += len(x) + 4
		case *tobj:
			return true
		default:
			n += 8
		}
	}
	return n > 100
}

// appendTOMLKey appends a bare key when it is made of A-Za-z0-9_-, else a quoted key.
func appendTOMLKey(buf []byte, k string) []byte {
	bare := k != ""
	for i := 0; i < len(k) && bare; i++ {
		c := k[i]
		bare = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if bare {
		return append(buf, k...)
	}
	buf = append(buf, '"')
	buf = appendTOMLString(buf, k, false)
	return append(buf, '"')
}

// appendTOMLString appends the body of a basic string (multi keeps newlines, tabs and lone
// quotes as they are). Quotes and backslashes are escaped, other control characters as \uXXXX, invalid
// UTF-8 as U+FFFD.
func appendTOMLString(buf []byte, s string, multi bool) []byte {
	const hex = "0123456789ABCDEF"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		var rep string
		switch {
		case c == '"' && multi && i+1 < len(s) && s[i+1] != '"':
			// a lone quote inside """ needs no escape
		case c == '"':
			rep = `\"`
		case c == '\\':
			rep = `\\`
		case c == '\n' && !multi:
			rep = `\n`
		case c == '\n', c == '\t':
		case c == '\r':
			rep = `\r`
		case c < 0x20 || c == 0x7f:
			rep = `\u00` + string(hex[c>>4]) + string(hex[c&0xF])
		case c >= utf8.RuneSelf:
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				rep = "\uFFFD"
			}
		}
		if rep != "" {
			buf = append(buf, s[start:i]...)
			buf = append(buf, rep...)
			start = i + size
		}
		i += size
	}
	return append(buf, s[start:]...)
}

// appendTOMLFloat appends a TOML float: always with a '.' or an exponent; nan and inf.
func appendTOMLFloat(buf []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "nan"...)
	case math.IsInf(f, 1):
		return append(buf, "inf"...)
	case math.IsInf(f, -1):
		return append(buf, "-inf"...)
	}
	start := len(buf)
	buf = strconv.AppendFloat(buf, f, 'g', -1, 64)
	for _, c := range buf[start:] {
		if c == '.' || c == 'e' {
			return buf
		}
	}
	return append(buf, ".0"...)
}
