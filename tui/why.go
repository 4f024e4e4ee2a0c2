package tui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/predicates"
	"github.com/ctxlab/ctxlab/themes"
)

// Marks of fired and not-fired decisions: they tell the two apart without colour.
const (
	markFired    = "✓"
	markNotFired = "✗"
)

// whyReasonOrder is the order of the Why tab's groups of decisions that did not fire
// (spec/tui.md); reasons not listed follow, in name order.
var whyReasonOrder = []string{
	engine.ReasonPredicateFalse, engine.ReasonNotInMode, engine.ReasonCapReached, engine.ReasonRateLimited,
	engine.ReasonBudgetTrimmed, engine.ReasonEmptyText, engine.ReasonPredicateError, engine.ReasonDisabled,
	engine.ReasonDeferredToModel,
}

// whyOrder returns the decisions in the order the Why tab shows them: fired reminders,
// fired instructions, then the rest grouped by reason. Each group is returned with its
// title.
func whyOrder(ds []engine.Decision) []whyGroup {
	var fired, instr []*engine.Decision
	rest := map[string][]*engine.Decision{}
	for i := range ds {
		d := &ds[i]
		switch {
		case d.Fired && d.Source == engine.SourceInstruction:
			instr = append(instr, d)
		case d.Fired:
			fired = append(fired, d)
		default:
			rest[d.Reason] = append(rest[d.Reason], d)
		}
	}
	var out []whyGroup
	if len(fired) > 0 {
		out = append(out, whyGroup{title: "fired", ds: fired})
	}
	if len(instr) > 0 {
		out = append(out, whyGroup{title: "instructions", ds: instr})
	}
	reasons := slices.Clone(whyReasonOrder)
	var other []string
	for r := range rest {
		if !slices.Contains(whyReasonOrder, r) {
			other = append(other, r)
		}
	}
	slices.Sort(other)
	for _, r := range append(reasons, other...) {
		if len(rest[r]) > 0 {
			out = append(out, whyGroup{title: r, ds: rest[r]})
		}
	}
	return out
}

// whyGroup is a titled group of decisions of the Why tab.
type whyGroup struct {
	title string
	ds    []*engine.Decision
}

// turnHeader adds the pinned header of a turn's tab: PREVIEW, or the turn, its branch
// and time.
func (in *inspector) turnHeader(bb *tabBuilder, t *engine.Trace) {
	if in.turn.Preview {
		bb.headSegs(tabSeg{themes.Accent, "PREVIEW"}, tabSeg{themes.Muted, " turn " + strconv.Itoa(t.Turn) + " · " + inert.DisplayLine(t.Branch) + " · nothing sent"})
		return
	}
	bb.headSegs(tabSeg{themes.Text, "turn " + strconv.Itoa(t.Turn)}, tabSeg{themes.Muted, " · " + inert.DisplayLine(t.Branch) + " · " + traceTime(t.At)})
	if t.NotRecorded {
		bb.head(themes.Warning, "no record (imported): rebuilt from the messages")
	}
	if t.PlannedOn != "" {
		bb.head(themes.Warning, "planned on "+inert.DisplayLine(t.PlannedOn)+", which another writer moved: saved on "+inert.DisplayLine(t.Branch))
	}
}

// noTurnLine adds the line of a tab with no turn to show.
func (in *inspector) noTurnLine(bb *tabBuilder) {
	bb.head(themes.Muted, "no turn selected: "+in.emptyHint)
}

// renderWhy renders the Why tab: every decision of the turn, fired first, each an item
// of the cursor; an open item shows its predicate tree.
func (in *inspector) renderWhy(bb *tabBuilder) {
	t := in.turn.Trace
	if t == nil {
		in.noTurnLine(bb)
		return
	}
	in.turnHeader(bb, t)
	groups := whyOrder(t.Decisions)
	var nFired, nInstr, nHeld, nChanged int
	for _, g := range groups {
		for _, d := range g.ds {
			switch {
			case d.Fired && d.Source == engine.SourceInstruction:
				nInstr++
			case d.Fired:
				nFired++
			default:
				nHeld++
			}
			if d.Was != nil {
				nChanged++
			}
		}
	}
	bb.head(themes.Muted, strconv.Itoa(nFired)+" fired · "+countNoun(nInstr, "instruction")+" · "+strconv.Itoa(nHeld)+" not fired")
	if nChanged > 0 || len(t.Removed) > 0 {
		what := "re-evaluated under the edited file: " + strconv.Itoa(nChanged) + " changed"
		if len(t.Removed) > 0 {
			what += ", " + strconv.Itoa(len(t.Removed)) + " removed"
		}
		bb.head(themes.Warning, what)
	}
	if t.Error != "" {
		bb.text(themes.Error, 0, 2, "error: "+inert.Display(t.Error))
	}
	switch {
	case len(t.Decisions) > 0:
	case t.NotRecorded:
		bb.text(themes.Muted, 0, 0, "no decisions recorded for this turn")
	default:
		bb.text(themes.Muted, 0, 0, "no reminder or instruction was in force: nothing to decide (no context file, or one with none)")
	}
	item := 0
	for gi, g := range groups {
		if gi > 0 || t.Error != "" {
			bb.blank()
		}
		bb.item(-1)
		bb.segs(0, tabSeg{themes.Muted, strings.ToUpper(g.title) + " (" + strconv.Itoa(len(g.ds)) + ")"})
		for _, d := range g.ds {
			bb.item(item)
			in.decision(bb, d, in.expanded[item])
			item++
		}
	}
	bb.item(-1)
	if len(t.Removed) > 0 {
		bb.blank()
		bb.segs(0, tabSeg{themes.Muted, "NO LONGER IN THE FILE (" + strconv.Itoa(len(t.Removed)) + ")"})
		for _, r := range t.Removed {
			bb.segs(2, tabSeg{themes.Removed, firedMark(r.Fired) + " " + inert.DisplayLine(r.ID)},
				tabSeg{themes.Muted, " " + r.Source + ", was " + r.Reason})
		}
	}
}

func firedMark(fired bool) string {
	if fired {
		return markFired
	}
	return markNotFired
}

// decision adds one decision: its line (mark, id, what it is), its why or detail, what a
// re-evaluation changed, and, open, its predicate tree.
func (in *inspector) decision(bb *tabBuilder, d *engine.Decision, open bool) {
	role := themes.NotFired
	if d.Fired {
		role = themes.Fired
	}
	id := inert.DisplayLine(d.ID)
	var meta string
	if d.Source == engine.SourceInstruction {
		id = "[" + inert.DisplayLine(d.Kind) + "] " + id
		meta = inert.DisplayLine(d.Scope)
	} else {
		meta = inert.DisplayLine(d.Placement) + " · " + inert.DisplayLine(d.Tier)
		if d.Fired {
			meta += " · " + strconv.Itoa(d.Tokens) + " tok"
		}
	}
	bb.segs(2, tabSeg{role, firedMark(d.Fired) + " " + id}, tabSeg{themes.Muted, "  " + meta})
	if d.Was != nil {
		bb.segs(4, tabSeg{themes.Muted, "was "}, tabSeg{themes.Removed, firedMark(d.Was.Fired) + " " + d.Was.Reason},
			tabSeg{themes.Muted, " → now "}, tabSeg{themes.Added, firedMark(d.Fired) + " " + d.Reason})
	}
	if d.Source == engine.SourceInstruction {
		if d.Fired {
			bb.text(themes.Text, 4, 0, inert.Display(d.Text))
			if len(d.When) > 0 {
				when := make([]string, len(d.When))
				for i, w := range d.When {
					when[i] = inert.DisplayLine(w)
				}
				bb.text(themes.Muted, 4, 6, "when: "+strings.Join(when, " OR "))
			}
		}
		if d.Reason == engine.ReasonDeferredToModel {
			bb.text(themes.Muted, 4, 0, "the model judges when it applies")
		}
	}
	if d.Detail != "" {
		detailRole := themes.Muted
		if d.Reason == engine.ReasonPredicateError {
			detailRole = themes.Error
		}
		bb.text(detailRole, 4, 2, inert.Display(d.Detail))
	} else if d.Trace != nil && d.Source != engine.SourceInstruction {
		bb.text(themes.Muted, 4, 2, decisionWhy(d.ID, d.Trace))
	}
	if open {
		if d.Trace == nil {
			bb.text(themes.Muted, 4, 0, "no predicate: it always applies")
			return
		}
		bb.text(themes.Muted, 4, 0, "predicate tree:")
		in.tree(bb, d.Trace, 6)
	}
}

// decisionWhy is a decision's top-level why: the expression and the why of its trace.
func decisionWhy(id string, r *predicates.Result) string {
	why := inert.Display(r.Why)
	if r.Expr != "" && r.Expr != id {
		why = inert.Display(r.Expr) + ": " + why
	}
	return why
}

// tree adds a predicate tree, each node indented under its parent: its mark and
// expression, then its value and why, and its error, under the expression.
func (in *inspector) tree(bb *tabBuilder, r *predicates.Result, indent int) {
	role := themes.NotFired
	if r.Value {
		role = themes.Fired
	}
	value := "false"
	if r.Value {
		value = "true"
	}
	bb.segs(indent, tabSeg{role, firedMark(r.Value) + " "}, tabSeg{themes.Text, inert.DisplayLine(r.Expr)})
	why := "= " + value
	if r.Why != "" {
		why += ": " + inert.Display(r.Why)
	}
	bb.text(role, indent+4, 2, why)
	if r.Error != "" {
		bb.text(themes.Error, indent+4, 2, "error: "+inert.Display(r.Error))
	}
	for i := range r.Children {
		in.tree(bb, &r.Children[i], indent+2)
	}
}

// traceTime shows a trace's time (RFC 3339 in UTC, to the nanosecond) to the second, as the
// headless commands' human output does: 2026-03-27 14:35:00 UTC.
func traceTime(at string) string {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return inert.DisplayLine(at)
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
