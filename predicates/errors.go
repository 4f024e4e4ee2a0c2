package predicates

import (
	"errors"
	"strconv"
)

// ParseError is a problem in a predicate expression. Offset is the byte offset in the
// source of the offending character (len(src) for the end of the input); Msg says what was
// expected or what is wrong.
type ParseError struct {
	Offset int
	Msg    string
}

// Error formats the problem as "offset N: message".
func (e *ParseError) Error() string {
	return "offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// ErrUnknownZone is wrapped by the errors about time zones that cannot be loaded.
var ErrUnknownZone = errors.New("unknown time zone")

// invalid is what a constructor returns for arguments it cannot accept: it keeps the
// expression text and evaluates to false with an error, so embedders get no panic.
type invalid struct {
	expr string
	err  string
}

func newInvalid(expr, err string) Predicate { return &invalid{expr: expr, err: err} }

func (p *invalid) String() string { return p.expr }

func (p *invalid) Eval(*WhenContext) Result {
	return Result{Expr: p.expr, Why: "invalid predicate", Error: p.err}
}

// Validate reports the first invalid node of a predicate built by the constructors (for
// example EveryNTurns(0)); predicates returned by Parse are always valid.
func Validate(p Predicate) error {
	switch q := p.(type) {
	case nil:
		return errors.New("nil predicate")
	case *invalid:
		return errors.New(q.err)
	case *combinator:
		for _, c := range q.ps {
			if err := Validate(c); err != nil {
				return err
			}
		}
	case *notPred:
		return Validate(q.p)
	case *window:
		return Validate(q.p)
	}
	return nil
}
