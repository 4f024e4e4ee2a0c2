package ctxfile

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/yamlx"
	"github.com/ctxlab/ctxlab/predicates"
)

func (l *loader) modes(n *yaml.Node) {
	items, ok := l.r.Sequence(n, "modes")
	if !ok {
		return
	}
	seen := map[string]int{}
	for _, it := range items {
		fs, ok := l.r.Fields(it, "mode", "name", "if")
		if !ok && fs.Node == nil {
			continue
		}
		var m Mode
		if v := fs.Get("name"); v != nil {
			m.Name, _ = l.r.String(v, "mode name")
			if line, dup := seen[m.Name]; dup {
				l.r.Errorf(v, "duplicate mode %q (first at line %d)", m.Name, line)
			} else {
				seen[m.Name] = v.Line
			}
		} else {
			l.r.Errorf(it, "mode needs a name")
		}
		if v := fs.Get("if"); v != nil {
			m.If = l.expr(v, "mode if")
		} else {
			l.r.Errorf(it, "mode %q needs an if condition", m.Name)
		}
		l.f.Modes = append(l.f.Modes, m)
	}
}

var instructionKeys = []string{"id", "kind", "mode", "prompt", "when", "if", "enabled"}

func (l *loader) instructions(n *yaml.Node) {
	items, ok := l.r.Sequence(n, "instructions")
	if !ok {
		return
	}
	seen := map[string]int{}
	modes := make([]string, len(l.f.Modes))
	for i, m := range l.f.Modes {
		modes[i] = m.Name
	}
	for _, it := range items {
		fs, ok := l.r.Fields(it, "instruction", instructionKeys...)
		if !ok && fs.Node == nil {
			continue
		}
		in := Instruction{Kind: KindShould, Enabled: true}
		in.ID = l.id(fs, it, "instruction", seen)
		if v := fs.Get("kind"); v != nil {
			if s, ok := l.r.String(v, "kind"); ok {
				kinds := []string{KindMust, KindNever, KindShould}
				if !contains(kinds, s) {
					l.r.Errorf(v, "unknown instruction kind %q; use must, never or should%s", s, kindHint(s, kinds))
				}
				in.Kind = s
			}
		}
		if v := fs.Get("mode"); v != nil {
			if s, ok := l.r.String(v, "mode"); ok {
				if !contains(modes, s) {
					l.r.Errorf(v, "unknown mode %q%s", s, orKnown(s, modes, "no modes are declared"))
				}
				in.Mode = s
			}
		}
		if v := fs.Get("prompt"); v != nil {
			if s, ok := l.r.String(v, "prompt"); ok {
				if strings.TrimSpace(s) == "" {
					l.r.Errorf(v, "instruction %q has an empty prompt", in.ID)
				}
				in.Prompt = strings.TrimSpace(s)
			}
		} else {
			l.r.Errorf(it, "instruction %q needs a prompt", in.ID)
		}
		if v := fs.Get("when"); v != nil {
			in.When, _ = l.r.Strings(v, "when")
			for _, w := range in.When {
				if strings.TrimSpace(strings.TrimPrefix(w, "!")) == "" {
					l.r.Errorf(v, "instruction %q has an empty when condition", in.ID)
				}
			}
		}
		if v := fs.Get("if"); v != nil {
			for _, e := range l.exprList(v, "if") {
				if e != nil {
					in.If = append(in.If, e)
				}
			}
		}
		if v := fs.Get("enabled"); v != nil {
			in.Enabled, _ = l.r.Bool(v, "enabled")
		}
		l.f.Instructions = append(l.f.Instructions, in)
	}
}

// exprList parses one expression or a list of them.
func (l *loader) exprList(n *yaml.Node, what string) []predicates.Predicate {
	if n = yamlx.Resolve(n); n.Kind != yaml.SequenceNode {
		return []predicates.Predicate{l.expr(n, what)}
	}
	out := make([]predicates.Predicate, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, l.expr(c, what))
	}
	return out
}

// id reads a required, unique id.
func (l *loader) id(fs yamlx.Fields, at *yaml.Node, what string, seen map[string]int) string {
	v := fs.Get("id")
	if v == nil {
		l.r.Errorf(at, "%s needs an id", what)
		return ""
	}
	s, ok := l.r.String(v, what+" id")
	if !ok {
		return ""
	}
	if strings.TrimSpace(s) == "" {
		l.r.Errorf(v, "%s id must not be empty", what)
	}
	if line, dup := seen[s]; dup {
		l.r.Errorf(v, "duplicate %s id %q (first at line %d)", what, s, line)
	} else {
		seen[s] = v.Line
	}
	return s
}

func orKnown(name string, known []string, none string) string {
	if len(known) == 0 {
		return "; " + none
	}
	if s := diag.DidYouMean(name, known); s != "" {
		return s
	}
	return "; known: " + strings.Join(known, ", ")
}

var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func (l *loader) tools(n *yaml.Node) {
	items, ok := l.r.Sequence(n, "tools")
	if !ok {
		return
	}
	seen := map[string]int{}
	for _, it := range items {
		fs, ok := l.r.Fields(it, "tool", "name", "description", "parameters", "result", "error")
		if !ok && fs.Node == nil {
			continue
		}
		var t Tool
		if v := fs.Get("name"); v != nil {
			if s, ok := l.r.String(v, "tool name"); ok {
				if !toolNameRE.MatchString(s) {
					l.r.Errorf(v, "tool name %q must be 1 to 64 letters, digits, _ or -", s)
				}
				if line, dup := seen[s]; dup {
					l.r.Errorf(v, "duplicate tool %q (first at line %d)", s, line)
				} else {
					seen[s] = v.Line
				}
				t.Name = s
			}
		} else {
			l.r.Errorf(it, "tool needs a name")
		}
		if v := fs.Get("description"); v != nil {
			t.Description, _ = l.r.String(v, "tool description")
		}
		if v := fs.Get("parameters"); v != nil {
			if ps, ok := l.r.Mapping(v, "tool parameters"); ok {
				if ty := ps.Get("type"); ty != nil && ty.Value != "object" {
					l.r.Errorf(ty, "tool parameters must be a JSON schema of type object, found type %q", ty.Value)
				}
				t.Parameters, _ = l.r.JSON(v, "tool parameters")
			}
		}
		res, errv := fs.Get("result"), fs.Get("error")
		switch {
		case res != nil && errv != nil:
			l.r.Errorf(errv, "tool %q has both result and error; give one", t.Name)
		case res != nil:
			t.Result = l.toolText(res, "tool result")
		case errv != nil:
			t.Error, _ = l.r.String(errv, "tool error")
			t.IsError = true
		default:
			l.r.Errorf(it, "tool %q needs a canned result or error", t.Name)
		}
		l.f.Tools = append(l.f.Tools, t)
	}
}

// toolText reads a tool output: a string as is, anything else as JSON.
func (l *loader) toolText(n *yaml.Node, what string) string {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		return n.Value
	}
	js, _ := l.r.JSON(n, what)
	return string(js)
}

// kindHint is the did-you-mean of an unknown instruction kind: never for the negative
// kinds other guides use (must_not, mustn't, should not, don't), else the nearest kind.
func kindHint(s string, kinds []string) string {
	k := strings.NewReplacer("_", "", "-", "", " ", "", "'", "").Replace(strings.ToLower(s))
	switch k {
	case "mustnot", "mustnt", "shouldnot", "shouldnt", "dont", "donot", "not", "no", "forbid", "forbidden":
		return "; did you mean never?"
	}
	return diag.DidYouMean(s, kinds)
}
