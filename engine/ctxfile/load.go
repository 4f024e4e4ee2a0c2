package ctxfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/fragment"
	"github.com/ctxlab/ctxlab/engine/yamlx"
	"github.com/ctxlab/ctxlab/predicates"
)

// Load reads and validates the context file at path (at most yamlx.MaxFileSize bytes).
func Load(path string) (*File, error) {
	data, err := yamlx.ReadFile(path, "a context file", yamlx.MaxFileSize)
	if err != nil {
		var de *diag.Error
		if errors.As(err, &de) {
			return nil, err
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, &diag.Error{File: path, Msg: "no such file"}
		}
		return nil, fmt.Errorf("read context file: %w", err)
	}
	return Parse(path, data)
}

// Parse validates a context file read from path (which names it in errors and anchors its
// relative paths). All problems found are returned together, in file order.
func Parse(path string, data []byte) (*File, error) {
	root, err := yamlx.Parse(path, data)
	if err != nil {
		return nil, err
	}
	l := &loader{
		r:     &yamlx.Reader{File: path},
		data:  data,
		exprs: map[string]predicates.Predicate{},
		sum:   sha256.New(),
		f: &File{
			Path:        path,
			Dir:         filepath.Dir(path),
			Version:     1,
			Renderer:    "xml",
			Classifiers: map[string]*predicates.Classifier{},
		},
	}
	l.digestPart("", data)
	if root == nil {
		l.f.digest = hex.EncodeToString(l.sum.Sum(nil))
		return l.f, nil
	}
	l.f.sources = []string{path}
	l.load(root)
	if err := l.r.Err(); err != nil {
		return nil, err
	}
	l.f.digest = hex.EncodeToString(l.sum.Sum(nil))
	return l.f, nil
}

type loader struct {
	r    *yamlx.Reader
	data []byte
	f    *File
	env  predicates.Env
	// exprs are the expressions parsed so far, by source: a file often repeats a condition,
	// and a predicate, immutable, can serve every place that writes it.
	exprs map[string]predicates.Predicate
	// sum sums up what the file and the files it names hold, as they are read (see
	// File.Digest).
	sum hash.Hash
}

// digestPart adds to the digest what was read of one file: name is its path as the context
// file writes it ("" for the context file itself), data what was read of it. Each part is
// its name and its length, then its bytes, so that parts cannot run into each other.
func (l *loader) digestPart(name string, data []byte) {
	fmt.Fprintf(l.sum, "%s\x00%d\x00", name, len(data))
	l.sum.Write(data)
}

var topKeys = []string{
	"version", "renderer", "group_fragments", "explain_reminders", "reminder_budget_tokens",
	"model", "system", "classifiers", "modes", "instructions", "reminders", "tools",
}

var renderers = []string{"xml", "markdown", "toml", "toon"}

func (l *loader) load(root *yaml.Node) {
	top, ok := l.r.Fields(root, "the context file", topKeys...)
	if !ok && top.Node == nil {
		return
	}
	f := l.f
	if n := top.Get("version"); n != nil {
		if v, ok := l.r.Int(n, "version"); ok && v != 1 {
			l.r.Errorf(n, "unsupported version %d; this ctxlab reads version 1", v)
		}
	}
	if n := top.Get("renderer"); n != nil {
		if s, ok := l.r.String(n, "renderer"); ok {
			if !contains(renderers, s) {
				l.r.Errorf(n, "unknown renderer %q; use one of xml, markdown, toml, toon%s", s, diag.DidYouMean(s, renderers))
			}
			f.Renderer = s
		}
	}
	if n := top.Get("group_fragments"); n != nil {
		f.GroupFragments, _ = l.r.Bool(n, "group_fragments")
	}
	if n := top.Get("reminder_budget_tokens"); n != nil {
		if v, ok := l.r.Int(n, "reminder_budget_tokens"); ok {
			if v < 0 {
				l.r.Errorf(n, "reminder_budget_tokens must be 0 (no budget) or more, found %d", v)
			}
			f.ReminderBudgetTokens = v
		}
	}
	if n := top.Get("model"); n != nil {
		l.model(n)
	}
	// Classifiers and the skills folder come first: expressions refer to them.
	if n := top.Get("classifiers"); n != nil {
		l.classifiers(n)
	}
	if n := top.Get("system"); n != nil {
		l.system(n)
	}
	if n := top.Get("modes"); n != nil {
		l.modes(n)
	}
	if n := top.Get("instructions"); n != nil {
		l.instructions(n)
	}
	if n := top.Get("reminders"); n != nil {
		l.reminders(n)
	}
	if n := top.Get("tools"); n != nil {
		l.tools(n)
	}
	f.ExplainReminders = len(f.Reminders) > 0
	if n := top.Get("explain_reminders"); n != nil {
		f.ExplainReminders, _ = l.r.Bool(n, "explain_reminders")
	}
}

func (l *loader) model(n *yaml.Node) {
	m, _ := l.r.Fields(n, "model", "name", "temperature", "top_p", "max_tokens", "seed")
	d := &l.f.Model
	if v := m.Get("name"); v != nil {
		d.Name, _ = l.r.String(v, "model.name")
	}
	if v := m.Get("temperature"); v != nil {
		if t, ok := l.r.Float(v, "model.temperature"); ok {
			if t < 0 || t > 2 {
				l.r.Errorf(v, "model.temperature must be between 0 and 2, found %g", t)
			}
			d.Temperature = &t
		}
	}
	if v := m.Get("top_p"); v != nil {
		if t, ok := l.r.Float(v, "model.top_p"); ok {
			if t < 0 || t > 1 {
				l.r.Errorf(v, "model.top_p must be between 0 and 1, found %g", t)
			}
			d.TopP = &t
		}
	}
	if v := m.Get("max_tokens"); v != nil {
		if t, ok := l.r.Int(v, "model.max_tokens"); ok {
			if t < 1 {
				l.r.Errorf(v, "model.max_tokens must be at least 1, found %d", t)
			}
			d.MaxTokens = t
		}
	}
	if v := m.Get("seed"); v != nil {
		if t, ok := l.r.Int(v, "model.seed"); ok {
			d.Seed = &t
		}
	}
}

func (l *loader) classifiers(n *yaml.Node) {
	m, _ := l.r.Mapping(n, "classifiers")
	for _, e := range m.List {
		name := e.Key.Value
		items, ok := l.r.Sequence(e.Value, "classifier "+name)
		if !ok {
			continue
		}
		if len(items) == 0 {
			l.r.Errorf(e.Value, "classifier %q has no items", name)
			continue
		}
		var list []predicates.ClassifierItem
		seen := map[string]int{}
		for _, it := range items {
			fs, ok := l.r.Fields(it, "classifier item", "name", "description")
			if !ok && fs.Node == nil {
				continue
			}
			var item predicates.ClassifierItem
			if v := fs.Get("name"); v != nil {
				item.Name, _ = l.r.String(v, "classifier item name")
			} else {
				l.r.Errorf(it, "classifier item needs a name")
			}
			if v := fs.Get("description"); v != nil {
				item.Description, _ = l.r.String(v, "classifier item description")
			}
			if v := fs.Get("name"); v != nil {
				if line, dup := seen[item.Name]; dup {
					l.r.Errorf(v, "classifier %q: duplicate item %q (first at line %d)", name, item.Name, line)
				} else {
					seen[item.Name] = v.Line
				}
			}
			list = append(list, item)
		}
		l.f.Classifiers[name] = predicates.NewClassifier(list)
	}
	l.env.Classifiers = l.f.Classifiers
}

func (l *loader) system(n *yaml.Node) {
	items, ok := l.r.Sequence(n, "system")
	if !ok {
		return
	}
	opt := l.decodeOptions()
	for _, it := range items {
		frag, err := fragment.Decode(it, opt)
		if err != nil {
			l.addErr(err)
			continue
		}
		if skills, ok := fragment.SkillsOf(frag); ok {
			if l.f.SkillIndex != nil {
				l.r.Errorf(it, "only one skills folder is allowed")
			}
			l.f.Skills = skills
			items := make([]predicates.ClassifierItem, len(skills))
			for i, s := range skills {
				items[i] = predicates.ClassifierItem{Name: s.Name, Description: s.Description}
			}
			l.f.SkillIndex = predicates.NewClassifier(items)
		}
		l.f.System = append(l.f.System, frag)
	}
}

// decodeOptions are the options of a fragment decoding, which records the files it reads
// in the file's sources, and what it read of them in its digest.
func (l *loader) decodeOptions() fragment.DecodeOptions {
	return fragment.DecodeOptions{File: l.r.File, BaseDir: l.f.Dir, Read: func(p string) {
		if !contains(l.f.sources, p) {
			l.f.sources = append(l.f.sources, p)
		}
	}, Content: l.digestPart}
}

// addErr records an error from another decoder, keeping its positions.
func (l *loader) addErr(err error) {
	var e *diag.Error
	var list diag.List
	switch {
	case errors.As(err, &list):
		l.r.Errs = append(l.r.Errs, list...)
	case errors.As(err, &e):
		l.r.Errs = append(l.r.Errs, e)
	default:
		l.r.Errs = append(l.r.Errs, &diag.Error{File: l.r.File, Msg: err.Error()})
	}
}

// expr parses a predicate expression, reporting errors at the offending character.
func (l *loader) expr(n *yaml.Node, what string) predicates.Predicate {
	src, ok := l.r.String(n, what)
	if !ok {
		return nil
	}
	if p, ok := l.exprs[src]; ok {
		return p
	}
	p, err := predicates.Parse(src, &l.env)
	if err != nil {
		var pe *predicates.ParseError
		if errors.As(err, &pe) {
			line, col := yamlx.ValuePosition(l.data, n, pe.Offset)
			l.r.Errs = append(l.r.Errs, diag.Errorf(l.r.File, line, col, "%s: %s", what, pe.Msg))
		} else {
			l.r.Errorf(n, "%s: %v", what, err)
		}
		return nil
	}
	l.exprs[src] = p
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
