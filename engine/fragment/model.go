// Package fragment is the system prompt model of ctxlab: the fragments of a context file's
// `system:` list, their decoding from YAML with exact positions, the skills folder, and the
// four renderers (XML, Markdown, TOML, TOON).
//
// A Fragment is a name plus data. Data is a Value: a scalar (String, FileText, Int, Float,
// Bool), an ordered Object, a List, or a nested Fragment. Embedders build fragments in Go with
// the kind constructors (Role, Hint, Term, Guardrail, ...) or with New and Group; context
// files are decoded entry by entry with Decode. Render turns a list of fragments into the text
// of the system prompt (the lead appends the instructions block and the reminder explanation).
//
// The kinds of the context file and their fields are listed on Decode.
//
// Rendering rules shared by the four formats: texts lose their trailing newlines, except the
// text of a `file:` fragment (FileText), which lost only its final newline when it was read,
// as the spec says (a file that is not UTF-8 text is refused when it is read); CRLF becomes LF
// and invalid UTF-8 in other texts becomes U+FFFD; empty strings, lists and
// objects render nothing, and neither does a fragment or element left empty; blank lines
// inside multi-line text stay empty; kinds keep the field order of @deepagents/context and
// `data:` objects the order of the file. XML and Markdown keep the order of the fragments.
// TOML and TOON are key/value formats: fragments of the same name at one level share one key,
// placed where the first one was (a list when there are several), and TOML writes the plain
// keys of a table before its sub-tables, so a text fragment that follows a table moves up to
// the top. TOON writes the children of a fragment as the ToonRenderer of @deepagents/context
// does, a list with one item per child (`sql_guidelines[2]:` then `  - hint: …`), and a
// glossary as a table of term and expression.
package fragment

// Value is the data of a fragment: String, FileText, Int, Float, Bool, Object, List or
// Fragment. The set is closed; a nil Value is empty data and renders nothing.
type Value interface {
	isValue()
}

// String is a text value. Renderers drop its trailing newlines (a YAML `|` block ends with
// one; it means nothing in a prompt).
type String string

// FileText is the text of a `file:` fragment as read: CRLF made LF and the final newline
// dropped. Unlike a String, it keeps its other trailing newlines when rendered ("a\n\n" in
// the file renders as "a\n"); a text of line breaks only is empty.
type FileText string

// Int is an integer value.
type Int int64

// Float is a floating-point value.
type Float float64

// Bool is a boolean value.
type Bool bool

// Field is one key of an Object with its value.
type Field struct {
	Key   string
	Value Value
}

// Object is an ordered mapping: renderers keep the order of its fields.
type Object []Field

// List is an ordered sequence of values. A list of Fragments is the children of a fragment.
type List []Value

// Fragment is a named piece of the system prompt. Its Data is a scalar, an Object, a List
// (of values or of child fragments) or a single nested Fragment.
type Fragment struct {
	Name string
	Data Value
}

func (String) isValue()   {}
func (FileText) isValue() {}
func (Int) isValue()      {}
func (Float) isValue()    {}
func (Bool) isValue()     {}
func (Object) isValue()   {}
func (List) isValue()     {}
func (Fragment) isValue() {}

// New returns a fragment with the given name and data.
func New(name string, data Value) Fragment {
	return Fragment{Name: name, Data: data}
}

// Group returns a fragment whose data is its children, in order (the generic `fragment`
// kind with `children`).
func Group(name string, children ...Fragment) Fragment {
	l := make(List, len(children))
	for i, c := range children {
		l[i] = c
	}
	return Fragment{Name: name, Data: l}
}

// Text returns a fragment whose data is one text.
func Text(name, text string) Fragment {
	return Fragment{Name: name, Data: String(text)}
}

// Get returns the value of the first field named key, or nil.
func (o Object) Get(key string) Value {
	for _, f := range o {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// Children returns the child fragments of f (the fragments in its List data, or its nested
// Fragment data), in order.
func (f Fragment) Children() []Fragment {
	switch d := f.Data.(type) {
	case Fragment:
		return []Fragment{d}
	case List:
		var out []Fragment
		for _, v := range d {
			if c, ok := v.(Fragment); ok {
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}

// Strings returns a List holding the given texts.
func Strings(texts ...string) List {
	if len(texts) == 0 {
		return nil
	}
	l := make(List, len(texts))
	for i, t := range texts {
		l[i] = String(t)
	}
	return l
}

// object builds an Object from key/value pairs, leaving out empty values (empty strings,
// nil, empty lists and objects), as the reference helpers do for optional fields.
func object(pairs ...Field) Object {
	o := make(Object, 0, len(pairs))
	for _, p := range pairs {
		if isEmpty(p.Value) {
			continue
		}
		o = append(o, p)
	}
	return o
}

// isEmpty reports whether v renders nothing at its own level: nil, an empty string, an empty
// list or object.
func isEmpty(v Value) bool {
	switch x := v.(type) {
	case nil:
		return true
	case String:
		return x == ""
	case FileText:
		return cleanFileText(string(x)) == ""
	case List:
		return len(x) == 0
	case Object:
		return len(x) == 0
	}
	return false
}
