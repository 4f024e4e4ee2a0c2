package engine

import (
	"reflect"
	"strings"
	"testing"
)

func TestInstructionsBlock(t *testing.T) {
	tests := []struct {
		name string
		src  string
		text string
		want string // the whole system prompt
	}{
		{name: "spec example", text: "I want to book a hotel", src: `
modes:
  - name: Booking
    if: contentIncludes(['book', 'reserve'])
instructions:
  - id: future-dates
    kind: must
    prompt: Validate dates are in the future before booking.
  - id: compare
    mode: Booking
    prompt: Offer to compare two options before committing.
    when: ["the user is comparing hotel options", "!the user already chose"]
`, want: "## Instructions\n" +
			"- [must] [Always] Validate dates are in the future before booking.\n" +
			"- [should] [In: Booking] Offer to compare two options before committing. (apply only when: the user is comparing hotel options; do not apply when: the user already chose)"},
		{name: "global before mode, each in file order", text: "book it", src: `
system: [{role: You book trips.}]
modes: [{name: Booking, if: "contentIncludes(['book'])"}, {name: Paying, if: "contentIncludes(['pay', 'book'])"}]
instructions:
  - {id: m1, mode: Paying, prompt: Mode one.}
  - {id: g1, kind: never, prompt: Global one.}
  - {id: m2, mode: Booking, kind: must, prompt: Mode two.}
  - {id: g2, prompt: Global two.}
`, want: "<role>You book trips.</role>\n\n## Instructions\n" +
			"- [never] [Always] Global one.\n" +
			"- [should] [Always] Global two.\n" +
			"- [should] [In: Paying] Mode one.\n" +
			"- [must] [In: Booking] Mode two."},
		{name: "when: one string", src: `instructions: [{id: i, prompt: Do., when: the user asks}]`,
			want: "## Instructions\n- [should] [Always] Do. (apply only when: the user asks)"},
		{name: "when: positives joined with OR", src: `instructions: [{id: i, prompt: Do., when: [a, b, c]}]`,
			want: "## Instructions\n- [should] [Always] Do. (apply only when: a OR b OR c)"},
		{name: "when: exclusions only, joined with OR", src: `instructions: [{id: i, prompt: Do., when: ["!x", "! y"]}]`,
			want: "## Instructions\n- [should] [Always] Do. (do not apply when: x OR y)"},
		{name: "when: both", src: `instructions: [{id: i, prompt: Do., when: ["!x", a, "!y", b]}]`,
			want: "## Instructions\n- [should] [Always] Do. (apply only when: a OR b; do not apply when: x OR y)"},
		{name: "if holds", src: `instructions: [{id: i, prompt: Do., if: [firstN(1), once()]}]`,
			want: "## Instructions\n- [should] [Always] Do."},
		{name: "if fails: the instruction is not rendered", src: `instructions: [{id: i, prompt: Do., if: [firstN(1), afterTurn(1)]}, {id: j, prompt: Other.}]`,
			want: "## Instructions\n- [should] [Always] Other."},
		{name: "heading omitted when none survives", text: "hello", src: `
system: [{hint: Short.}]
modes: [{name: Booking, if: "contentIncludes(['book'])"}]
instructions:
  - {id: a, prompt: Off., enabled: false}
  - {id: b, mode: Booking, prompt: Not now.}
  - {id: c, prompt: Later., if: afterTurn(3)}
`, want: "<hint>Short.</hint>"},
		{name: "explanation closes the prompt when the file has reminders", src: `
system: [{hint: Short.}]
instructions: [{id: a, prompt: Do.}]
reminders: [{id: r, text: R., when: afterTurn(5)}]
`, want: "<hint>Short.</hint>\n\n## Instructions\n- [should] [Always] Do.\n\n" + explanation},
		{name: "explanation without instructions", src: `
system: [{hint: Short.}]
reminders: [{id: r, text: R., when: afterTurn(5)}]
`, want: "<hint>Short.</hint>\n\n" + explanation},
		{name: "explain_reminders: false", src: `
system: [{hint: Short.}]
explain_reminders: false
instructions: [{id: a, prompt: Do.}]
reminders: [{id: r, text: R., when: afterTurn(5)}]
`, want: "<hint>Short.</hint>\n\n## Instructions\n- [should] [Always] Do."},
		{name: "explain_reminders: true without reminders", src: `
explain_reminders: true
instructions: [{id: a, prompt: Do.}]
`, want: "## Instructions\n- [should] [Always] Do.\n\n" + explanation},
		{name: "no reminders: no explanation", src: `
system: [{hint: Short.}]
instructions: [{id: a, prompt: Do.}]
`, want: "<hint>Short.</hint>\n\n## Instructions\n- [should] [Always] Do."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.src)
			text := tc.text
			if text == "" {
				text = "hello"
			}
			p := h.s.Preview(UserInput{Text: text, At: t0})
			if p.SystemPrompt != tc.want {
				t.Errorf("got system prompt\n%s\nwant\n%s", p.SystemPrompt, tc.want)
			}
			if got := p.Request.At(0).Content; got != tc.want {
				t.Errorf("got system message %q, want the system prompt", got)
			}
		})
	}
}

func TestInstructionDecisionFields(t *testing.T) {
	h := newHarness(t, `
modes: [{name: Booking, if: "contentIncludes(['book'])"}]
instructions:
  - {id: compare, mode: Booking, prompt: "  Compare.  ", when: ["the user compares", "!the user chose"]}
`)
	d := decision(t, h.preview("book").Decisions, "compare")
	if d.Scope != "In: Booking" || d.Kind != "should" || d.Text != "Compare." || d.Reason != ReasonDeferredToModel || !d.Fired {
		t.Errorf("got %+v, want scope In: Booking, kind should, text Compare., deferred_to_model, fired", d)
	}
	if !reflect.DeepEqual(d.When, []string{"the user compares", "!the user chose"}) {
		t.Errorf("got when %q", d.When)
	}
	b, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"source":"instruction"`, `"kind":"should"`, `"scope":"In: Booking"`, `"when":["the user compares","!the user chose"]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("got %s, want it to contain %s", b, want)
		}
	}
	for _, absent := range []string{`"placement"`, `"tier"`, `"tokens"`} {
		if strings.Contains(string(b), absent) {
			t.Errorf("got %s, want no %s for an instruction", b, absent)
		}
	}
}
