package predicates

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// CountSpec bounds a count: GTE and LTE (inclusive, either or both), or EQ alone. Nil
// fields are absent.
type CountSpec struct {
	GTE, LTE, EQ *int
}

// AtLeast returns the CountSpec gte=n.
func AtLeast(n int) CountSpec { return CountSpec{GTE: &n} }

// AtMost returns the CountSpec lte=n.
func AtMost(n int) CountSpec { return CountSpec{LTE: &n} }

// Between returns the CountSpec gte=lo, lte=hi.
func Between(lo, hi int) CountSpec { return CountSpec{GTE: &lo, LTE: &hi} }

// Exactly returns the CountSpec eq=n.
func Exactly(n int) CountSpec { return CountSpec{EQ: &n} }

// empty reports whether no bound is set.
func (s CountSpec) empty() bool { return s.GTE == nil && s.LTE == nil && s.EQ == nil }

// Validate checks the spec: at least one bound, eq not combined with gte or lte, no
// negative value, and gte not above lte.
func (s CountSpec) Validate() error {
	if s.empty() {
		return errors.New("needs gte=, lte= or eq=")
	}
	if s.EQ != nil && (s.GTE != nil || s.LTE != nil) {
		return errors.New("eq cannot be combined with gte or lte")
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"gte", s.GTE}, {"lte", s.LTE}, {"eq", s.EQ}} {
		if f.v != nil && *f.v < 0 {
			return errors.New(f.name + " must not be negative, got " + strconv.Itoa(*f.v))
		}
	}
	if s.GTE != nil && s.LTE != nil && *s.GTE > *s.LTE {
		return errors.New("gte " + strconv.Itoa(*s.GTE) + " is above lte " + strconv.Itoa(*s.LTE) + ": nothing can match")
	}
	return nil
}

// String returns the named arguments, e.g. "gte=1, lte=5".
func (s CountSpec) String() string {
	var parts []string
	if s.GTE != nil {
		parts = append(parts, "gte="+strconv.Itoa(*s.GTE))
	}
	if s.LTE != nil {
		parts = append(parts, "lte="+strconv.Itoa(*s.LTE))
	}
	if s.EQ != nil {
		parts = append(parts, "eq="+strconv.Itoa(*s.EQ))
	}
	return strings.Join(parts, ", ")
}

// check compares v with the spec and says why, e.g. "count 3 >= 2".
func (s CountSpec) check(what string, v int) (bool, string) {
	n := what + " " + strconv.Itoa(v)
	if s.EQ != nil {
		if v == *s.EQ {
			return true, n + " == " + strconv.Itoa(*s.EQ)
		}
		return false, n + " != " + strconv.Itoa(*s.EQ)
	}
	if s.GTE != nil && v < *s.GTE {
		return false, n + " < " + strconv.Itoa(*s.GTE)
	}
	if s.LTE != nil && v > *s.LTE {
		return false, n + " > " + strconv.Itoa(*s.LTE)
	}
	switch {
	case s.GTE != nil && s.LTE != nil:
		return true, n + " in [" + strconv.Itoa(*s.GTE) + ", " + strconv.Itoa(*s.LTE) + "]"
	case s.GTE != nil:
		return true, n + " >= " + strconv.Itoa(*s.GTE)
	default:
		return true, n + " <= " + strconv.Itoa(*s.LTE)
	}
}

// clone copies the spec so that callers cannot change it afterwards.
func (s CountSpec) clone() CountSpec {
	cp := func(p *int) *int {
		if p == nil {
			return nil
		}
		v := *p
		return &v
	}
	return CountSpec{GTE: cp(s.GTE), LTE: cp(s.LTE), EQ: cp(s.EQ)}
}

type lastAssistantLength struct {
	spec CountSpec
	expr string
}

// LastAssistantLength fires when the plain-text length of the last assistant message, in
// Unicode code points (0 when there is none), matches spec. The spec must be valid.
func LastAssistantLength(spec CountSpec) Predicate {
	expr := "lastAssistantLength(" + spec.String() + ")"
	if err := spec.Validate(); err != nil {
		return newInvalid(expr, "lastAssistantLength: "+err.Error())
	}
	return &lastAssistantLength{spec: spec.clone(), expr: expr}
}

func (p *lastAssistantLength) String() string { return p.expr }

func (p *lastAssistantLength) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	n := 0
	if m := c.LastAssistantMessage; m != nil {
		n = runeLen(m)
	}
	v, why := p.spec.check("length", n)
	return leaf(p.expr, v, why)
}

// runeLen counts the code points of the message's plain text without building it.
func runeLen(m *chat.Message) int {
	n, texts := 0, 0
	for i := range m.Parts {
		if m.Parts[i].Type != chat.PartText {
			continue
		}
		if texts > 0 {
			n++ // the joining space
		}
		texts++
		n += utf8.RuneCountInString(m.Parts[i].Text)
	}
	return n
}
