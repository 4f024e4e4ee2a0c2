package fragment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ctxlab/ctxlab/engine/diag"
	"go.yaml.in/yaml/v3"
)

// Decoding of the generic `fragment` kind (children, data, file) and of `skills`.

// genericFields are the fields of the `fragment` kind.
var genericFields = []string{"name", "children", "data", "file"}

// validName matches the names a `fragment` may have.
var validName = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_.-]*$`)

// generic decodes `fragment: {name, children|data|file}`.
func (d *decoder) generic(key, val *yaml.Node, depth int) (Fragment, bool) {
	if val = d.resolve(val); val == nil {
		return Fragment{}, false
	}
	if isNull(val) || val.Kind != yaml.MappingNode {
		what := "nothing"
		at := key
		if !isNull(val) {
			what, at = describe(val), val
		}
		d.errorf(at, "fragment needs a mapping with name and one of children, data or file, got %s", what)
		return Fragment{}, false
	}
	before := len(d.errs)
	var name string
	var nameKey, contentKey *yaml.Node
	var data Value
	for i := 0; i+1 < len(val.Content); i += 2 {
		k := d.resolve(val.Content[i])
		if k == nil {
			return Fragment{}, false
		}
		v := val.Content[i+1]
		field := ""
		if k.Kind == yaml.ScalarNode {
			field = k.Value
		}
		switch field {
		case "name":
			if nameKey != nil {
				d.errorf(k, "duplicate field %q in fragment", "name")
				continue
			}
			nameKey = k
			name = d.fragmentName(k, v)
		case "children", "data", "file":
			if contentKey != nil {
				d.errorf(k, "fragment takes only one of children, data or file; got %s and %s", contentKey.Value, field)
				continue
			}
			contentKey = k
			switch field {
			case "children":
				data = d.children(k, v, depth)
			case "data":
				// An empty text, list or mapping is data that renders nothing (the fragment
				// disappears); only a missing value (`data:` alone, ~) is a mistake.
				data = d.data(k, v, "fragment.data", depth+1)
				if data == nil && len(d.errs) == before {
					d.errorf(k, "fragment.data is empty")
				}
			case "file":
				data = d.file(k, v)
			}
		default:
			d.errorf(k, "unknown field %q in fragment%s", k.Value, suggest(k.Value, genericFields, "fields"))
		}
	}
	if nameKey == nil {
		d.errorf(key, "fragment is missing %q", "name")
	}
	if contentKey == nil {
		d.errorf(key, "fragment needs one of children, data or file")
	}
	return New(name, data), len(d.errs) == before
}

// fragmentName decodes and checks the name of a `fragment`.
func (d *decoder) fragmentName(key, node *yaml.Node) string {
	n := d.resolve(node)
	if n == nil {
		return ""
	}
	if isNull(n) {
		d.errorf(key, "fragment.name is empty")
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "fragment.name must be a text, got %s", describe(n))
		return ""
	}
	if !validName.MatchString(n.Value) {
		d.errorf(n, "fragment name %q is not a valid name: use %s, starting with a letter or _", n.Value, nameChars)
		return ""
	}
	return n.Value
}

// children decodes `children:`, a list of fragments.
func (d *decoder) children(key, node *yaml.Node, depth int) Value {
	n := d.resolve(node)
	if n == nil {
		return nil
	}
	switch {
	case isNull(n):
		d.errorf(key, "fragment.children must be a list of fragments, got nothing")
		return nil
	case n.Kind != yaml.SequenceNode:
		d.errorf(n, "fragment.children must be a list of fragments, got %s", describe(n))
		return nil
	case len(n.Content) == 0:
		d.errorf(n, "fragment.children is empty")
		return nil
	}
	l := make(List, 0, len(n.Content))
	for _, c := range n.Content {
		if f, ok := d.entry(c, depth+1); ok {
			l = append(l, f)
		}
	}
	return l
}

// data converts any YAML into a Value, keeping the order of mapping keys. Nulls are left out.
func (d *decoder) data(key, node *yaml.Node, path string, depth int) Value {
	n := d.resolve(node)
	if n == nil {
		return nil
	}
	if depth > maxDepth {
		d.errorf(n, "%s is nested too deeply (more than %d levels)", path, maxDepth)
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalar(n)
	case yaml.SequenceNode:
		l := make(List, 0, len(n.Content))
		for i, it := range n.Content {
			if v := d.data(key, it, fmt.Sprintf("%s[%d]", path, i), depth+1); v != nil {
				l = append(l, v)
			}
		}
		return l
	case yaml.MappingNode:
		o := make(Object, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := d.resolve(n.Content[i])
			if k == nil {
				return nil
			}
			if k.ShortTag() == "!!merge" {
				d.errorf(k, "merge keys (<<) are not supported in %s", path)
				continue
			}
			if k.Kind != yaml.ScalarNode || isNull(k) {
				d.errorf(k, "keys in %s must be texts, got %s", path, describe(k))
				continue
			}
			if hasKey(o, k.Value) {
				d.errorf(k, "duplicate key %q in %s", k.Value, path)
				continue
			}
			if v := d.data(k, n.Content[i+1], path+"."+k.Value, depth+1); v != nil {
				o = append(o, Field{Key: k.Value, Value: v})
			} else {
				o = append(o, Field{Key: k.Value}) // remembered for duplicate checks
			}
		}
		out := o[:0]
		for _, f := range o {
			if f.Value != nil {
				out = append(out, f)
			}
		}
		return out
	}
	d.errorf(n, "%s: unexpected %s", path, describe(n))
	return nil
}

func hasKey(o Object, k string) bool {
	for _, f := range o {
		if f.Key == k {
			return true
		}
	}
	return false
}

// scalar converts a YAML scalar by its resolved tag: bools, ints and floats keep their type;
// everything else (timestamps, custom tags) is the text as written.
func scalar(n *yaml.Node) Value {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return Bool(b)
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return Int(i)
		}
		var f float64
		if n.Decode(&f) == nil {
			return Float(f)
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil {
			return Float(f)
		}
	}
	return String(n.Value)
}

// file reads the data of `fragment: {file: PATH}`.
func (d *decoder) file(key, node *yaml.Node) Value {
	n := d.resolve(node)
	if n == nil {
		return nil
	}
	if isNull(n) || n.Kind != yaml.ScalarNode || n.Value == "" {
		at, what := key, "nothing"
		if !isNull(n) {
			at, what = n, describe(n)
		}
		d.errorf(at, "fragment.file must be a path, got %s", what)
		return nil
	}
	d.opt.read(d.opt.resolve(n.Value))
	text, raw, msg := readFile(d.opt.resolve(n.Value))
	if msg != "" {
		d.errorf(n, "%s: %s", n.Value, msg)
		return nil
	}
	d.opt.content(writtenName(n.Value), raw)
	if text == "" {
		d.errorf(n, "%s: file is empty", n.Value)
		return nil
	}
	return FileText(text)
}

// readFile reads a `file:` fragment: a regular file of at most maxFileBytes. CRLF becomes LF
// and the final newline is dropped in text; raw is the file's bytes as read. A non-empty
// msg says what is wrong.
func readFile(path string) (text string, raw []byte, msg string) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", nil, fsMessage(err, "file")
	}
	switch {
	case !fi.Mode().IsRegular():
		return "", nil, "is " + diag.FileKind(fi.Mode()) + ", not a file"
	case fi.Size() > maxFileBytes:
		return "", nil, fmt.Sprintf("file too large (%d bytes, at most %d)", fi.Size(), maxFileBytes)
	}
	b, err := readAtMost(path, maxFileBytes)
	if err != nil {
		return "", nil, fsMessage(err, "file")
	}
	if len(b) > maxFileBytes {
		return "", nil, fmt.Sprintf("file too large (more than %d bytes)", maxFileBytes)
	}
	if msg := badText(b); msg != "" {
		return "", nil, msg
	}
	text = strings.ReplaceAll(string(b), "\r\n", "\n")
	return strings.TrimSuffix(text, "\n"), b, ""
}

// badText says where a `file:` fragment holds bytes that are not text: the first byte that
// is not UTF-8, or a NUL, by line and column (in code points). Such bytes used to become
// U+FFFD in the prompt sent, silently.
func badText(b []byte) string {
	line, col := 1, 1
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return fmt.Sprintf("invalid UTF-8 (byte 0x%02x) at line %d, column %d: a file: fragment is UTF-8 text", b[i], line, col)
		case r == 0:
			return fmt.Sprintf("a NUL byte at line %d, column %d: a file: fragment is text", line, col)
		case r == '\n':
			line, col = line+1, 0
		}
		i += size
		col++
	}
	return ""
}

// fsMessage turns a file system error into a short lower-case message.
func fsMessage(err error, what string) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such " + what
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// skills decodes `skills: ./folder`.
func (d *decoder) skills(key, val *yaml.Node) (Fragment, bool) {
	n := d.resolve(val)
	if n == nil {
		return Fragment{}, false
	}
	if isNull(n) || n.Kind != yaml.ScalarNode || n.Value == "" {
		at, what := key, "nothing"
		if !isNull(n) {
			at, what = n, describe(n)
		}
		d.errorf(at, "skills needs the path of a folder of */SKILL.md files, got %s", what)
		return Fragment{}, false
	}
	skills, msg, errs := loadSkills(n.Value, d.opt)
	if msg != "" {
		d.errorf(n, "%s: %s", n.Value, msg)
		return Fragment{}, false
	}
	if len(errs) > 0 {
		d.errs = append(d.errs, errs...)
		return Fragment{}, false
	}
	return SkillsFragment(skills), true
}

// readAtMost reads up to limit+1 bytes of the file at path: a file that grew after its size
// was checked is still read in bounded memory.
func readAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}
