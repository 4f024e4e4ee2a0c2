package fragment

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The renderer formats.
const (
	FormatXML      = "xml"
	FormatMarkdown = "markdown"
	FormatTOML     = "toml"
	FormatTOON     = "toon"
)

// Formats returns the renderer formats, the default (xml) first.
func Formats() []string {
	return []string{FormatXML, FormatMarkdown, FormatTOML, FormatTOON}
}

// Options tune every renderer.
type Options struct {
	// GroupFragments puts fragments under a parent named with the plural of their name
	// (<hints><hint>…), at every level, even a name that appears once. In TOML and TOON the
	// group is a key holding a list. A name that is its own plural (data, news,
	// available_skills) gets no parent (see groupName).
	GroupFragments bool
}

// Renderer turns fragments into the text of a system prompt. Renderers are safe for
// concurrent use. The output has no trailing newline; empty strings, lists and objects
// render nothing, and so does a fragment with nothing left.
type Renderer interface {
	Render(frags []Fragment) string
}

// NewRenderer returns the renderer of a format: xml (also the empty string), markdown, toml
// or toon. An unknown format is an error naming the known ones.
func NewRenderer(format string, opt Options) (Renderer, error) {
	switch format {
	case FormatXML, "":
		return xmlRenderer{opt}, nil
	case FormatMarkdown:
		return markdownRenderer{opt}, nil
	case FormatTOML:
		return tomlRenderer{opt}, nil
	case FormatTOON:
		return toonRenderer{opt}, nil
	}
	return nil, fmt.Errorf("unknown renderer %q (known: %s)", format, strings.Join(Formats(), ", "))
}

// Render renders frags in a format; see NewRenderer.
func Render(frags []Fragment, format string, opt Options) (string, error) {
	r, err := NewRenderer(format, opt)
	if err != nil {
		return "", err
	}
	return r.Render(frags), nil
}

// cleanText prepares a String for output: invalid UTF-8 becomes U+FFFD, CRLF becomes LF, and
// trailing newlines are dropped (a YAML `|` block keeps one; it means nothing in a prompt).
func cleanText(s string) string {
	return strings.TrimRight(cleanFileText(s), "\n")
}

// cleanFileText prepares a FileText for output: invalid UTF-8 becomes U+FFFD and CRLF
// becomes LF, but trailing newlines stay (the spec drops only a file's final newline, which
// reading it did). A text of line breaks only is empty.
func cleanFileText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	if strings.Trim(s, "\n") == "" {
		return ""
	}
	return s
}

// scalarText returns the text of a scalar value and true, or false for other values.
func scalarText(v Value) (string, bool) {
	switch x := v.(type) {
	case String:
		return cleanText(string(x)), true
	case FileText:
		return cleanFileText(string(x)), true
	case Int:
		return strconv.FormatInt(int64(x), 10), true
	case Float:
		return formatFloat(float64(x)), true
	case Bool:
		if x {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// formatFloat writes a float as JavaScript's String() does: plain decimals between 1e-7 and
// 1e21, exponent notation outside.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e-7 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// group is the fragments of one name, in order.
type group struct {
	name  string
	frags []Fragment
}

// groupName returns the name of the parent that groups the fragments named name: the plural
// of the name, or "" when the plural is the name itself (data, news, available_skills).
// Those fragments are written as without grouping, side by side, rather than nested in a
// parent of the same name (<data><data>…).
func groupName(name string) string {
	if p := plural(name); p != name {
		return p
	}
	return ""
}

// groupByName groups fragments by name, in the order each name first appears.
func groupByName(frags []Fragment) []group {
	var gs []group
outer:
	for _, f := range frags {
		for i := range gs {
			if gs[i].name == f.Name {
				gs[i].frags = append(gs[i].frags, f)
				continue outer
			}
		}
		gs = append(gs, group{name: f.Name, frags: []Fragment{f}})
	}
	return gs
}

// fragmentItems returns the fragments of a list, in order.
func fragmentItems(l List) []Fragment {
	var out []Fragment
	for _, v := range l {
		if f, ok := v.(Fragment); ok {
			out = append(out, f)
		}
	}
	return out
}

// firstOfName reports whether l[i] is the first fragment of its name in l.
func firstOfName(l List, i int, name string) bool {
	for _, v := range l[:i] {
		if f, ok := v.(Fragment); ok && f.Name == name {
			return false
		}
	}
	return true
}

// fragmentsNamed returns the fragments of l named name, in order.
func fragmentsNamed(l List, name string) []Fragment {
	var out []Fragment
	for _, v := range l {
		if f, ok := v.(Fragment); ok && f.Name == name {
			out = append(out, f)
		}
	}
	return out
}

// isBlank reports whether a line holds only spaces and tabs.
func isBlank(line string) bool {
	return strings.TrimLeft(line, " \t") == ""
}

// appendIndented appends text line by line, each prefixed with pad and ended by a newline;
// blank lines stay empty.
func appendIndented(buf []byte, pad, text string, esc func([]byte, string) []byte) []byte {
	for {
		line, rest, more := strings.Cut(text, "\n")
		if !isBlank(line) {
			buf = append(buf, pad...)
			buf = esc(buf, line)
		}
		buf = append(buf, '\n')
		if !more {
			return buf
		}
		text = rest
	}
}

// appendRaw appends s unchanged (an esc function for appendIndented).
func appendRaw(buf []byte, s string) []byte { return append(buf, s...) }

// spaces returns the indentation of depth levels of two spaces.
func spaces(depth int) string {
	const pad = "                                                                "
	if n := 2 * depth; n <= len(pad) {
		return pad[:n]
	}
	return strings.Repeat("  ", depth)
}

// trimNewline drops the final newline of a rendered buffer.
func trimNewline(buf []byte) string {
	if n := len(buf); n > 0 && buf[n-1] == '\n' {
		buf = buf[:n-1]
	}
	return string(buf)
}
