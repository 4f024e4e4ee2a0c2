package yamlx

import (
	"strings"

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
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return nil, nil
	}
	c := converter{anchors: map[string]*yaml.Node{}}
	return c.node(f.Docs[0].Body), nil
}

type converter struct {
	anchors map[string]*yaml.Node
}

func at(tk *token.Token) (int, int) {
	if tk == nil || tk.Position == nil {
		return 1, 1
	}
	return tk.Position.Line, tk.Position.Column
}

func (c converter) scalar(tag, value string, tk *token.Token) *yaml.Node {
	line, col := at(tk)
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: line, Column: col}
	if tk != nil {
		switch tk.Type {
		case token.SingleQuoteType:
			n.Style = yaml.SingleQuotedStyle
		case token.DoubleQuoteType:
			n.Style = yaml.DoubleQuotedStyle
		}
	}
	return n
}

func (c converter) node(n goccyast.Node) *yaml.Node {
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
		c.place(m, v.Start)
		return m
	case *goccyast.MappingValueNode:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		c.pair(m, v)
		c.place(m, v.Start)
		return m
	case *goccyast.MappingKeyNode:
		return c.node(v.Value)
	case *goccyast.SequenceNode:
		s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if v.IsFlowStyle {
			s.Style = yaml.FlowStyle
		}
		s.Line, s.Column = at(v.Start)
		for _, it := range v.Values {
			s.Content = append(s.Content, c.node(it))
		}
		return s
	case *goccyast.StringNode:
		return c.scalar("!!str", v.Value, v.Token)
	case *goccyast.LiteralNode:
		s := c.scalar("!!str", v.Value.Value, v.Start)
		s.Style = yaml.LiteralStyle
		if v.Start != nil && strings.HasPrefix(v.Start.Value, ">") {
			s.Style = yaml.FoldedStyle
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
		return c.scalar("!!null", v.Token.Value, v.Token)
	case *goccyast.MergeKeyNode:
		return c.scalar("!!merge", "<<", v.Token)
	case *goccyast.AnchorNode:
		target := c.node(v.Value)
		if v.Name != nil {
			name := v.Name.GetToken().Value
			target.Anchor = name
			c.anchors[name] = target
		}
		return target
	case *goccyast.AliasNode:
		line, col := at(v.Start)
		a := &yaml.Node{Kind: yaml.AliasNode, Line: line, Column: col}
		if v.Value != nil {
			a.Value = v.Value.GetToken().Value
			a.Alias = c.anchors[a.Value]
		}
		if a.Alias == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: line, Column: col}
		}
		return a
	case *goccyast.TagNode:
		target := c.node(v.Value)
		if v.Start != nil {
			target.Tag = v.Start.Value
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
func (c converter) pair(m *yaml.Node, mv *goccyast.MappingValueNode) {
	m.Content = append(m.Content, c.node(mv.Key), c.node(mv.Value))
}

// place puts a mapping where yaml.v3 would: at its first key.
func (c converter) place(m *yaml.Node, start *token.Token) {
	if len(m.Content) > 0 {
		m.Line, m.Column = m.Content[0].Line, m.Content[0].Column
		return
	}
	m.Line, m.Column = at(start)
}
