package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	goccy "github.com/goccy/go-yaml"
	goccyparser "github.com/goccy/go-yaml/parser"
	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/llm/tokens"
)

// File is a parsed config file:
//
//	default_profile: local
//	profiles:
//	  local:
//	    base_url: http://127.0.0.1:11434/v1
//	    model: llama3.1
//	    api_key_env: OLLAMA_KEY          # or api_key_cmd: "pass show openai"
//	    temperature: 0.2
//	    top_p: 0.9
//	    max_tokens: 1024
//	    seed: 7
//	    tokenizer: cl100k                # o200k or cl100k; by model name when absent
//	    prices:
//	      llama3.1: {input: 0, cached_input: 0, output: 0}
type File struct {
	Path           string
	DefaultProfile string
	Profiles       map[string]*Profile
}

// Profile is a named set of model settings of a config file. Zero values are unset.
type Profile struct {
	Name        string
	BaseURL     string
	Model       string
	APIKeyEnv   string // the name of the environment variable that holds the key
	APIKeyCmd   string // a shell command that prints the key
	Temperature *float64
	TopP        *float64
	MaxTokens   int
	Seed        *int
	Tokenizer   tokens.Encoding
	Prices      map[string]tokens.Price
}

// Names returns the profile names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var (
	fileKeys    = []string{"default_profile", "profiles"}
	profileKeys = []string{"base_url", "model", "api_key_env", "api_key_cmd", "temperature", "top_p", "max_tokens", "seed", "tokenizer", "prices"}
	priceKeys   = []string{"input", "cached_input", "output"}
	envNameRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	yamlLineRE  = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
)

// Parse reads a config file strictly: a syntax error, an unknown key, a duplicate key or a
// value of the wrong type is a *diag.Error (FILE:LINE:COL: message); all problems are
// reported at once, as a diag.List. An empty file is a valid file with no profile.
func Parse(path string, data []byte) (*File, error) {
	f := &File{Path: path, Profiles: map[string]*Profile{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		return nil, syntaxError(path, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, diag.Errorf(path, extra.Line, extra.Column, "expected one YAML document, found a second one")
	}
	if len(doc.Content) == 0 {
		return f, nil
	}
	r := &reader{file: path}
	root := resolve(doc.Content[0])
	if isNull(root) {
		return f, nil
	}
	var defaultNode *yaml.Node
	for _, e := range r.fields(root, "the config file", fileKeys) {
		switch e.key.Value {
		case "default_profile":
			defaultNode = e.value
			f.DefaultProfile, _ = r.str(e.value, "default_profile")
		case "profiles":
			for _, p := range r.fields(e.value, "profiles", nil) {
				name := p.key.Value
				f.Profiles[name] = r.profile(p.value, name)
			}
		}
	}
	if defaultNode != nil && f.DefaultProfile != "" && f.Profiles[f.DefaultProfile] == nil {
		names := f.Names()
		hint := diag.DidYouMean(f.DefaultProfile, names)
		if hint == "" {
			hint = " (profiles: " + strings.Join(names, ", ") + ")"
		}
		r.errorf(defaultNode, "default_profile %q names no profile%s", f.DefaultProfile, hint)
	}
	if err := r.errs.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

func (r *reader) profile(n *yaml.Node, name string) *Profile {
	p := &Profile{Name: name}
	what := "profile " + name
	var keyEnv, keyCmd *yaml.Node
	for _, e := range r.fields(n, what, profileKeys) {
		key, v := e.key.Value, e.value
		field := what + ": " + key
		switch key {
		case "base_url":
			if s, ok := r.str(v, field); ok {
				if err := checkURL(s); err != nil {
					r.errorf(v, "%s: %v", field, err)
				}
				p.BaseURL = s
			}
		case "model":
			p.Model, _ = r.str(v, field)
		case "api_key_env":
			keyEnv = v
			if s, ok := r.str(v, field); ok {
				if !envNameRE.MatchString(s) {
					r.errorf(v, "%s: %q is not an environment variable name", field, s)
				}
				p.APIKeyEnv = s
			}
		case "api_key_cmd":
			keyCmd = v
			if s, ok := r.str(v, field); ok {
				if strings.TrimSpace(s) == "" {
					r.errorf(v, "%s: the command is empty", field)
				}
				p.APIKeyCmd = s
			}
		case "temperature":
			if x, ok := r.number(v, field, 0, 2); ok {
				p.Temperature = &x
			}
		case "top_p":
			if x, ok := r.number(v, field, 0, 1); ok {
				p.TopP = &x
			}
		case "max_tokens":
			if x, ok := r.integer(v, field); ok {
				if x <= 0 {
					r.errorf(v, "%s must be a positive integer, found %d", field, x)
				}
				p.MaxTokens = x
			}
		case "seed":
			if x, ok := r.integer(v, field); ok {
				p.Seed = &x
			}
		case "tokenizer":
			if s, ok := r.str(v, field); ok {
				enc, err := tokens.ParseEncoding(s)
				if err != nil {
					r.errorf(v, "%s: %v", field, err)
				}
				p.Tokenizer = enc
			}
		case "prices":
			p.Prices = map[string]tokens.Price{}
			for _, m := range r.fields(v, what+": prices", nil) {
				p.Prices[m.key.Value] = r.price(m.value, what+": prices: "+m.key.Value)
			}
		}
	}
	if keyEnv != nil && keyCmd != nil {
		r.errorf(keyCmd, "%s: api_key_env and api_key_cmd are exclusive: keep one", what)
	}
	return p
}

func (r *reader) price(n *yaml.Node, what string) tokens.Price {
	var p tokens.Price
	seen := map[string]bool{}
	before := len(r.errs)
	for _, e := range r.fields(n, what, priceKeys) {
		x, ok := r.number(e.value, what+": "+e.key.Value, 0, math.MaxFloat64)
		if !ok {
			continue
		}
		seen[e.key.Value] = true
		switch e.key.Value {
		case "input":
			p.Input = x
		case "cached_input":
			p.CachedInput = x
		case "output":
			p.Output = x
		}
	}
	if len(r.errs) == before {
		for _, k := range []string{"input", "output"} {
			if !seen[k] {
				r.errorf(n, "%s: %s price is missing", what, k)
			}
		}
	}
	return p
}

// checkURL accepts an absolute http or https URL.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}

// reader decodes nodes and collects positioned problems.
type reader struct {
	file string
	errs diag.List
}

type field struct{ key, value *yaml.Node }

func (r *reader) errorf(n *yaml.Node, format string, args ...any) {
	line, col := 1, 1
	if n != nil {
		line, col = n.Line, n.Column
	}
	r.errs = append(r.errs, diag.Errorf(r.file, line, col, format, args...))
}

// fields returns the entries of mapping n that have a non-null value, reporting a
// non-mapping, non-string or duplicate keys, and keys not in known (when known is set).
func (r *reader) fields(n *yaml.Node, what string, known []string) []field {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		r.errorf(n, "%s must be a mapping, found %s", what, describe(n))
		return nil
	}
	var out []field
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			r.errorf(k, "%s: keys must be plain names, found %s", what, describe(k))
			continue
		}
		if line, dup := seen[k.Value]; dup {
			r.errorf(k, "%s: duplicate key %q (first at line %d)", what, k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		if known != nil && !contains(known, k.Value) {
			r.errorf(k, "unknown key %q in %s%s", k.Value, what, hint(k.Value, known))
			continue
		}
		if isNull(v) {
			continue
		}
		out = append(out, field{k, resolve(v)})
	}
	return out
}

func hint(name string, known []string) string {
	if name == "api_key" {
		return ": the key is never written in the config file; name its environment variable with api_key_env, or a command that prints it with api_key_cmd"
	}
	if s := diag.DidYouMean(name, known); s != "" {
		return s
	}
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	return " (known keys: " + strings.Join(sorted, ", ") + ")"
}

func (r *reader) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		r.errorf(n, "%s must be a string, found %s", what, describe(n))
		return "", false
	}
	return n.Value, true
}

func (r *reader) number(n *yaml.Node, what string, lo, hi float64) (float64, bool) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		r.errorf(n, "%s must be a number, found %s", what, describe(n))
		return 0, false
	}
	x, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		r.errorf(n, "%s: %q is not a finite number", what, n.Value)
		return 0, false
	}
	if x < lo || x > hi {
		if hi == math.MaxFloat64 {
			r.errorf(n, "%s must not be negative, found %s", what, n.Value)
		} else {
			r.errorf(n, "%s must be between %g and %g, found %s", what, lo, hi, n.Value)
		}
		return 0, false
	}
	return x, true
}

func (r *reader) integer(n *yaml.Node, what string) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		r.errorf(n, "%s must be an integer, found %s", what, describe(n))
		return 0, false
	}
	x, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || x > math.MaxInt32 || x < math.MinInt32 {
		r.errorf(n, "%s: %q is out of range", what, n.Value)
		return 0, false
	}
	return int(x), true
}

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func describe(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!str":
		return "a string"
	}
	return fmt.Sprintf("a %s value", n.Tag)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// syntaxError positions a go.yaml.in/yaml/v3 syntax error, asking goccy/go-yaml for the
// column, which yaml.v3 does not report.
func syntaxError(file string, data []byte, err error) error {
	_, perr := goccyparser.ParseBytes(data, 0)
	var se *goccy.SyntaxError
	if errors.As(perr, &se) && se.Token != nil && se.Token.Position != nil {
		return diag.Errorf(file, se.Token.Position.Line, se.Token.Position.Column, "invalid YAML: %s", se.Message)
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return diag.Errorf(file, line, 1, "invalid YAML: %s", m[2])
	}
	return diag.Errorf(file, 1, 1, "invalid YAML: %s", msg)
}
