package config

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/yamlx"
	"github.com/ctxlab/ctxlab/llm/tokens"
	"github.com/ctxlab/ctxlab/tui/keybind"
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
//	    connect_timeout: 10s             # the client's timeouts (defaults 10s, 60s, 30s)
//	    first_token_timeout: 5m
//	    idle_timeout: 30s
//	    allow_http_key: true             # the key over plain http to another machine
//	keys:                                # the workbench's keys (tui/keybind names the actions)
//	  send: ctrl+s
//	  regenerate: [r, ctrl+g]
type File struct {
	Path           string
	DefaultProfile string
	Profiles       map[string]*Profile
	// Keys rebind the workbench's actions, in file order, checked (keybind.Check).
	Keys []keybind.Binding
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
	// The client's timeouts (llm.Options); zero is unset.
	ConnectTimeout    time.Duration
	FirstTokenTimeout time.Duration
	IdleTimeout       time.Duration
	// AllowHTTPKey lets the key go over plain http to another machine.
	AllowHTTPKey bool
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
	fileKeys    = []string{"default_profile", "profiles", "keys"}
	profileKeys = []string{"base_url", "model", "api_key_env", "api_key_cmd", "temperature", "top_p", "max_tokens", "seed", "tokenizer", "prices",
		"connect_timeout", "first_token_timeout", "idle_timeout", "allow_http_key"}
	priceKeys = []string{"input", "cached_input", "output"}
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Parse reads a config file strictly: a syntax error, an unknown key, a duplicate key or a
// value of the wrong type is a *diag.Error (FILE:LINE:COL: message); all problems are
// reported at once, as a diag.List. An empty file is a valid file with no profile.
func Parse(path string, data []byte) (*File, error) {
	root, err := yamlx.Parse(path, data)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, Profiles: map[string]*Profile{}}
	if root == nil {
		return f, nil
	}
	r := &yamlx.Reader{File: path}
	var defaultNode *yaml.Node
	for _, e := range fields(r, root, "the config file", fileKeys) {
		switch e.Key.Value {
		case "default_profile":
			defaultNode = e.Value
			f.DefaultProfile, _ = text(r, e.Value, "default_profile")
		case "profiles":
			for _, p := range fields(r, e.Value, "profiles", nil) {
				f.Profiles[p.Key.Value] = profile(r, p.Value, p.Key.Value)
			}
		case "keys":
			f.Keys = keys(r, e.Value)
		}
	}
	if defaultNode != nil && f.DefaultProfile != "" && f.Profiles[f.DefaultProfile] == nil {
		r.Errorf(defaultNode, "default_profile %q names no profile%s", f.DefaultProfile, profilesHint(f.DefaultProfile, f))
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

func profile(r *yamlx.Reader, n *yaml.Node, name string) *Profile {
	p := &Profile{Name: name}
	what := "profile " + name
	var keyEnv, keyCmd *yaml.Node
	for _, e := range fields(r, n, what, profileKeys) {
		key, v := e.Key.Value, e.Value
		field := what + ": " + key
		switch key {
		case "base_url":
			if s, ok := text(r, v, field); ok {
				if err := checkURL(s); err != nil {
					r.Errorf(v, "%s: %v", field, err)
				}
				p.BaseURL = s
			}
		case "model":
			p.Model, _ = text(r, v, field)
		case "api_key_env":
			keyEnv = v
			if s, ok := text(r, v, field); ok {
				if !envNameRE.MatchString(s) {
					r.Errorf(v, "%s: %q is not an environment variable name", field, s)
				}
				p.APIKeyEnv = s
			}
		case "api_key_cmd":
			keyCmd = v
			if s, ok := text(r, v, field); ok {
				if strings.TrimSpace(s) == "" {
					r.Errorf(v, "%s: the command is empty", field)
				}
				p.APIKeyCmd = s
			}
		case "temperature":
			if x, ok := number(r, v, field, 0, 2); ok {
				p.Temperature = &x
			}
		case "top_p":
			if x, ok := number(r, v, field, 0, 1); ok {
				p.TopP = &x
			}
		case "max_tokens":
			if x, ok := r.Int(v, field); ok {
				if x <= 0 {
					r.Errorf(v, "%s must be a positive integer, found %d", field, x)
				}
				p.MaxTokens = x
			}
		case "seed":
			if x, ok := r.Int(v, field); ok {
				p.Seed = &x
			}
		case "tokenizer":
			if s, ok := text(r, v, field); ok {
				enc, err := tokens.ParseEncoding(s)
				if err != nil {
					r.Errorf(v, "%s: %v", field, err)
				}
				p.Tokenizer = enc
			}
		case "connect_timeout":
			p.ConnectTimeout = duration(r, v, field)
		case "first_token_timeout":
			p.FirstTokenTimeout = duration(r, v, field)
		case "idle_timeout":
			p.IdleTimeout = duration(r, v, field)
		case "allow_http_key":
			p.AllowHTTPKey, _ = r.Bool(v, field)
		case "prices":
			p.Prices = map[string]tokens.Price{}
			for _, m := range fields(r, v, what+": prices", nil) {
				p.Prices[m.Key.Value] = price(r, m.Value, what+": prices: "+m.Key.Value)
			}
		}
	}
	if keyEnv != nil && keyCmd != nil {
		r.Errorf(keyCmd, "%s: api_key_env and api_key_cmd are exclusive: keep one", what)
	}
	return p
}

func price(r *yamlx.Reader, n *yaml.Node, what string) tokens.Price {
	var p tokens.Price
	seen := map[string]bool{}
	before := len(r.Errs)
	for _, e := range fields(r, n, what, priceKeys) {
		x, ok := number(r, e.Value, what+": "+e.Key.Value, 0, math.MaxFloat64)
		if !ok {
			continue
		}
		seen[e.Key.Value] = true
		switch e.Key.Value {
		case "input":
			p.Input = x
		case "cached_input":
			p.CachedInput = x
		case "output":
			p.Output = x
		}
	}
	if len(r.Errs) == before {
		for _, k := range []string{"input", "output"} {
			if !seen[k] {
				r.Errorf(n, "%s: %s price is missing", what, k)
			}
		}
	}
	return p
}

// checkURL accepts an absolute http or https URL with a host name, and a port from 1 to
// 65535 when it has one: anything else could only fail at connect time, as if the server
// were down. A query or a fragment is refused too: the request path is appended to the
// base URL, so a query would go in the path of every request (`/v1?api-key=…/chat/
// completions`) and a fragment would be dropped (`/v1#x` posts to /v1). The errors show
// the URL with its query and fragment cut (redactURL): they may hold a secret.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", redactURL(s))
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%q has no host name", redactURL(s))
	}
	if u.RawQuery != "" || u.ForceQuery {
		return fmt.Errorf("%q has a query: a base URL cannot have one (a key goes in api_key_env, api_key_cmd or OPENAI_API_KEY)", redactURL(s))
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return fmt.Errorf("%q has a fragment: a base URL cannot have one (the requests would go to %q)", redactURL(s), redactURL(s[:strings.IndexByte(s, '#')]))
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q: port %s is out of range (1 to 65535)", redactURL(s), p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return fmt.Errorf("%q: the port after the colon is missing", redactURL(s))
	}
	return nil
}

// fields returns the entries of mapping n (yamlx.Reader.Mapping: a non-mapping, non-scalar
// or duplicate keys are reported) that have a non-null value, aliases followed. Merge keys
// (<<) and, when known is set, keys not in known are reported and left out.
// yamlx.Reader.Fields is not used: an api_key key needs its own explanation.
func fields(r *yamlx.Reader, n *yaml.Node, what string, known []string) []yamlx.Field {
	m, _ := r.Mapping(n, what)
	var out []yamlx.Field
	for _, e := range m.List {
		switch {
		case e.Key.ShortTag() == "!!merge":
			r.Errorf(e.Key, "%s: keys must be plain names, found %s", what, yamlx.Describe(e.Key))
		case known != nil && !slices.Contains(known, e.Key.Value):
			r.Errorf(e.Key, "unknown key %q in %s%s", e.Key.Value, what, keyHint(e.Key.Value, known))
		case !yamlx.IsNull(e.Value):
			out = append(out, yamlx.Field{Key: e.Key, Value: yamlx.Resolve(e.Value)})
		}
	}
	return out
}

// keyHint is what follows an unknown key: the nearest known keys, or all of them; for
// api_key, where the key goes instead.
func keyHint(name string, known []string) string {
	if name == "api_key" {
		return ": the key is never written in the config file; name its environment variable with api_key_env, or a command that prints it with api_key_cmd"
	}
	return diag.Hint(name, slices.Sorted(slices.Values(known)), "known keys")
}

// text decodes a string. Unlike yamlx.Reader.String, which reads `model: 4` as "4", a
// number, boolean or other non-string scalar is an error, as the config has always said.
func text(r *yamlx.Reader, n *yaml.Node, what string) (string, bool) {
	if n := yamlx.Resolve(n); n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() != "!!str" {
		r.Errorf(n, "%s must be a string, found %s", what, yamlx.Describe(n))
		return "", false
	}
	return r.String(n, what)
}

// duration decodes a positive duration written like 90s, 2m or 1m30s (0 after an error).
func duration(r *yamlx.Reader, n *yaml.Node, what string) time.Duration {
	n = yamlx.Resolve(n)
	found := yamlx.Describe(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		if d, err := time.ParseDuration(n.Value); err == nil && d > 0 && n.ShortTag() == "!!str" {
			return d
		}
		found = n.Value
	}
	r.Errorf(n, "%s must be a positive duration like 90s or 2m, found %s", what, found)
	return 0
}

// number decodes a number between lo and hi (yamlx.Reader.Float plus a range check).
func number(r *yamlx.Reader, n *yaml.Node, what string, lo, hi float64) (float64, bool) {
	x, ok := r.Float(n, what)
	if !ok {
		return 0, false
	}
	if x < lo || x > hi {
		if hi == math.MaxFloat64 {
			r.Errorf(n, "%s must not be negative, found %s", what, n.Value)
		} else {
			r.Errorf(n, "%s must be between %g and %g, found %s", what, lo, hi, n.Value)
		}
		return 0, false
	}
	return x, true
}
