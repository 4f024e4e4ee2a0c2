package decision_test

import (
	"slices"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/predicates"
)

// encode encodes ds with enc, checks the List against AppendList and a scan of its JSON
// (the elements' ends, the strings of at least MinString bytes), and returns its JSON.
func encode(t *testing.T, enc *decision.Encoder, ds []decision.Decision) []byte {
	t.Helper()
	l := enc.EncodeList(ds)
	if want := decision.AppendList(nil, ds); string(l.JSON) != string(want) {
		t.Fatalf("got %s\nwant %s", l.JSON, want)
	}
	var strs, ends []int
	pos := 1
	for range ds {
		end, valid, compact := chat.ScanJSONValue(l.JSON, pos, func(start, end int) {
			if end-start >= chat.EncodedListMinString {
				strs = append(strs, start, end)
			}
		})
		if !valid || !compact {
			t.Fatalf("element at %d of %s: valid %v, compact %v", pos, l.JSON, valid, compact)
		}
		ends = append(ends, end)
		pos = end + 1
	}
	if !slices.Equal(l.Ends, ends) {
		t.Errorf("ends %v, a scan finds %v", l.Ends, ends)
	}
	if !slices.Equal(l.Strings, strs) {
		t.Errorf("strings %v, a scan finds %v in %s", l.Strings, strs, l.JSON)
	}
	return l.JSON
}

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
				encode(t, &enc, first)
				next := base()
				tc.change(&next[i])
				encode(t, &enc, next)
				encode(t, &enc, next[:1]) // a shorter list
				encode(t, &enc, base())   // a longer one
			})
		}
	}
	t.Run("the same list changed", func(t *testing.T) {
		var enc decision.Encoder
		ds := base()
		enc.Encode(ds)
		ds[0].Reason = decision.ReasonCapReached
		encode(t, &enc, ds)
	})
	var enc decision.Encoder
	if got := string(enc.Encode(nil)); got != "[]" {
		t.Errorf("no decisions: got %s, want []", got)
	}
}
