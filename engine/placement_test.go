package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func tag(s string) string { return "<system-reminder>" + s + "</system-reminder>" }

// wireJSON encodes one request message.
func wireJSON(tb testing.TB, m chat.WireMessage) string {
	tb.Helper()
	b, err := chat.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// roles lists the roles of a request's messages.
func roles(req chat.Request) []string {
	out := make([]string, req.Len())
	for i, m := range req.Collect() {
		out[i] = string(m.Role)
	}
	return out
}

// savedMessage reads a message back from the store.
func (h *harness) savedMessage(id string) chat.Message {
	h.tb.Helper()
	path, err := h.store.Path(h.ctx, "chat-1", id)
	if err != nil || len(path) == 0 {
		h.tb.Fatalf("read message %s: %v", id, err)
	}
	return path[len(path)-1]
}

func TestPlacementInline(t *testing.T) {
	h := newHarness(t, `
explain_reminders: false
reminders:
  - {id: a, text: Alpha., when: once()}
  - {id: b, text: Beta., when: once()}
`)
	res := h.send("hello", at(1))
	wantText := "hello" + tag("Alpha.") + tag("Beta.")
	u := h.savedMessage(res.Plan.User.ID)
	if len(u.Parts) != 1 || u.Parts[0].Text != wantText {
		t.Fatalf("got saved parts %+v, want one text part %q", u.Parts, wantText)
	}
	la, lb := len(tag("Alpha.")), len(tag("Beta."))
	wantSpans := []chat.ReminderSpan{
		{ID: "a", Part: 0, Start: 5, End: 5 + la, Mode: "inline"},
		{ID: "b", Part: 0, Start: 5 + la, End: 5 + la + lb, Mode: "inline"},
	}
	if !reflect.DeepEqual(u.Reminders, wantSpans) {
		t.Fatalf("got spans %+v, want %+v", u.Reminders, wantSpans)
	}
	for _, sp := range u.Reminders {
		if got := u.Parts[sp.Part].Text[sp.Start:sp.End]; !strings.HasPrefix(got, "<system-reminder>") || !strings.HasSuffix(got, "</system-reminder>") {
			t.Errorf("span %s covers %q, want exactly one tagged reminder", sp.ID, got)
		}
	}
	if got := wireJSON(t, res.Plan.Request.At(res.Plan.Request.Len()-1)); got != `{"role":"user","content":"hello<system-reminder>Alpha.</system-reminder><system-reminder>Beta.</system-reminder>"}` {
		t.Errorf("got user message %s", got)
	}

	// Turn 2: the reminders do not fire again, but turn 1 is sent again with them baked
	// in, even under a context file where they would say something else.
	h.file = parseFile(t, `reminders: [{id: a, text: Changed., when: once()}]`)
	h.reopen()
	res2 := h.send("again", at(2))
	if got := firedIDs(res2.Plan.Decisions); len(got) != 0 {
		t.Errorf("turn 2: got fired %v, want none", got)
	}
	msgs := res2.Plan.Request.Collect()
	if got := roles(res2.Plan.Request); !reflect.DeepEqual(got, []string{"system", "user", "assistant", "user"}) {
		t.Fatalf("turn 2: got roles %v", got)
	}
	if msgs[1].Content != wantText {
		t.Errorf("turn 2: got history user %q, want %q", msgs[1].Content, wantText)
	}
	if msgs[3].Content != "again" {
		t.Errorf("turn 2: got current user %q, want again", msgs[3].Content)
	}
}

func TestPlacementPart(t *testing.T) {
	h := newHarness(t, `
explain_reminders: false
reminders:
  - {id: b, text: Beta., placement: inline}
  - {id: a, text: Alpha., placement: part}
  - {id: c, text: Gamma., placement: part}
`)
	res := h.send("hello", at(1))
	u := h.savedMessage(res.Plan.User.ID)
	wantParts := []chat.Part{chat.TextPart("hello" + tag("Beta.")), chat.TextPart(tag("Alpha.")), chat.TextPart(tag("Gamma."))}
	if !reflect.DeepEqual(u.Parts, wantParts) {
		t.Fatalf("got parts %+v, want %+v", u.Parts, wantParts)
	}
	wantSpans := []chat.ReminderSpan{
		{ID: "b", Part: 0, Start: 5, End: 5 + len(tag("Beta.")), Mode: "inline"},
		{ID: "a", Part: 1, Start: 0, End: len(tag("Alpha.")), Mode: "part"},
		{ID: "c", Part: 2, Start: 0, End: len(tag("Gamma.")), Mode: "part"},
	}
	if !reflect.DeepEqual(u.Reminders, wantSpans) {
		t.Fatalf("got spans %+v, want %+v", u.Reminders, wantSpans)
	}
	last := res.Plan.Request.At(res.Plan.Request.Len() - 1)
	got := wireJSON(t, last)
	want := `{"role":"user","content":[{"type":"text","text":"hello<system-reminder>Beta.</system-reminder>"},` +
		`{"type":"text","text":"<system-reminder>Alpha.</system-reminder>"},{"type":"text","text":"<system-reminder>Gamma.</system-reminder>"}]}`
	if got != want {
		t.Errorf("got user message %s, want %s", got, want)
	}
	// Sent again unchanged on the next turn.
	res2 := h.send("next", at(2))
	if got2 := wireJSON(t, res2.Plan.Request.At(0)); got2 != got {
		t.Errorf("turn 2: got history %s, want %s", got2, got)
	}
	// One text part only: a string.
	if got := wireJSON(t, h.preview("x").Request.At(res2.Plan.Request.Len()+1)); !strings.HasPrefix(got, `{"role":"user","content":[`) {
		t.Errorf("got %s, want parts (the part reminders fire every turn)", got)
	}
}

func TestPlacementSystem(t *testing.T) {
	h := newHarness(t, `
system: [{role: You help.}]
explain_reminders: false
reminders:
  - {id: s1, text: First system., placement: system, when: afterTurn(1)}
  - {id: i1, text: Inline., when: afterTurn(1)}
  - {id: s2, text: Second system., placement: system, when: afterTurn(1)}
`)
	h.sendIn(UserInput{Text: "run it", At: at(1)}, &Scripted{Text: "Done.", Tools: []ScriptedTool{{Name: "run_sql", Input: json.RawMessage(`{"q":1}`), Output: "[]"}}})
	res := h.send("hello", at(2))
	wantInject := tag("First system.") + "\n\n" + tag("Second system.")
	if res.Plan.SystemInject != wantInject {
		t.Fatalf("got inject %q, want %q", res.Plan.SystemInject, wantInject)
	}
	req := res.Plan.Request
	if got, want := roles(req), []string{"system", "user", "assistant", "tool", "assistant", "system", "user"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got roles %v, want %v", got, want)
	}
	if req.At(5).Content != wantInject {
		t.Errorf("got system message %q, want %q", req.At(5).Content, wantInject)
	}
	if req.At(6).Content != "hello"+tag("Inline.") {
		t.Errorf("got user %q", req.At(6).Content)
	}
	if res.Turn.Request.SystemInject != wantInject {
		t.Errorf("got recorded inject %q, want %q", res.Turn.Request.SystemInject, wantInject)
	}
	if res.Plan.SystemPrompt != "<role>You help.</role>" {
		t.Errorf("got system prompt %q: system reminders must not go into it", res.Plan.SystemPrompt)
	}
	// Not saved into the transcript.
	u := h.savedMessage(res.Plan.User.ID)
	if len(u.Reminders) != 1 || u.Reminders[0].ID != "i1" || strings.Contains(u.Parts[0].Text, "system.") {
		t.Errorf("got saved user %+v, want only the inline reminder", u)
	}
	// The next turn sends the history without the injection (and a new one of its own).
	h.file = parseFile(t, `reminders: [{id: x, text: X., when: firstN(1)}]`)
	h.reopen()
	res3 := h.send("third", at(3))
	for i, m := range res3.Plan.Request.Collect() {
		if strings.Contains(m.Text(), "system.</system-reminder>") {
			t.Errorf("turn 3: message %d (%s) still holds the system injection: %q", i, m.Role, m.Text())
		}
	}
	if res3.Plan.SystemInject != "" || res3.Turn.Request.SystemInject != "" {
		t.Errorf("turn 3: got inject %q, want none", res3.Plan.SystemInject)
	}
}

func TestPlacementRunStart(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // system prompt per turn
	}{
		{name: "with fragments", src: `
system: [{role: You help.}]
explain_reminders: false
reminders:
  - {id: r1, text: Start one., placement: run-start, when: firstN(1)}
  - {id: r2, text: Start two., placement: run-start, when: firstN(1)}`,
			want: []string{tag("Start one.") + "\n\n" + tag("Start two.") + "\n\n<role>You help.</role>", "<role>You help.</role>"}},
		{name: "alone", src: `
reminders:
  - {id: r1, text: Start., placement: run-start, when: firstN(1)}
explain_reminders: false`,
			want: []string{tag("Start."), ""}},
		{name: "before the explanation", src: `
reminders:
  - {id: r1, text: Start., placement: run-start, when: firstN(1)}`,
			want: []string{tag("Start.") + "\n\n" + explanation, explanation}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.src)
			for i, want := range tc.want {
				res := h.send("hello", at(i+1))
				if res.Plan.SystemPrompt != want {
					t.Errorf("turn %d: got system prompt %q, want %q", i+1, res.Plan.SystemPrompt, want)
				}
				if res.Turn.Request.SystemPrompt != want {
					t.Errorf("turn %d: got recorded system prompt %q, want %q", i+1, res.Turn.Request.SystemPrompt, want)
				}
				msgs := res.Plan.Request.Collect()
				if want == "" {
					if msgs[0].Role == chat.RoleSystem {
						t.Errorf("turn %d: got a system message %q, want none", i+1, msgs[0].Content)
					}
				} else if msgs[0].Role != chat.RoleSystem || msgs[0].Content != want {
					t.Errorf("turn %d: got first message %s %q, want the system prompt", i+1, msgs[0].Role, msgs[0].Content)
				}
				u := h.savedMessage(res.Plan.User.ID)
				if u.Parts[0].Text != "hello" || len(u.Reminders) != 0 {
					t.Errorf("turn %d: got saved user %+v, want it unchanged", i+1, u)
				}
			}
		})
	}
}

// TestAllPlacementsOneTurn checks that the four placements apply together, in file order.
func TestAllPlacementsOneTurn(t *testing.T) {
	h := newHarness(t, `
system: [{hint: Be brief.}]
instructions: [{id: i, kind: must, prompt: Be kind.}]
reminders:
  - {id: rs, text: RS., placement: run-start}
  - {id: sy, text: SY., placement: system}
  - {id: in, text: IN.}
  - {id: rs2, text: RS2., placement: run-start}
  - {id: sy2, text: SY2., placement: system}
  - {id: in2, text: IN2.}
`)
	res := h.send("q", at(1))
	wantSystem := tag("RS.") + "\n\n" + tag("RS2.") + "\n\n<hint>Be brief.</hint>\n\n## Instructions\n- [must] [Always] Be kind.\n\n" + explanation
	if res.Plan.SystemPrompt != wantSystem {
		t.Errorf("got system prompt\n%s\nwant\n%s", res.Plan.SystemPrompt, wantSystem)
	}
	msgs := res.Plan.Request.Collect()
	if got := roles(res.Plan.Request); !reflect.DeepEqual(got, []string{"system", "system", "user"}) {
		t.Fatalf("got roles %v", got)
	}
	if msgs[1].Content != tag("SY.")+"\n\n"+tag("SY2.") {
		t.Errorf("got inject %q", msgs[1].Content)
	}
	if msgs[2].Content != "q"+tag("IN.")+tag("IN2.") {
		t.Errorf("got user %q", msgs[2].Content)
	}
	if got := firedIDs(res.Plan.Decisions); !reflect.DeepEqual(got, []string{"rs", "sy", "in", "rs2", "sy2", "in2"}) {
		t.Errorf("got fired %v", got)
	}
	var firedRec []string
	for _, f := range res.Turn.Fired {
		firedRec = append(firedRec, f.ID)
	}
	if !reflect.DeepEqual(firedRec, []string{"rs", "sy", "in", "rs2", "sy2", "in2"}) {
		t.Errorf("got recorded fired %v", firedRec)
	}
}

// TestRunStartEveryRenderer checks that a run-start reminder is a prefix of the system
// prompt, followed by a blank line, whatever the renderer.
func TestRunStartEveryRenderer(t *testing.T) {
	for _, r := range []string{"xml", "markdown", "toml", "toon"} {
		t.Run(r, func(t *testing.T) {
			h := newHarness(t, "renderer: "+r+`
system: [{hint: Short.}, {workflow: {task: T, steps: [a, b]}}]
instructions: [{id: i, prompt: Do.}]
reminders: [{id: x, text: X., placement: run-start, when: firstN(1)}]
`)
			p1 := h.send("a", at(1)).Plan
			p2 := h.send("b", at(2)).Plan
			if want := tag("X.") + "\n\n" + p2.SystemPrompt; p1.SystemPrompt != want {
				t.Errorf("got %q, want %q", p1.SystemPrompt, want)
			}
			if !strings.HasSuffix(p2.SystemPrompt, "## Instructions\n- [should] [Always] Do.\n\n"+explanation) {
				t.Errorf("got %q, want the instructions and the explanation at the end", p2.SystemPrompt)
			}
		})
	}
}

// TestPlacementInlineAfterPart checks that an inline reminder after a part reminder (in
// file order) goes to the part the part reminder added, the last text part by then.
func TestPlacementInlineAfterPart(t *testing.T) {
	h := newHarness(t, `
explain_reminders: false
reminders:
  - {id: a, text: Alpha.}
  - {id: b, text: Beta., placement: part}
  - {id: c, text: Gamma.}
  - {id: d, text: Delta.}
`)
	res := h.send("hello", at(1))
	u := h.savedMessage(res.Plan.User.ID)
	want := []string{"hello" + tag("Alpha."), tag("Beta.") + tag("Gamma.") + tag("Delta.")}
	var got []string
	for _, p := range u.Parts {
		got = append(got, p.Text)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got parts %q, want %q", got, want)
	}
	la, lb, lc, ld := len(tag("Alpha.")), len(tag("Beta.")), len(tag("Gamma.")), len(tag("Delta."))
	wantSpans := []chat.ReminderSpan{
		{ID: "a", Part: 0, Start: 5, End: 5 + la, Mode: "inline"},
		{ID: "b", Part: 1, Start: 0, End: lb, Mode: "part"},
		{ID: "c", Part: 1, Start: lb, End: lb + lc, Mode: "inline"},
		{ID: "d", Part: 1, Start: lb + lc, End: lb + lc + ld, Mode: "inline"},
	}
	if !reflect.DeepEqual(u.Reminders, wantSpans) {
		t.Errorf("got spans %+v, want %+v", u.Reminders, wantSpans)
	}
}
