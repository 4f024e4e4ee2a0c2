package fragment

import (
	"strings"
	"unicode/utf8"
)

// TOML and TOON are key/value formats: before writing them, fragments become a tree of
// ordered objects (tobj), arrays (tarr) and scalars (String with clean text, Int, Float,
// Bool). Same-named fragments at one level share one key, at the place of the first: a single
// one is its value, several make a list. With GroupFragments the key is the plural name and
// always holds a list, except for a name that is its own plural (see groupName), which is
// keyed as without grouping. Empty values are left out.
//
// TOON writes the children of a fragment as the reference's ToonRenderer does: a list (tkids)
// with one item per child, each a one-key object (`- hint: text`), rather than keys of an
// object; with GroupFragments, an item per group (`- hints[2]: a,b`). It also writes a
// glossary as the reference's data, a table of term and expression.

// tobj is an ordered object with unique keys.
type tobj struct {
	keys []string
	vals []any
	rep  []bool // the value is a list made of repeated keys
}

// tarr is an array.
type tarr []any

// tkids is the children of a fragment written as a list (TOON): never inline or tabular.
type tkids []any

// treeOptions say how fragments become a tree.
type treeOptions struct {
	group     bool // Options.GroupFragments
	childList bool // children are a tkids of one-key objects (TOON), not the keys of an object
}

func (o *tobj) index(k string) int {
	for i, key := range o.keys {
		if key == k {
			return i
		}
	}
	return -1
}

// merge adds v under k; a repeated key turns the value into a list of the values.
func (o *tobj) merge(k string, v any) {
	i := o.index(k)
	switch {
	case i < 0:
		o.keys = append(o.keys, k)
		o.vals = append(o.vals, v)
		o.rep = append(o.rep, false)
	case o.rep[i]:
		o.vals[i] = append(o.vals[i].(tarr), v)
	default:
		o.vals[i] = tarr{o.vals[i], v}
		o.rep[i] = true
	}
}

// appendTo adds v to the list under k.
func (o *tobj) appendTo(k string, v any) {
	if i := o.index(k); i >= 0 && o.rep[i] {
		o.vals[i] = append(o.vals[i].(tarr), v)
		return
	} else if i >= 0 {
		o.vals[i] = tarr{o.vals[i], v}
		o.rep[i] = true
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, tarr{v})
	o.rep = append(o.rep, true)
}

// buildTree converts top-level fragments to the root object.
func buildTree(frags []Fragment, opt treeOptions) *tobj {
	root := &tobj{}
	addFragments(root, frags, opt)
	return root
}

func addFragments(o *tobj, frags []Fragment, opt treeOptions) {
	for _, f := range frags {
		v := convertFragment(f, opt)
		if v == nil {
			continue
		}
		key := validKey(f.Name)
		if opt.group && groupName(key) != "" {
			o.appendTo(groupName(key), v)
			continue
		}
		o.merge(key, v)
	}
}

// convertFragment turns the data of f into the tree, or nil when it is empty.
func convertFragment(f Fragment, opt treeOptions) any {
	if opt.childList && f.Name == kindGlossary {
		if rows, ok := glossaryRows(f.Data); ok {
			if len(rows) == 0 {
				return nil
			}
			return rows
		}
	}
	return convert(f.Data, opt)
}

// glossaryRows returns the entries of a glossary as an array of objects (term, expression),
// the data of the reference's glossary, and true; false when d is not a list of `entry`
// fragments holding objects.
func glossaryRows(d Value) (tarr, bool) {
	l, ok := d.(List)
	if !ok || len(l) == 0 {
		return nil, false
	}
	rows := make(tarr, 0, len(l))
	for _, v := range l {
		e, ok := v.(Fragment)
		if !ok || e.Name != "entry" {
			return nil, false
		}
		if _, ok := e.Data.(Object); !ok {
			return nil, false
		}
		if row := convert(e.Data, treeOptions{}); row != nil {
			rows = append(rows, row)
		}
	}
	return rows, true
}

// convert turns a Value into the tree, or nil when it is empty.
func convert(v Value, opt treeOptions) any {
	switch x := v.(type) {
	case nil:
		return nil
	case String:
		if s := cleanText(string(x)); s != "" {
			return String(s)
		}
		return nil
	case FileText:
		if s := cleanFileText(string(x)); s != "" {
			return String(s)
		}
		return nil
	case Int, Float, Bool:
		return x
	case Object:
		o := &tobj{}
		for _, f := range x {
			if cv := convert(f.Value, opt); cv != nil {
				o.merge(validKey(f.Key), cv)
			}
		}
		if len(o.keys) == 0 {
			return nil
		}
		return o
	case Fragment:
		o := &tobj{}
		addFragments(o, []Fragment{x}, opt)
		if len(o.keys) == 0 {
			return nil
		}
		return o
	case List:
		if opt.childList && hasFragment(x) {
			return childList(x, opt)
		}
		if allFragments(x) {
			o := &tobj{}
			addFragments(o, fragmentItems(x), opt)
			if len(o.keys) == 0 {
				return nil
			}
			return o
		}
		a := make(tarr, 0, len(x))
		for _, it := range x {
			if cv := convert(it, opt); cv != nil {
				a = append(a, cv)
			}
		}
		if len(a) == 0 {
			return nil
		}
		return a
	}
	return nil
}

// childList converts a list holding fragments to a tkids: each fragment is an item of one
// key, its name, and other values are items as they are. With grouping, the fragments of a
// name that has a plural are one item, at the place of the first, keyed by the plural and
// holding the list of their data.
func childList(l List, opt treeOptions) any {
	items := make(tkids, 0, len(l))
	var groups map[string]*tobj // the item of each group, when grouping
	for _, v := range l {
		f, ok := v.(Fragment)
		if !ok {
			if cv := convert(v, opt); cv != nil {
				items = append(items, cv)
			}
			continue
		}
		cv := convertFragment(f, opt)
		if cv == nil {
			continue
		}
		key := validKey(f.Name)
		if g := groupName(key); opt.group && g != "" {
			if o, ok := groups[g]; ok {
				o.appendTo(g, cv)
				continue
			}
			o := &tobj{}
			o.appendTo(g, cv)
			if groups == nil {
				groups = map[string]*tobj{}
			}
			groups[g] = o
			items = append(items, o)
			continue
		}
		items = append(items, &tobj{keys: []string{key}, vals: []any{cv}, rep: []bool{false}})
	}
	if len(items) == 0 {
		return nil
	}
	return items
}

func hasFragment(l List) bool {
	for _, v := range l {
		if _, ok := v.(Fragment); ok {
			return true
		}
	}
	return false
}

func allFragments(l List) bool {
	for _, v := range l {
		if _, ok := v.(Fragment); !ok {
			return false
		}
	}
	return len(l) > 0
}

// validKey replaces invalid UTF-8 in a key by U+FFFD before keys are compared, so that two
// keys that print alike are one key.
func validKey(k string) string {
	if utf8.ValidString(k) {
		return k
	}
	return strings.ToValidUTF8(k, "\uFFFD")
}

// isScalar reports whether a tree value is a scalar.
func isScalar(v any) bool {
	switch v.(type) {
	case String, Int, Float, Bool:
		return true
	}
	return false
}
