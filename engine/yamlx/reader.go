package yamlx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// Reader decodes nodes of one file and collects the problems it finds.
type Reader struct {
	File string
	Errs diag.List
}

// Errorf records a problem at node n.
func (r *Reader) Errorf(n *yaml.Node, format string, args ...any) {
	line, col := 1, 1
	if n != nil {
		line, col = n.Line, n.Column
	}
	r.Errs = append(r.Errs, diag.Errorf(r.File, line, col, format, args...))
}

// Err returns the collected problems as one error, or nil.
func (r *Reader) Err() error { return r.Errs.Err() }

// Field is one key and value of a mapping.
type Field struct {
	Key   *yaml.Node
	Value *yaml.Node
}

// Fields are the entries of a mapping, in file order.
type Fields struct {
	List []Field
	// Node is the mapping itself (for errors about missing keys); nil when the value was
	// not a mapping.
	Node *yaml.Node
}

// Get returns the value of key, or nil when the key is absent or null.
func (f Fields) Get(key string) *yaml.Node {
	for _, e := range f.List {
		if e.Key.Value == key {
			if IsNull(e.Value) {
				return nil
			}
			return Resolve(e.Value)
		}
	}
	return nil
}

// Has reports whether key is present with a non-null value.
func (f Fields) Has(key string) bool { return f.Get(key) != nil }

// Mapping checks that n is a mapping with string keys and no duplicate keys, and returns
// its entries. what names the thing for messages ("reminder", "the context file").
func (r *Reader) Mapping(n *yaml.Node, what string) (Fields, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		r.Errorf(n, "%s must be a mapping, found %s", what, Describe(n))
		return Fields{}, false
	}
	f := Fields{Node: n, List: make([]Field, 0, len(n.Content)/2)}
	seen := map[string]*yaml.Node{}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			r.Errorf(k, "%s: keys must be plain names, found %s", what, Describe(k))
			ok = false
			continue
		}
		if prev, dup := seen[k.Value]; dup {
			r.Errorf(k, "%s: duplicate key %q (first at line %d)", what, k.Value, prev.Line)
			ok = false
			continue
		}
		seen[k.Value] = k
		f.List = append(f.List, Field{Key: k, Value: v})
	}
	return f, ok
}

// Fields is Mapping plus a check that every key is one of known; an unknown key is
// reported at the key with the nearest known names.
func (r *Reader) Fields(n *yaml.Node, what string, known ...string) (Fields, bool) {
	f, ok := r.Mapping(n, what)
	for _, e := range f.List {
		if !contains(known, e.Key.Value) {
			r.Errorf(e.Key, "unknown key %q in %s%s", e.Key.Value, what, knownHint(e.Key.Value, known))
			ok = false
		}
	}
	return f, ok
}

func knownHint(name string, known []string) string {
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	return diag.Hint(name, sorted, "known keys")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// String decodes a string scalar. Numbers and booleans written without quotes are
// accepted as their text (a hint of `2` means "2").
func (r *Reader) String(n *yaml.Node, what string) (string, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		r.Errorf(n, "%s must be a string, found %s", what, Describe(n))
		return "", false
	}
	return n.Value, true
}

// Strings decodes one string or a list of strings.
func (r *Reader) Strings(n *yaml.Node, what string) ([]string, bool) {
	n = Resolve(n)
	if n != nil && n.Kind == yaml.SequenceNode {
		out := make([]string, 0, len(n.Content))
		ok := true
		for _, c := range n.Content {
			s, good := r.String(c, what+" item")
			ok = ok && good
			out = append(out, s)
		}
		return out, ok
	}
	if n != nil && n.Kind == yaml.MappingNode {
		r.Errorf(n, "%s must be a string or a list of strings, found a mapping", what)
		return nil, false
	}
	s, ok := r.String(n, what)
	if !ok {
		return nil, false
	}
	return []string{s}, true
}

// Int decodes an integer scalar.
func (r *Reader) Int(n *yaml.Node, what string) (int, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		r.Errorf(n, "%s must be an integer, found %s", what, Describe(n))
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v > math.MaxInt32 || v < math.MinInt32 {
		r.Errorf(n, "%s: %q is out of range", what, n.Value)
		return 0, false
	}
	return int(v), true
}

// Float decodes a number scalar (integer or float).
func (r *Reader) Float(n *yaml.Node, what string) (float64, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		r.Errorf(n, "%s must be a number, found %s", what, Describe(n))
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		r.Errorf(n, "%s: %q is not a finite number", what, n.Value)
		return 0, false
	}
	return v, true
}

// Bool decodes a boolean scalar.
func (r *Reader) Bool(n *yaml.Node, what string) (bool, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		r.Errorf(n, "%s must be true or false, found %s", what, Describe(n))
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		r.Errorf(n, "%s: %v", what, err)
		return false, false
	}
	return b, true
}

// Sequence checks that n is a list and returns its items.
func (r *Reader) Sequence(n *yaml.Node, what string) ([]*yaml.Node, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		r.Errorf(n, "%s must be a list, found %s", what, Describe(n))
		return nil, false
	}
	return n.Content, true
}

// maxJSONNodes bounds the nodes JSON visits, aliases expanded, so a "billion laughs"
// document cannot exhaust memory.
const maxJSONNodes = 100_000

// NodeError is a problem JSON found at a node.
type NodeError struct {
	Node *yaml.Node
	Msg  string
}

// Error formats the problem as "line N: message".
func (e *NodeError) Error() string { return fmt.Sprintf("line %d: %s", e.Node.Line, e.Msg) }

func nodeErrorf(n *yaml.Node, format string, args ...any) *NodeError {
	return &NodeError{Node: n, Msg: fmt.Sprintf(format, args...)}
}

// JSON decodes n as JSON, reporting a problem at the node that has it.
func (r *Reader) JSON(n *yaml.Node, what string) (json.RawMessage, bool) {
	js, err := JSON(n)
	if err != nil {
		var ne *NodeError
		if errors.As(err, &ne) {
			r.Errorf(ne.Node, "%s: %s", what, ne.Msg)
		} else {
			r.Errorf(n, "%s: %v", what, err)
		}
		return nil, false
	}
	return js, true
}

// JSON converts a node to JSON, keeping mapping keys in file order. Keys must be scalars
// and unique; NaN and infinities, which JSON cannot hold, are errors (*NodeError); timestamps
// keep their text.
func JSON(n *yaml.Node) (json.RawMessage, error) {
	var buf bytes.Buffer
	budget := maxJSONNodes
	if err := writeJSON(&buf, n, 0, &budget); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, n *yaml.Node, depth int, budget *int) error {
	n = Resolve(n)
	if n == nil {
		buf.WriteString("null")
		return nil
	}
	if depth > MaxDepth {
		return nodeErrorf(n, "%s", tooDeep)
	}
	if *budget--; *budget < 0 {
		return nodeErrorf(n, "too many values (aliases expand to more than %d)", maxJSONNodes)
	}
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			key := Resolve(n.Content[i])
			if key == nil || key.Kind != yaml.ScalarNode {
				return nodeErrorf(n.Content[i], "keys must be plain names, found %s", Describe(key))
			}
			if seen[key.Value] {
				return nodeErrorf(key, "duplicate key %q", key.Value)
			}
			seen[key.Value] = true
			k, _ := json.Marshal(key.Value)
			buf.Write(k)
			buf.WriteByte(':')
			if err := writeJSON(buf, n.Content[i+1], depth+1, budget); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, c, depth+1, budget); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		var v any
		if n.Tag == "!!timestamp" {
			v = n.Value // as written, not reformatted by time.Time
		} else if err := n.Decode(&v); err != nil {
			return nodeErrorf(n, "%v", err)
		}
		if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return nodeErrorf(n, "%q has no JSON form", n.Value)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nodeErrorf(n, "%v", err)
		}
		buf.Write(b)
	default:
		buf.WriteString("null")
	}
	return nil
}
