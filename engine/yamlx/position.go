package yamlx

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ValuePosition returns the line and column (1-based, code points) in the file of the byte
// at offset in the decoded value of scalar n, so an error inside a string (a predicate
// expression, a template) can point at the exact character. data is the whole file.
//
// It walks the raw text of the scalar in step with its value, undoing the YAML escapes
// (” and \-escapes in quoted scalars) and line folding (plain, quoted and folded scalars,
// literal blocks). An offset in trailing blanks points just after the last character of the
// value. Where the raw text does not match the value (a case it does not model), it falls
// back to the start of the value.
func ValuePosition(data []byte, n *yaml.Node, offset int) (line, col int) {
	n = Resolve(n)
	if n == nil {
		return 1, 1
	}
	value := n.Value
	offset = max(0, min(offset, len(value)))
	if strings.TrimSpace(value[offset:]) == "" {
		// "expected ')', found end of input": point after the last character, not past a
		// block scalar's final newline.
		offset = min(offset, len(strings.TrimRight(value, " \t\r\n")))
	}
	var w walker
	switch n.Style &^ yaml.TaggedStyle {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		if !w.startBlock(data, n) {
			return n.Line, n.Column
		}
	default:
		w.startFlow(data, n)
	}
	fline, fcol := w.line, w.col
	if line, col, ok := w.walk(value, offset); ok {
		return line, col
	}
	return fline, fcol
}

// walker steps through the raw lines of a scalar.
type walker struct {
	data   []byte
	style  yaml.Style
	line   int    // current line (1-based)
	raw    []byte // current line, without its line break
	i, col int    // byte index in raw and its column (1-based, code points)
	indent int    // block scalars: the content indentation
	// blank tells whether the current line has no content (for folding).
	blank bool
}

func (w *walker) setLine(ln int) bool {
	raw := lineText(w.data, ln)
	if raw == nil {
		return false
	}
	w.line, w.raw = ln, raw
	w.i, w.col = 0, 1
	if w.block() {
		// The content starts after the indentation; shorter lines are empty.
		w.i = min(w.indent, len(w.raw))
		w.col = w.i + 1
	} else {
		// Continuation lines of flow scalars drop their leading blanks.
		for w.i < len(w.raw) && (w.raw[w.i] == ' ' || w.raw[w.i] == '\t') {
			w.i++
			w.col++
		}
	}
	w.blank = w.restBlank()
	return true
}

func (w *walker) block() bool {
	s := w.style &^ yaml.TaggedStyle
	return s == yaml.LiteralStyle || s == yaml.FoldedStyle
}

// restBlank reports whether the rest of the current line is blank (flow scalars drop
// trailing blanks before a line break; block scalars keep them).
func (w *walker) restBlank() bool {
	if w.i >= len(w.raw) {
		return true // also past the end: a node yaml.v3 placed after its line's text
	}
	if w.block() {
		return false
	}
	return len(bytes.Trim(w.raw[w.i:], " \t")) == 0
}

func (w *walker) startFlow(data []byte, n *yaml.Node) {
	w.data, w.style = data, n.Style
	w.line, w.col = n.Line, n.Column
	w.raw = lineText(data, n.Line)
	w.i = skipRunes(w.raw, n.Column-1)
	w.skipProperties()
	if s := n.Style &^ yaml.TaggedStyle; s == yaml.SingleQuotedStyle || s == yaml.DoubleQuotedStyle {
		w.i++ // the opening quote
		w.col++
	}
	w.blank = false
}

// skipProperties moves past the anchor and tag of a node (yaml.v3 puts the node at them).
func (w *walker) skipProperties() {
	for w.i < len(w.raw) && (w.raw[w.i] == '&' || w.raw[w.i] == '!') {
		for w.i < len(w.raw) && w.raw[w.i] != ' ' && w.raw[w.i] != '\t' {
			_, size := utf8.DecodeRune(w.raw[w.i:])
			w.i += size
			w.col++
		}
		for w.i < len(w.raw) && (w.raw[w.i] == ' ' || w.raw[w.i] == '\t') {
			w.i++
			w.col++
		}
		if w.i >= len(w.raw) && !w.setLine(w.line+1) {
			return // the node is on the next line, if any
		}
	}
}

// startBlock places the walker on the first content line of a block scalar. The content
// indentation is that of the first non-blank line, less the spaces the value keeps (an
// explicit indentation indicator like |2).
func (w *walker) startBlock(data []byte, n *yaml.Node) bool {
	w.data, w.style = data, n.Style
	keep := 0
	for _, l := range strings.Split(n.Value, "\n") {
		if strings.TrimLeft(l, " ") != "" {
			keep = len(l) - len(strings.TrimLeft(l, " "))
			break
		}
	}
	for ln := n.Line + 1; ; ln++ {
		t := lineText(data, ln)
		if t == nil {
			return false
		}
		if len(bytes.TrimLeft(t, " ")) > 0 {
			w.indent = len(t) - len(bytes.TrimLeft(t, " ")) - keep
			break
		}
	}
	return w.setLine(n.Line + 1)
}

// walk consumes value up to offset and returns the position reached.
func (w *walker) walk(value string, offset int) (int, int, bool) {
	single := w.style&yaml.SingleQuotedStyle != 0
	double := w.style&yaml.DoubleQuotedStyle != 0
	folded := w.style&yaml.FoldedStyle != 0 || !w.block()
	for j := 0; j < offset; {
		r, size := utf8.DecodeRuneInString(value[j:])
		if double && w.escapedBreak() {
			// An escaped line break joins the lines with nothing between them.
			if !w.setLine(w.line + 1) {
				return 0, 0, false
			}
			continue
		}
		if w.restBlank() {
			switch {
			case r != '\n' && (r != ' ' || !folded || w.blank):
				return 0, 0, false
			case r == '\n' && folded && !w.blank && w.nextBlank():
				// The break before empty lines is dropped: only the empty lines count.
				if !w.setLine(w.line + 1) {
					return 0, 0, false
				}
				continue
			}
			if !w.setLine(w.line + 1) {
				return 0, 0, false
			}
			j += size
			continue
		}
		switch {
		case single && w.raw[w.i] == '\'':
			if r != '\'' {
				return 0, 0, false
			}
			w.i += 2
			w.col += 2
		case double && w.raw[w.i] == '\\':
			width := escapeWidth(w.raw[w.i:])
			w.i += width
			w.col += width
		default:
			rr, rs := utf8.DecodeRune(w.raw[w.i:])
			if rr != r {
				return 0, 0, false
			}
			w.i += rs
			w.col++
		}
		j += size
	}
	// The character at offset comes after any escaped line breaks the walker stands at: they
	// stand for nothing in the value, so the position is past them, on the next line.
	for double && w.escapedBreak() {
		if !w.setLine(w.line + 1) {
			break
		}
	}
	return w.line, w.col, true
}

// escapedBreak reports whether the walker stands at an escaped line break of a double-quoted
// scalar: a backslash that ends the line.
func (w *walker) escapedBreak() bool {
	return w.i+1 == len(w.raw) && w.raw[w.i] == '\\'
}

// nextBlank reports whether the line after the current one has no content.
func (w *walker) nextBlank() bool {
	t := lineText(w.data, w.line+1)
	if t == nil {
		return false
	}
	if w.block() {
		return len(t) <= w.indent
	}
	return len(bytes.Trim(t, " \t")) == 0
}

// lineText returns line number ln (1-based) of data, without its line break (\n, \r\n or a
// lone \r, as in YAML); nil past the end.
func lineText(data []byte, ln int) []byte {
	for i := 1; i < ln; i++ {
		j := bytes.IndexAny(data, "\r\n")
		if j < 0 {
			return nil
		}
		if data[j] == '\r' && j+1 < len(data) && data[j+1] == '\n' {
			j++
		}
		data = data[j+1:]
	}
	if j := bytes.IndexAny(data, "\r\n"); j >= 0 {
		data = data[:j]
	}
	return data
}

// skipRunes returns the byte index after the first n code points of b.
func skipRunes(b []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(b); n-- {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return i
}

// escapeWidth is the raw length of the double-quoted escape at the start of b.
func escapeWidth(b []byte) int {
	if len(b) < 2 {
		return len(b)
	}
	switch b[1] {
	case 'x':
		return min(len(b), 4)
	case 'u':
		return min(len(b), 6)
	case 'U':
		return min(len(b), 10)
	}
	return 2
}
