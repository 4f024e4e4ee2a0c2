// Package yamlx parses YAML input files into go.yaml.in/yaml/v3 nodes and decodes them
// strictly: every problem (syntax, unknown key, duplicate key, wrong type) becomes a
// *diag.Error at the line and column of the offending node.
package yamlx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	goccy "github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/token"
	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
)

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// maxGoccyInput bounds the input given to goccy/go-yaml when yaml.v3 rejects it: goccy
// needs about 150 bytes of memory per byte of input (a 1 MiB file with an error on its last
// line took 170 MB, 8 MiB 1.2 GB). A longer input gets yaml.v3's error, at the start of
// the line it names, and the YAML only goccy reads (a `?` ending a plain scalar in a flow
// mapping) is an error there.
const maxGoccyInput = 256 << 10

// Parse parses one YAML document and returns its root node (nil for an empty document, or
// one that holds only null, like a lone `---`).
// A syntax error is a *diag.Error with the line and column of the problem.
//
// Input that is not YAML text (invalid UTF-8, a NUL or another control character but tab
// and line breaks), nested deeper than MaxDepth ("nesting is too deep") or holding more
// than MaxValues values ("too many values") is refused before it is parsed, at its first
// offending byte. A node with an explicit tag other than those of plain values (!!str,
// !!int, !!float, !!bool, !!null, !!seq, !!map), such as !!python/object, !!binary or a
// custom !tag, is refused at the node.
func Parse(file string, data []byte) (*yaml.Node, error) {
	if line, col, msg := scanText(data); msg != "" {
		return nil, diag.Errorf(file, line, col, "%s", msg)
	}
	if line, col, msg := scanDepth(data); msg != "" {
		return nil, diag.Errorf(file, line, col, "%s", msg)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if len(data) > maxGoccyInput {
			return nil, syntaxError(file, err, nil)
		}
		// yaml.v3 rejects some valid YAML; goccy/go-yaml reads it, or says where it is wrong.
		n, gerr := parseGoccy(data)
		var pe *posError
		switch {
		case gerr == nil:
			if d := treeDepth(n, 0); d != nil {
				return nil, diag.Errorf(file, d.Line, d.Column, "%s", tooDeep)
			}
			if t := checkTags(n); t != nil {
				return nil, diag.Errorf(file, t.Line, t.Column, "%s", tagError(t))
			}
			if IsNull(n) {
				return nil, nil
			}
			return n, nil
		case errors.As(gerr, &pe):
			return nil, diag.Errorf(file, pe.line, pe.col, "%s", pe.msg)
		}
		return nil, syntaxError(file, err, gerr)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, diag.Errorf(file, extra.Line, extra.Column, "expected one YAML document, found a second one")
	}
	if len(doc.Content) == 0 || IsNull(doc.Content[0]) {
		return nil, nil
	}
	if d := treeDepth(doc.Content[0], 0); d != nil {
		return nil, diag.Errorf(file, d.Line, d.Column, "%s", tooDeep)
	}
	if t := checkTags(doc.Content[0]); t != nil {
		return nil, diag.Errorf(file, t.Line, t.Column, "%s", tagError(t))
	}
	return doc.Content[0], nil
}

// syntaxError turns a yaml.v3 error into a positioned one, taking the column, which yaml.v3
// does not report, from the error goccy/go-yaml gave for the same input (perr).
func syntaxError(file string, err, perr error) error {
	var se *goccy.SyntaxError
	if errors.As(perr, &se) && se.Token != nil && se.Token.Position != nil {
		tk := se.Token
		if strings.HasPrefix(se.Message, "mapping value is not allowed") && tk.Next != nil &&
			tk.Next.Type == token.MappingValueType && tk.Next.Position != nil {
			tk = tk.Next // the ':', not the start of the (multi-line) scalar before it
		}
		return diag.Errorf(file, tk.Position.Line, tk.Position.Column, "invalid YAML: %s", se.Message)
	}
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return diag.Errorf(file, line, 1, "invalid YAML: %s", m[2])
	}
	return diag.Errorf(file, 1, 1, "invalid YAML: %v", err)
}

// Resolve follows aliases.
func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// IsNull reports whether n is absent or an explicit null.
func IsNull(n *yaml.Node) bool {
	n = Resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// Describe names the kind of a node for error messages: "a string", "a list", ….
func Describe(n *yaml.Node) string {
	n = Resolve(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!str":
		return "a string"
	}
	return fmt.Sprintf("a %s value", n.Tag)
}
