// Package script reads ctxlab scripts (spec/headless.md): a chat played turn by turn,
// with scripted replies, clocks, locales, usage, and branch operations. Every problem is
// reported as FILE:LINE:COL: message before anything runs.
package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/yamlx"
)

// Script is a parsed script.
type Script struct {
	Path string
	// Context is the context file named by the script, resolved against its folder ("" if
	// none); ContextAt is where the script names it, for errors.
	Context   string
	ContextAt diag.Error
	Chat      ChatSpec
	Steps     []Step
}

// ChatSpec names the chat a script plays: an existing id continues that chat.
type ChatSpec struct {
	ID       string
	Title    string
	Metadata map[string]any
}

// Step kinds.
const (
	StepTurn       = "user"
	StepEdit       = "edit"
	StepRegenerate = "regenerate"
	StepCheckpoint = "checkpoint"
	StepRestore    = "restore"
	StepSwitch     = "switch"
	StepRewind     = "rewind"
)

// Step is one entry of a script's turns.
type Step struct {
	Kind string
	// Line and Col locate the step in the script, for errors found while running it.
	Line, Col int

	User   string       // user, edit
	Turn   int          // edit, rewind
	Name   string       // checkpoint, restore, switch
	At     time.Time    // zero: now
	Locale *chat.Locale // user, edit
	// Reply is the scripted reply; nil asks the model.
	Reply *Reply
}

// Reply is a scripted assistant reply.
type Reply struct {
	Text  string
	Tools []Tool
	Usage *chat.Usage
	// ToolsAt locates each tool call, for errors about undeclared tools.
	ToolsAt []Position
}

// Position is a place in the script.
type Position struct{ Line, Col int }

// Tool is one scripted tool call with its outcome.
type Tool struct {
	Name   string
	Input  json.RawMessage
	Output string
	Error  string
	Failed bool
}

// Load reads and parses a script file (at most yamlx.MaxFileSize bytes).
func Load(path string) (*Script, error) {
	data, err := Read(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Read reads the script file path, with the errors Load gives.
func Read(path string) ([]byte, error) {
	data, err := yamlx.ReadFile(path, "a script", yamlx.MaxFileSize)
	if err != nil {
		var de *diag.Error
		if errors.As(err, &de) {
			return nil, err
		}
		return nil, &diag.Error{File: path, Msg: "cannot read script: " + strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	return data, nil
}

// ContextHint returns the context file the script data read from path most likely
// names, resolved as Parse resolves it, without parsing it: the value of a line that
// begins with "context:", when it is a plain or simply quoted scalar; "" when there is
// none. It is a guess, for loading the context file while the script parses; Parse
// decides.
func ContextHint(path string, data []byte) string {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		rest, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("context:"))
		if !ok {
			continue
		}
		v := string(bytes.TrimSpace(rest))
		switch {
		case len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] && !strings.ContainsAny(v[1:len(v)-1], "\\'\""):
			v = v[1 : len(v)-1]
		case v == "" || strings.ContainsAny(v[:1], "\"'[]{}&*!|>%@`#") || strings.Contains(v, " #"):
			return ""
		}
		if v == "" {
			return ""
		}
		if !filepath.IsAbs(v) {
			v = filepath.Join(filepath.Dir(path), v)
		}
		return v
	}
	return ""
}

// Parse parses a script read from path.
func Parse(path string, data []byte) (*Script, error) {
	root, err := yamlx.Parse(path, data)
	if err != nil {
		return nil, err
	}
	p := &parser{r: &yamlx.Reader{File: path}}
	s := &Script{Path: path}
	if root == nil {
		return nil, &diag.Error{File: path, Line: 1, Col: 1, Msg: "the script is empty; it needs turns"}
	}
	p.script(root, s)
	if err := p.r.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

type parser struct {
	r *yamlx.Reader
}

func (p *parser) script(root *yaml.Node, s *Script) {
	top, _ := p.r.Fields(root, "the script", "context", "chat", "turns")
	if v := top.Get("context"); v != nil {
		if c, ok := p.r.String(v, "context"); ok {
			if !filepath.IsAbs(c) {
				c = filepath.Join(filepath.Dir(s.Path), c)
			}
			s.Context = c
			s.ContextAt = diag.Error{File: s.Path, Line: v.Line, Col: v.Column}
		}
	}
	if v := top.Get("chat"); v != nil {
		p.chat(v, &s.Chat)
	}
	v := top.Get("turns")
	if v == nil {
		if top.Node != nil {
			p.r.Errorf(top.Node, "the script needs turns")
		}
		return
	}
	items, ok := p.r.Sequence(v, "turns")
	if !ok {
		return
	}
	if len(items) == 0 {
		p.r.Errorf(v, "the script needs turns: turns is empty")
	}
	for _, it := range items {
		if st, ok := p.step(it); ok {
			s.Steps = append(s.Steps, st)
		}
	}
}

func (p *parser) chat(n *yaml.Node, c *ChatSpec) {
	fs, _ := p.r.Fields(n, "chat", "id", "title", "metadata")
	if v := fs.Get("id"); v != nil {
		if s, ok := p.r.String(v, "chat id"); ok {
			if strings.TrimSpace(s) == "" {
				p.r.Errorf(v, "chat id must not be empty")
			}
			c.ID = s
		}
	}
	if v := fs.Get("title"); v != nil {
		if s, ok := p.r.String(v, "chat title"); ok {
			if err := chat.CheckTitle(s); err != nil {
				p.r.Errorf(v, "chat %v", err)
			}
			c.Title = s
		}
	}
	if v := fs.Get("metadata"); v != nil {
		if _, ok := p.r.Mapping(v, "chat metadata"); ok {
			if js, ok := p.r.JSON(v, "chat metadata"); ok {
				_ = json.Unmarshal(js, &c.Metadata)
			}
		}
	}
}

var stepKinds = []string{StepTurn, StepEdit, StepRegenerate, StepCheckpoint, StepRestore, StepSwitch, StepRewind}

// siblings lists the keys allowed beside each step kind.
var siblings = map[string][]string{
	StepTurn:       {"at", "locale", "assistant", "usage"},
	StepEdit:       {"at", "locale", "assistant", "usage"},
	StepRegenerate: {"at", "assistant", "usage"},
	StepCheckpoint: {},
	StepRestore:    {},
	StepSwitch:     {},
	StepRewind:     {},
}

func (p *parser) step(n *yaml.Node) (Step, bool) {
	fs, ok := p.r.Mapping(n, "a turn")
	if !ok {
		return Step{}, false
	}
	st := Step{Line: n.Line, Col: n.Column}
	var kinds []string
	for _, e := range fs.List {
		if contains(stepKinds, e.Key.Value) {
			kinds = append(kinds, e.Key.Value)
		}
	}
	switch len(kinds) {
	case 0:
		// An unknown key is most likely the misspelt kind: say so, else ask for one.
		if !p.unknownKeys(fs, "turn", append([]string{StepTurn}, siblings[StepTurn]...)) {
			p.r.Errorf(n, "a turn needs one of %s", strings.Join(stepKinds, ", "))
		}
		return st, false
	case 1:
		st.Kind = kinds[0]
	default:
		p.r.Errorf(n, "a turn takes one of %s, found %s", strings.Join(stepKinds, ", "), strings.Join(kinds, " and "))
		return st, false
	}
	allowed := append([]string{st.Kind}, siblings[st.Kind]...)
	p.unknownKeys(fs, st.Kind, allowed)
	v := fs.Get(st.Kind)
	switch st.Kind {
	case StepTurn:
		if v == nil {
			p.r.Errorf(keyOf(fs, st.Kind), "user must be a string, found null")
		} else {
			st.User, _ = p.r.String(v, "user")
		}
		if a := fs.Get("at"); a != nil {
			st.At = p.time(a)
		}
		if l := fs.Get("locale"); l != nil {
			st.Locale = p.locale(l)
		}
		if fs.Has("assistant") || fs.Has("usage") {
			st.Reply = p.reply(fs.Get("assistant"), fs.Get("usage"))
		}
	case StepEdit:
		p.edit(v, keyOf(fs, st.Kind), &st, fs)
	case StepRegenerate:
		p.regenerate(v, &st, fs)
	case StepCheckpoint, StepRestore, StepSwitch:
		if v == nil {
			p.r.Errorf(keyOf(fs, st.Kind), "%s needs a name", st.Kind)
		} else if s, ok := p.r.String(v, st.Kind); ok {
			if strings.TrimSpace(s) == "" {
				p.r.Errorf(v, "%s needs a name", st.Kind)
			}
			st.Name = s
		}
	case StepRewind:
		if v == nil {
			p.r.Errorf(keyOf(fs, st.Kind), "rewind needs {turn: N}")
			break
		}
		if rf, ok := p.r.Fields(v, "rewind", "turn"); ok || rf.Node != nil {
			st.Turn = p.turnNumber(rf, v, "rewind")
		}
	}
	return st, true
}

// keyOf returns the key node of key in fs (for errors about a null value).
func keyOf(fs yamlx.Fields, key string) *yaml.Node {
	for _, e := range fs.List {
		if e.Key.Value == key {
			return e.Key
		}
	}
	return fs.Node
}

// unknownKeys reports the keys of fs that are not allowed, and whether there were any.
func (p *parser) unknownKeys(fs yamlx.Fields, kind string, allowed []string) bool {
	found := false
	for _, e := range fs.List {
		if !contains(allowed, e.Key.Value) {
			hint := diag.DidYouMean(e.Key.Value, allowed)
			if hint == "" {
				hint = " (allowed: " + strings.Join(allowed, ", ") + ")"
			}
			p.r.Errorf(e.Key, "unknown key %q in a %s step%s", e.Key.Value, kind, hint)
			found = true
		}
	}
	return found
}

// edit reads `edit: {turn: N, user: TEXT}`; at, locale, assistant and usage may sit inside
// it or beside it.
func (p *parser) edit(v, key *yaml.Node, st *Step, outer yamlx.Fields) {
	if v == nil {
		p.r.Errorf(key, "edit needs {turn: N, user: TEXT}")
		return
	}
	ef, ok := p.r.Fields(v, "edit", "turn", "user", "at", "locale", "usage", "assistant")
	if !ok && ef.Node == nil {
		return
	}
	st.Turn = p.turnNumber(ef, v, "edit")
	if u := ef.Get("user"); u != nil {
		st.User, _ = p.r.String(u, "edit user")
	} else {
		p.r.Errorf(v, "edit needs the new user text (user: …)")
	}
	get := func(k string) *yaml.Node {
		in, out := ef.Get(k), outer.Get(k)
		if in != nil && out != nil {
			p.r.Errorf(out, "%s is given both inside edit and beside it", k)
		}
		if in != nil {
			return in
		}
		return out
	}
	if a := get("at"); a != nil {
		st.At = p.time(a)
	}
	if l := get("locale"); l != nil {
		st.Locale = p.locale(l)
	}
	if asst, usage := get("assistant"), get("usage"); asst != nil || usage != nil {
		st.Reply = p.reply(asst, usage)
	}
}

// regenerate reads `regenerate: {assistant: …}` (or an empty regenerate, which asks the
// model); at, assistant and usage may sit inside it or beside it.
func (p *parser) regenerate(v *yaml.Node, st *Step, outer yamlx.Fields) {
	var rf yamlx.Fields
	if v != nil {
		var ok bool
		if rf, ok = p.r.Fields(v, "regenerate", "assistant", "usage", "at"); !ok && rf.Node == nil {
			return
		}
	}
	get := func(k string) *yaml.Node {
		in, out := rf.Get(k), outer.Get(k)
		if in != nil && out != nil {
			p.r.Errorf(out, "%s is given both inside regenerate and beside it", k)
		}
		if in != nil {
			return in
		}
		return out
	}
	if a := get("at"); a != nil {
		st.At = p.time(a)
	}
	if asst, usage := get("assistant"), get("usage"); asst != nil || usage != nil {
		st.Reply = p.reply(asst, usage)
	}
}

func (p *parser) turnNumber(fs yamlx.Fields, at *yaml.Node, what string) int {
	v := fs.Get("turn")
	if v == nil {
		p.r.Errorf(at, "%s needs a turn number (turn: N)", what)
		return 0
	}
	t, ok := p.r.Int(v, what+" turn")
	if ok && t < 1 {
		p.r.Errorf(v, "%s turn must be 1 or more, found %d", what, t)
	}
	return t
}

func (p *parser) time(n *yaml.Node) time.Time {
	s, ok := p.r.String(n, "at")
	if !ok {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	p.r.Errorf(n, "at: %q is not an RFC 3339 time like 2026-03-27T14:30:00Z", s)
	return time.Time{}
}

func (p *parser) locale(n *yaml.Node) *chat.Locale {
	fs, _ := p.r.Fields(n, "locale", "language", "timeZone")
	l := &chat.Locale{}
	if v := fs.Get("language"); v != nil {
		l.Language, _ = p.r.String(v, "locale language")
	}
	if v := fs.Get("timeZone"); v != nil {
		l.TimeZone, _ = p.r.String(v, "locale timeZone")
	}
	return l
}

func (p *parser) reply(asst, usage *yaml.Node) *Reply {
	r := &Reply{}
	if usage != nil {
		r.Usage = p.usage(usage)
	}
	if asst == nil {
		p.r.Errorf(usage, "usage is given without a scripted assistant reply")
		return r
	}
	switch asst.Kind {
	case yaml.ScalarNode:
		r.Text, _ = p.r.String(asst, "assistant")
		return r
	case yaml.MappingNode:
	default:
		p.r.Errorf(asst, "assistant must be the reply text or a mapping with text and tools, found %s", yamlx.Describe(asst))
		return r
	}
	fs, ok := p.r.Fields(asst, "assistant", "text", "tools")
	if v := fs.Get("text"); v != nil {
		r.Text, _ = p.r.String(v, "assistant text")
	}
	v := fs.Get("tools")
	if v != nil {
		items, _ := p.r.Sequence(v, "assistant tools")
		if len(items) > chat.MaxToolCalls {
			p.r.Errorf(items[chat.MaxToolCalls], "too many tool calls: a reply holds at most %d tool calls", chat.MaxToolCalls)
			items = items[:chat.MaxToolCalls]
		}
		for _, it := range items {
			r.Tools = append(r.Tools, p.tool(it))
			r.ToolsAt = append(r.ToolsAt, Position{it.Line, it.Column})
		}
	}
	if ok && r.Text == "" && len(r.Tools) == 0 && (v == nil || v.Kind == yaml.SequenceNode) {
		p.r.Errorf(asst, "a scripted reply needs text or tools")
	}
	return r
}

func (p *parser) tool(n *yaml.Node) Tool {
	var t Tool
	fs, ok := p.r.Fields(n, "tool call", "name", "input", "output", "error")
	if !ok && fs.Node == nil {
		return t
	}
	if v := fs.Get("name"); v != nil {
		t.Name, _ = p.r.String(v, "tool name")
	} else {
		p.r.Errorf(n, "a tool call needs a name")
	}
	t.Input = json.RawMessage("{}")
	if v := fs.Get("input"); v != nil {
		if _, ok := p.r.Mapping(v, "tool input"); ok {
			if js, ok := p.r.JSON(v, "tool input"); ok {
				t.Input = js
			}
		}
	}
	out, errv := fs.Get("output"), fs.Get("error")
	switch {
	case out != nil && errv != nil:
		p.r.Errorf(errv, "tool call %q has both output and error; give one", t.Name)
	case out != nil:
		if out.Kind == yaml.ScalarNode {
			t.Output = out.Value
		} else if js, ok := p.r.JSON(out, "tool output"); ok {
			t.Output = string(js)
		}
	case errv != nil:
		t.Error, _ = p.r.String(errv, "tool error")
		t.Failed = true
	default:
		p.r.Errorf(n, "tool call %q needs an output or an error", t.Name)
	}
	return t
}

func (p *parser) usage(n *yaml.Node) *chat.Usage {
	fs, _ := p.r.Fields(n, "usage", "prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "reasoning_tokens")
	u := &chat.Usage{}
	for _, f := range []struct {
		key string
		dst *int
	}{{"prompt_tokens", &u.PromptTokens}, {"completion_tokens", &u.CompletionTokens}, {"total_tokens", &u.TotalTokens},
		{"cached_tokens", &u.CachedTokens}, {"reasoning_tokens", &u.ReasoningTokens}} {
		if v := fs.Get(f.key); v != nil {
			if x, ok := p.r.Int(v, "usage "+f.key); ok {
				if x < 0 {
					p.r.Errorf(v, "usage %s must not be negative", f.key)
				}
				*f.dst = x
			}
		}
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return u
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
