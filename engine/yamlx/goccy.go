package yamlx

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	goccyast "github.com/goccy/go-yaml/ast"
	goccyparser "github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
	"go.yaml.in/yaml/v3"
)

// parseGoccy parses data with goccy/go-yaml and converts its tree to yaml.v3 nodes, with
// the same lines, columns, tags and styles. It reads valid YAML that yaml.v3 rejects, such
// as a `?` ending a plain scalar in a flow mapping ({question: What is churn?, …}).
func parseGoccy(data []byte) (*yaml.Node, error) {
	f, err := goccyparser.ParseBytes(data, 0)
	if err != nil {
		return nil, err
	}
	var docs []*goccyast.DocumentNode
	for _, d := range f.Docs {
		if _, directive := d.Body.(*goccyast.DirectiveNode); !directive {
			docs = append(docs, d) // goccy makes `%YAML 1.2` a document of its own
		}
	}
	if len(docs) > 1 {
		line, col := at(docs[1].Start)
		if docs[1].Start == nil && docs[1].Body != nil {
			line, col = at(docs[1].Body.GetToken())
		}
		return nil, &posError{line: line, col: col, msg: "expected one YAML document, found a second one"}
	}
	if len(docs) == 0 || docs[0].Body == nil {
		return nil, nil
	}
	c := &converter{data: data, anchors: map[string]*yaml.Node{}, defs: map[string]int{}, tags: map[int][]int{},
		resolved: map[[2]string]string{}}
	n := c.node(docs[0].Body)
	if c.err != nil {
		return nil, c.err
	}
	return n, nil
}

// posError is a problem parseGoccy found and placed itself.
type posError struct {
	line, col int
	msg       string
}

func (e *posError) Error() string { return e.msg }

type converter struct {
	data     []byte
	lines    [][]byte // data split into lines, made on first use
	anchors  map[string]*yaml.Node
	defs     map[string]int       // how many times each anchor was defined so far
	tags     map[int][]int        // line -> offsets of the tags converted so far
	err      *posError            // the first problem goccy lets through
	resolved map[[2]string]string // plainTag's answers from yaml.v3, by value and tag
}

func at(tk *token.Token) (int, int) {
	if tk == nil || tk.Position == nil {
		return 1, 1
	}
	return tk.Position.Line, tk.Position.Column
}

// at is the position of tk. goccy counts the columns after a tag one short (each tag on
// the line takes one off), so the tags seen so far, in file order, put them back.
func (c *converter) at(tk *token.Token) (int, int) {
	line, col := at(tk)
	if tk == nil || tk.Position == nil {
		return line, col
	}
	for _, off := range c.tags[line] {
		if off < tk.Position.Offset {
			col++
		}
	}
	return line, col
}

func (c *converter) scalar(tag, value string, tk *token.Token) *yaml.Node {
	line, col := c.at(tk)
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: line, Column: col}
	if tk != nil {
		switch tk.Type {
		case token.SingleQuoteType:
			n.Style = yaml.SingleQuotedStyle
		case token.DoubleQuoteType:
			n.Style = yaml.DoubleQuotedStyle
		case token.LiteralType:
			n.Style = yaml.LiteralStyle
		case token.FoldedType:
			n.Style = yaml.FoldedStyle
		}
	}
	if n.Style == 0 && tk != nil && tk.Type != token.ImplicitNullType {
		n.Line, n.Column = c.plainPosition(line, n.Column, tk.Origin)
		if strings.Contains(strings.TrimSpace(tk.Origin), "\n") && tag == "!!str" {
			n.Value = foldPlain(tk.Origin) // goccy keeps some line breaks
		}
	}
	if n.Style == 0 && strings.HasPrefix(tag, "!!") {
		n.Tag = c.plainTag(n.Value, tag)
	}
	return n
}

// line returns line ln (1-based) of the input, without its line break; nil past the end.
func (c *converter) line(ln int) []byte {
	if c.lines == nil {
		for data := c.data; ; {
			j := bytes.IndexAny(data, "\r\n")
			if j < 0 {
				c.lines = append(c.lines, data)
				break
			}
			c.lines = append(c.lines, data[:j])
			if data[j] == '\r' && j+1 < len(data) && data[j+1] == '\n' {
				j++
			}
			data = data[j+1:]
		}
	}
	if ln < 1 || ln > len(c.lines) {
		return nil
	}
	return c.lines[ln-1]
}

// plainPosition places a plain scalar. goccy adds the blanks that end its line to its
// column, and puts a scalar that goes on over several lines at its last line when a
// continuation line starts with '-'. The scalar's first line is in the raw text at the
// nearest place at or before goccy's column (of the line, or of its end).
func (c *converter) plainPosition(line, col int, origin string) (int, int) {
	first, rest, multi := strings.Cut(strings.TrimLeft(origin, " \t\r\n"), "\n")
	first = strings.Trim(first, " \t")
	if first == "" {
		return line, col
	}
	if multi {
		for _, l := range strings.Split(rest, "\n") {
			if !strings.HasPrefix(strings.TrimLeft(l, " \t"), "-") {
				continue
			}
			// The scalar starts at the line that ends with its first line's text and is
			// followed by the rest of it.
			next := strings.Split(rest, "\n")
			for ln := max(1, line-strings.Count(origin, "\n")); ln <= line; ln++ {
				raw := c.line(ln)
				if !strings.HasSuffix(strings.TrimRight(string(raw), " \t"), first) {
					continue
				}
				same := true
				for k, want := range next {
					got := c.line(ln + 1 + k)
					same = same && strings.TrimSpace(string(got)) == strings.TrimSpace(want)
				}
				if same {
					c2, _ := nearestAtOrBefore(raw, first, math.MaxInt)
					return ln, c2
				}
			}
			break
		}
	}
	if c2, ok := nearestAtOrBefore(c.line(line), first, col); ok {
		return line, c2
	}
	return line, col
}

// foldPlain is the value of a plain scalar written over several lines: the lines trimmed
// and joined with a space, or with one line break per empty line between them; a comment
// ends it.
func foldPlain(origin string) string {
	var b strings.Builder
	empty := 0
	for i, l := range strings.Split(strings.TrimSpace(origin), "\n") {
		l = strings.Trim(l, " \t\r")
		if i > 0 && strings.HasPrefix(l, "#") {
			break
		}
		comment := false
		if j := strings.IndexAny(l, "#"); j > 0 && (l[j-1] == ' ' || l[j-1] == '\t') {
			l, comment = strings.TrimRight(l[:j], " \t"), true
		}
		if l == "" {
			empty++
			if comment {
				break
			}
			continue
		}
		if b.Len() > 0 {
			if empty == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteString(strings.Repeat("\n", empty))
			}
		}
		empty = 0
		b.WriteString(l)
		if comment {
			break
		}
	}
	return b.String()
}

// nearestAtOrBefore returns the greatest column (1-based, code points) at or before col
// where raw holds s.
func nearestAtOrBefore(raw []byte, s string, col int) (int, bool) {
	runes := []rune(string(raw))
	n := utf8.RuneCountInString(s)
	for c := min(col, len(runes)-n+1); c >= 1; c-- {
		if string(runes[c-1:c-1+n]) == s {
			return c, true
		}
	}
	return 0, false
}

// plainTag resolves a plain scalar the way yaml.v3 does (goccy reads 1e3 and timestamps as
// strings), keeping tag when yaml.v3 cannot read the value alone. yaml.v3 is asked once per
// value: keys like `text` recur.
func (c *converter) plainTag(value, tag string) string {
	if tag == "!!str" && (value == "" || !strings.ContainsRune("+-.0123456789~<nNtTfF", rune(value[0]))) {
		return tag // no other type starts so
	}
	key := [2]string{value, tag}
	if t, ok := c.resolved[key]; ok {
		return t
	}
	t := tag
	var doc yaml.Node
	if yaml.Unmarshal([]byte(value), &doc) == nil && len(doc.Content) == 1 {
		if n := doc.Content[0]; n.Kind == yaml.ScalarNode && n.Style == 0 && n.Value == value {
			t = n.Tag
		}
	}
	c.resolved[key] = t
	return t
}

func (c *converter) node(n goccyast.Node) *yaml.Node {
	switch v := n.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	case *goccyast.DocumentNode:
		return c.node(v.Body)
	case *goccyast.MappingNode:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if v.IsFlowStyle {
			m.Style = yaml.FlowStyle
		}
		for _, mv := range v.Values {
			c.pair(m, mv)
		}
		if v.IsFlowStyle {
			m.Line, m.Column = c.at(v.Start) // yaml.v3 puts a flow mapping at its '{'
		} else {
			var first *goccyast.MappingValueNode
			if len(v.Values) > 0 {
				first = v.Values[0]
			}
			c.place(m, v.Start, first)
		}
		return m
	case *goccyast.MappingValueNode:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		c.pair(m, v)
		c.place(m, v.Start, v)
		return m
	case *goccyast.MappingKeyNode:
		return c.node(v.Value)
	case *goccyast.SequenceNode:
		s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if v.IsFlowStyle {
			s.Style = yaml.FlowStyle
		}
		s.Line, s.Column = c.at(v.Start)
		for i, it := range v.Values {
			n := c.node(it)
			if v.IsFlowStyle && n.Kind == yaml.MappingNode {
				n.Style |= yaml.FlowStyle // a single pair in a flow sequence: [a: b]
			}
			if implicitNull(it) && !v.IsFlowStyle && i < len(v.Entries) && v.Entries[i].Start != nil {
				n.Line, n.Column = c.at(v.Entries[i].Start) // just after the '-', as yaml.v3 does
				n.Column++
			}
			s.Content = append(s.Content, n)
		}
		return s
	case *goccyast.StringNode:
		return c.scalar("!!str", v.Value, v.Token)
	case *goccyast.LiteralNode:
		s := c.scalar("!!str", v.Value.Value, v.Start)
		if s.Style == 0 {
			s.Style = yaml.LiteralStyle
		}
		return s
	case *goccyast.IntegerNode:
		return c.scalar("!!int", v.Token.Value, v.Token)
	case *goccyast.FloatNode:
		return c.scalar("!!float", v.Token.Value, v.Token)
	case *goccyast.InfinityNode:
		return c.scalar("!!float", v.Token.Value, v.Token)
	case *goccyast.NanNode:
		return c.scalar("!!float", v.Token.Value, v.Token)
	case *goccyast.BoolNode:
		return c.scalar("!!bool", v.Token.Value, v.Token)
	case *goccyast.NullNode:
		s := c.scalar("!!null", v.Token.Value, v.Token)
		if v.Token.Type == token.ImplicitNullType {
			s.Value = "" // `key:` with nothing after it
		}
		return s
	case *goccyast.MergeKeyNode:
		// goccy reads "0<<" as a merge key; its origin holds the text.
		return c.scalar("!!merge", strings.TrimSpace(v.Token.Origin), v.Token)
	case *goccyast.AnchorNode:
		name := ""
		if v.Name != nil {
			name = v.Name.GetToken().Value
		}
		defs := c.defs[name]
		target := c.node(v.Value)
		// yaml.v3 puts an anchored node at its '&'.
		target.Line, target.Column = c.at(v.Start)
		if v.Name != nil {
			target.Anchor = name
			if c.defs[name] == defs {
				// Unless the value defines the name again: that comes later in the file.
				c.anchors[name] = target
			}
			c.defs[name]++
		}
		return target
	case *goccyast.AliasNode:
		line, col := c.at(v.Start)
		a := &yaml.Node{Kind: yaml.AliasNode, Line: line, Column: col}
		if v.Value != nil {
			a.Value = v.Value.GetToken().Value
			a.Alias = c.anchors[a.Value]
		}
		if a.Alias == nil {
			// goccy accepts an alias of an anchor defined nowhere before it; yaml.v3 does not.
			if c.err == nil {
				c.err = &posError{line: line, col: col, msg: fmt.Sprintf("invalid YAML: unknown anchor %q referenced", a.Value)}
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: line, Column: col}
		}
		return a
	case *goccyast.TagNode:
		line, col := c.at(v.Start)
		if v.Start != nil && v.Start.Position != nil {
			p := v.Start.Position
			c.tags[p.Line] = append(c.tags[p.Line], p.Offset)
		}
		target := c.node(v.Value)
		// yaml.v3 puts a tagged node at its tag and marks it TaggedStyle.
		target.Line, target.Column = line, col
		if v.Start != nil && v.Start.Value != "!" { // `!` alone is no tag for yaml.v3
			target.Tag = v.Start.Value
			target.Style |= yaml.TaggedStyle
		}
		return target
	}
	tk := n.GetToken()
	s := c.scalar("!!str", "", tk)
	if tk != nil {
		s.Value = tk.Value
	}
	return s
}

// pair appends a key and value to mapping m.
func (c *converter) pair(m *yaml.Node, mv *goccyast.MappingValueNode) {
	k, v := c.node(mv.Key), c.node(mv.Value)
	colon := mv.Start != nil && mv.Start.Type == token.MappingValueType
	switch {
	case !implicitNull(mv.Value):
	case m.Style == yaml.FlowStyle:
		// yaml.v3 puts an empty value of a flow mapping at the token after the ':' (or
		// after the key, in `{a}`).
		var key goccyast.Node = mv.Key
		for unwrapped := true; unwrapped; {
			switch k := key.(type) {
			case *goccyast.TagNode:
				key = k.Value
			case *goccyast.AnchorNode:
				key = k.Value
			case *goccyast.AliasNode:
				key = k.Value // the name after the '*'
			default:
				unwrapped = false
			}
		}
		var next *token.Token
		if key != nil {
			next = key.GetToken()
		}
		if colon {
			next = mv.Start
		}
		if next != nil {
			next = next.Next
		}
		for next != nil && next.Type == token.ImplicitNullType {
			next = next.Next
		}
		if next != nil {
			v.Line, v.Column = c.at(next)
		}
	case colon:
		// In a block mapping, just after the ':' (goccy is one column off at the end of
		// a line).
		v.Line, v.Column = c.at(mv.Start)
		v.Column++
	}
	m.Content = append(m.Content, k, v)
}

// implicitNull reports whether n is the empty value of `key:` or `-`.
func implicitNull(n goccyast.Node) bool {
	v, ok := n.(*goccyast.NullNode)
	return ok && v.Token != nil && v.Token.Type == token.ImplicitNullType
}

// place puts a block mapping where yaml.v3 would: at its first key, or at the '?' of an
// explicit first key.
func (c *converter) place(m *yaml.Node, start *token.Token, first *goccyast.MappingValueNode) {
	if first != nil {
		if k, ok := first.Key.(*goccyast.MappingKeyNode); ok {
			m.Line, m.Column = c.at(k.Start)
			return
		}
	}
	if len(m.Content) > 0 {
		m.Line, m.Column = m.Content[0].Line, m.Content[0].Column
		return
	}
	m.Line, m.Column = c.at(start)
}
