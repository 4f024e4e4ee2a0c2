package predicates

import (
	"strconv"
	"sync/atomic"
)

type combinator struct {
	or   bool
	ps   []Predicate
	expr string
}

// And fires when every p fires, evaluated left to right and stopping at the first false.
// And() is true. Nil children make it invalid.
func And(ps ...Predicate) Predicate { return newCombinator(false, ps) }

// Or fires when some p fires, evaluated left to right and stopping at the first true.
// Or() is false. Nil children make it invalid.
func Or(ps ...Predicate) Predicate { return newCombinator(true, ps) }

func newCombinator(or bool, ps []Predicate) Predicate {
	fn := "and"
	if or {
		fn = "or"
	}
	for _, p := range ps {
		if p == nil {
			return newInvalid(fn+"(…)", fn+": nil predicate")
		}
	}
	ps = append([]Predicate(nil), ps...)
	return &combinator{or: or, ps: ps, expr: fn + "(" + joinExprs(ps) + ")"}
}

func (p *combinator) String() string { return p.expr }

// Eval keeps the Results of the children it evaluated; its why counts them, e.g.
// "1 of 3 true, stopped at 2".
func (p *combinator) Eval(c *WhenContext) Result {
	r := Result{Expr: p.expr, Value: !p.or}
	if len(p.ps) == 0 {
		if p.or {
			r.Why = "empty or is false"
		} else {
			r.Why = "empty and is true"
		}
		return r
	}
	r.Children = make([]Result, 0, len(p.ps))
	trues := 0
	for _, q := range p.ps {
		cr := q.Eval(c)
		r.Children = append(r.Children, cr)
		if cr.Value {
			trues++
		}
		if cr.Value == p.or {
			r.Value = p.or
			break
		}
	}
	r.Why = combinatorWhy(len(p.ps), trues, len(r.Children))
	return r
}

// combinatorWhys keeps the reasons of combinators of up to 8 children, by children, true
// children and children evaluated: the same few strings come back on every turn.
var combinatorWhys [9][9][9]atomic.Pointer[string]

// combinatorWhy returns the reason of a combinator of total children, trues of the n it
// evaluated true: "1 of 3 true, stopped at 2" (0 <= trues <= n <= total).
func combinatorWhy(total, trues, n int) string {
	small := total < len(combinatorWhys)
	if small {
		if w := combinatorWhys[total][trues][n].Load(); w != nil {
			return *w
		}
	}
	why := strconv.Itoa(trues) + " of " + strconv.Itoa(total) + " true"
	if n < total {
		why += ", stopped at " + strconv.Itoa(n)
	}
	if small {
		combinatorWhys[total][trues][n].Store(&why)
	}
	return why
}

type notPred struct {
	p    Predicate
	expr string
}

// Not fires when p does not. A nil p makes it invalid.
func Not(p Predicate) Predicate {
	if p == nil {
		return newInvalid("not(…)", "not: nil predicate")
	}
	return &notPred{p: p, expr: "not(" + p.String() + ")"}
}

func (p *notPred) String() string { return p.expr }

func (p *notPred) Eval(c *WhenContext) Result {
	cr := p.p.Eval(c)
	why := "child is false"
	if cr.Value {
		why = "child is true"
	}
	return Result{Expr: p.expr, Value: !cr.Value, Why: why, Children: []Result{cr}}
}

type window struct {
	n     int
	every bool
	p     Predicate
	expr  string
}

// WithinLastN fires when p holds for at least one of the last n saved assistant replies:
// p sees each reply as LastAssistantMessage (a shallow copy of the context, other fields
// unchanged), newest first, stopping at the first true. False if n <= 0 or no replies.
func WithinLastN(n int, p Predicate) Predicate { return newWindow("withinLastN", n, false, p) }

// EveryOfLastN fires when p holds for each of the last n saved assistant replies (newest
// first, stopping at the first false). False when n <= 0 or fewer than n replies exist.
func EveryOfLastN(n int, p Predicate) Predicate { return newWindow("everyOfLastN", n, true, p) }

func newWindow(fn string, n int, every bool, p Predicate) Predicate {
	if p == nil {
		return newInvalid(fn+"("+strconv.Itoa(n)+", …)", fn+": nil predicate")
	}
	return &window{n: n, every: every, p: p, expr: fn + "(" + strconv.Itoa(n) + ", " + p.String() + ")"}
}

func (p *window) String() string { return p.expr }

func (p *window) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	r := Result{Expr: p.expr}
	replies := c.LastAssistantReplies
	ns := strconv.Itoa(p.n)
	switch {
	case p.n <= 0:
		r.Why = "n " + ns + " <= 0"
		return r
	case len(replies) == 0:
		r.Why = "no assistant replies"
		return r
	case p.every && len(replies) < p.n:
		r.Why = "only " + strconv.Itoa(len(replies)) + " replies < " + ns
		if len(replies) == 1 {
			r.Why = "only 1 reply < " + ns
		}
		return r
	}
	k := min(p.n, len(replies))
	cc := *c
	r.Children = make([]Result, 0, k)
	r.Value = p.every
	for i := 1; i <= k; i++ {
		cc.LastAssistantMessage = replies[len(replies)-i]
		cr := p.p.Eval(&cc)
		r.Children = append(r.Children, cr)
		if cr.Value != p.every {
			r.Value = cr.Value
			break
		}
	}
	// keep the per-turn caches the children filled
	c.lowerContent, c.contentTokens, c.tokenized = cc.lowerContent, cc.contentTokens, cc.tokenized
	c.asciiContent, c.patterns, c.patternsFor = cc.asciiContent, cc.patterns, cc.patternsFor
	n := len(r.Children)
	ks := strconv.Itoa(k)
	switch {
	case p.every && r.Value:
		r.Why = "held for all " + ks + " replies"
	case p.every:
		r.Why = "failed at reply " + strconv.Itoa(n) + " of last " + ks + " (1 = newest)"
	case r.Value:
		r.Why = "held at reply " + strconv.Itoa(n) + " of last " + ks + " (1 = newest)"
	default:
		r.Why = "held for none of the last " + ks + " replies"
	}
	return r
}
