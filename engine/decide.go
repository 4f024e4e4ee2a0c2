package engine

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	dec "github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/predicates"
)

// turnEval is the pure decision pass of one turn: it reads the WhenContext and the
// branch's counters and changes nothing.
type turnEval struct {
	file  *ctxfile.File
	cache *fileCache
	wc    *predicates.WhenContext
	fires map[string]fireCount

	modes map[string]predicates.Result
	// traces holds the trace of each reminder (by its index), allocated once per pass.
	traces []predicates.Result
}

// decisions holds the outcome of a decision pass.
type decisions struct {
	reminders    []Decision
	instructions []Decision
	applied      []bool // per instruction: rendered into the system prompt
	// both is the array of reminders then instructions, when they share one (decide).
	both []Decision
}

// fired returns what the turn records to derive counters and latches from: the fired
// reminders, and the fired instructions that set once('id') latches (as "instruction:ID").
func (d *decisions) fired() []chat.Fired {
	return append(dec.Fired(d.reminders), dec.Fired(d.instructions)...)
}

// all returns reminders then instructions, in file order: the array decide made for
// both, or a copy for decisions made otherwise.
func (d *decisions) all() []Decision {
	if d.both != nil {
		return d.both
	}
	out := make([]Decision, 0, len(d.reminders)+len(d.instructions))
	return append(append(out, d.reminders...), d.instructions...)
}

// decide evaluates every reminder and instruction and applies the policy. Reminders and
// instructions share one array, so that all need not copy them.
func (t *turnEval) decide() *decisions {
	nr := len(t.file.Reminders)
	both := make([]Decision, nr+len(t.file.Instructions))
	d := &decisions{reminders: both[:nr:nr], both: both}
	t.traces = make([]predicates.Result, nr)
	for i := range t.file.Reminders {
		t.reminder(i, &t.file.Reminders[i], &d.reminders[i])
	}
	t.applyBudget(d.reminders)
	d.instructions = both[nr:]
	d.applied = make([]bool, len(t.file.Instructions))
	for i := range t.file.Instructions {
		d.instructions[i] = t.instruction(&t.file.Instructions[i])
		d.applied[i] = d.instructions[i].Fired
	}
	return d
}

// always is the trace of a reminder without a when condition.
var always = predicates.Result{Expr: "", Value: true, Why: "no when condition: every turn"}

// reminder decides reminder i of the file into d; Tokens counts its text whenever the
// text is known, once for a static text.
func (t *turnEval) reminder(i int, r *ctxfile.Reminder, d *Decision) {
	t.gateReminder(i, r, d)
	if r.Builtin == "" && r.Template == nil {
		d.Tokens = t.cache.reminderTokens(i, d.Text)
	} else {
		d.Tokens = t.cache.count(d.Text)
	}
}

// gateReminder decides reminder i of the file into d, a zero Decision (written in place,
// field by field: a decision is large, and 200 reminders are decided every turn).
func (t *turnEval) gateReminder(i int, r *ctxfile.Reminder, d *Decision) {
	d.ID, d.Source, d.Placement, d.Tier, d.Text = r.ID, SourceReminder, r.Placement, r.Tier, r.Text
	if !r.Enabled {
		d.Reason, d.Detail = ReasonDisabled, "enabled: false"
		return
	}
	res := &t.traces[i]
	*res = always
	if r.When != nil {
		*res = r.When.Eval(t.wc)
	}
	d.Trace = res
	if reason, detail := predicateGate(*res); reason != "" {
		d.Reason, d.Detail = reason, detail
		return
	}
	text := r.Text
	switch {
	case r.Builtin != "":
		var bres predicates.Result
		text, bres = t.builtinText(r)
		if r.When == nil {
			d.Trace = &bres
		} else {
			both := predicates.Result{Expr: "and(" + res.Expr + ", " + bres.Expr + ")", Value: bres.Value,
				Why: "when holds; " + bres.Why, Error: bres.Error, Children: []predicates.Result{*res, bres}}
			d.Trace = &both
		}
		if reason, detail := predicateGate(bres); reason != "" {
			d.Reason, d.Detail = reason, detail
			return
		}
	case r.Template != nil:
		buf := cappedBuffer{max: maxTemplateOutput}
		if err := r.Template.Execute(&buf, templateData(t.wc)); err != nil {
			d.Reason, d.Detail = ReasonPredicateError, "template: "+err.Error()
			return
		}
		text = buf.String()
	}
	d.Text = text
	if strings.TrimSpace(text) == "" {
		d.Reason, d.Detail = ReasonEmptyText, "the template rendered blank"
		return
	}
	c := t.fires[r.ID]
	if r.Tier != ctxfile.TierSafety && r.MaxPerChat > 0 && c.count >= r.MaxPerChat {
		d.Reason, d.Detail = ReasonCapReached, "emitted "+strconv.Itoa(c.count)+" of "+strconv.Itoa(r.MaxPerChat)
		return
	}
	if r.MinTurnsBetween > 0 && c.count > 0 && t.wc.Turn-c.last < r.MinTurnsBetween {
		d.Reason = ReasonRateLimited
		d.Detail = "last fired turn " + strconv.Itoa(c.last) + ", next eligible " + strconv.Itoa(c.last+r.MinTurnsBetween)
		return
	}
	d.Fired, d.Reason = true, ReasonFired
	d.OnceLatches = res.Latches()
}

// applyBudget drops fired guidance reminders, last in file order first, until the fired
// reminders fit reminder_budget_tokens. Safety reminders are never dropped.
func (t *turnEval) applyBudget(ds []Decision) {
	budget := t.file.ReminderBudgetTokens
	if budget <= 0 {
		return
	}
	total := 0
	for i := range ds {
		if ds[i].Fired {
			total += ds[i].Tokens
		}
	}
	need := total
	for i := len(ds) - 1; i >= 0 && total > budget; i-- {
		d := &ds[i]
		if !d.Fired || d.Tier == ctxfile.TierSafety {
			continue
		}
		total -= d.Tokens
		d.Fired, d.Reason, d.OnceLatches = false, ReasonBudgetTrimmed, nil
		d.Detail = "fired reminders needed " + strconv.Itoa(need) + " tokens, budget " + strconv.Itoa(budget) +
			"; dropped " + strconv.Itoa(d.Tokens) + " tokens"
	}
}

func (t *turnEval) instruction(in *ctxfile.Instruction) Decision {
	d := Decision{ID: in.ID, Source: SourceInstruction, Kind: in.Kind, Scope: scopeOf(in), Text: in.Prompt, When: in.When}
	if !in.Enabled {
		d.Reason, d.Detail = ReasonDisabled, "enabled: false"
		return d
	}
	var modeLatches []string // once('id') in the mode's condition latches with what it applies
	if in.Mode != "" {
		mres := t.mode(in.Mode)
		modeLatches = mres.Latches()
		// A mode whose condition failed is off: the instruction is not_in_mode, and the
		// detail names the error.
		if reason, detail := predicateGate(mres); reason != "" {
			d.Trace = &mres
			d.Reason, d.Detail = ReasonNotInMode, "mode "+in.Mode+" is not active"
			if reason == ReasonPredicateError {
				d.Detail = "mode " + in.Mode + ": " + detail
			}
			return d
		}
	}
	if len(in.If) > 0 {
		var res predicates.Result
		if len(in.If) == 1 {
			res = in.If[0].Eval(t.wc)
		} else {
			res = predicates.And(in.If...).Eval(t.wc)
		}
		d.Trace = &res
		if reason, detail := predicateGate(res); reason != "" {
			d.Reason, d.Detail = reason, detail
			return d
		}
	}
	d.Fired = true
	d.OnceLatches = modeLatches
	if d.Trace != nil {
		d.OnceLatches = append(d.OnceLatches[:len(d.OnceLatches):len(d.OnceLatches)], d.Trace.Latches()...)
	}
	if len(in.When) > 0 {
		d.Reason = ReasonDeferredToModel
	} else {
		d.Reason = ReasonFired
	}
	return d
}

// mode evaluates a mode's condition once per turn.
func (t *turnEval) mode(name string) predicates.Result {
	if r, ok := t.modes[name]; ok {
		return r
	}
	if t.modes == nil {
		t.modes = map[string]predicates.Result{}
	}
	var res predicates.Result
	for i := range t.file.Modes {
		if m := &t.file.Modes[i]; m.Name == name {
			res = m.If.Eval(t.wc)
			break
		}
	}
	t.modes[name] = res
	return res
}

// maxTemplateOutput bounds what a reminder template may write: a runaway {{range}} stops
// with an error instead of filling memory.
const maxTemplateOutput = 64 << 10

// cappedBuffer is a bytes.Buffer that refuses to grow past max bytes.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, fmt.Errorf("the template wrote more than %d KiB", b.max>>10)
	}
	return b.Buffer.Write(p)
}

// predicateGate returns the reason a predicate result stops a decision, and its detail, or
// "" when the predicate holds. An error anywhere in the evaluated tree is predicate_error
// with the first error as detail, even when the tree came out true (not(dayChanged()) in an
// unknown zone): a predicate that failed never makes a reminder or instruction apply.
func predicateGate(res predicates.Result) (reason, detail string) {
	if e := firstError(&res); e != "" {
		return ReasonPredicateError, e
	}
	if !res.Value {
		return ReasonPredicateFalse, ""
	}
	return "", ""
}

// firstError returns the first error message in a result tree.
func firstError(r *predicates.Result) string {
	if r.Error != "" {
		return r.Error
	}
	for i := range r.Children {
		if e := firstError(&r.Children[i]); e != "" {
			return e
		}
	}
	return ""
}

func templateData(wc *predicates.WhenContext) ctxfile.TemplateData {
	return ctxfile.TemplateData{Turn: wc.Turn, Content: wc.Content, Branch: wc.Branch, MessageCount: wc.MessageCount,
		Elapsed: wc.Elapsed, LastMessageAt: wc.LastMessageAt, Usage: wc.Usage, Now: wc.Now}
}
