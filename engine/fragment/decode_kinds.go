package fragment

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Decoding of the kinds of the kinds table and of glossary.

// kind decodes a kind of the kinds table.
func (d *decoder) kind(spec *kindSpec, key, val *yaml.Node, depth int) (Fragment, bool) {
	if val = d.resolve(val); val == nil {
		return Fragment{}, false
	}
	if isNull(val) {
		d.errorf(key, "%s needs %s", spec.name, spec.wants())
		return Fragment{}, false
	}
	switch val.Kind {
	case yaml.ScalarNode:
		if !spec.textForm {
			d.errorf(val, "%s needs %s, got a text", spec.name, spec.wants())
			return Fragment{}, false
		}
		if val.Value == "" {
			d.errorf(val, "%s is empty", spec.name)
			return Fragment{}, false
		}
		return Text(spec.name, val.Value), true
	case yaml.MappingNode:
		if spec.fields == nil {
			d.errorf(val, "%s needs %s, got a mapping", spec.name, spec.wants())
			return Fragment{}, false
		}
		obj, ok := d.fields(spec, spec.name, key, val, depth)
		return New(spec.name, obj), ok
	}
	d.errorf(val, "%s needs %s, got %s", spec.name, spec.wants(), describe(val))
	return Fragment{}, false
}

// wants describes the accepted forms of a kind for messages.
func (k *kindSpec) wants() string {
	var req []string
	for _, f := range k.fields {
		if f.required || k.oneOf {
			req = append(req, f.name)
		}
	}
	conj := " and "
	if k.oneOf {
		conj = " or "
	}
	mapping := "a mapping with " + joinWords(req, conj)
	switch {
	case k.fields == nil:
		return "a text"
	case k.textForm:
		return "a text or " + mapping
	}
	return mapping
}

// fields decodes the mapping form of a kind into an Object in field order.
func (d *decoder) fields(spec *kindSpec, path string, key, val *yaml.Node, depth int) (Object, bool) {
	if depth > maxDepth {
		d.errorf(val, "%s is nested too deeply (more than %d levels)", path, maxDepth)
		return nil, false
	}
	before := len(d.errs)
	got := make([]Value, len(spec.fields))
	seen := make([]bool, len(spec.fields))
	names := make([]string, len(spec.fields))
	for i, f := range spec.fields {
		names[i] = f.name
	}
	for i := 0; i+1 < len(val.Content); i += 2 {
		k := d.resolve(val.Content[i])
		if k == nil {
			return nil, false
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "field names of %s must be texts, got %s", path, describe(k))
			continue
		}
		idx := -1
		for j, f := range spec.fields {
			if k.Kind == yaml.ScalarNode && f.name == k.Value {
				idx = j
				break
			}
		}
		if idx < 0 {
			d.errorf(k, "unknown field %q in %s%s", k.Value, path, suggest(k.Value, names, "fields"))
			continue
		}
		if seen[idx] {
			d.errorf(k, "duplicate field %q in %s", k.Value, path)
			continue
		}
		seen[idx] = true
		got[idx] = d.field(spec.fields[idx], path+"."+k.Value, k, val.Content[i+1], depth)
	}
	var missing []string
	obj := make(Object, 0, len(spec.fields))
	for i, f := range spec.fields {
		if isEmpty(got[i]) {
			if f.required && !seen[i] {
				missing = append(missing, fmt.Sprintf("%q", f.name))
			}
			continue
		}
		obj = append(obj, Field{Key: f.name, Value: got[i]})
	}
	if len(missing) > 0 {
		d.errorf(key, "%s is missing %s", path, joinWords(missing, " and "))
	}
	if spec.oneOf && len(obj) == 0 && len(d.errs) == before {
		d.errorf(key, "%s needs %s", path, spec.wants())
	}
	return obj, len(d.errs) == before
}

// field decodes one field value. Empty optional values return nil; problems are recorded.
func (d *decoder) field(f fieldSpec, path string, key, node *yaml.Node, depth int) Value {
	n := d.resolve(node)
	if n == nil {
		return nil
	}
	if isNull(n) {
		if f.required {
			d.errorf(key, "%s is empty", path)
		}
		return nil
	}
	switch f.typ {
	case fieldText:
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, "%s must be a text, got %s", path, describe(n))
			return nil
		}
		if n.Value == "" && f.required {
			d.errorf(n, "%s is empty", path)
		}
		return String(n.Value)
	case fieldTexts:
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, "%s must be a list of texts, got %s", path, describe(n))
			return nil
		}
		l := make(List, 0, len(n.Content))
		for i, it := range n.Content {
			it = d.resolve(it)
			if it == nil {
				return nil
			}
			if it.Kind != yaml.ScalarNode || isNull(it) || it.Value == "" {
				d.errorf(it, "%s[%d] must be a text, got %s", path, i, describe(it))
				continue
			}
			l = append(l, String(it.Value))
		}
		if len(n.Content) == 0 && f.required {
			d.errorf(n, "%s is empty", path)
		}
		return l
	case fieldPolicies:
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, "%s must be a list of texts or policy mappings, got %s", path, describe(n))
			return nil
		}
		l := make(List, 0, len(n.Content))
		for i, it := range n.Content {
			it = d.resolve(it)
			if it == nil {
				return nil
			}
			ipath := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case it.Kind == yaml.ScalarNode && !isNull(it) && it.Value != "":
				l = append(l, String(it.Value))
			case it.Kind == yaml.MappingNode:
				if obj, ok := d.fields(kindByName["policy"], ipath, it, it, depth+1); ok {
					l = append(l, obj)
				}
			default:
				d.errorf(it, "%s must be a text or a policy mapping, got %s", ipath, describe(it))
			}
		}
		return l
	}
	return nil
}

// glossary decodes a mapping of term to expression.
func (d *decoder) glossary(key, val *yaml.Node) (Fragment, bool) {
	if val = d.resolve(val); val == nil {
		return Fragment{}, false
	}
	if isNull(val) {
		d.errorf(key, "glossary needs a mapping of term to expression")
		return Fragment{}, false
	}
	if val.Kind != yaml.MappingNode {
		d.errorf(val, "glossary needs a mapping of term to expression, got %s", describe(val))
		return Fragment{}, false
	}
	before := len(d.errs)
	entries := make([]GlossaryEntry, 0, len(val.Content)/2)
	seen := make(map[string]bool, len(val.Content)/2)
	for i := 0; i+1 < len(val.Content); i += 2 {
		k, v := d.resolve(val.Content[i]), d.resolve(val.Content[i+1])
		if k == nil || v == nil {
			return Fragment{}, false
		}
		if k.Kind != yaml.ScalarNode || isNull(k) || k.Value == "" {
			d.errorf(k, "glossary terms must be texts, got %s", describe(k))
			continue
		}
		if seen[k.Value] {
			d.errorf(k, "duplicate glossary term %q", k.Value)
			continue
		}
		seen[k.Value] = true
		if v.Kind != yaml.ScalarNode || isNull(v) || v.Value == "" {
			d.errorf(v, "glossary expression of %q must be a text, got %s", k.Value, describe(v))
			continue
		}
		entries = append(entries, GlossaryEntry{Term: k.Value, Expression: v.Value})
	}
	if len(val.Content) == 0 {
		d.errorf(val, "glossary is empty")
	}
	return Glossary(entries...), len(d.errs) == before
}
