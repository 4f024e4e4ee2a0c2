package yamlx

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxDepth is the deepest nesting of collections (mappings and lists, block or flow style)
// a YAML input may have. Deeper input is refused with "nesting is too deep (more than 100
// levels)" at the collection that goes past it, before any parser sees it: yaml.v3 (for
// compact block lists) and goccy/go-yaml (for flow collections) need memory that grows with
// the square of the depth, gigabytes at 40,000 levels.
const MaxDepth = 100

// tooDeep is the message for input nested deeper than MaxDepth.
var tooDeep = fmt.Sprintf("nesting is too deep (more than %d levels)", MaxDepth)

// MaxValues is the most values (scalars, collections and aliases, as written: an alias
// counts once) a YAML input may hold: 300,000, 100,000 one-line hints or a script of
// 30,000 turns. yaml.v3 needs about 160 bytes of memory per value, so this bounds what a
// file costs before it is refused (8 MiB of one-line hints, 2.8 million values, took 450
// MB to be found invalid on its last line; 500,000 values 115 MB). More is refused with
// "too many values (more than 300000)" where the count goes past it, before any parser
// runs.
const MaxValues = 300_000

// scanDepth scans data for collections nested deeper than MaxDepth, or more than
// MaxValues values, and returns the line and column (1-based, in characters) of the token
// that goes past the limit, and the message; msg is "" when there is none. It counts flow
// collections ([…] and {…}) outside quoted, plain and block scalars and comments, and
// block collections by the columns of their entries (`- `, `? `, `key: `), compact ones
// (`- - - x`) included. The scan is linear and allocates little. It follows YAML's rules
// closely enough for the files ctxlab reads; where it is unsure (a quoted scalar spanning
// lines in block context) it errs toward counting, so it may refuse odd input but never
// lets deep nesting through to a parser. It may count a block list written at the column
// of its key as one level with the mapping: the tree walk after parsing counts exactly.
func scanDepth(data []byte) (line, col int, msg string) {
	return scanDepthLimit(data, MaxDepth, MaxValues)
}

// scanDepthLimit is scanDepth with other limits than MaxDepth and MaxValues (for tests).
func scanDepthLimit(data []byte, limit, maxValues int) (line, col int, msg string) {
	s := &depthScan{data: data, line: 1, col: 1, limit: limit, maxValues: maxValues}
	return s.run()
}

type depthScan struct {
	data      []byte
	i         int
	line, col int
	depth     int // flow collections open
	// nodeStart reports whether a node may start here: a quote opens a quoted scalar and
	// a bracket a flow collection only there.
	nodeStart bool
	// lineStart is true until the first non-blank character of a line.
	lineStart bool
	indent    int // the indentation of the current line
	// blockIndent is the column of the collection holding a block scalar (| or >), or -1
	// for one at the top of the document; more indented lines and blank ones are its
	// content. blockScalar is true while they may follow.
	blockIndent int
	blockScalar bool
	// plain is true inside a plain scalar in block context: the rest of the line is text,
	// up to ": " or " #".
	plain bool
	// stack holds the columns (0-based) of the block collections open: an entry at a
	// column closes those at greater ones.
	stack []int
	// tokStart is the column of the scalar or flow collection that started last on this
	// line in block context (a key, when ": " follows), or -1.
	tokStart int
	// base is the number of block collections around the flow collections open.
	base  int
	limit int // MaxDepth
	// values counts the values started so far, up to maxValues.
	values, maxValues int
}

// entry records a block collection entry at column c and reports whether it nests deeper
// than MaxDepth.
func (s *depthScan) entry(c int) bool {
	for len(s.stack) > 0 && s.stack[len(s.stack)-1] > c {
		s.stack = s.stack[:len(s.stack)-1]
	}
	if len(s.stack) == 0 || s.stack[len(s.stack)-1] < c {
		s.stack = append(s.stack, c)
	}
	s.tokStart = -1
	return len(s.stack) > s.limit
}

func (s *depthScan) peek(k int) byte {
	if s.i+k < len(s.data) {
		return s.data[s.i+k]
	}
	return 0
}

// next moves past one byte, keeping the line and column.
func (s *depthScan) next() {
	c := s.data[s.i]
	s.i++
	switch {
	case c == '\n' || (c == '\r' && s.peek(0) != '\n'):
		s.line++
		s.col = 1
		s.newLine()
	case c < utf8.RuneSelf || utf8.RuneStart(c):
		if c != '\r' {
			s.col++
		}
	}
}

func (s *depthScan) newLine() {
	s.tokStart = -1
	s.lineStart = true
	s.indent = 0
	s.plain = false
	if s.depth == 0 {
		s.nodeStart = true
	}
}

func space(c byte) bool { return c == ' ' || c == '\t' }

// blank reports whether c ends a token: a space, a line break or the end of the input.
func blank(c byte) bool { return c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *depthScan) skipLine() {
	for s.i < len(s.data) && s.data[s.i] != '\n' && s.data[s.i] != '\r' {
		s.next()
	}
}

func (s *depthScan) run() (int, int, string) {
	s.newLine()
	for s.i < len(s.data) {
		c := s.data[s.i]
		if c == '\n' || c == '\r' {
			s.next()
			continue
		}
		if s.lineStart {
			if c == ' ' {
				s.indent++
				s.next()
				continue
			}
			s.lineStart = false
			if s.depth == 0 && s.indent == 0 && (c == '-' || c == '.') && s.marker() {
				// The end of a document, or a new one: what follows on the line is its node.
				s.stack, s.blockScalar, s.plain, s.nodeStart = s.stack[:0], false, false, true
				s.next()
				s.next()
				s.next()
				continue
			}
			if s.blockScalar {
				if s.indent > s.blockIndent || c == '\t' {
					s.skipLine()
					s.lineStart = false
					continue
				}
				s.blockScalar = false
			}
			if s.depth == 0 && s.indent == 0 && c == '%' {
				s.skipLine() // a directive
				continue
			}
		}
		if space(c) {
			s.next()
			continue
		}
		if c == '#' && (s.i == 0 || blank(s.data[s.i-1])) {
			s.skipLine()
			continue
		}
		line, col := s.line, s.col
		if s.depth == 0 {
			if at, deep := s.block(c); deep {
				return line, at + 1, tooDeepFor(s.limit)
			}
		} else if s.flow(c) {
			return line, col, tooDeepFor(s.limit)
		}
		if s.values > s.maxValues {
			return line, col, fmt.Sprintf("too many values (more than %d)", s.maxValues)
		}
	}
	return 0, 0, ""
}

// tooDeepFor is the message for nesting deeper than limit.
func tooDeepFor(limit int) string {
	if limit == MaxDepth {
		return tooDeep
	}
	return fmt.Sprintf("nesting is too deep (more than %d levels)", limit)
}

// marker reports whether a document marker (--- or ...) starts here.
func (s *depthScan) marker() bool {
	c := s.data[s.i]
	return s.peek(1) == c && s.peek(2) == c && blank(s.peek(3))
}

// block scans one token in block context and reports whether it nests deeper than
// MaxDepth, and at which column (0-based) of the line.
func (s *depthScan) block(c byte) (int, bool) {
	col := s.col - 1
	if s.plain {
		s.next()
		if c == ':' && blank(s.peek(0)) {
			s.plain = false
			s.nodeStart = true
			at := s.tokStart
			return at, s.entry(at)
		}
		return 0, false
	}
	switch {
	case (c == '-' || c == '?') && blank(s.peek(1)):
		s.nodeStart = true
		s.values++
		s.next()
		return col, s.entry(col)
	case c == ':' && blank(s.peek(1)):
		s.nodeStart = true
		s.next()
		if s.tokStart >= 0 {
			col = s.tokStart
		}
		return col, s.entry(col)
	case c == '!' || c == '&' || c == '*':
		if c == '*' {
			s.values++
		}
		s.skipProperty()
	case (c == '|' || c == '>') && s.blockHeader():
		s.values++
		s.blockScalar, s.blockIndent = true, -1
		if len(s.stack) > 0 {
			s.blockIndent = s.stack[len(s.stack)-1]
		}
		s.skipLine()
	case c == '\'' || c == '"':
		s.values++
		s.quoted(c)
		s.tokStart = col
		s.nodeStart = false
	case c == '[' || c == '{':
		s.values++
		s.tokStart = col
		s.base = len(s.stack)
		s.depth = 1
		s.nodeStart = true
		s.next()
		return col, s.base+s.depth > s.limit
	default:
		s.values++
		s.plain = true
		s.tokStart = col
		s.next()
	}
	return 0, false
}

// flow scans one token inside flow collections and reports whether it nests deeper than
// MaxDepth.
func (s *depthScan) flow(c byte) bool {
	switch {
	case c == '[' || c == '{':
		s.values++
		s.depth++
		s.nodeStart = true
		s.next()
		return s.base+s.depth > s.limit
	case c == ']' || c == '}':
		s.depth--
		s.nodeStart = s.depth > 0
		s.next()
		if s.depth == 0 {
			s.plain = true // the rest of the line, as for a scalar (`[a]: b` is rare)
		}
	case c == ',':
		s.nodeStart = true
		s.next()
	case (c == '?' || c == ':') && (blank(s.peek(1)) || s.nodeStart):
		s.nodeStart = true
		s.next()
	case (c == '\'' || c == '"') && s.nodeStart:
		s.values++
		s.quoted(c)
		s.nodeStart = false
	case c == '!' || c == '&' || c == '*':
		if c == '*' {
			s.values++
		}
		s.skipProperty()
	default:
		if s.nodeStart {
			s.values++ // a plain scalar starts
		}
		s.nodeStart = false
		s.next()
	}
	return false
}

// skipProperty skips a tag, an anchor or an alias: up to a blank or a flow indicator,
// which none of them may hold.
func (s *depthScan) skipProperty() {
	for s.i < len(s.data) && !blank(s.data[s.i]) && !strings.ContainsRune(",[]{}", rune(s.data[s.i])) {
		s.next()
	}
}

// blockHeader reports whether a block scalar header (| or >, then indentation and chomping
// indicators, then a blank or a comment) starts here.
func (s *depthScan) blockHeader() bool {
	k := 1
	for c := s.peek(k); c == '+' || c == '-' || (c >= '1' && c <= '9'); c = s.peek(k) {
		k++
	}
	return blank(s.peek(k))
}

// quoted skips a quoted scalar. In block context, a line indented no more than the one the
// scalar started on ends it for the scan: a quote the scan took for an opening one cannot
// hide the lines after it.
func (s *depthScan) quoted(q byte) {
	startIndent, inFlow := s.indent, s.depth > 0
	s.next()
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == q && q == '\'' && s.peek(1) == '\'':
			s.next()
			s.next()
		case c == q:
			s.next()
			s.lineStart = false
			return
		case c == '\\' && q == '"' && s.i+1 < len(s.data) && s.data[s.i+1] != '\n' && s.data[s.i+1] != '\r':
			s.next()
			s.next()
		case c == '\n' || c == '\r':
			s.next()
			if !inFlow {
				n := 0
				for s.i+n < len(s.data) && s.data[s.i+n] == ' ' {
					n++
				}
				if c := s.peek(n); n <= startIndent && c != '\n' && c != '\r' && c != 0 {
					return // newLine has set the state for the next line
				}
			}
		default:
			s.next()
		}
	}
}

// treeDepth returns the first node of the tree at n nested deeper than MaxDepth (aliases
// are not followed: each is one node), or nil.
func treeDepth(n *yaml.Node, depth int) *yaml.Node {
	return treeDepthLimit(n, depth, MaxDepth)
}

// treeDepthLimit is treeDepth with another limit than MaxDepth (for tests).
func treeDepthLimit(n *yaml.Node, depth, limit int) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		depth++
		if depth > limit {
			return n
		}
	}
	for _, c := range n.Content {
		if d := treeDepthLimit(c, depth, limit); d != nil {
			return d
		}
	}
	return nil
}
