package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestDecisionsOnePerCandidate checks one decision per reminder and instruction, in file
// order, reminders first, with their source and static fields.
func TestDecisionsOnePerCandidate(t *testing.T) {
	h := newHarness(t, `
instructions:
  - {id: i1, prompt: First.}
  - {id: i2, kind: never, prompt: Second., enabled: false}
reminders:
  - {id: r1, text: One.}
  - {id: r2, text: Two., when: afterTurn(3), placement: part, tier: safety}
  - builtin: temporal
  - {id: r3, text: Three., placement: system}
`)
	p := h.preview("hello")
	want := []string{"r1", "r2", "builtin:date", "builtin:time", "builtin:month", "builtin:year", "builtin:season", "r3", "i1", "i2"}
	if got := ids(p.Decisions); !reflect.DeepEqual(got, want) {
		t.Fatalf("got decisions %v, want %v", got, want)
	}
	for i, d := range p.Decisions {
		wantSource := SourceReminder
		if i >= 8 {
			wantSource = SourceInstruction
		}
		if d.Source != wantSource {
			t.Errorf("%s: got source %q, want %q", d.ID, d.Source, wantSource)
		}
	}
	r2 := decision(t, p.Decisions, "r2")
	if r2.Placement != "part" || r2.Tier != "safety" || r2.Text != "Two." || r2.Fired {
		t.Errorf("r2: got placement %q tier %q text %q fired %v, want part safety Two. false", r2.Placement, r2.Tier, r2.Text, r2.Fired)
	}
	i2 := decision(t, p.Decisions, "i2")
	if i2.Kind != "never" || i2.Scope != "Always" || i2.Text != "Second." {
		t.Errorf("i2: got kind %q scope %q text %q, want never Always Second.", i2.Kind, i2.Scope, i2.Text)
	}
}

// TestReasons covers every reason of spec/headless.md, and the gate order when several
// gates fail.
func TestReasons(t *testing.T) {
	mars := &chat.Locale{Language: "English", TimeZone: "Mars/Olympus_Mons"}
	tests := []struct {
		name   string
		src    string
		before int // turns sent before the checked one
		text   string
		locale *chat.Locale
		id     string
		want   string // id:reason (detail)
	}{
		{name: "fired", src: `reminders: [{id: r, text: Hi.}]`, id: "r", want: "r:fired"},
		{name: "fired when", src: `reminders: [{id: r, text: Hi., when: everyNTurns(2)}]`, before: 1, id: "r", want: "r:fired"},
		{name: "predicate false", src: `reminders: [{id: r, text: Hi., when: afterTurn(3)}]`, id: "r", want: "r:predicate_false"},
		{name: "predicate error: unknown zone in the message locale", src: `reminders: [{id: r, text: Hi., when: dayChanged()}]`,
			before: 1, locale: mars, id: "r", want: `r:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "predicate error inside or", src: `reminders: [{id: r, text: Hi., when: "or(dayChanged(), afterTurn(5))"}]`,
			before: 1, locale: mars, id: "r", want: `r:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "predicate error inside or that holds", src: `reminders: [{id: r, text: Hi., when: "or(dayChanged(), afterTurn(0))"}]`,
			before: 1, locale: mars, id: "r", want: `r:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "predicate error under not", src: `reminders: [{id: r, text: Hi., when: not(dayChanged())}]`,
			before: 1, locale: mars, id: "r", want: `r:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "predicate error not evaluated: or short-circuits", src: `reminders: [{id: r, text: Hi., when: "or(afterTurn(0), dayChanged())"}]`,
			before: 1, locale: mars, id: "r", want: "r:fired"},
		{name: "predicate error: builtin in an unknown zone", src: `reminders: [{builtin: date}]`,
			locale: mars, id: "builtin:date", want: `builtin:date:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "predicate error: builtin with a failing when", src: `reminders: [{builtin: locale, when: not(dayChanged())}]`,
			before: 1, locale: mars, id: "builtin:locale", want: `builtin:locale:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "disabled reminder", src: `reminders: [{id: r, text: Hi., enabled: false}]`, id: "r", want: "r:disabled (enabled: false)"},
		{name: "disabled instruction", src: `instructions: [{id: i, prompt: Do., enabled: false}]`, id: "i", want: "i:disabled (enabled: false)"},
		{name: "not in mode", src: `
modes: [{name: Booking, if: "contentIncludes(['book'])"}]
instructions: [{id: i, mode: Booking, prompt: Compare.}]`, text: "hello", id: "i", want: "i:not_in_mode (mode Booking is not active)"},
		{name: "in mode", src: `
modes: [{name: Booking, if: "contentIncludes(['book'])"}]
instructions: [{id: i, mode: Booking, prompt: Compare.}]`, text: "book a room", id: "i", want: "i:fired"},
		{name: "mode error", src: `
modes: [{name: Night, if: hourChanged()}]
instructions: [{id: i, mode: Night, prompt: Sleep.}]`, before: 1, locale: mars, id: "i", want: `i:not_in_mode (mode Night: unknown time zone "Mars/Olympus_Mons")`},
		{name: "mode error under not: the mode is off", src: `
modes: [{name: Day, if: not(hourChanged())}]
instructions: [{id: i, mode: Day, prompt: Work.}]`, before: 1, locale: mars, id: "i", want: `i:not_in_mode (mode Day: unknown time zone "Mars/Olympus_Mons")`},
		{name: "instruction if false", src: `instructions: [{id: i, prompt: Do., if: afterTurn(1)}]`, id: "i", want: "i:predicate_false"},
		{name: "instruction if list is AND", src: `instructions: [{id: i, prompt: Do., if: [afterTurn(1), firstN(1)]}]`, before: 1, id: "i", want: "i:predicate_false"},
		{name: "instruction if list holds", src: `instructions: [{id: i, prompt: Do., if: [afterTurn(1), firstN(2)]}]`, before: 1, id: "i", want: "i:fired"},
		{name: "instruction if error", src: `instructions: [{id: i, prompt: Do., if: dayChanged()}]`, before: 1, locale: mars, id: "i",
			want: `i:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "instruction if error under not", src: `instructions: [{id: i, prompt: Do., if: [afterTurn(0), not(dayChanged())]}]`, before: 1, locale: mars, id: "i",
			want: `i:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "deferred to model", src: `instructions: [{id: i, prompt: Compare., when: the user compares}]`, id: "i", want: "i:deferred_to_model"},
		{name: "deferred needs if", src: `instructions: [{id: i, prompt: Compare., when: the user compares, if: afterTurn(1)}]`, id: "i", want: "i:predicate_false"},
		{name: "empty text", src: `reminders: [{id: r, template: "{{if gt .Turn 5}}late{{end}}  "}]`, id: "r", want: "r:empty_text (the template rendered blank)"},
		{name: "template not blank", src: `reminders: [{id: r, template: "{{if gt .Turn 1}}late{{end}}"}]`, before: 1, id: "r", want: "r:fired"},
		{name: "cap reached", src: `reminders: [{id: r, text: Hi., max_per_chat: 3}]`, before: 3, id: "r", want: "r:cap_reached (emitted 3 of 3)"},
		{name: "cap stays reached", src: `reminders: [{id: r, text: Hi., max_per_chat: 2}]`, before: 4, id: "r", want: "r:cap_reached (emitted 2 of 2)"},
		{name: "cap not yet reached", src: `reminders: [{id: r, text: Hi., max_per_chat: 2}]`, before: 1, id: "r", want: "r:fired"},
		{name: "safety ignores the cap", src: `reminders: [{id: r, text: Hi., max_per_chat: 2, tier: safety}]`, before: 2, id: "r", want: "r:fired"},
		{name: "rate limited", src: `reminders: [{id: r, text: Hi., when: afterTurn(6), min_turns_between: 2}]`, before: 7, id: "r",
			want: "r:rate_limited (last fired turn 7, next eligible 9)"},
		{name: "rate limit over", src: `reminders: [{id: r, text: Hi., when: afterTurn(6), min_turns_between: 2}]`, before: 8, id: "r", want: "r:fired"},
		{name: "safety obeys the rate limit", src: `reminders: [{id: r, text: Hi., when: afterTurn(6), min_turns_between: 2, tier: safety}]`, before: 7, id: "r",
			want: "r:rate_limited (last fired turn 7, next eligible 9)"},
		{name: "rate limit counts from the last firing, not the first", src: `reminders: [{id: r, text: Hi., min_turns_between: 3}]`, before: 5, id: "r",
			want: "r:rate_limited (last fired turn 4, next eligible 7)"},

		// Gate order: disabled, not_in_mode, predicate_error, predicate_false, empty_text,
		// cap_reached, rate_limited, budget_trimmed.
		{name: "order: disabled before predicate error", src: `reminders: [{id: r, text: Hi., when: dayChanged(), enabled: false}]`, locale: mars, id: "r", want: "r:disabled (enabled: false)"},
		{name: "order: disabled before not in mode", src: `
modes: [{name: Booking, if: "contentIncludes(['book'])"}]
instructions: [{id: i, mode: Booking, prompt: Compare., enabled: false}]`, id: "i", want: "i:disabled (enabled: false)"},
		{name: "order: not in mode before if", src: `
modes: [{name: Booking, if: "contentIncludes(['book'])"}]
instructions: [{id: i, mode: Booking, prompt: Compare., if: dayChanged()}]`, locale: mars, text: "hello", id: "i", want: "i:not_in_mode (mode Booking is not active)"},
		{name: "order: mode error is not in mode, before the if's error", src: `
modes: [{name: Night, if: hourChanged()}]
instructions: [{id: i, mode: Night, prompt: Sleep., if: dayChanged()}]`, before: 1, locale: mars, id: "i",
			want: `i:not_in_mode (mode Night: unknown time zone "Mars/Olympus_Mons")`},
		{name: "order: predicate error before empty text", src: `reminders: [{id: r, template: "{{if gt .Turn 5}}x{{end}}", when: not(dayChanged())}]`,
			before: 1, locale: mars, id: "r", want: `r:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "order: predicate error before cap", src: `reminders: [{id: r, text: Hi., when: not(dayChanged()), max_per_chat: 1}]`,
			before: 2, locale: mars, id: "r", want: `r:predicate_error (unknown time zone "Mars/Olympus_Mons")`},
		{name: "order: the same cap without the error", src: `reminders: [{id: r, text: Hi., when: not(dayChanged()), max_per_chat: 1}]`,
			before: 2, id: "r", want: "r:cap_reached (emitted 1 of 1)"},
		{name: "order: predicate false before empty text", src: `reminders: [{id: r, template: "{{if gt .Turn 5}}x{{end}}", when: afterTurn(3)}]`, id: "r", want: "r:predicate_false"},
		{name: "order: predicate false before cap", src: `reminders: [{id: r, text: Hi., when: firstN(1), max_per_chat: 1}]`, before: 1, id: "r", want: "r:predicate_false"},
		{name: "order: empty text before cap", src: `reminders: [{id: r, template: "{{if eq .Turn 1}}x{{end}}", max_per_chat: 1}]`, before: 1, id: "r", want: "r:empty_text (the template rendered blank)"},
		{name: "order: cap before rate limit", src: `reminders: [{id: r, text: Hi., max_per_chat: 1, min_turns_between: 3}]`, before: 1, id: "r", want: "r:cap_reached (emitted 1 of 1)"},
	}
	seen := map[string]bool{ReasonBudgetTrimmed: true} // TestBudget covers it
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.src)
			h.sendN(tc.before)
			text := tc.text
			if text == "" {
				text = "hello"
			}
			p := h.s.Preview(UserInput{Text: text, At: at(tc.before + 1), Locale: tc.locale})
			d := decision(t, p.Decisions, tc.id)
			if got := summary(d); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			fired := d.Reason == ReasonFired || d.Reason == ReasonDeferredToModel
			if d.Fired != fired {
				t.Errorf("got fired %v with reason %s, want %v", d.Fired, d.Reason, fired)
			}
			if strings.Contains(d.Detail, "unknown time zone") && (d.Trace == nil || !d.Trace.HasError()) {
				t.Errorf("got trace %+v, want the error kept in the trace", d.Trace)
			}
			seen[d.Reason] = true
		})
	}
	for _, r := range []string{ReasonFired, ReasonPredicateFalse, ReasonPredicateError, ReasonDisabled, ReasonNotInMode,
		ReasonCapReached, ReasonRateLimited, ReasonBudgetTrimmed, ReasonEmptyText, ReasonDeferredToModel} {
		if !seen[r] {
			t.Errorf("no case gives reason %s", r)
		}
	}
}

// TestBudget checks reminder_budget_tokens: fired guidance reminders are dropped, last in
// file order first, until the fired reminders fit; safety reminders never are.
func TestBudget(t *testing.T) {
	// The rough counter counts one token per four bytes: each 16-byte text is 4 tokens.
	const rs = `
  - {id: g1, text: "guidance one ..."}
  - {id: s1, text: "safety one ....", tier: safety}
  - {id: g2, text: "guidance two ..."}
  - {id: g3, text: "guidance three ."}
  - {id: s2, text: "safety two .....", tier: safety}
  - {id: g4, text: "not fired ......", when: afterTurn(5)}`
	tests := []struct {
		budget    int
		wantFired []string
		trimmed   []string
	}{
		{budget: 0, wantFired: []string{"g1", "s1", "g2", "g3", "s2"}},
		{budget: 20, wantFired: []string{"g1", "s1", "g2", "g3", "s2"}},
		{budget: 19, wantFired: []string{"g1", "s1", "g2", "s2"}, trimmed: []string{"g3"}},
		{budget: 16, wantFired: []string{"g1", "s1", "g2", "s2"}, trimmed: []string{"g3"}},
		{budget: 15, wantFired: []string{"g1", "s1", "s2"}, trimmed: []string{"g2", "g3"}},
		{budget: 8, wantFired: []string{"s1", "s2"}, trimmed: []string{"g1", "g2", "g3"}},
		{budget: 1, wantFired: []string{"s1", "s2"}, trimmed: []string{"g1", "g2", "g3"}},
	}
	for _, tc := range tests {
		t.Run("budget "+itoa(tc.budget), func(t *testing.T) {
			src := "reminder_budget_tokens: " + itoa(tc.budget) + "\nreminders:" + rs
			h := newHarness(t, src)
			res := h.send("hello", at(1))
			p := res.Plan
			if got := firedIDs(p.Decisions); !reflect.DeepEqual(got, tc.wantFired) {
				t.Errorf("got fired %v, want %v", got, tc.wantFired)
			}
			var trimmed []string
			for _, d := range p.Decisions {
				if d.Reason == ReasonBudgetTrimmed {
					trimmed = append(trimmed, d.ID)
					detail := "fired reminders needed 20 tokens, budget " + itoa(tc.budget) + "; dropped 4 tokens"
					if d.Fired || d.Tokens != 4 || d.Detail != detail {
						t.Errorf("%s: got fired %v tokens %d detail %q, want not fired, 4 tokens, detail %q", d.ID, d.Fired, d.Tokens, d.Detail, detail)
					}
				}
			}
			if !reflect.DeepEqual(trimmed, tc.trimmed) {
				t.Errorf("got trimmed %v, want %v", trimmed, tc.trimmed)
			}
			if got := summary(decision(t, p.Decisions, "g4")); got != "g4:predicate_false" {
				t.Errorf("got %s, want g4:predicate_false", got)
			}
			// Trimmed reminders are not injected and not counted.
			user := res.Plan.User.PlainText()
			for _, id := range tc.trimmed {
				if text := decision(t, p.Decisions, id).Text; strings.Contains(user, text) {
					t.Errorf("trimmed %s is in the user message %q", id, user)
				}
			}
			if got := len(res.Turn.Fired); got != len(tc.wantFired) {
				t.Errorf("got %d fired records, want %d", got, len(tc.wantFired))
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestTraceTree checks the predicate tree recorded for a combinator.
func TestTraceTree(t *testing.T) {
	h := newHarness(t, `reminders: [{id: r, text: Deploy carefully., when: "and(afterTurn(1), or(contentIncludes(['deploy']), everyNTurns(5)))"}]`)
	h.sendN(1)
	d := decision(t, h.preview("please Deploy now").Decisions, "r")
	if !d.Fired || d.Trace == nil {
		t.Fatalf("got fired %v trace %v, want a fired decision with a trace", d.Fired, d.Trace)
	}
	type node struct {
		Expr     string `json:"expr"`
		Value    bool   `json:"value"`
		Why      string `json:"why"`
		Error    string `json:"error,omitempty"`
		Children []node `json:"children"`
	}
	b, err := json.Marshal(d.Trace)
	if err != nil {
		t.Fatal(err)
	}
	var got node
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Expr != "and(afterTurn(1), or(contentIncludes(['deploy']), everyNTurns(5)))" || !got.Value || len(got.Children) != 2 {
		t.Fatalf("root: got %+v, want the and() node, true, two children", got)
	}
	after, or := got.Children[0], got.Children[1]
	if after.Expr != "afterTurn(1)" || !after.Value || after.Why == "" || after.Children == nil || len(after.Children) != 0 {
		t.Errorf("afterTurn: got %+v, want true, a why, and an empty children array", after)
	}
	if or.Expr != "or(contentIncludes(['deploy']), everyNTurns(5))" || !or.Value {
		t.Errorf("or: got %+v, want true", or)
	}
	// or() short-circuits: only the first child was evaluated.
	if len(or.Children) != 1 || or.Children[0].Expr != "contentIncludes(['deploy'])" || !strings.Contains(or.Children[0].Why, "deploy") {
		t.Errorf("or children: got %+v, want one contentIncludes child naming the match", or.Children)
	}
	if !strings.Contains(string(b), `"children":[]`) {
		t.Errorf("got %s, want leaves with \"children\":[]", b)
	}

	// A reminder without a when condition records why it fired.
	h2 := newHarness(t, `reminders: [{id: r, text: Hi.}]`)
	if tr := decision(t, h2.preview("x").Decisions, "r").Trace; tr == nil || !tr.Value || tr.Why == "" {
		t.Errorf("got trace %+v, want a true node with a why", tr)
	}

	// A predicate error is in the tree.
	// (dayChanged() is true on turn 1 whatever the zone: the zone is read from turn 2.)
	h3 := newHarness(t, `reminders: [{id: r, text: Hi., when: "and(afterTurn(1), dayChanged())"}]`)
	h3.sendN(1)
	p := h3.s.Preview(UserInput{Text: "x", At: at(2), Locale: &chat.Locale{TimeZone: "No/Where"}})
	d3 := decision(t, p.Decisions, "r")
	if d3.Reason != ReasonPredicateError || d3.Trace == nil || !d3.Trace.HasError() {
		t.Errorf("got %s trace %+v, want predicate_error with the error in the tree", summary(d3), d3.Trace)
	}
}

// TestBuiltinTraceWithWhen checks that a builtin with a when condition records both.
func TestBuiltinTraceWithWhen(t *testing.T) {
	h := newHarness(t, `reminders: [{builtin: date, when: firstN(1)}]`)
	d := decision(t, h.preview("x").Decisions, "builtin:date")
	if !d.Fired || d.Trace == nil || len(d.Trace.Children) != 2 || d.Trace.Children[0].Expr != "firstN(1)" || d.Trace.Children[1].Expr != "builtin:date" {
		t.Fatalf("got %s trace %+v, want fired with children firstN(1) and builtin:date", summary(d), d.Trace)
	}
	h.sendN(1)
	if got := summary(decision(t, h.preview("x").Decisions, "builtin:date")); got != "builtin:date:predicate_false" {
		t.Errorf("got %s, want builtin:date:predicate_false", got)
	}
}
