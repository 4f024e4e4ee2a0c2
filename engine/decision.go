package engine

import (
	"encoding/json"
	"strconv"

	"github.com/ctxlab/ctxlab/engine/chat"

	"github.com/ctxlab/ctxlab/predicates"
)

// Reasons a reminder or instruction fired or not. When several gates fail, the first in
// this order is reported: disabled, not_in_mode, predicate_error, predicate_false,
// empty_text, cap_reached, rate_limited, budget_trimmed.
const (
	ReasonFired           = "fired"
	ReasonDeferredToModel = "deferred_to_model"
	ReasonDisabled        = "disabled"
	ReasonNotInMode       = "not_in_mode"
	ReasonPredicateError  = "predicate_error"
	ReasonPredicateFalse  = "predicate_false"
	ReasonEmptyText       = "empty_text"
	ReasonCapReached      = "cap_reached"
	ReasonRateLimited     = "rate_limited"
	ReasonBudgetTrimmed   = "budget_trimmed"
)

// Sources of a decision.
const (
	SourceReminder    = "reminder"
	SourceInstruction = "instruction"
)

// Decision says whether one reminder or instruction of the context file applied to a
// turn, and why.
type Decision struct {
	ID     string
	Source string
	Fired  bool
	Reason string
	Detail string
	Text   string
	Trace  *predicates.Result

	// Reminders only.
	Placement string
	Tier      string
	Tokens    int
	latches   []string

	// Instructions only.
	Kind  string
	Scope string   // Always or In: Mode
	When  []string // the conditions rendered for the model to judge

	// Was is set by a replay under another context file when the decision differs from
	// what was recorded.
	Was *Was
}

// Was is a recorded decision that a re-evaluation changed.
type Was struct {
	Fired  bool   `json:"fired"`
	Reason string `json:"reason"`
}

// reminderJSON and instructionJSON are the decoding forms of a decision.
type reminderJSON struct {
	ID        string             `json:"id"`
	Source    string             `json:"source"`
	Fired     bool               `json:"fired"`
	Reason    string             `json:"reason"`
	Detail    string             `json:"detail"`
	Placement string             `json:"placement"`
	Tier      string             `json:"tier"`
	Text      string             `json:"text"`
	Tokens    int                `json:"tokens"`
	Trace     *predicates.Result `json:"trace"`
	Latches   []string           `json:"latches,omitempty"`
	Was       *Was               `json:"was,omitempty"`
}

type instructionJSON struct {
	ID     string             `json:"id"`
	Source string             `json:"source"`
	Kind   string             `json:"kind"`
	Scope  string             `json:"scope"`
	Fired  bool               `json:"fired"`
	Reason string             `json:"reason"`
	Detail string             `json:"detail,omitempty"`
	Text   string             `json:"text"`
	When   []string           `json:"when,omitempty"`
	Trace  *predicates.Result `json:"trace,omitempty"`
	Was    *Was               `json:"was,omitempty"`
}

// MarshalJSON writes the fields of the trace format of spec/headless.md for the decision's
// source.
func (d Decision) MarshalJSON() ([]byte, error) {
	return d.appendJSON(nil), nil
}

// marshalDecisions encodes a decision list as a JSON array. It runs on every turn (the
// record of the turn), so it appends by hand instead of going through reflection.
func marshalDecisions(ds []Decision) []byte {
	buf := make([]byte, 0, 512*len(ds)+2)
	buf = append(buf, '[')
	for i := range ds {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = ds[i].appendJSON(buf)
	}
	return append(buf, ']')
}

func (d *Decision) appendJSON(dst []byte) []byte {
	str := func(key, v string) {
		dst = chat.AppendJSONField(dst, key)
		dst = chat.AppendJSONString(dst, v)
	}
	dst = append(dst, '{')
	str("id", d.ID)
	str("source", d.Source)
	if d.Source == SourceInstruction {
		str("kind", d.Kind)
		str("scope", d.Scope)
	}
	dst = chat.AppendJSONField(dst, "fired")
	dst = chat.AppendJSONBool(dst, d.Fired)
	str("reason", d.Reason)
	if d.Source != SourceInstruction || d.Detail != "" {
		str("detail", d.Detail)
	}
	if d.Source != SourceInstruction {
		str("placement", d.Placement)
		str("tier", d.Tier)
	}
	str("text", d.Text)
	if d.Source == SourceInstruction {
		if len(d.When) > 0 {
			dst = chat.AppendJSONField(dst, "when")
			dst = appendStrings(dst, d.When)
		}
	} else {
		dst = chat.AppendJSONField(dst, "tokens")
		dst = strconv.AppendInt(dst, int64(d.Tokens), 10)
	}
	switch {
	case d.Trace != nil:
		dst = chat.AppendJSONField(dst, "trace")
		dst = d.Trace.AppendJSON(dst)
	case d.Source != SourceInstruction:
		dst = chat.AppendJSONField(dst, "trace")
		dst = append(dst, "null"...)
	}
	if len(d.latches) > 0 {
		dst = chat.AppendJSONField(dst, "latches")
		dst = appendStrings(dst, d.latches)
	}
	if d.Was != nil {
		dst = chat.AppendJSONField(dst, "was")
		dst = append(dst, '{')
		dst = chat.AppendJSONField(dst, "fired")
		dst = chat.AppendJSONBool(dst, d.Was.Fired)
		str("reason", d.Was.Reason)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func appendStrings(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = chat.AppendJSONString(dst, s)
	}
	return append(dst, ']')
}

// UnmarshalJSON reads a decision written by MarshalJSON (recorded turns, imports).
func (d *Decision) UnmarshalJSON(b []byte) error {
	var r reminderJSON
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	if r.Source == SourceInstruction {
		var in instructionJSON
		if err := json.Unmarshal(b, &in); err != nil {
			return err
		}
		*d = Decision{ID: in.ID, Source: in.Source, Kind: in.Kind, Scope: in.Scope, Fired: in.Fired,
			Reason: in.Reason, Detail: in.Detail, Text: in.Text, When: in.When, Trace: in.Trace, Was: in.Was}
		return nil
	}
	*d = Decision{ID: r.ID, Source: r.Source, Fired: r.Fired, Reason: r.Reason, Detail: r.Detail,
		Placement: r.Placement, Tier: r.Tier, Text: r.Text, Tokens: r.Tokens, Trace: r.Trace,
		latches: r.Latches, Was: r.Was}
	return nil
}

// Latches are the once('id') latches this decision sets when it fires.
func (d *Decision) Latches() []string { return d.latches }
