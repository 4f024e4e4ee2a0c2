package predicates

import (
	"strconv"
)

// leaf returns the Result of a predicate without children.
func leaf(expr string, v bool, why string) Result {
	return Result{Expr: expr, Value: v, Why: why}
}

type everyNTurns struct {
	n    int
	expr string
}

// EveryNTurns fires when turn % n == 0. n must be at least 1.
func EveryNTurns(n int) Predicate {
	expr := "everyNTurns(" + strconv.Itoa(n) + ")"
	if n < 1 {
		return newInvalid(expr, "everyNTurns: n must be at least 1, got "+strconv.Itoa(n))
	}
	return &everyNTurns{n: n, expr: expr}
}

func (p *everyNTurns) String() string { return p.expr }

func (p *everyNTurns) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	m := c.Turn % p.n
	var tb, nb, mb [20]byte // the numbers, written once into the reason
	t, n := strconv.AppendInt(tb[:0], int64(c.Turn), 10), strconv.AppendInt(nb[:0], int64(p.n), 10)
	if m != 0 {
		return leaf(p.expr, false, "turn "+string(t)+" % "+string(n)+" == "+string(strconv.AppendInt(mb[:0], int64(m), 10))+" != 0")
	}
	return leaf(p.expr, true, "turn "+string(t)+" % "+string(n)+" == 0")
}

type firstTurn struct{}

// Once fires on the first turn only (turn == 1).
func Once() Predicate { return firstTurn{} }

func (firstTurn) String() string { return "once()" }

func (firstTurn) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	if c.Turn == 1 {
		return leaf("once()", true, "turn 1 == 1")
	}
	return leaf("once()", false, "turn "+strconv.Itoa(c.Turn)+" != 1")
}

type onceID struct {
	id   string
	expr string
}

// OnceID fires while the latch id has never fired on the branch (id is not in FiredOnce).
// When it fires, its Result carries the latch, which the engine sets only if the whole
// reminder is injected. id must not be empty.
func OnceID(id string) Predicate {
	expr := "once(" + quote(id) + ")"
	if id == "" {
		return newInvalid(expr, "once: the latch id must not be empty")
	}
	return &onceID{id: id, expr: expr}
}

func (p *onceID) String() string { return p.expr }

func (p *onceID) Eval(c *WhenContext) Result {
	if c != nil && c.FiredOnce[p.id] {
		return leaf(p.expr, false, "latch "+dquote(p.id, 40)+" already fired")
	}
	r := leaf(p.expr, true, "latch "+dquote(p.id, 40)+" not fired yet")
	r.latch = p.id
	return r
}

type turnCmp struct {
	n     int
	after bool
	expr  string
}

// FirstN fires on the first n turns (turn <= n). n must not be negative.
func FirstN(n int) Predicate {
	expr := "firstN(" + strconv.Itoa(n) + ")"
	if n < 0 {
		return newInvalid(expr, "firstN: n must not be negative, got "+strconv.Itoa(n))
	}
	return &turnCmp{n: n, expr: expr}
}

// AfterTurn fires after turn n (turn > n). n must not be negative.
func AfterTurn(n int) Predicate {
	expr := "afterTurn(" + strconv.Itoa(n) + ")"
	if n < 0 {
		return newInvalid(expr, "afterTurn: n must not be negative, got "+strconv.Itoa(n))
	}
	return &turnCmp{n: n, after: true, expr: expr}
}

func (p *turnCmp) String() string { return p.expr }

func (p *turnCmp) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	var tb, nb [20]byte // the numbers, written once into the reason
	t, n := strconv.AppendInt(tb[:0], int64(c.Turn), 10), strconv.AppendInt(nb[:0], int64(p.n), 10)
	le := c.Turn <= p.n
	why := "turn " + string(t) + " <= " + string(n)
	if !le {
		why = "turn " + string(t) + " > " + string(n)
	}
	if p.after {
		return leaf(p.expr, !le, why)
	}
	return leaf(p.expr, le, why)
}
