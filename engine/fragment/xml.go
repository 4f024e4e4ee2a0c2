package fragment

import (
	"encoding/xml"
	"strings"
	"sync"
	"unicode/utf8"
)

// xmlRenderer renders fragments as XML elements, two spaces per level. Multi-line text goes
// on its own indented lines; array items take the singular of their key.
type xmlRenderer struct{ opt Options }

// Render implements Renderer.
func (r xmlRenderer) Render(frags []Fragment) string {
	w := xmlWriter{group: r.opt.GroupFragments, buf: make([]byte, 0, 4096)}
	w.fragments(frags, 0)
	return trimNewline(w.buf)
}

// xmlWriter appends elements, one line per tag or text line, each ended by a newline. An
// element left with no content is removed again.
type xmlWriter struct {
	buf   []byte
	group bool
}

func (w *xmlWriter) fragments(frags []Fragment, depth int) {
	if !w.group {
		w.plain(frags, depth)
		return
	}
	for _, g := range groupByName(frags) {
		w.grouped(g.name, g.frags, depth)
	}
}

// plain writes fragments one after the other, with no parent.
func (w *xmlWriter) plain(frags []Fragment, depth int) {
	for _, f := range frags {
		w.value(f.Name, f.Data, depth)
	}
}

// grouped writes fragments of one name under their plural parent, or side by side when the
// name has no other plural.
func (w *xmlWriter) grouped(name string, frags []Fragment, depth int) {
	parent := groupName(name)
	if parent == "" {
		w.plain(frags, depth)
		return
	}
	tag := xmlName(parent)
	mark := w.open(tag, depth)
	inner := len(w.buf)
	w.plain(frags, depth+1)
	w.close(tag, depth, mark, inner)
}

func (w *xmlWriter) open(tag string, depth int) int {
	mark := len(w.buf)
	w.buf = append(w.buf, spaces(depth)...)
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, tag...)
	w.buf = append(w.buf, ">\n"...)
	return mark
}

// close ends the element opened at mark, or removes it when nothing was written inside.
func (w *xmlWriter) close(tag string, depth, mark, inner int) {
	if len(w.buf) == inner {
		w.buf = w.buf[:mark]
		return
	}
	w.buf = append(w.buf, spaces(depth)...)
	w.buf = append(w.buf, "</"...)
	w.buf = append(w.buf, tag...)
	w.buf = append(w.buf, ">\n"...)
}

// value writes v as the element name.
func (w *xmlWriter) value(name string, v Value, depth int) {
	switch x := v.(type) {
	case nil:
	case Object:
		tag := xmlName(name)
		mark := w.open(tag, depth)
		inner := len(w.buf)
		for _, f := range x {
			w.value(f.Key, f.Value, depth+1)
		}
		w.close(tag, depth, mark, inner)
	case List:
		tag := xmlName(name)
		mark := w.open(tag, depth)
		inner := len(w.buf)
		w.items(name, x, depth+1)
		w.close(tag, depth, mark, inner)
	case Fragment:
		tag := xmlName(name)
		mark := w.open(tag, depth)
		inner := len(w.buf)
		w.fragments([]Fragment{x}, depth+1)
		w.close(tag, depth, mark, inner)
	default:
		text, _ := scalarText(v)
		w.leaf(name, text, depth)
	}
}

// items writes the items of the list under key: fragments as themselves (grouped when
// asked), other values as elements named with the singular of key.
func (w *xmlWriter) items(key string, l List, depth int) {
	var item string
	for i, v := range l {
		if f, ok := v.(Fragment); ok {
			switch {
			case !w.group:
				w.value(f.Name, f.Data, depth)
			case firstOfName(l, i, f.Name):
				w.grouped(f.Name, fragmentsNamed(l, f.Name), depth)
			}
			continue
		}
		if item == "" {
			item = singular(key)
		}
		w.value(item, v, depth)
	}
}

// leaf writes <name>text</name>, or nothing for an empty text.
func (w *xmlWriter) leaf(name, text string, depth int) {
	if text == "" {
		return
	}
	tag := xmlName(name)
	w.buf = append(w.buf, spaces(depth)...)
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, tag...)
	w.buf = append(w.buf, '>')
	if strings.IndexByte(text, '\n') >= 0 {
		w.buf = append(w.buf, '\n')
		w.buf = appendIndented(w.buf, spaces(depth+1), text, appendXMLText)
		w.buf = append(w.buf, spaces(depth)...)
	} else {
		w.buf = appendXMLText(w.buf, text)
	}
	w.buf = append(w.buf, "</"...)
	w.buf = append(w.buf, tag...)
	w.buf = append(w.buf, ">\n"...)
}

// appendXMLText appends s escaped for XML: & < > " ' as entities, CR as &#xD;, and characters
// XML cannot hold (other control characters, invalid UTF-8) as U+FFFD.
func appendXMLText(buf []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		var rep string
		size := 1
		if c < utf8.RuneSelf {
			switch c {
			case '&':
				rep = "&amp;"
			case '<':
				rep = "&lt;"
			case '>':
				rep = "&gt;"
			case '"':
				rep = "&quot;"
			case '\'':
				rep = "&apos;"
			case '\r':
				rep = "&#xD;"
			case '\t', '\n':
			default:
				if c < 0x20 {
					rep = "\uFFFD"
				}
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size == 1) || r == 0xFFFE || r == 0xFFFF {
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

var xmlNameCache sync.Map // string -> string

// xmlName returns name as a well-formed XML element name: characters a name cannot hold
// become '_', and a name that cannot start as it does gets a leading '_'. Non-ASCII
// characters are kept when encoding/xml accepts them.
func xmlName(name string) string {
	if asciiXMLName(name) {
		return name
	}
	if v, ok := xmlNameCache.Load(name); ok {
		return v.(string)
	}
	var b strings.Builder
	for _, r := range name {
		first := b.Len() == 0
		switch {
		case nameRune(r, first):
			b.WriteRune(r)
		case first && nameRune(r, false):
			b.WriteByte('_')
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" {
		out = "_"
	}
	xmlNameCache.Store(name, out)
	return out
}

// asciiXMLName reports whether name is a non-empty ASCII name: a letter or '_', then letters,
// digits, '_', '-' or '.'.
func asciiXMLName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= utf8.RuneSelf || !asciiNameByte(c, i == 0) {
			return false
		}
	}
	return true
}

func asciiNameByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c >= '0' && c <= '9', c == '-', c == '.':
		return !first
	}
	return false
}

var xmlRuneCache sync.Map // [2]rune{r, first} -> bool

// nameRune reports whether r may appear in an element name (at its start when first). ':'
// is refused (it would be a namespace prefix).
func nameRune(r rune, first bool) bool {
	if r < utf8.RuneSelf {
		return asciiNameByte(byte(r), first)
	}
	if r == utf8.RuneError {
		return false
	}
	f := rune(0)
	if first {
		f = 1
	}
	key := [2]rune{r, f}
	if v, ok := xmlRuneCache.Load(key); ok {
		return v.(bool)
	}
	doc := "<a" + string(r) + "/>"
	if first {
		doc = "<" + string(r) + "/>"
	}
	d := xml.NewDecoder(strings.NewReader(doc))
	_, err := d.Token()
	ok := err == nil
	xmlRuneCache.Store(key, ok)
	return ok
}
