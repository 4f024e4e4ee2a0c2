package engine

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestUsageExceeds checks that usageExceeds reads the chat's total over every branch: the
// reported usage of a turn where the server gave one, else the estimate.
func TestUsageExceeds(t *testing.T) {
	const src = `
reminders:
  - {id: u1000, text: Big., when: usageExceeds(1000)}
  - {id: u1001, text: Bigger., when: usageExceeds(1001)}
`
	h := newHarness(t, src)
	reported := &chat.Usage{PromptTokens: 600, CompletionTokens: 400}
	res := h.sendIn(UserInput{Text: "hello", At: at(1)}, &Scripted{Text: "ok", Usage: reported})
	if got := h.s.Usage().Total(); got != 1000 {
		t.Fatalf("after a reported turn: got usage %d, want 1000", got)
	}
	filled := chat.Usage{PromptTokens: 600, CompletionTokens: 400, TotalTokens: 1000} // a missing total is filled in
	if res.Turn.Counted() != filled {
		t.Errorf("got counted %+v, want the reported %+v", res.Turn.Counted(), filled)
	}
	p := h.preview("next")
	if got := []string{summary(decision(t, p.Decisions, "u1000")), summary(decision(t, p.Decisions, "u1001"))}; got[0] != "u1000:fired" || got[1] != "u1001:predicate_false" {
		t.Errorf("got %v, want u1000 fired (>=) and u1001 false", got)
	}

	// A turn without reported usage adds its estimate.
	res2 := h.send("no report", at(2))
	est := res2.Turn.Estimated
	if res2.Turn.Reported != nil || est.PromptTokens == 0 || est.CompletionTokens == 0 || est.TotalTokens != est.PromptTokens+est.CompletionTokens {
		t.Fatalf("got reported %v estimated %+v, want no report and a full estimate", res2.Turn.Reported, est)
	}
	if est.PromptTokens != res2.Plan.Estimate.Total {
		t.Errorf("got estimated prompt %d, want the plan's estimate %d", est.PromptTokens, res2.Plan.Estimate.Total)
	}
	want := 1000 + est.TotalTokens
	if got := h.s.Usage().Total(); got != want {
		t.Fatalf("got usage %d, want %d", got, want)
	}

	// Usage counts every branch: a turn on an edited branch adds to the same total, and
	// the edited branch sees the usage of main.
	edited, err := h.s.Edit(h.ctx, 1, UserInput{Text: "edited", At: at(3)}, &Scripted{Text: "ok", Usage: &chat.Usage{PromptTokens: 5, CompletionTokens: 5, TotalTokens: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if d := decision(t, edited.Plan.Decisions, "u1001"); !d.Fired {
		t.Errorf("on main-v2 turn 1: got %s, want usageExceeds(1001) to see the chat's %d tokens", summary(d), want)
	}
	want += 10
	if got := h.s.Usage().Total(); got != want {
		t.Errorf("after the edit: got usage %d, want %d", got, want)
	}
	h.reopen()
	if got := h.s.Usage().Total(); got != want {
		t.Errorf("reopened: got usage %d, want %d", got, want)
	}
	if err := h.s.Switch(h.ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if got := h.s.Usage().Total(); got != want {
		t.Errorf("on main: got usage %d, want %d (whatever the branch)", got, want)
	}
	// A preview adds nothing.
	h.preview("x")
	if got := h.s.Usage().Total(); got != want {
		t.Errorf("after a preview: got usage %d, want %d", got, want)
	}
}

// TestEstimate checks the estimate by source: it adds up, and the history grows with the
// branch.
func TestEstimate(t *testing.T) {
	h := newHarness(t, `
system: [{role: You help with SQL.}]
instructions: [{id: i, prompt: Be exact.}]
reminders: [{id: r, text: Stay concise.}]
tools:
  - {name: run_sql, description: Run a query, parameters: {type: object}, result: "[]"}
`)
	p1 := h.send("hello there", at(1)).Plan
	e := p1.Estimate
	if e.History != 0 || e.Fragments == 0 || e.Instructions == 0 || e.Reminders == 0 || e.User == 0 || e.Tools == 0 || e.Framing == 0 {
		t.Errorf("turn 1: got %+v, want every source but history counted", e)
	}
	if sum := e.Fragments + e.Instructions + e.Reminders + e.History + e.User + e.Tools + e.Framing; sum != e.Total {
		t.Errorf("got total %d, want the sum %d", e.Total, sum)
	}
	p2 := h.send("again", at(2)).Plan
	if p2.Estimate.History == 0 || p2.Estimate.Fragments != e.Fragments {
		t.Errorf("turn 2: got %+v, want history counted and the same fragments", p2.Estimate)
	}
}
