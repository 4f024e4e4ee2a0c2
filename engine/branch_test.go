package engine

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestCountersSurviveReopen checks that caps, spacing and latches are derived from the
// branch: a fresh engine opening the chat continues where the last one stopped.
func TestCountersSurviveReopen(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		id     string
		before int
		want   []string // the reason per turn after reopening
	}{
		{name: "cap", src: `reminders: [{id: r, text: Hi., max_per_chat: 2}]`, id: "r", before: 2,
			want: []string{"r:cap_reached (emitted 2 of 2)", "r:cap_reached (emitted 2 of 2)"}},
		{name: "cap half used", src: `reminders: [{id: r, text: Hi., max_per_chat: 2}]`, id: "r", before: 1,
			want: []string{"r:fired", "r:cap_reached (emitted 2 of 2)"}},
		{name: "spacing", src: `reminders: [{id: r, text: Hi., min_turns_between: 3}]`, id: "r", before: 1,
			want: []string{"r:rate_limited (last fired turn 1, next eligible 4)", "r:rate_limited (last fired turn 1, next eligible 4)", "r:fired", "r:rate_limited (last fired turn 4, next eligible 7)"}},
		{name: "latch", src: `reminders: [{id: r, text: Hi., when: "once('hello')"}]`, id: "r", before: 1,
			want: []string{"r:predicate_false", "r:predicate_false"}},
		{name: "latch shared by two reminders", src: `
reminders:
  - {id: a, text: A., when: "and(firstN(1), once('x'))"}
  - {id: b, text: B., when: "once('x')"}`, id: "b", before: 1,
			want: []string{"b:predicate_false"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.src)
			h.sendN(tc.before)
			h.reopen()
			if got := h.reasons(tc.id, len(tc.want)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLatchOnlyWhenInjected checks that a once('id') latch is set only by a reminder that
// is injected, not one that is capped, spaced or trimmed.
func TestLatchOnlyWhenInjected(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want [][]string // fired reminders per turn
	}{
		{name: "rate limited", src: `
reminders:
  - {id: r, text: R., when: "or(firstN(1), once('L'))", min_turns_between: 3}`,
			// Turn 1 fires without consulting the latch; turns 2 and 3 find it unset but are
			// spaced out, so it stays unset until turn 4 injects r.
			want: [][]string{{"r"}, nil, nil, {"r"}, nil, nil, nil}},
		{name: "capped", src: `
reminders:
  - {id: r, text: R., when: "or(firstN(1), once('L'))", max_per_chat: 1}
  - {id: s, text: S., when: "and(afterTurn(2), once('L'))"}`,
			want: [][]string{{"r"}, nil, {"s"}, nil}},
		{name: "budget trimmed", src: `
reminder_budget_tokens: 5
reminders:
  - {id: big, text: "a safety text of twenty four bytes", tier: safety, when: firstN(1)}
  - {id: r, text: R., when: "once('L')"}`,
			want: [][]string{{"big"}, {"r"}, nil}},
		{name: "predicate false elsewhere in the tree", src: `
reminders:
  - {id: r, text: R., when: "and(once('L'), afterTurn(1))"}`,
			want: [][]string{nil, {"r"}, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.src)
			for i, want := range tc.want {
				res := h.send("hello", at(i+1))
				if got := firedIDs(res.Plan.Decisions); !reflect.DeepEqual(got, want) {
					t.Errorf("turn %d: got fired %v, want %v", i+1, got, want)
				}
				h.reopen() // nothing may live in process memory
			}
		})
	}
}

// TestLatchRecorded checks the latches a fired decision sets, in the decision and the turn.
func TestLatchRecorded(t *testing.T) {
	h := newHarness(t, `reminders: [{id: r, text: R., when: "and(once('a'), once('b'))"}]`)
	res := h.send("hello", at(1))
	d := decision(t, res.Plan.Decisions, "r")
	if !reflect.DeepEqual(d.Latches(), []string{"a", "b"}) {
		t.Errorf("got latches %v, want [a b]", d.Latches())
	}
	if want := []chat.Fired{{ID: "r", Latches: []string{"a", "b"}}}; !reflect.DeepEqual(res.Turn.Fired, want) {
		t.Errorf("got fired records %+v, want %+v", res.Turn.Fired, want)
	}
	// The latches survive a JSON round trip of the decisions (regenerate reads them back).
	var back []Decision
	if err := json.Unmarshal(res.Turn.Decisions, &back); err != nil {
		t.Fatal(err)
	}
	rd := decision(t, back, "r")
	if got := rd.Latches(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("got latches %v after a round trip, want [a b]", got)
	}
}

func TestNextBranchName(t *testing.T) {
	tests := []struct {
		from  string
		taken []string
		want  string
	}{
		{"main", []string{"main"}, "main-v2"},
		{"main", []string{"main", "main-v2"}, "main-v3"},
		{"main", []string{"main", "main-v3"}, "main-v2"},
		{"main-v2", []string{"main", "main-v2", "main-v3"}, "main-v2-v2"},
		{"main-v2", []string{"main", "main-v2", "main-v2-v2"}, "main-v2-v3"},
		{"x", nil, "x-v2"},
	}
	for _, tc := range tests {
		if got := NextBranchName(tc.from, tc.taken); got != tc.want {
			t.Errorf("NextBranchName(%q, %q): got %q, want %q", tc.from, tc.taken, got, tc.want)
		}
	}
}

// pathTexts lists the plain texts of the active branch.
func pathTexts(s *Session) []string {
	var out []string
	for _, m := range s.Messages() {
		out = append(out, string(m.Role)[:1]+":"+m.PlainText())
	}
	return out
}

func branchNames(tb testing.TB, h *harness) map[string]int {
	tb.Helper()
	list, err := h.s.Branches(h.ctx)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]int{}
	for _, b := range list {
		out[b.Name] = b.Turns
	}
	return out
}

func TestEdit(t *testing.T) {
	h := newHarness(t, `explain_reminders: false`)
	h.sendN(3)
	res, err := h.s.Edit(h.ctx, 2, UserInput{Text: "edited", At: at(4)}, &Scripted{Text: "reply"})
	if err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v2" || res.Turn.Branch != "main-v2" || res.Turn.Number != 2 || res.Plan.Turn != 2 {
		t.Errorf("got branch %s turn branch %s number %d, want main-v2, turn 2", h.s.Branch(), res.Turn.Branch, res.Turn.Number)
	}
	if got, want := pathTexts(h.s), []string{"u:turn 1", "a:ok", "u:edited", "a:reply"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got path %q, want %q", got, want)
	}
	if res.Plan.User.ParentID != h.s.Messages()[1].ID {
		t.Errorf("got parent %q, want turn 1's reply", res.Plan.User.ParentID)
	}
	// The request holds the branch's history only.
	if got := res.Plan.Request.Len(); got != 3 {
		t.Errorf("got %d request messages, want 3", got)
	}
	// From main-v2: main-v2-v2; from main again: main-v3. Editing turn 1 starts from the root.
	if _, err := h.s.Edit(h.ctx, 1, UserInput{Text: "first again", At: at(5)}, &Scripted{Text: "r"}); err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v2-v2" || h.s.Messages()[0].ParentID != "" || h.s.TurnCount() != 1 {
		t.Errorf("got branch %s with %d turns, want main-v2-v2 with 1 turn from the root", h.s.Branch(), h.s.TurnCount())
	}
	if err := h.s.Switch(h.ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.Edit(h.ctx, 3, UserInput{Text: "third again", At: at(6)}, &Scripted{Text: "r"}); err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v3" {
		t.Errorf("got branch %s, want main-v3", h.s.Branch())
	}
	want := map[string]int{"main": 3, "main-v2": 2, "main-v2-v2": 1, "main-v3": 3}
	if got := branchNames(t, h); !reflect.DeepEqual(got, want) {
		t.Errorf("got branches %v, want %v", got, want)
	}
	// The active branch is stored: a reopened session is on main-v3.
	h.reopen()
	if h.s.Branch() != "main-v3" || h.s.TurnCount() != 3 {
		t.Errorf("reopened: got branch %s with %d turns, want main-v3 with 3", h.s.Branch(), h.s.TurnCount())
	}
}

func TestRegenerate(t *testing.T) {
	h := newHarness(t, `
system: [{role: R.}]
reminders:
  - {id: r, text: Count me., max_per_chat: 5}
  - {id: s, text: Sys., placement: system}
`)
	h.sendN(1)
	orig := h.send("second", at(2))
	res, err := h.s.Regenerate(h.ctx, &Scripted{Text: "another answer"}, at(3))
	if err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v2" || res.Turn.Branch != "main-v2" || res.Turn.Number != 2 {
		t.Errorf("got branch %s turn %d, want main-v2 turn 2", res.Turn.Branch, res.Turn.Number)
	}
	if res.Assistant.ParentID != orig.Plan.User.ID || res.Turn.UserMessageID != orig.Plan.User.ID {
		t.Errorf("got parent %q, want the user message %q", res.Assistant.ParentID, orig.Plan.User.ID)
	}
	a, _ := json.Marshal(orig.Plan.Request)
	b, _ := json.Marshal(res.Plan.Request)
	if string(a) != string(b) {
		t.Errorf("got request\n%s\nwant the original\n%s", b, a)
	}
	da, _ := json.Marshal(orig.Plan.Decisions)
	db, _ := json.Marshal(res.Plan.Decisions)
	if string(da) != string(db) {
		t.Errorf("got decisions\n%s\nwant\n%s", db, da)
	}
	if res.Turn.Request.SystemInject != orig.Turn.Request.SystemInject || res.Turn.Request.SystemPrompt != orig.Turn.Request.SystemPrompt {
		t.Errorf("got recorded request %+v, want %+v", res.Turn.Request, orig.Turn.Request)
	}
	if got, want := pathTexts(h.s), []string{"u:turn 1" + tag("Count me."), "a:ok", "u:second" + tag("Count me."), "a:another answer"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got path %q, want %q", got, want)
	}
	if h.s.TurnCount() != 2 || h.s.view.fires["r"] != (fireCount{count: 2, last: 2}) {
		t.Errorf("got %d turns and r fired %+v, want 2 turns, r fired twice, last turn 2", h.s.TurnCount(), h.s.view.fires["r"])
	}
	// The next turn on the new branch is turn 3 and sees the regenerated reply.
	next := h.preview("third")
	if next.Turn != 3 || next.Request.At(next.Request.Len()-3).Content != "another answer" {
		t.Errorf("got turn %d, history %+v", next.Turn, next.Request.Collect())
	}
	// Regenerating again: a new branch from main-v2.
	if _, err := h.s.Regenerate(h.ctx, &Scripted{Text: "third answer"}, at(4)); err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v2-v2" {
		t.Errorf("got branch %s, want main-v2-v2", h.s.Branch())
	}
	// The trace of a regenerated turn.
	tr := res.Trace("chat-1")
	if tr.Turn != 2 || tr.Branch != "main-v2" || tr.Assistant.Text != "another answer" || tr.UserMessageID != orig.Plan.User.ID {
		t.Errorf("got trace %+v", tr)
	}
}

func TestCheckpointRestoreRewind(t *testing.T) {
	h := newHarness(t, `explain_reminders: false`)
	h.sendN(1)
	if err := h.s.Checkpoint(h.ctx, "cp"); err != nil {
		t.Fatal(err)
	}
	h.sendN(2)
	if err := h.s.Checkpoint(h.ctx, "cp"); err != nil { // the same name overwrites
		t.Fatal(err)
	}
	if err := h.s.Checkpoint(h.ctx, "early"); err != nil {
		t.Fatal(err)
	}
	h.sendN(1)
	if err := h.s.Restore(h.ctx, "cp"); err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v2" || h.s.TurnCount() != 3 {
		t.Errorf("restore: got branch %s with %d turns, want main-v2 with 3 (the overwritten checkpoint)", h.s.Branch(), h.s.TurnCount())
	}
	res := h.send("after restore", at(10))
	if res.Plan.Turn != 4 || res.Turn.Branch != "main-v2" {
		t.Errorf("got turn %d on %s, want turn 4 on main-v2", res.Plan.Turn, res.Turn.Branch)
	}
	if err := h.s.Rewind(h.ctx, 1); err != nil {
		t.Fatal(err)
	}
	if h.s.Branch() != "main-v2-v2" || h.s.TurnCount() != 1 || len(h.s.Messages()) != 2 {
		t.Errorf("rewind: got branch %s with %d turns and %d messages, want main-v2-v2 with 1 turn, 2 messages", h.s.Branch(), h.s.TurnCount(), len(h.s.Messages()))
	}
	if p := h.preview("x"); p.Turn != 2 || p.User.ParentID != h.s.Messages()[1].ID {
		t.Errorf("after rewind: got turn %d parent %q, want turn 2 after turn 1's reply", p.Turn, p.User.ParentID)
	}
	// Restoring a checkpoint of another branch loads that branch's path.
	if err := h.s.Restore(h.ctx, "early"); err != nil {
		t.Fatal(err)
	}
	if h.s.TurnCount() != 3 || h.s.Branch() != "main-v2-v2-v2" {
		t.Errorf("got branch %s with %d turns, want main-v2-v2-v2 with 3", h.s.Branch(), h.s.TurnCount())
	}
	want := map[string]int{"main": 4, "main-v2": 4, "main-v2-v2": 1, "main-v2-v2-v2": 3}
	if got := branchNames(t, h); !reflect.DeepEqual(got, want) {
		t.Errorf("got branches %v, want %v", got, want)
	}
}

// TestSwitchRestoresCounts checks that counters and latches follow the active branch.
func TestSwitchRestoresCounts(t *testing.T) {
	h := newHarness(t, `
reminders:
  - {id: capped, text: C., max_per_chat: 3}
  - {id: spaced, text: S., min_turns_between: 2}
  - {id: latched, text: L., when: "and(afterTurn(2), once('l'))"}
`)
	h.sendN(4) // main: capped 1,2,3; spaced 1,3; latched 3
	type state struct {
		fires   map[string]fireCount
		latches map[string]bool
		turns   int
	}
	snap := func() state {
		return state{fires: maps.Clone(h.s.view.fires), latches: maps.Clone(h.s.view.latches), turns: h.s.TurnCount()}
	}
	mainState := snap()
	wantMain := state{fires: map[string]fireCount{"capped": {3, 3}, "spaced": {2, 3}, "latched": {1, 3}}, latches: map[string]bool{"l": true}, turns: 4}
	if !reflect.DeepEqual(mainState, wantMain) {
		t.Fatalf("main: got %+v, want %+v", mainState, wantMain)
	}
	mainPreview := h.preview("x")

	if _, err := h.s.Edit(h.ctx, 2, UserInput{Text: "edit", At: at(5)}, &Scripted{Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	wantV2 := state{fires: map[string]fireCount{"capped": {2, 2}, "spaced": {1, 1}}, latches: map[string]bool{}, turns: 2}
	if got := snap(); !reflect.DeepEqual(got, wantV2) {
		t.Fatalf("main-v2: got %+v, want %+v", got, wantV2)
	}
	p := h.preview("x")
	want := []string{"capped:fired", "spaced:fired", "latched:fired"}
	var got []string
	for _, d := range p.Decisions {
		got = append(got, summary(d))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("main-v2 turn 3: got %v, want %v", got, want)
	}

	for _, name := range []string{"main", "main-v2", "main"} {
		if err := h.s.Switch(h.ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if got := snap(); !reflect.DeepEqual(got, mainState) {
		t.Errorf("back on main: got %+v, want %+v", got, mainState)
	}
	back := h.preview("x")
	a, _ := json.Marshal(mainPreview.Decisions)
	b, _ := json.Marshal(back.Decisions)
	if string(a) != string(b) {
		t.Errorf("back on main: got decisions\n%s\nwant\n%s", b, a)
	}
	if got := summary(decision(t, back.Decisions, "capped")); got != "capped:cap_reached (emitted 3 of 3)" {
		t.Errorf("got %s", got)
	}
	// A reopened session on main-v2 has main-v2's counts.
	if err := h.s.Switch(h.ctx, "main-v2"); err != nil {
		t.Fatal(err)
	}
	h.reopen()
	if got := snap(); !reflect.DeepEqual(got, wantV2) {
		t.Errorf("reopened main-v2: got %+v, want %+v", got, wantV2)
	}
}

func TestBranchErrors(t *testing.T) {
	h := newHarness(t, `explain_reminders: false`)
	if _, err := h.s.Regenerate(h.ctx, &Scripted{Text: "x"}, t0); err == nil {
		t.Error("regenerate on an empty chat: got no error")
	} else {
		wantErrIs(t, err, chat.ErrInvalid)
	}
	wantErrIs(t, h.s.Checkpoint(h.ctx, "cp"), chat.ErrInvalid)
	h.sendN(2)
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"edit turn 0", editErr(h, 0), chat.ErrNotFound},
		{"edit turn 3 of 2", editErr(h, 3), chat.ErrNotFound},
		{"rewind turn 9", h.s.Rewind(h.ctx, 9), chat.ErrNotFound},
		{"restore unknown checkpoint", h.s.Restore(h.ctx, "nope"), chat.ErrNotFound},
		{"switch to an unknown branch", h.s.Switch(h.ctx, "nope"), chat.ErrNotFound},
		{"checkpoint without a name", h.s.Checkpoint(h.ctx, " "), chat.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantErrIs(t, tc.err, tc.want) })
	}
	// Failed operations change nothing.
	if h.s.Branch() != "main" || h.s.TurnCount() != 2 {
		t.Errorf("got branch %s with %d turns, want main with 2", h.s.Branch(), h.s.TurnCount())
	}
	if got := branchNames(t, h); !reflect.DeepEqual(got, map[string]int{"main": 2}) {
		t.Errorf("got branches %v, want only main", got)
	}
	if _, err := h.eng.Open(h.ctx, "no-such-chat"); err == nil {
		t.Error("open an unknown chat: got no error")
	} else {
		wantErrIs(t, err, ErrNotFound)
	}
}

func editErr(h *harness, n int) error {
	_, err := h.s.Edit(h.ctx, n, UserInput{Text: "x", At: t0}, &Scripted{Text: "y"})
	return err
}

// TestModeOnceLatches checks once('id') in a mode's condition: the mode is active until an
// instruction in it is applied, then latched off on this branch.
func TestModeOnceLatches(t *testing.T) {
	h := newHarness(t, `
modes: [{name: Intro, if: "once('intro')"}]
instructions:
  - {id: hello, mode: Intro, prompt: Introduce yourself.}
  - {id: also, mode: Intro, if: "once('also')", prompt: Say it once more.}
  - {id: always, prompt: Be kind.}
`)
	var got []string
	for n := 1; n <= 3; n++ {
		res := h.send("hi", at(n))
		got = append(got, summary(decision(t, res.Plan.Decisions, "hello")))
		if n == 1 {
			want := []chat.Fired{{ID: "instruction:hello", Latches: []string{"intro"}},
				{ID: "instruction:also", Latches: []string{"intro", "also"}}}
			if !reflect.DeepEqual(res.Turn.Fired, want) {
				t.Errorf("turn 1: got fired records %+v, want %+v", res.Turn.Fired, want)
			}
		}
	}
	const off = "hello:not_in_mode (mode Intro is not active)"
	if want := []string{"hello:fired", off, off}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	h.reopen() // the latch is on the branch, not in memory
	if d := decision(t, h.send("hi", at(4)).Plan.Decisions, "hello"); d.Reason != ReasonNotInMode {
		t.Errorf("after reopening: got %s, want not_in_mode", summary(d))
	}
}
