package predicates

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Env gives the parser what expressions may refer to by name.
type Env struct {
	// Classifiers are the named corpora of classifies('name', …).
	Classifiers map[string]*Classifier
}

// maxDepth bounds the nesting of calls and lists.
const maxDepth = 64

type nodeKind int

const (
	nodeCall nodeKind = iota
	nodeString
	nodeNumber
	nodeDuration
	nodeRegex
	nodeList
)

// node is one value of the syntax tree: a call, a literal or a list.
type node struct {
	kind     nodeKind
	off, end int
	src      string // source text, for messages
	name     string // call
	args     []arg  // call
	items    []*node
	str      string
	num      float64
	dur      time.Duration
	re       *Regex
}

// arg is an argument of a call; name is "" for a positional one.
type arg struct {
	name    string
	nameOff int
	val     *node
}

type parser struct {
	lx    lexer
	tok   token
	depth int
}

// Parse compiles a predicate expression such as `and(everyNTurns(3), not(once()))`. Errors
// are *ParseError values that give the byte offset of the offending character. env may be
// nil (then no classifier is known).
func Parse(src string, env *Env) (Predicate, error) {
	p := &parser{lx: lexer{src: src}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokName {
		return nil, p.expected("predicate name")
	}
	n, err := p.call()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, p.expected("end of expression")
	}
	pred, err := build(n, env)
	if err != nil {
		return nil, err
	}
	return pred, nil
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

// found describes the current token for "found …" in messages.
func (p *parser) found() string {
	t := p.tok
	text := p.lx.src[t.off:t.end]
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return "string " + clip(text, 20)
	case tokNumber:
		return "number " + clip(text, 20)
	case tokDuration:
		return "duration " + clip(text, 20)
	case tokRegex:
		return "regex " + clip(text, 20)
	case tokIllegal:
		if r, _ := utf8.DecodeRuneInString(text); r == utf8.RuneError && len(text) == 1 {
			return "byte 0x" + strconv.FormatUint(uint64(text[0]), 16)
		}
	}
	return "'" + clip(text, 20) + "'"
}

// expected returns the error "expected WHAT, found …" at the current token.
func (p *parser) expected(what string) *ParseError {
	return &ParseError{Offset: p.tok.off, Msg: "expected " + what + ", found " + p.found()}
}

// call parses name '(' [args] ')' with the current token on the name.
func (p *parser) call() (*node, error) {
	name := p.tok
	n := &node{kind: nodeCall, off: name.off, name: name.str}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokLParen {
		err := p.expected("'(' after " + strconv.Quote(name.str))
		err.Msg += turnHint(name.str, p.lx.src[p.tok.off:])
		return nil, err
	}
	if p.depth++; p.depth > maxDepth {
		return nil, &ParseError{Offset: p.tok.off, Msg: "expression nested too deeply (more than " + strconv.Itoa(maxDepth) + " levels)"}
	}
	defer func() { p.depth-- }()
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokRParen {
		for {
			a, err := p.arg(name.str)
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, a)
			if p.tok.kind == tokRParen {
				break
			}
			if p.tok.kind != tokComma {
				return nil, p.expected("')' or ',' after argument")
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
	}
	n.end = p.tok.end
	n.src = p.lx.src[n.off:n.end]
	return n, p.advance()
}

// arg parses an argument of the call fn: a value, or name '=' value.
func (p *parser) arg(fn string) (arg, error) {
	if p.tok.kind != tokName {
		v, err := p.value("argument")
		return arg{val: v}, err
	}
	// name '=' value, or a call: look at the token after the name
	save, saveTok := p.lx.pos, p.tok
	if err := p.advance(); err != nil {
		return arg{}, err
	}
	if p.tok.kind == tokEq {
		if err := p.advance(); err != nil {
			return arg{}, err
		}
		v, err := p.value("value after " + strconv.Quote(saveTok.str+"="))
		return arg{name: saveTok.str, nameOff: saveTok.off, val: v}, err
	}
	if p.tok.kind != tokLParen {
		err := p.expected("'(' or '=' after " + strconv.Quote(saveTok.str))
		if (p.tok.kind == tokRParen || p.tok.kind == tokComma) && !isCombinator(fn) {
			err.Msg += "; to match the text, quote it: '" + saveTok.str + "'"
		}
		return arg{}, err
	}
	p.lx.pos, p.tok = save, saveTok
	v, err := p.call()
	return arg{val: v}, err
}

// value parses a literal, a list or a call; what names it in errors.
func (p *parser) value(what string) (*node, error) {
	t := p.tok
	n := &node{off: t.off, end: t.end, src: p.lx.src[t.off:t.end]}
	switch t.kind {
	case tokName:
		return p.call()
	case tokString:
		n.kind, n.str = nodeString, t.str
	case tokNumber:
		n.kind, n.num = nodeNumber, t.num
	case tokDuration:
		n.kind, n.dur = nodeDuration, t.dur
	case tokRegex:
		n.kind, n.re = nodeRegex, t.re
	case tokLBrack:
		return p.list()
	default:
		return nil, p.expected(what)
	}
	return n, p.advance()
}

// list parses '[' [value {',' value}] ']'.
func (p *parser) list() (*node, error) {
	n := &node{kind: nodeList, off: p.tok.off}
	if p.depth++; p.depth > maxDepth {
		return nil, &ParseError{Offset: p.tok.off, Msg: "expression nested too deeply (more than " + strconv.Itoa(maxDepth) + " levels)"}
	}
	defer func() { p.depth-- }()
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokRBrack {
		for {
			v, err := p.value("list item or ']'")
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
			if p.tok.kind == tokRBrack {
				break
			}
			if p.tok.kind != tokComma {
				return nil, p.expected("']' or ',' after list item")
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
	}
	n.end = p.tok.end
	n.src = p.lx.src[n.off:n.end]
	return n, p.advance()
}

// turnComparison is a comparison written the way other languages write it, after the
// name of the turn: "> 3", ">= 3".
var turnComparison = regexp.MustCompile(`^(>=?)\s*(\d{1,9})`)

// turnHint suggests afterTurn for "turn > 3" (rest is the source from the token after
// the name), or "" when it does not look like one.
func turnHint(name, rest string) string {
	switch strings.ToLower(name) {
	case "turn", "turns", "turncount":
	default:
		return ""
	}
	m := turnComparison.FindStringSubmatch(rest)
	if m == nil {
		return ""
	}
	n, _ := strconv.Atoi(m[2])
	if m[1] == ">=" {
		n--
	}
	if n < 0 {
		return ""
	}
	return "; use afterTurn(" + strconv.Itoa(n) + ") (true after turn " + strconv.Itoa(n) + ")"
}

// isCombinator reports whether fn takes predicates as its arguments (a bare word there is
// not a text).
func isCombinator(fn string) bool {
	switch fn {
	case "and", "or", "not":
		return true
	}
	return false
}
