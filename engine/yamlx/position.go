package yamlx

import (
	"bytes"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ValuePosition returns the line and column (1-based, code points) in the file of the byte
// at offset in the decoded value of scalar n, so an error inside a string (a predicate
// expression, a template) can point at the exact character. data is the whole file.
// Plain, quoted and literal block scalars map exactly; folded and multi-line flow scalars
// map to the right line or the start of the value.
func ValuePosition(data []byte, n *yaml.Node, offset int) (line, col int) {
	n = Resolve(n)
	if n == nil {
		return 1, 1
	}
	value := n.Value
	offset = max(0, min(offset, len(value)))
	switch n.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return blockPosition(data, n, offset)
	case yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
		return quotedPosition(data, n, offset)
	}
	if bytes.IndexByte([]byte(value[:offset]), '\n') >= 0 {
		return n.Line, n.Column
	}
	return n.Line, n.Column + utf8.RuneCountInString(value[:offset])
}

// lineText returns line number ln (1-based) of data, without its newline.
func lineText(data []byte, ln int) []byte {
	for i := 1; i < ln; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return bytes.TrimSuffix(data, []byte("\r"))
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

func quotedPosition(data []byte, n *yaml.Node, offset int) (int, int) {
	raw := lineText(data, n.Line)
	i := skipRunes(raw, n.Column-1) + 1 // after the opening quote
	col := n.Column + 1
	value := n.Value
	for j := 0; j < offset; {
		if i >= len(raw) {
			return n.Line, n.Column // the value continues on another line
		}
		r, size := utf8.DecodeRuneInString(value[j:])
		j += size
		switch {
		case n.Style == yaml.SingleQuotedStyle && r == '\'':
			i += 2
			col += 2
		case n.Style == yaml.DoubleQuotedStyle && raw[i] == '\\':
			w := escapeWidth(raw[i:])
			i += w
			col += w
		default:
			_, rs := utf8.DecodeRune(raw[i:])
			i += rs
			col++
		}
	}
	return n.Line, col
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

func blockPosition(data []byte, n *yaml.Node, offset int) (int, int) {
	prefix := n.Value[:offset]
	lineIdx := bytes.Count([]byte(prefix), []byte("\n"))
	lastNL := bytes.LastIndexByte([]byte(prefix), '\n')
	inLine := utf8.RuneCountInString(prefix[lastNL+1:])
	// The content starts on the line after the indicator; its indentation is that of the
	// first non-blank line.
	indent := 0
	for ln := n.Line + 1; ; ln++ {
		t := lineText(data, ln)
		if t == nil {
			break
		}
		if len(bytes.TrimSpace(t)) == 0 {
			continue
		}
		indent = len(t) - len(bytes.TrimLeft(t, " "))
		break
	}
	if n.Style == yaml.FoldedStyle {
		return n.Line + 1, indent + 1
	}
	return n.Line + 1 + lineIdx, indent + 1 + inLine
}
