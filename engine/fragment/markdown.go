package fragment

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// markdownRenderer renders each top-level fragment as a `## Title Case Name` section and
// nested data as `- **key**: value` bullets, two spaces per level. Objects inside lists are
// bullets named with the singular of the list's key, holding their fields.
type markdownRenderer struct{ opt Options }

// Render implements Renderer.
func (r markdownRenderer) Render(frags []Fragment) string {
	w := mdWriter{group: r.opt.GroupFragments, buf: make([]byte, 0, 4096)}
	if !w.group {
		w.sections(frags)
		return trimNewline(w.buf)
	}
	for _, g := range groupByName(frags) {
		parent := groupName(g.name)
		if parent == "" {
			w.sections(g.frags)
			continue
		}
		mark, inner := w.section(parent)
		w.plain(g.frags, 0)
		w.end(mark, inner)
	}
	return trimNewline(w.buf)
}

// sections writes each fragment as a section of its own, named after it.
func (w *mdWriter) sections(frags []Fragment) {
	for _, f := range frags {
		mark, inner := w.section(f.Name)
		w.body(f, 0)
		w.end(mark, inner)
	}
}

// mdWriter appends markdown lines, each ended by a newline.
type mdWriter struct {
	buf   []byte
	group bool
}

// section starts a `## Title` section, after a blank line when it is not the first.
func (w *mdWriter) section(name string) (mark, inner int) {
	mark = len(w.buf)
	if mark > 0 {
		w.buf = append(w.buf, '\n')
	}
	w.buf = append(w.buf, "## "...)
	w.buf = append(w.buf, titleCase(name)...)
	w.buf = append(w.buf, '\n')
	return mark, len(w.buf)
}

// end removes what was written since mark when nothing came after inner.
func (w *mdWriter) end(mark, inner int) {
	if len(w.buf) == inner {
		w.buf = w.buf[:mark]
	}
}

// body writes the data of a top-level fragment under its heading.
func (w *mdWriter) body(f Fragment, depth int) {
	switch x := f.Data.(type) {
	case nil:
	case Object:
		w.entries(x, depth)
	case List:
		w.items(f.Name, x, depth)
	case Fragment:
		w.fragments([]Fragment{x}, depth)
	default:
		text, _ := scalarText(x)
		if text != "" {
			w.buf = appendIndented(w.buf, "", text, appendRaw)
		}
	}
}

func (w *mdWriter) fragments(frags []Fragment, depth int) {
	if !w.group {
		w.plain(frags, depth)
		return
	}
	for _, g := range groupByName(frags) {
		w.grouped(g.name, g.frags, depth)
	}
}

// plain writes fragments one after the other as `- **name**: …`, with no parent.
func (w *mdWriter) plain(frags []Fragment, depth int) {
	for _, f := range frags {
		w.keyed(f.Name, f.Data, depth)
	}
}

// grouped writes `- **plural**:` holding the fragments of one name, or the fragments side by
// side when the name has no other plural.
func (w *mdWriter) grouped(name string, frags []Fragment, depth int) {
	parent := groupName(name)
	if parent == "" {
		w.plain(frags, depth)
		return
	}
	mark, inner := w.header(parent, depth)
	w.plain(frags, depth+1)
	w.end(mark, inner)
}

// header writes `- **key**:`.
func (w *mdWriter) header(key string, depth int) (mark, inner int) {
	mark = len(w.buf)
	w.buf = append(w.buf, spaces(depth)...)
	w.buf = append(w.buf, "- **"...)
	w.buf = append(w.buf, key...)
	w.buf = append(w.buf, "**:"...)
	w.buf = append(w.buf, '\n')
	return mark, len(w.buf)
}

// keyed writes `- **key**: value`, or the key as a header over nested bullets.
func (w *mdWriter) keyed(key string, v Value, depth int) {
	switch x := v.(type) {
	case nil:
	case Object:
		mark, inner := w.header(key, depth)
		w.entries(x, depth+1)
		w.end(mark, inner)
	case List:
		mark, inner := w.header(key, depth)
		w.items(key, x, depth+1)
		w.end(mark, inner)
	case Fragment:
		mark, inner := w.header(key, depth)
		w.fragments([]Fragment{x}, depth+1)
		w.end(mark, inner)
	default:
		text, _ := scalarText(x)
		if text == "" {
			return
		}
		if strings.IndexByte(text, '\n') >= 0 {
			w.header(key, depth)
			w.buf = appendIndented(w.buf, spaces(depth+1), text, appendRaw)
			return
		}
		w.buf = append(w.buf, spaces(depth)...)
		w.buf = append(w.buf, "- **"...)
		w.buf = append(w.buf, key...)
		w.buf = append(w.buf, "**: "...)
		w.buf = append(w.buf, text...)
		w.buf = append(w.buf, '\n')
	}
}

func (w *mdWriter) entries(o Object, depth int) {
	for _, f := range o {
		w.keyed(f.Key, f.Value, depth)
	}
}

// items writes list items: texts as `- text`, objects and lists as bullets named with the
// singular of key, fragments as themselves (grouped when asked).
func (w *mdWriter) items(key string, l List, depth int) {
	var item string
	for i, v := range l {
		switch x := v.(type) {
		case nil:
		case Fragment:
			switch {
			case !w.group:
				w.keyed(x.Name, x.Data, depth)
			case firstOfName(l, i, x.Name):
				w.grouped(x.Name, fragmentsNamed(l, x.Name), depth)
			}
		case Object, List:
			if item == "" {
				item = singular(key)
			}
			w.keyed(item, x, depth)
		default:
			text, _ := scalarText(x)
			if text == "" {
				continue
			}
			first, rest, more := strings.Cut(text, "\n")
			w.buf = append(w.buf, spaces(depth)...)
			w.buf = append(w.buf, "- "...)
			w.buf = append(w.buf, first...)
			w.buf = append(w.buf, '\n')
			if more {
				w.buf = appendIndented(w.buf, spaces(depth+1), rest, appendRaw)
			}
		}
	}
}

var titleCache sync.Map // string -> string

// titleCase turns a name into words with capital initials: styleGuide -> Style Guide,
// available_skills -> Available Skills, userAPIKey -> User API Key.
func titleCase(name string) string {
	if v, ok := titleCache.Load(name); ok {
		return v.(string)
	}
	var words []string
	runes := []rune(name)
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, string(runes[start:end]))
		}
	}
	for i, r := range runes {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r):
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(r) && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1])):
			flush(i)
			start = i
		case i > start && unicode.IsUpper(r) && unicode.IsUpper(runes[i-1]) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(runes))
	for i, word := range words {
		r, size := utf8.DecodeRuneInString(word)
		words[i] = string(unicode.ToUpper(r)) + word[size:]
	}
	out := strings.Join(words, " ")
	if out == "" {
		out = name
	}
	titleCache.Store(name, out)
	return out
}
