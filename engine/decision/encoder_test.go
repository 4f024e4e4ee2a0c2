package decision_test

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/predicates"
)

// TestEncoderMatchesAppendList encodes a list, then the list with one field of one
// decision changed, for every field the JSON holds: each time the encoder must give what
// AppendList gives, whether it copies a decision's bytes from the turn before or not.
func TestEncoderMatchesAppendList(t *testing.T) {
	base := func() []decision.Decision {
		return []decision.Decision{full(decision.SourceReminder), full(decision.SourceInstruction),
			{ID: "plain", Source: decision.SourceReminder, Reason: decision.ReasonPredicateFalse,
				Trace: &predicates.Result{Expr: "turn > 3", Why: "turn 2 is not > 3"}}}
	}
	changes := []struct {
		name   string
		change func(d *decision.Decision)
	}{
		{"nothing", func(d *decision.Decision) {}},
		{"id", func(d *decision.Decision) { d.ID += "x" }},
		{"source", func(d *decision.Decision) { d.Source = decision.SourceInstruction }},
		{"kind", func(d *decision.Decision) { d.Kind = "never" }},
		{"scope", func(d *decision.Decision) { d.Scope = "Always" }},
		{"fired", func(d *decision.Decision) { d.Fired = !d.Fired }},
		{"reason", func(d *decision.Decision) { d.Reason = decision.ReasonCapReached }},
		{"detail", func(d *decision.Decision) { d.Detail = "emitted 2 of 2" }},
		{"placement", func(d *decision.Decision) { d.Placement = "system" }},
		{"tier", func(d *decision.Decision) { d.Tier = "guidance" }},
		{"text", func(d *decision.Decision) { d.Text = "other \"text\"" }},
		{"tokens", func(d *decision.Decision) { d.Tokens++ }},
		{"when", func(d *decision.Decision) { d.When = append(d.When, "another") }},
		{"latches", func(d *decision.Decision) { d.OnceLatches = []string{"y"} }},
		{"was", func(d *decision.Decision) { d.Was = &decision.Was{Fired: true, Reason: decision.ReasonFired} }},
		{"no was", func(d *decision.Decision) { d.Was = nil }},
		{"no trace", func(d *decision.Decision) { d.Trace = nil }},
		{"trace why", func(d *decision.Decision) { tr := *d.Trace; tr.Why = "turn 3 is not > 3"; d.Trace = &tr }},
		{"trace value", func(d *decision.Decision) { tr := *d.Trace; tr.Value = !tr.Value; d.Trace = &tr }},
		{"trace expr", func(d *decision.Decision) { tr := *d.Trace; tr.Expr = "turn > 4"; d.Trace = &tr }},
		{"trace error", func(d *decision.Decision) { tr := *d.Trace; tr.Error = "boom"; d.Trace = &tr }},
		{"trace child", func(d *decision.Decision) {
			tr := *d.Trace
			tr.Children = append([]predicates.Result{{Expr: "x", Why: "y"}}, tr.Children...)
			d.Trace = &tr
		}},
	}
	for _, tc := range changes {
		for i := range base() {
			t.Run(tc.name, func(t *testing.T) {
				var enc decision.Encoder
				first := base()
				if got, want := enc.Encode(first), decision.AppendList(nil, first); string(got) != string(want) {
					t.Fatalf("first list: got %s\nwant %s", got, want)
				}
				next := base()
				tc.change(&next[i])
				if got, want := enc.Encode(next), decision.AppendList(nil, next); string(got) != string(want) {
					t.Errorf("decision %d changed: got %s\nwant %s", i, got, want)
				}
				shorter := next[:1]
				if got, want := enc.Encode(shorter), decision.AppendList(nil, shorter); string(got) != string(want) {
					t.Errorf("a shorter list: got %s\nwant %s", got, want)
				}
			})
		}
	}
	t.Run("the same list changed", func(t *testing.T) {
		var enc decision.Encoder
		ds := base()
		enc.Encode(ds)
		ds[0].Reason = decision.ReasonCapReached
		if got, want := enc.Encode(ds), decision.AppendList(nil, ds); string(got) != string(want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	})
	var enc decision.Encoder
	if got := string(enc.Encode(nil)); got != "[]" {
		t.Errorf("no decisions: got %s, want []", got)
	}
}
