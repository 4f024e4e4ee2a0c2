package fragment

import (
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// DecodeOptions tells Decode where the YAML came from.
type DecodeOptions struct {
	// File is the path shown in errors (FILE:LINE:COL: message).
	File string
	// BaseDir resolves relative `file:` and `skills:` paths. Empty means the directory of
	// File (or the current directory when File is empty too).
	BaseDir string
	// Read, when not nil, is called with the path of each file and folder the decoding
	// reads (a `file:` fragment, the skills folder and each SKILL.md), resolved against
	// the base directory: what a watcher of the context file must watch too.
	Read func(path string)
	// Content, when not nil, is called with what the decoding read of each file, in the
	// order read: the bytes of a `file:` fragment, the front matter of a SKILL.md (its
	// body is never read). name is the file's path as the context file writes it,
	// cleaned and with slashes (a SKILL.md's: the skills folder's, then its folder's
	// name, then SKILL.md), so it depends neither on the directory ctxlab runs in nor on
	// where the context file's folder is.
	Content func(name string, data []byte)
}

// read reports a path read to o.Read.
func (o DecodeOptions) read(path string) {
	if o.Read != nil {
		o.Read(path)
	}
}

// content reports what was read of the file the context file names name to o.Content.
func (o DecodeOptions) content(name string, data []byte) {
	if o.Content != nil {
		o.Content(name, data)
	}
}

// writtenName is a path as the context file writes it, cleaned and with slashes: the
// name Content reports it by.
func writtenName(p string) string { return filepath.ToSlash(filepath.Clean(p)) }

// baseDir returns the directory relative paths are resolved against.
func (o DecodeOptions) baseDir() string {
	switch {
	case o.BaseDir != "":
		return o.BaseDir
	case o.File != "":
		return filepath.Dir(o.File)
	}
	return "."
}

// resolve joins a path written in the context file to the base directory.
func (o DecodeOptions) resolve(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(o.baseDir(), p)
}

// Limits that keep hostile input cheap.
const (
	maxDepth     = 64                          // nesting of children, data and policies
	maxNodes     = 100_000                     // YAML nodes visited per Decode, aliases expanded
	maxFileBytes = 2 << 20                     // a `file:` fragment
	nameChars    = "letters, digits, _ - or ." // for messages about names
)

// Decode decodes one entry of the `system:` list: a mapping with exactly one key naming the
// fragment kind. The reminder form `fragment: {workflow: {...}}` is decoded by passing the
// value of `fragment:` (itself such a mapping). A DocumentNode is unwrapped.
//
// Every problem is a *diag.Error, or a diag.List when there are several, at the line and
// column of the offending node (inside SKILL.md for bad front matter).
//
// The kinds, their fields in output order (* = required) and their shorthand:
//
//	kind           mapping fields                                          plain string
//	role           -                                                       yes (only form)
//	hint           -                                                       yes (only form)
//	term           name*, definition*                                      no
//	guardrail      rule*, reason, action                                   yes
//	explain        concept*, explanation*, therefore                       no
//	example        question*, answer*, note                                no
//	clarification  when*, ask*, reason*                                    no
//	workflow       task*, steps* (list), triggers (list), notes            no
//	quirk          issue*, workaround*                                     no
//	styleGuide     prefer*, never, always                                  yes
//	analogy        concepts* (list), relationship*, insight, therefore,   no
//	               pitfall
//	glossary       a mapping of term to expression (file order)            no
//	principle      title*, description*, policies (list)                   yes
//	policy         rule*, before, reason, policies (list)                  yes
//	identity       name, role (at least one)                               yes
//	persona        name*, role*, objective, tone                           no
//	alias          term*, meaning*                                         no
//	preference     aspect*, value*                                         no
//	correction     subject*, clarification*                                no
//	fragment       name*, and one of children (list of fragments),         no
//	               data (any YAML, keys in file order) or file (a path)
//	skills         -                                                       yes: the folder
//
// A plain string (`- guardrail: Never expose PII`) is the fragment's whole content and
// renders like a hint (`<guardrail>Never expose PII</guardrail>`). Text fields accept any
// scalar (`answer: 42` is the text "42"); list fields take a list of texts; `policies` takes
// texts or policy mappings (rule, before, reason, policies). Optional fields left empty are
// omitted. `glossary` becomes a fragment with one `entry` child (term, expression) per pair.
// `fragment` names use letters, digits, _ - or . and start with a letter or _. A `data:`
// that is an empty text, list or mapping is accepted and renders nothing (nor do the empty
// members of a mapping); `data:` with no value at all is an error. A `file:`
// must be a regular file of at most 2 MiB; its CRLF line ends become LF and its final
// newline is dropped. `skills:` is decoded by LoadSkills into SkillsFragment.
func Decode(node *yaml.Node, opt DecodeOptions) (Fragment, error) {
	if node == nil {
		return Fragment{}, &diag.Error{File: opt.File, Msg: "no fragment to decode"}
	}
	d := &decoder{opt: opt, budget: maxNodes}
	f, ok := d.entry(node, 0)
	if !ok && len(d.errs) == 0 {
		d.errorf(node, "cannot decode this fragment")
	}
	if err := d.errs.Err(); err != nil {
		return Fragment{}, err
	}
	return f, nil
}

// decoder collects the problems of one Decode call.
type decoder struct {
	opt     DecodeOptions
	errs    diag.List
	budget  int
	tooMany bool
}

// errorf records a problem at node n of the context file.
func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	d.errs = append(d.errs, diag.Errorf(d.opt.File, line, col, format, args...))
}

// resolve follows aliases and counts visited nodes. It returns nil when the budget is spent.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > maxDepth || n.Alias == nil {
			d.errorf(n, "alias %q does not resolve", n.Value)
			return nil
		}
		n = n.Alias
	}
	if n == nil {
		return nil
	}
	d.budget--
	if d.budget < 0 {
		if !d.tooMany {
			d.tooMany = true
			d.errorf(n, "too many YAML nodes (aliases expand to more than %d)", maxNodes)
		}
		return nil
	}
	return n
}

// entry decodes a mapping with one kind key.
func (d *decoder) entry(node *yaml.Node, depth int) (Fragment, bool) {
	n := d.resolve(node)
	if n == nil {
		return Fragment{}, false
	}
	if depth > maxDepth {
		d.errorf(n, "fragments are nested too deeply (more than %d levels)", maxDepth)
		return Fragment{}, false
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			d.errorf(n, "empty document: expected a fragment like `hint: text`")
			return Fragment{}, false
		}
		return d.entry(n.Content[0], depth)
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "a fragment must be a mapping with one key naming its kind, like `hint: text`; got %s", describe(n))
		return Fragment{}, false
	}
	if len(n.Content) < 2 {
		d.errorf(n, "empty fragment: expected one key naming its kind (%s)", strings.Join(Kinds(), ", "))
		return Fragment{}, false
	}
	key, val := n.Content[0], n.Content[1]
	for i := 2; i+1 < len(n.Content); i += 2 {
		extra := n.Content[i]
		d.errorf(extra, "unexpected key %q beside %q: a fragment has exactly one key naming its kind (check the indentation of its fields)",
			extra.Value, key.Value)
	}
	if key = d.resolve(key); key == nil {
		return Fragment{}, false
	}
	if key.Kind != yaml.ScalarNode {
		d.errorf(key, "the fragment kind must be a name like hint, got %s", describe(key))
		return Fragment{}, false
	}
	spec, ok := kindByName[key.Value]
	if !ok {
		d.errorf(key, "unknown fragment kind %q%s", key.Value, suggest(key.Value, Kinds(), "known kinds"))
		return Fragment{}, false
	}
	switch spec.name {
	case kindGlossary:
		return d.glossary(key, val)
	case kindFragment:
		return d.generic(key, val, depth)
	case kindSkills:
		return d.skills(key, val)
	}
	return d.kind(spec, key, val, depth)
}

// isNull reports whether n is an empty value (`key:`, `~`, `null`).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names the kind of a node for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.DocumentNode:
		return "a document"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing"
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		}
		if n.Value == "" {
			return "an empty text"
		}
		return "a text"
	}
	return "an unknown node"
}
