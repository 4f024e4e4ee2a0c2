package engine

import dec "github.com/ctxlab/ctxlab/engine/decision"

// Decision says whether one reminder or instruction of the context file applied to a
// turn, and why: the one decision record of package decision, which turn records, traces
// and the file formats share.
type Decision = dec.Decision

// Was is a recorded decision that a re-evaluation changed.
type Was = dec.Was

// Reasons a reminder or instruction fired or not (see package decision).
const (
	ReasonFired           = dec.ReasonFired
	ReasonDeferredToModel = dec.ReasonDeferredToModel
	ReasonDisabled        = dec.ReasonDisabled
	ReasonNotInMode       = dec.ReasonNotInMode
	ReasonPredicateError  = dec.ReasonPredicateError
	ReasonPredicateFalse  = dec.ReasonPredicateFalse
	ReasonEmptyText       = dec.ReasonEmptyText
	ReasonCapReached      = dec.ReasonCapReached
	ReasonRateLimited     = dec.ReasonRateLimited
	ReasonBudgetTrimmed   = dec.ReasonBudgetTrimmed
)

// Sources of a decision.
const (
	SourceReminder    = dec.SourceReminder
	SourceInstruction = dec.SourceInstruction
)
