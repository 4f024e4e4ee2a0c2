// Package decision holds the decision record: whether one reminder or instruction of a
// context file applied to a turn, and why. The engine makes decisions, turn records and
// traces carry them as JSON, and the file formats check them on import; all three use this
// one type, so there is no copy to keep in step.
//
// It imports only the message model (for its JSON helpers) and the predicate result that
// a decision's trace is.
package decision

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
//
// Its JSON is the trace format of spec/headless.md, which has two forms chosen by Source:
// MarshalJSON writes the fields of the decision's form (see AppendJSON), and UnmarshalJSON
// keeps only those. The tags name the fields of both forms; Fields is the same struct
// without the JSON methods, for a strict check of a recorded list.
type Decision struct {
	ID     string `json:"id"`
	Source string `json:"source"` // SourceReminder or SourceInstruction

	// Instructions only.
	Kind  string `json:"kind"`
	Scope string `json:"scope"` // Always or In: Mode

	Fired  bool   `json:"fired"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`

	// Reminders only.
	Placement string `json:"placement"`
	Tier      string `json:"tier"`

	Text string `json:"text"`

	// Reminders only.
	Tokens int `json:"tokens"`

	// Instructions only: the conditions rendered for the model to judge.
	When []string `json:"when"`

	Trace *predicates.Result `json:"trace"`

	// OnceLatches are the once('id') latches this decision sets when it fires.
	OnceLatches []string `json:"latches"`

	// Was is set by a replay under another context file when the decision differs from
	// what was recorded.
	Was *Was `json:"was"`
}

// Fields is a Decision without its JSON methods: decoded by the tags, it takes the fields
// of both forms, so that a decoder that refuses unknown fields (or a walk over the type,
// as jsonpos does) checks a recorded decision against exactly the fields MarshalJSON
// writes. Being the same struct, it cannot fall behind Decision.
type Fields Decision

// Was is a recorded decision that a re-evaluation changed.
type Was struct {
	Fired  bool   `json:"fired"`
	Reason string `json:"reason"`
}

// Latches are the once('id') latches this decision sets when it fires.
func (d *Decision) Latches() []string { return d.OnceLatches }

// MarshalJSON writes the fields of the trace format of spec/headless.md for the decision's
// source (see AppendJSON).
func (d Decision) MarshalJSON() ([]byte, error) {
	return d.AppendJSON(nil), nil
}

// UnmarshalJSON reads a decision that MarshalJSON wrote (recorded turns, imports), keeping
// only the fields of its form: for an instruction, no placement, tier, tokens or latches;
// for a reminder, no kind, scope or when.
func (d *Decision) UnmarshalJSON(b []byte) error {
	var f Fields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*d = Decision(f)
	if d.Source == SourceInstruction {
		d.Placement, d.Tier, d.Tokens, d.OnceLatches = "", "", 0, nil
	} else {
		d.Kind, d.Scope, d.When = "", "", nil
	}
	return nil
}

// AppendList appends a decision list to dst as a JSON array. It runs on every turn (the
// record of the turn), so it appends by hand instead of going through reflection.
func AppendList(dst []byte, ds []Decision) []byte {
	dst = append(dst, '[')
	for i := range ds {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = ds[i].AppendJSON(dst)
	}
	return append(dst, ']')
}

// AppendJSON appends the decision to dst as JSON, in the form of its source. A reminder
// always has detail, placement, tier, tokens and trace (null when there is none); an
// instruction has kind and scope, and detail, when and trace only when set. Latches and
// was are written when set, whatever the source. <, > and & are left as they are.
func (d *Decision) AppendJSON(dst []byte) []byte { return d.appendJSON(dst, nil) }

// appendJSON is AppendJSON that also calls str, unless nil, with the bounds in dst of
// each JSON string it writes (see predicates.Result.AppendJSONStrings).
func (d *Decision) appendJSON(dst []byte, str func(start, end int)) []byte {
	key := func(k string) {
		dst = chat.AppendJSONField(dst, k)
		if str != nil {
			str(len(dst)-len(k)-3, len(dst)-1) // "k":
		}
	}
	val := func(v string) {
		start := len(dst)
		dst = chat.AppendJSONString(dst, v)
		if str != nil {
			str(start, len(dst))
		}
	}
	field := func(k, v string) {
		key(k)
		val(v)
	}
	list := func(k string, vs []string) {
		key(k)
		dst = append(dst, '[')
		for i, v := range vs {
			if i > 0 {
				dst = append(dst, ',')
			}
			val(v)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, '{')
	field("id", d.ID)
	field("source", d.Source)
	if d.Source == SourceInstruction {
		field("kind", d.Kind)
		field("scope", d.Scope)
	}
	key("fired")
	dst = chat.AppendJSONBool(dst, d.Fired)
	field("reason", d.Reason)
	if d.Source != SourceInstruction || d.Detail != "" {
		field("detail", d.Detail)
	}
	if d.Source != SourceInstruction {
		field("placement", d.Placement)
		field("tier", d.Tier)
	}
	field("text", d.Text)
	if d.Source == SourceInstruction {
		if len(d.When) > 0 {
			list("when", d.When)
		}
	} else {
		key("tokens")
		dst = strconv.AppendInt(dst, int64(d.Tokens), 10)
	}
	switch {
	case d.Trace != nil:
		key("trace")
		dst = d.Trace.AppendJSONStrings(dst, str)
	case d.Source != SourceInstruction:
		key("trace")
		dst = append(dst, "null"...)
	}
	if len(d.OnceLatches) > 0 {
		list("latches", d.OnceLatches)
	}
	if d.Was != nil {
		key("was")
		dst = append(dst, '{')
		key("fired")
		dst = chat.AppendJSONBool(dst, d.Was.Fired)
		field("reason", d.Was.Reason)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// InstructionPrefix marks the id of an instruction in a turn's fired list (chat.Fired), so
// that an instruction's id never counts as a reminder's.
const InstructionPrefix = "instruction:"

// Fired returns what a turn record keeps of its decisions (chat.Fired): the small form
// that counters (max_per_chat, min_turns_between) and once('id') latches are derived from
// when a chat is opened. It lists, in the order of ds, each fired reminder with the
// latches it sets, and each fired instruction that sets latches, as InstructionPrefix+ID.
// It is nil when nothing fired.
func Fired(ds []Decision) []chat.Fired {
	var out []chat.Fired
	for i := range ds {
		d := &ds[i]
		switch {
		case !d.Fired:
		case d.Source == SourceInstruction:
			if len(d.OnceLatches) > 0 {
				out = append(out, chat.Fired{ID: InstructionPrefix + d.ID, Latches: d.OnceLatches})
			}
		default:
			out = append(out, chat.Fired{ID: d.ID, Latches: d.OnceLatches})
		}
	}
	return out
}
