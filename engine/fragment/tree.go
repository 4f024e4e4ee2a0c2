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

// tobj is an ordered object with unique keys.
type tobj struct {
	keys []string
	vals []any
	rep  []bool // the value is a list made of repeated keys
}

// tarr is an array.
type tarr []any

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
func buildTree(frags []Fragment, group bool) *tobj {
	root := &tobj{}
	addFragments(root, frags, group)
	return root
}

func addFragments(o *tobj, frags []Fragment, group bool) {
	for _, f := range frags {
		v := convert(f.Data, group)
		if v == nil {
			continue
		}
		key := validKey(f.Name)
		if group && groupName(key) != "" {
			o.appendTo(groupName(key), v)
			continue
		}
		o.merge(key, v)
	}
}

// convert turns a Value into the tree, or nil when it is empty.
func convert(v Value, group bool) any {
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
			if cv := convert(f.Value, group); cv != nil {
				o.merge(validKey(f.Key), cv)
			}
		}
		if len(o.keys) == 0 {
			return nil
		}
		return o
	case Fragment:
		o := &tobj{}
		addFragments(o, []Fragment{x}, group)
		if len(o.keys) == 0 {
			return nil
		}
		return o
	case List:
		if allFragments(x) {
			o := &tobj{}
			addFragments(o, fragmentItems(x), group)
			if len(o.keys) == 0 {
				return nil
			}
			return o
		}
		a := make(tarr, 0, len(x))
		for _, it := range x {
			if cv := convert(it, group); cv != nil {
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
