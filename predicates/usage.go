package predicates

import (
	"strconv"
	"time"
)

type usageExceeds struct {
	n    int
	expr string
}

// UsageExceeds fires when the chat's accumulated total tokens are at least n (n >= 0).
func UsageExceeds(n int) Predicate {
	expr := "usageExceeds(" + strconv.Itoa(n) + ")"
	if n < 0 {
		return newInvalid(expr, "usageExceeds: n must not be negative, got "+strconv.Itoa(n))
	}
	return &usageExceeds{n: n, expr: expr}
}

func (p *usageExceeds) String() string { return p.expr }

func (p *usageExceeds) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	t := c.Usage.Total()
	if t >= p.n {
		return leaf(p.expr, true, "usage "+strconv.Itoa(t)+" >= "+strconv.Itoa(p.n))
	}
	return leaf(p.expr, false, "usage "+strconv.Itoa(t)+" < "+strconv.Itoa(p.n))
}

type elapsedExceeds struct {
	d    time.Duration
	expr string
}

// ElapsedExceeds fires when the time since the previous user message is at least d, which
// is rounded to milliseconds and must not be negative. It is false on turn 1, whatever d.
func ElapsedExceeds(d time.Duration) Predicate {
	d = d.Round(time.Millisecond)
	expr := "elapsedExceeds(" + fmtDuration(d) + ")"
	if d < 0 {
		return newInvalid(expr, "elapsedExceeds: duration must not be negative, got "+d.String())
	}
	return &elapsedExceeds{d: d, expr: expr}
}

func (p *elapsedExceeds) String() string { return p.expr }

// elapsed returns Elapsed, or Now minus LastMessageAt when only that is set.
func (c *WhenContext) elapsed() (time.Duration, bool) {
	switch {
	case c.Elapsed != nil:
		return *c.Elapsed, true
	case c.LastMessageAt != nil:
		return c.Now.Sub(*c.LastMessageAt), true
	}
	return 0, false
}

func (p *elapsedExceeds) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	e, ok := c.elapsed()
	if !ok {
		return leaf(p.expr, false, "no previous message: nothing elapsed")
	}
	// The why shows the elapsed time to the second (to the millisecond under a second): a
	// live clock's nanoseconds are noise to a reader.
	shown := e.Round(time.Second)
	if e < time.Second && e > -time.Second {
		shown = e.Round(time.Millisecond)
	}
	if e >= p.d {
		return leaf(p.expr, true, "elapsed "+shown.String()+" >= "+p.d.String())
	}
	return leaf(p.expr, false, "elapsed "+shown.String()+" < "+p.d.String())
}
