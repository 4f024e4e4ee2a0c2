package jsonpos

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// Problem is a value of a JSON text that decoding into a Go type rejects.
type Problem struct {
	// Path locates the value; with Unknown it ends with the key that is not known.
	Path Path
	// Offset is the byte offset of the value; with Unknown, of the key's opening quote.
	Offset int64
	// Unknown tells that Path ends with a key that no field of the struct takes; Known
	// lists the keys it takes, in the order of its fields.
	Unknown bool
	Known   []string
	// Type is the Go type the value was decoded into, Raw the value's text, and Err the
	// error decoding it gave: a *json.UnmarshalTypeError, or the error of the type's
	// UnmarshalJSON. They are unset with Unknown.
	Type reflect.Type
	Raw  []byte
	Err  error
}

// FirstProblem returns the first problem, in file order, that a json.Decoder with
// DisallowUnknownFields finds decoding the JSON text b into a value of type t: a key that
// no field of a struct takes, or a value of the wrong type (one whose UnmarshalJSON fails
// included). ok is false when there is none (or b is not valid JSON: check that first).
// Keys match fields as encoding/json matches them (exactly, else under case folding);
// fields with the ",string" option are not checked.
func FirstProblem(b []byte, t reflect.Type) (p Problem, ok bool) {
	c := checker{s: scanner{b: b}, fields: map[reflect.Type][]field{}}
	found, _ := c.value(t)
	if found == nil {
		return Problem{}, false
	}
	return *found, true
}

type checker struct {
	s      scanner
	path   Path
	fields map[reflect.Type][]field
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// value checks the value at the scanner against t and steps over it. It returns the first
// problem found, or nil; ok is false when the text could not be read.
func (c *checker) value(t reflect.Type) (p *Problem, ok bool) {
	c.s.ws()
	start := c.s.i
	if start >= len(c.s.b) {
		return nil, false
	}
	if decodesItself(t) {
		return c.leaf(t, start)
	}
	first := c.s.b[start]
	if first == 'n' { // null leaves any other value as it is
		return nil, c.s.skipValue()
	}
	et := t
	for et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	switch et.Kind() {
	case reflect.Interface:
		if et.NumMethod() == 0 {
			return nil, c.s.skipValue()
		}
	case reflect.Struct:
		if first == '{' {
			return c.object(et)
		}
	case reflect.Map:
		if first == '{' {
			return c.mapping(et)
		}
	case reflect.Slice:
		if first == '[' && et.Elem().Kind() != reflect.Uint8 { // []byte is a base64 string
			return c.list(et.Elem(), -1)
		}
	case reflect.Array:
		if first == '[' {
			return c.list(et.Elem(), et.Len())
		}
	}
	return c.leaf(t, start)
}

// decodesItself reports whether values of t (or of what it points to) decode themselves.
func decodesItself(t reflect.Type) bool {
	for {
		if t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) ||
			(t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler))) {
			return true
		}
		if t.Kind() != reflect.Pointer {
			return false
		}
		t = t.Elem()
	}
}

// leaf decodes the value at start into a new value of t, with encoding/json.
func (c *checker) leaf(t reflect.Type, start int) (*Problem, bool) {
	if !c.s.skipValue() {
		return nil, false
	}
	raw := c.s.b[start:c.s.i]
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
		return &Problem{Path: c.path.Append(), Offset: int64(start), Type: t, Raw: raw, Err: err}, true
	}
	return nil, true
}

func (c *checker) object(t reflect.Type) (p *Problem, ok bool) {
	fields := c.fieldsOf(t)
	ok = c.s.object(func(key string, keyOff int) bool {
		f := lookup(fields, key)
		if f == nil {
			known := make([]string, len(fields))
			for i, f := range fields {
				known[i] = f.name
			}
			p = &Problem{Path: c.path.Append(key), Offset: int64(keyOff), Unknown: true, Known: known}
			return false
		}
		if f.quoted {
			return c.s.skipValue()
		}
		var ok bool
		c.path = append(c.path, key)
		p, ok = c.value(f.typ)
		c.path = c.path[:len(c.path)-1]
		return ok && p == nil
	})
	return p, ok || p != nil
}

func (c *checker) mapping(t reflect.Type) (p *Problem, ok bool) {
	kt := t.Key()
	ok = c.s.object(func(key string, keyOff int) bool {
		if kt.Kind() != reflect.String || decodesItself(kt) {
			// Decode the key alone, with a null value.
			k, _ := json.Marshal(key)
			raw := append(append([]byte{'{'}, k...), ":null}"...)
			if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
				p = &Problem{Path: c.path.Append(key), Offset: int64(keyOff), Type: kt, Raw: k, Err: err}
				return false
			}
		}
		var ok bool
		c.path = append(c.path, key)
		p, ok = c.value(t.Elem())
		c.path = c.path[:len(c.path)-1]
		return ok && p == nil
	})
	return p, ok || p != nil
}

// list checks an array's elements against elem; an array type of length n ignores the
// elements after the first n.
func (c *checker) list(elem reflect.Type, n int) (p *Problem, ok bool) {
	ok = c.s.array(func(i int) bool {
		if n >= 0 && i >= n {
			return c.s.skipValue()
		}
		var ok bool
		c.path = append(c.path, i)
		p, ok = c.value(elem)
		c.path = c.path[:len(c.path)-1]
		return ok && p == nil
	})
	return p, ok || p != nil
}

// field is a key a struct takes.
type field struct {
	name   string
	typ    reflect.Type
	quoted bool // the ",string" option
}

// lookup finds the field a key decodes into: the one named exactly so, else one named so
// under case folding.
func lookup(fields []field, key string) *field {
	for i := range fields {
		if fields[i].name == key {
			return &fields[i]
		}
	}
	for i := range fields {
		if strings.EqualFold(fields[i].name, key) {
			return &fields[i]
		}
	}
	return nil
}

// fieldsOf returns the keys struct type t takes, as encoding/json names them: the json
// tag's name or the field's, the fields of embedded structs promoted (a shallower field
// hides a deeper one of the same name).
func (c *checker) fieldsOf(t reflect.Type) []field {
	if fs, ok := c.fields[t]; ok {
		return fs
	}
	var out []field
	seen := map[string]bool{}
	level := []reflect.Type{t}
	visited := map[reflect.Type]bool{}
	for len(level) > 0 {
		var next []reflect.Type
		var here []field
		for _, st := range level {
			if visited[st] {
				continue
			}
			visited[st] = true
			for i := range st.NumField() {
				sf := st.Field(i)
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if name == "" && ft.Kind() == reflect.Struct {
						next = append(next, ft)
						continue
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				}
				if !sf.IsExported() {
					continue
				}
				if name == "" {
					name = sf.Name
				}
				quoted := false
				for _, o := range strings.Split(opts, ",") {
					quoted = quoted || o == "string"
				}
				here = append(here, field{name: name, typ: sf.Type, quoted: quoted})
			}
		}
		for _, f := range here {
			if !seen[f.name] {
				seen[f.name] = true
				out = append(out, f)
			}
		}
		level = next
	}
	c.fields[t] = out
	return out
}
