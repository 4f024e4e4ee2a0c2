package predicates

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
)

// callCtx is a call being turned into a Predicate.
type callCtx struct {
	n     *node
	env   *Env
	pos   []*node
	named map[string]*arg
}

type buildFunc func(c *callCtx) (Predicate, error)

// builders maps every predicate name to its builder.
var builders map[string]buildFunc

func init() {
	turnN := func(name string, min int, mk func(int) Predicate) buildFunc {
		return func(c *callCtx) (Predicate, error) {
			n, err := c.oneInt("1 number argument")
			if err != nil {
				return nil, err
			}
			if n < min {
				return nil, c.errf(c.pos[0].off, "%s expects n >= %d, got %d", name, min, n)
			}
			return mk(n), nil
		}
	}
	changed := func(b bucket) buildFunc {
		return func(c *callCtx) (Predicate, error) {
			allowed := []string{"tz"}
			if b == bucketSeason {
				allowed = []string{"hemisphere", "tz"}
			}
			if err := c.allow(allowed...); err != nil {
				return nil, err
			}
			if err := c.positional(0, 0, "only named arguments ("+strings.Join(allowed, "=, ")+"=)"); err != nil {
				return nil, err
			}
			tz, southern := "", false
			if a := c.named["tz"]; a != nil {
				var err error
				if tz, err = c.str(a.val, "tz to be a zone name string"); err != nil {
					return nil, err
				}
				if _, err := LoadZone(tz); err != nil {
					return nil, c.errf(a.val.off, "%s", err.Error())
				}
			}
			if a := c.named["hemisphere"]; a != nil {
				h, err := c.str(a.val, "hemisphere 'north' or 'south'")
				if err != nil {
					return nil, err
				}
				switch h {
				case "north":
				case "south":
					southern = true
				default:
					return nil, c.typeErr(a.val, "hemisphere 'north' or 'south'")
				}
			}
			return newChanged(b, tz, southern), nil
		}
	}
	toolName := func(mk func(Matcher) Predicate) buildFunc {
		return func(c *callCtx) (Predicate, error) {
			if err := c.allow(); err != nil {
				return nil, err
			}
			if err := c.positional(1, 1, "1 tool name argument (string or /regex/)"); err != nil {
				return nil, err
			}
			m, err := c.matcher(c.pos[0], "1 tool name argument (string or /regex/)")
			if err != nil {
				return nil, err
			}
			return mk(m), nil
		}
	}
	toolCount := func(mk func(Matcher, CountSpec) Predicate) buildFunc {
		return func(c *callCtx) (Predicate, error) {
			if err := c.allow("gte", "lte", "eq"); err != nil {
				return nil, err
			}
			if err := c.positional(1, 1, "1 tool name argument (string or /regex/)"); err != nil {
				return nil, err
			}
			m, err := c.matcher(c.pos[0], "1 tool name argument (string or /regex/)")
			if err != nil {
				return nil, err
			}
			spec, err := c.countSpec(false)
			if err != nil {
				return nil, err
			}
			return mk(m, spec), nil
		}
	}
	win := func(mk func(int, Predicate) Predicate) buildFunc {
		return func(c *callCtx) (Predicate, error) {
			const desc = "a number and a predicate"
			if err := c.allow(); err != nil {
				return nil, err
			}
			if err := c.positional(2, 2, desc); err != nil {
				return nil, err
			}
			n, err := c.int(c.pos[0], desc)
			if err != nil {
				return nil, err
			}
			p, err := c.pred(c.pos[1], desc)
			if err != nil {
				return nil, err
			}
			return mk(n, p), nil
		}
	}
	comb := func(mk func(...Predicate) Predicate) buildFunc {
		return func(c *callCtx) (Predicate, error) {
			if err := c.allow(); err != nil {
				return nil, err
			}
			ps := make([]Predicate, len(c.pos))
			for i, a := range c.pos {
				p, err := c.pred(a, "predicate arguments")
				if err != nil {
					return nil, err
				}
				ps[i] = p
			}
			return mk(ps...), nil
		}
	}
	builders = map[string]buildFunc{
		"everyNTurns": turnN("everyNTurns", 1, EveryNTurns),
		"firstN":      turnN("firstN", 0, FirstN),
		"afterTurn":   turnN("afterTurn", 0, AfterTurn),
		"usageExceeds": func(c *callCtx) (Predicate, error) {
			n, err := c.oneInt("1 number argument")
			if err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, c.errf(c.pos[0].off, "usageExceeds expects n >= 0, got %d", n)
			}
			return UsageExceeds(n), nil
		},
		"once":                buildOnce,
		"contentIncludes":     buildContentIncludes,
		"contentPattern":      buildContentPattern,
		"contentMatches":      buildContentMatches,
		"classifies":          buildClassifies,
		"lastAssistantLength": buildLastAssistantLength,
		"toolCalled":          toolName(ToolCalled),
		"toolFailed":          toolName(ToolFailed),
		"anyToolCalled": func(c *callCtx) (Predicate, error) {
			if err := c.allow(); err != nil {
				return nil, err
			}
			if err := c.positional(0, 0, "no arguments"); err != nil {
				return nil, err
			}
			return AnyToolCalled(), nil
		},
		"toolCall":         buildToolCall,
		"toolCallCount":    toolCount(ToolCallCount),
		"toolFailedStreak": toolCount(ToolFailedStreak),
		"elapsedExceeds":   buildElapsedExceeds,
		"dayChanged":       changed(bucketDay),
		"hourChanged":      changed(bucketHour),
		"weekChanged":      changed(bucketWeek),
		"monthChanged":     changed(bucketMonth),
		"yearChanged":      changed(bucketYear),
		"seasonChanged":    changed(bucketSeason),
		"withinLastN":      win(WithinLastN),
		"everyOfLastN":     win(EveryOfLastN),
		"and":              comb(And),
		"or":               comb(Or),
		"not": func(c *callCtx) (Predicate, error) {
			if err := c.allow(); err != nil {
				return nil, err
			}
			if err := c.positional(1, 1, "1 predicate argument"); err != nil {
				return nil, err
			}
			p, err := c.pred(c.pos[0], "1 predicate argument")
			if err != nil {
				return nil, err
			}
			return Not(p), nil
		},
	}
}

// Names returns the names of all predicates and combinators, sorted.
func Names() []string {
	out := make([]string, 0, len(builders))
	for k := range builders {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// build turns a call node into a Predicate.
func build(n *node, env *Env) (Predicate, error) {
	b, ok := builders[n.name]
	if !ok {
		return nil, &ParseError{Offset: n.off, Msg: unknownPredicate(n.name)}
	}
	// The grammar sets no order: positional arguments, wherever they stand, fill the
	// parameters in order; named ones go by name.
	c := &callCtx{n: n, env: env}
	for i := range n.args {
		a := &n.args[i]
		if a.name == "" {
			c.pos = append(c.pos, a.val)
			continue
		}
		if c.named == nil {
			c.named = map[string]*arg{}
		}
		if c.named[a.name] != nil {
			return nil, c.errf(a.nameOff, "duplicate argument %q", a.name)
		}
		c.named[a.name] = a
	}
	return b(c)
}

func (c *callCtx) errf(off int, format string, args ...any) error {
	return &ParseError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// describe names a value for "got …" in messages.
func describe(n *node) string {
	switch n.kind {
	case nodeCall:
		return "predicate " + n.name + "(…)"
	case nodeString:
		return "string " + clip(n.src, 20)
	case nodeNumber:
		return "number " + clip(n.src, 20)
	case nodeDuration:
		return "duration " + clip(n.src, 20)
	case nodeRegex:
		return "regex " + clip(n.src, 20)
	}
	return "list " + clip(n.src, 20)
}

// typeErr reports that v is not what the call expects.
func (c *callCtx) typeErr(v *node, desc string) error {
	return c.errf(v.off, "%s expects %s, got %s", c.n.name, desc, describe(v))
}

// positional checks the number of positional arguments.
func (c *callCtx) positional(min, max int, desc string) error {
	switch n := len(c.pos); {
	case n > max:
		return c.errf(c.pos[max].off, "%s expects %s, got %s", c.n.name, desc, plural(n, "positional argument"))
	case n < min:
		return c.errf(c.n.end-1, "%s expects %s, got %s", c.n.name, desc, plural(n, "argument"))
	}
	return nil
}

// allow checks that every named argument is one of names.
func (c *callCtx) allow(names ...string) error {
	for _, a := range c.n.args {
		if a.name == "" || slices.Contains(names, a.name) {
			continue
		}
		if len(names) == 0 {
			return c.errf(a.nameOff, "unknown argument %q: %s takes no named arguments", a.name, c.n.name)
		}
		return c.errf(a.nameOff, "unknown argument %q for %s; expected %s", a.name, c.n.name, strings.Join(names, ", "))
	}
	return nil
}

// oneInt reads the single positional integer of a call without named arguments.
func (c *callCtx) oneInt(desc string) (int, error) {
	if err := c.allow(); err != nil {
		return 0, err
	}
	if err := c.positional(1, 1, desc); err != nil {
		return 0, err
	}
	return c.int(c.pos[0], desc)
}

// maxInt bounds the integers of the language (exactly representable as float64).
const maxInt = 1 << 53

func (c *callCtx) int(v *node, desc string) (int, error) {
	if v.kind != nodeNumber {
		return 0, c.typeErr(v, desc)
	}
	if v.num != math.Trunc(v.num) {
		return 0, c.errf(v.off, "%s expects an integer, got %s", c.n.name, v.src)
	}
	if math.Abs(v.num) > maxInt {
		return 0, c.errf(v.off, "%s: number %s out of range", c.n.name, clip(v.src, 20))
	}
	return int(v.num), nil
}

func (c *callCtx) num(v *node, desc string) (float64, error) {
	if v.kind != nodeNumber {
		return 0, c.typeErr(v, desc)
	}
	return v.num, nil
}

func (c *callCtx) str(v *node, desc string) (string, error) {
	if v.kind != nodeString {
		return "", c.typeErr(v, desc)
	}
	return v.str, nil
}

func (c *callCtx) matcher(v *node, desc string) (Matcher, error) {
	switch v.kind {
	case nodeString:
		return Exact(v.str), nil
	case nodeRegex:
		return MatchRegex(v.re), nil
	}
	return Matcher{}, c.typeErr(v, desc)
}

func (c *callCtx) pred(v *node, desc string) (Predicate, error) {
	if v.kind != nodeCall {
		return nil, c.typeErr(v, desc)
	}
	return build(v, c.env)
}

// strings reads a list of strings, or the positional strings themselves.
func (c *callCtx) strings(desc, item string) ([]string, error) {
	items := c.pos
	at := c.n.end - 1
	if len(c.pos) == 1 && c.pos[0].kind == nodeList {
		items, at = c.pos[0].items, c.pos[0].off
	}
	if len(items) == 0 {
		return nil, c.errf(at, "%s expects at least one %s", c.n.name, item)
	}
	out := make([]string, len(items))
	for i, v := range items {
		s, err := c.str(v, desc)
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, c.errf(v.off, "%s expects non-empty %ss", c.n.name, item)
		}
		out[i] = s
	}
	return out, nil
}

// countSpec reads gte=, lte= and eq=; without bounds it is an error unless defaulted, in
// which case the empty spec is returned for the constructor to fill.
func (c *callCtx) countSpec(required bool) (CountSpec, error) {
	if err := c.allow("gte", "lte", "eq"); err != nil {
		return CountSpec{}, err
	}
	var s CountSpec
	for _, k := range []string{"gte", "lte", "eq"} {
		a := c.named[k]
		if a == nil {
			continue
		}
		n, err := c.int(a.val, k+" to be a number")
		if err != nil {
			return s, err
		}
		if n < 0 {
			return s, c.errf(a.val.off, "%s expects %s >= 0, got %d", c.n.name, k, n)
		}
		switch k {
		case "gte":
			s.GTE = &n
		case "lte":
			s.LTE = &n
		default:
			s.EQ = &n
		}
	}
	switch {
	case s.empty() && required:
		return s, c.errf(c.n.end-1, "%s needs gte=, lte= or eq=", c.n.name)
	case s.EQ != nil && (s.GTE != nil || s.LTE != nil):
		return s, c.errf(c.named["eq"].nameOff, "%s: eq cannot be combined with gte or lte", c.n.name)
	case s.GTE != nil && s.LTE != nil && *s.GTE > *s.LTE:
		return s, c.errf(c.named["lte"].nameOff, "%s: gte %d is above lte %d, nothing can match", c.n.name, *s.GTE, *s.LTE)
	}
	return s, nil
}

func buildOnce(c *callCtx) (Predicate, error) {
	const desc = "at most 1 string argument (a latch id)"
	if err := c.allow(); err != nil {
		return nil, err
	}
	if err := c.positional(0, 1, desc); err != nil {
		return nil, err
	}
	if len(c.pos) == 0 {
		return Once(), nil
	}
	id, err := c.str(c.pos[0], desc)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, c.errf(c.pos[0].off, "once expects a non-empty latch id")
	}
	return OnceID(id), nil
}

func buildContentIncludes(c *callCtx) (Predicate, error) {
	if err := c.allow(); err != nil {
		return nil, err
	}
	if err := c.listOnly("a list of keywords"); err != nil {
		return nil, err
	}
	words, err := c.strings("a list of keywords", "keyword")
	if err != nil {
		return nil, err
	}
	return ContentIncludes(words...), nil
}

// listOnly rejects several positional arguments when the first is a list.
func (c *callCtx) listOnly(desc string) error {
	if len(c.pos) > 1 && c.pos[0].kind == nodeList {
		return c.errf(c.pos[1].off, "%s expects %s, got %d positional arguments", c.n.name, desc, len(c.pos))
	}
	return nil
}

func buildContentPattern(c *callCtx) (Predicate, error) {
	if err := c.allow(); err != nil {
		return nil, err
	}
	if err := c.positional(1, 1, "1 regex argument"); err != nil {
		return nil, err
	}
	if c.pos[0].kind != nodeRegex {
		return nil, c.typeErr(c.pos[0], "1 regex argument")
	}
	return ContentPattern(c.pos[0].re), nil
}

func buildContentMatches(c *callCtx) (Predicate, error) {
	if err := c.allow("threshold"); err != nil {
		return nil, err
	}
	if err := c.listOnly("a list of topics"); err != nil {
		return nil, err
	}
	topics, err := c.strings("a list of topics", "topic")
	if err != nil {
		return nil, err
	}
	th := 0.0
	if a := c.named["threshold"]; a != nil {
		if th, err = c.num(a.val, "threshold to be a number"); err != nil {
			return nil, err
		}
	}
	return ContentMatches(topics, th), nil
}

func buildClassifies(c *callCtx) (Predicate, error) {
	const desc = "1 string argument (a classifier name)"
	if err := c.allow("topN", "threshold"); err != nil {
		return nil, err
	}
	if err := c.positional(1, 1, desc); err != nil {
		return nil, err
	}
	name, err := c.str(c.pos[0], desc)
	if err != nil {
		return nil, err
	}
	topN, th := 5, 0.0
	if a := c.named["topN"]; a != nil {
		if topN, err = c.int(a.val, "topN to be a number"); err != nil {
			return nil, err
		}
		if topN < 1 {
			return nil, c.errf(a.val.off, "classifies expects topN >= 1, got %d", topN)
		}
	}
	if a := c.named["threshold"]; a != nil {
		if th, err = c.num(a.val, "threshold to be a number"); err != nil {
			return nil, err
		}
	}
	var cl *Classifier
	var known []string
	if c.env != nil {
		cl = c.env.Classifiers[name]
		for k, v := range c.env.Classifiers {
			if v != nil {
				known = append(known, k)
			}
		}
	}
	if cl == nil {
		if len(known) == 0 {
			return nil, c.errf(c.pos[0].off, "unknown classifier %q; no classifiers are defined", name)
		}
		sort.Strings(known)
		return nil, c.errf(c.pos[0].off, "unknown classifier %q; known classifiers: %s", name, strings.Join(known, ", "))
	}
	return Classifies(name, cl, topN, th), nil
}

func buildLastAssistantLength(c *callCtx) (Predicate, error) {
	if err := c.allow("gte", "lte", "eq"); err != nil {
		return nil, err
	}
	if err := c.positional(0, 0, "only named arguments (gte=, lte=, eq=)"); err != nil {
		return nil, err
	}
	spec, err := c.countSpec(true)
	if err != nil {
		return nil, err
	}
	return LastAssistantLength(spec), nil
}

func buildToolCall(c *callCtx) (Predicate, error) {
	if err := c.allow("name", "state", "input", "output", "errorText"); err != nil {
		return nil, err
	}
	if err := c.positional(0, 0, "only named arguments (name=, state=, input=, output=, errorText=)"); err != nil {
		return nil, err
	}
	var spec ToolCallSpec
	for _, k := range []string{"name", "input", "output", "errorText"} {
		a := c.named[k]
		if a == nil {
			continue
		}
		m, err := c.matcher(a.val, k+" to be a string or /regex/")
		if err != nil {
			return nil, err
		}
		switch k {
		case "name":
			spec.Name = &m
		case "input":
			spec.Input = &m
		case "output":
			spec.Output = &m
		default:
			spec.ErrorText = &m
		}
	}
	if a := c.named["state"]; a != nil {
		const desc = "state 'input-streaming', 'input-available', 'output-available' or 'output-error'"
		s, err := c.str(a.val, desc)
		if err != nil {
			return nil, err
		}
		if !validState(chat.ToolState(s)) {
			return nil, c.typeErr(a.val, desc)
		}
		spec.State = chat.ToolState(s)
	}
	return ToolCall(spec), nil
}

func buildElapsedExceeds(c *callCtx) (Predicate, error) {
	const desc = "1 duration argument (90s, 5m, 2h, 1d; a bare number is milliseconds)"
	if err := c.allow(); err != nil {
		return nil, err
	}
	if err := c.positional(1, 1, desc); err != nil {
		return nil, err
	}
	v := c.pos[0]
	var ms float64
	switch v.kind {
	case nodeDuration:
		ms = float64(v.dur.Milliseconds())
	case nodeNumber:
		ms = math.Round(v.num)
		if math.Abs(ms) > maxDurationMs {
			return nil, c.errf(v.off, "elapsedExceeds: duration %s out of range", clip(v.src, 20))
		}
	default:
		return nil, c.typeErr(v, desc)
	}
	if ms < 0 {
		return nil, c.errf(v.off, "elapsedExceeds expects a duration >= 0, got %s", v.src)
	}
	return ElapsedExceeds(msDuration(ms)), nil
}

// maxNearest is how many known names an unknown predicate's message lists when none is
// close enough for "did you mean".
const maxNearest = 3

// unknownPredicate builds the message for an unknown name, with the nearest known names:
// "did you mean X?" for a plausible typo, else the nearest few by edit distance.
func unknownPredicate(name string) string {
	msg := "unknown predicate " + strconv.Quote(name)
	if near := diag.Suggest(name, Names()); len(near) > 0 {
		return msg + "; did you mean " + orList(near) + "?"
	}
	return msg + "; nearest known predicates: " + strings.Join(diag.Nearest(name, Names(), maxNearest), ", ")
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
