package engine

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// replayed collects the traces of Replay on the active branch of chat-1, under engine e.
func (h *harness) replayed(e *Engine, reevaluate bool) []*Trace {
	h.tb.Helper()
	var out []*Trace
	if err := e.Replay(h.ctx, "chat-1", reevaluate, func(t *Trace) error {
		out = append(out, t)
		return nil
	}); err != nil {
		h.tb.Fatalf("replay: %v", err)
	}
	return out
}

// traceJSON is a trace as JSON, with the estimate by source a turn's record keeps.
func traceJSON(tb testing.TB, t Trace) string {
	tb.Helper()
	b, err := t.MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// changes lists the decisions of traces marked changed or removed, as "turn:id".
func changes(traces []*Trace) []string {
	var out []string
	for _, tr := range traces {
		for _, d := range tr.Decisions {
			if d.Was != nil {
				out = append(out, strconv.Itoa(tr.Turn)+":"+d.ID+" was "+d.Was.Reason)
			}
		}
		for _, d := range tr.Removed {
			out = append(out, strconv.Itoa(tr.Turn)+":"+d.ID+" removed")
		}
	}
	return out
}

const replaySrc = `
system: [{role: R.}]
instructions: [{id: i, kind: must, prompt: Be exact.}]
tools: [{name: run_sql, description: Run SQL., result: ok}]
reminders:
  - builtin: date
    tz: UTC
  - {id: every, text: Every turn.}
  - {id: first, text: First turn only., when: "once('first')"}
  - {id: sys, text: Sys., placement: system, max_per_chat: 2}
`

// TestReplayRecorded checks that Replay gives, turn by turn, the traces the turns had when
// they were sent (regenerated replies included), and that re-evaluating under the same
// file changes nothing, even for a reply regenerated days after its turn.
func TestReplayRecorded(t *testing.T) {
	h := newHarness(t, replaySrc)
	var sent []*TurnResult
	sent = append(sent, h.send("hello", at(1)))
	sent = append(sent, h.sendIn(UserInput{Text: "count them", At: at(2)}, &Scripted{Text: "42",
		Tools: []ScriptedTool{{Name: "run_sql", Input: json.RawMessage(`{"q":"select"}`), Output: "42"}}}))
	sent = append(sent, h.send("thanks", at(3)))
	regen, err := h.s.Regenerate(h.ctx, &Scripted{Text: "you are welcome"}, at(3).Add(72*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	sent[2] = regen

	got := h.replayed(h.eng, false)
	if len(got) != len(sent) {
		t.Fatalf("replayed %d turns, want %d", len(got), len(sent))
	}
	for i, tr := range got {
		if a, b := traceJSON(t, *tr), traceJSON(t, sent[i].Trace("chat-1")); a != b {
			t.Errorf("turn %d: replayed\n%s\nwant the trace sent\n%s", i+1, a, b)
		}
		if tr.NotRecorded {
			t.Errorf("turn %d is marked not recorded", i+1)
		}
	}

	// Under the same file: the same decisions, system prompts and requests, nothing marked.
	again := h.replayed(h.eng, true)
	if c := changes(again); len(c) != 0 {
		t.Errorf("re-evaluated under the same file: got changes %v, want none", c)
	}
	for i, tr := range again {
		want := sent[i].Trace("chat-1")
		a, _ := json.Marshal(tr.Request)
		b, _ := json.Marshal(want.Request)
		if string(a) != string(b) || tr.SystemPrompt != want.SystemPrompt {
			t.Errorf("turn %d: re-evaluated request\n%s\nwant the one sent\n%s", i+1, a, b)
		}
	}
}

// TestReplayReevaluated checks Replay under another context file: decisions that changed
// carry Was (the recorded fired and reason, or not_in_file for a reminder the recorded file
// did not have), recorded decisions the file no longer has are listed in Removed, and
// counters and latches follow what the new file fires. Nothing is written.
func TestReplayReevaluated(t *testing.T) {
	h := newHarness(t, replaySrc)
	h.sendN(3)
	before := branchNames(t, h)
	edited := h.engine(parseFile(t, `
system: [{role: R.}]
instructions: [{id: i, kind: must, prompt: Be exact.}]
reminders:
  - builtin: date
    tz: UTC
  - {id: every, text: Every turn., when: "everyNTurns(2)"}
  - {id: sys, text: Sys., placement: system, max_per_chat: 1}
  - {id: new, text: New., when: "once('new')"}
`))
	got := h.replayed(edited, true)
	want := []string{
		"1:every was fired", "1:new was not_in_file", "1:first removed",
		"2:sys was fired", "2:new was not_in_file", "2:first removed",
		"3:every was fired", "3:new was not_in_file", "3:first removed",
	}
	if c := changes(got); !reflect.DeepEqual(c, want) {
		t.Errorf("got changes\n%q\nwant\n%q", c, want)
	}
	if d := decision(t, got[1].Decisions, "sys"); d.Reason != ReasonCapReached {
		t.Errorf("turn 2: sys is %s, want cap_reached under max_per_chat 1", d.Reason)
	}
	if d := decision(t, got[1].Decisions, "new"); d.Reason != ReasonPredicateFalse {
		t.Errorf("turn 2: new is %s, want predicate_false: latched on turn 1", d.Reason)
	}
	// The request is the new file's: turn 3 sends turn 1's user message with "New." baked
	// in, and without "Every turn.".
	if user := got[2].Request.At(1); user.Role != chat.RoleUser || !strings.HasSuffix(user.Text(), tag("New.")) ||
		strings.Contains(user.Text(), "Every turn.") {
		t.Errorf("turn 3 sends turn 1 as %q", user.Text())
	}
	if got := branchNames(t, h); !reflect.DeepEqual(got, before) {
		t.Errorf("replay changed the branches: %v, want %v", got, before)
	}
	h.reopen()
	if h.s.TurnCount() != 3 || h.s.view.fires["first"].count != 1 {
		t.Errorf("after replay: %d turns, first fired %d times; want the chat as it was", h.s.TurnCount(), h.s.view.fires["first"].count)
	}
}

// importChat saves chat-2 as an import from OpenAI messages saves it: user messages and
// replies without turn records, the system prompt in the chat's metadata.
func (h *harness) importChat(texts ...string) {
	h.tb.Helper()
	c := chat.Chat{ID: "chat-2", ActiveBranch: "main", CreatedAt: t0, Metadata: map[string]any{"system_prompt": "Imported."}}
	var msgs []chat.Message
	parent := ""
	for i, text := range texts {
		role := chat.RoleUser
		if i%2 == 1 {
			role = chat.RoleAssistant
		}
		m := chat.Message{ID: h.ids.next(), ParentID: parent, Role: role, Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: at(i/2 + 1)}
		msgs = append(msgs, m)
		parent = m.ID
	}
	if err := h.store.Commit(h.ctx, chat.Commit{ChatID: c.ID, Branch: "main", NewHead: parent, Messages: msgs, NewChat: &c}); err != nil {
		h.tb.Fatal(err)
	}
}

// TestReplayUnrecorded checks Replay of turns the chat holds no record of: rebuilt from the
// messages (the imported system prompt, no decisions), marked NotRecorded; re-evaluated,
// planned under the file with its latches, and nothing marked changed.
func TestReplayUnrecorded(t *testing.T) {
	h := newHarness(t, replaySrc)
	h.importChat("hi", "hello", "and now?", "now this")
	var got []*Trace
	replay := func(reevaluate bool) {
		got = nil
		if err := h.eng.Replay(h.ctx, "chat-2", reevaluate, func(t *Trace) error {
			got = append(got, t)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	replay(false)
	if len(got) != 2 {
		t.Fatalf("replayed %d turns, want 2", len(got))
	}
	for i, tr := range got {
		var roles []chat.Role
		for _, m := range tr.Request.Collect() {
			roles = append(roles, m.Role)
		}
		wantRoles := []chat.Role{chat.RoleSystem, chat.RoleUser}
		if i == 1 {
			wantRoles = []chat.Role{chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleUser}
		}
		if !tr.NotRecorded || tr.Turn != i+1 || len(tr.Decisions) != 0 || tr.SystemPrompt != "Imported." ||
			tr.Request.At(0).Content != "Imported." || !reflect.DeepEqual(roles, wantRoles) {
			t.Errorf("turn %d: got not recorded %v, turn %d, %d decisions, system %q, roles %v; want not recorded, the imported system prompt, roles %v",
				i+1, tr.NotRecorded, tr.Turn, len(tr.Decisions), tr.SystemPrompt, roles, wantRoles)
		}
	}
	replay(true)
	if c := changes(got); len(c) != 0 {
		t.Errorf("re-evaluated: got changes %v, want none (nothing recorded to compare with)", c)
	}
	if len(got) != 2 || !decision(t, got[0].Decisions, "first").Fired || decision(t, got[1].Decisions, "first").Fired {
		t.Errorf("re-evaluated: want first fired on turn 1 only, latched after")
	}
	if got[1].SystemPrompt == "Imported." {
		t.Errorf("re-evaluated: got the imported system prompt, want the file's")
	}
}

// TestReplayUnanswered checks that a user message no reply answers (the end of an imported
// request) is replayed as a turn of its own: no assistant, the request that would send it,
// and, re-evaluated, the decisions the file makes for it.
func TestReplayUnanswered(t *testing.T) {
	h := newHarness(t, replaySrc, func(o *Options) {
		o.Cost = func(string, chat.Usage) (float64, bool) { return 1, true } // every turn that may be priced is
	})
	h.importChat("hi", "hello", "and now?")
	for _, reevaluate := range []bool{false, true} {
		var got []*Trace
		if err := h.eng.Replay(h.ctx, "chat-2", reevaluate, func(t *Trace) error {
			got = append(got, t)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("re-evaluate %v: replayed %d turns, want 2", reevaluate, len(got))
		}
		last := got[1]
		msgs := last.Request.Collect()
		if last.Turn != 2 || last.Assistant != nil || last.AssistantMessageID != "" || !last.NotRecorded ||
			len(msgs) < 4 || msgs[len(msgs)-1].Role != chat.RoleUser || !strings.Contains(msgs[len(msgs)-1].Text(), "and now?") {
			t.Errorf("re-evaluate %v: turn 2: got turn %d, assistant %+v (%q), not recorded %v, %d messages; want turn 2 with no reply, sending \"and now?\" last",
				reevaluate, last.Turn, last.Assistant, last.AssistantMessageID, last.NotRecorded, len(msgs))
		}
		if reevaluate && len(last.Decisions) == 0 {
			t.Errorf("re-evaluated turn 2: no decisions, want the file's")
		}
		if got[0].Sent || last.Sent { // nothing is known of what an imported turn was sent to
			t.Errorf("re-evaluate %v: an imported turn's trace says it was sent", reevaluate)
		}
		if !reevaluate {
			for _, tr := range got { // the running total of the history, exactly
				if want := requestTokens(h.eng.cache.count, &tr.Request); tr.Usage.Estimated.PromptTokens != want {
					t.Errorf("turn %d: estimated prompt %d, want the request's %d", tr.Turn, tr.Usage.Estimated.PromptTokens, want)
				}
			}
		}
		// Unrecorded turns are estimated like recorded ones, and not priced.
		if u := got[0].Usage; u.Estimated.PromptTokens <= 0 || u.Estimated.CompletionTokens <= 0 || u.CostUSD != nil ||
			last.Usage.Estimated.PromptTokens <= 0 {
			t.Errorf("re-evaluate %v: got usage %+v and %+v, want prompt and reply estimated, no cost", reevaluate, u, last.Usage)
		}
	}
}

// TestReplayFailedTurn checks that a turn recorded without a reply (it failed before
// any: an import may hold one) replays as recorded, with its turn number, error, request
// and decisions, under its own file and re-evaluated, and that the turns after it replay
// as they were sent.
func TestReplayFailedTurn(t *testing.T) {
	h := newHarness(t, replaySrc)
	h.send("hello", at(1))
	// The record of a turn whose reply failed, saved with its user message alone.
	p := h.s.Preview(UserInput{Text: "fails", At: at(2)})
	failed := h.s.record(p, &Outcome{Err: errors.New("model: 500")}, marshalDecisions(p.Decisions)).Turn
	failed.AssistantMessageID = ""
	if err := h.store.Commit(h.ctx, chat.Commit{ChatID: "chat-1", Branch: "main", ExpectHead: p.User.ParentID,
		NewHead: p.User.ID, Messages: []chat.Message{p.User}, Turns: []chat.Turn{failed}}); err != nil {
		t.Fatal(err)
	}
	h.reopen()
	after := h.send("again", at(3))

	wantRequest, _ := json.Marshal(p.Request)
	wantDecisions := string(marshalDecisions(p.Decisions))
	for _, reevaluate := range []bool{false, true} {
		got := h.replayed(h.eng, reevaluate)
		if len(got) != 3 {
			t.Fatalf("re-evaluate %v: replayed %d turns, want 3", reevaluate, len(got))
		}
		tr := got[1]
		request, _ := json.Marshal(tr.Request)
		if tr.NotRecorded || tr.Turn != 2 || tr.Error != "model: 500" || tr.UserMessageID != p.User.ID || tr.Assistant != nil ||
			string(request) != string(wantRequest) || string(marshalDecisions(tr.Decisions)) != wantDecisions {
			t.Errorf("re-evaluate %v: turn 2: got not recorded %v, turn %d, error %q, user %s, assistant %+v, request\n%s\ndecisions\n%s\n"+
				"want it as recorded: turn 2, the error, user %s, no reply, request\n%s\ndecisions\n%s",
				reevaluate, tr.NotRecorded, tr.Turn, tr.Error, tr.UserMessageID, tr.Assistant, request, marshalDecisions(tr.Decisions),
				p.User.ID, wantRequest, wantDecisions)
		}
		if c := changes(got); len(c) != 0 {
			t.Errorf("re-evaluate %v: got changes %v, want none", reevaluate, c)
		}
		if a, b := traceJSON(t, *got[2]), traceJSON(t, after.Trace("chat-1")); !reevaluate && a != b {
			t.Errorf("turn 3: replayed\n%s\nwant the trace sent\n%s", a, b)
		}
	}
}

// TestRegenerateUnrecorded checks that the last reply of a chat with no turn records can
// be regenerated: the request is the one Replay rebuilds from the messages, the new reply
// is a sibling on main-v2, and replaying the new branch shows it recorded.
func TestRegenerateUnrecorded(t *testing.T) {
	h := newHarness(t, replaySrc)
	h.importChat("hi", "hello", "and now?", "now this")
	var rebuilt *Trace
	if err := h.eng.Replay(h.ctx, "chat-2", false, func(t *Trace) error {
		rebuilt = t
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s, err := h.eng.Open(h.ctx, "chat-2")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Regenerate(h.ctx, &Scripted{Text: "now that"}, at(5))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(res.Plan.Request)
	b, _ := json.Marshal(rebuilt.Request)
	if string(a) != string(b) {
		t.Errorf("regenerated with request\n%s\nwant the one replay rebuilds\n%s", a, b)
	}
	if s.Branch() != "main-v2" || res.Turn.Number != 2 || res.Assistant.ParentID != rebuilt.UserMessageID || len(res.Plan.Decisions) != 0 {
		t.Errorf("got branch %s, turn %d, parent %s, %d decisions; want main-v2, turn 2, the user message %s, none",
			s.Branch(), res.Turn.Number, res.Assistant.ParentID, len(res.Plan.Decisions), rebuilt.UserMessageID)
	}
	if res.Turn.Estimated.PromptTokens == 0 {
		t.Errorf("the regenerated turn has no prompt estimate")
	}
	var last *Trace
	if err := h.eng.Replay(h.ctx, "chat-2", false, func(t *Trace) error {
		last = t
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if last.NotRecorded || last.Assistant.Text != "now that" || traceJSON(t, *last) != traceJSON(t, res.Trace("chat-2")) {
		t.Errorf("replayed the regenerated turn as\n%s\nwant\n%s", traceJSON(t, *last), traceJSON(t, res.Trace("chat-2")))
	}

	// A branch with no reply says so.
	_, err = h.s.Regenerate(h.ctx, &Scripted{Text: "x"}, at(1))
	if want := "branch main has no reply to regenerate"; err == nil || err.Error() != want {
		t.Errorf("regenerate on an empty branch: got %v, want %s", err, want)
	}
}

// TestRequestsShareHistory checks that the requests built one after the other on a branch
// share the history instead of each copying it (what keeps a long chat's turns, and a
// long replay, flat), whatever their placements, and that no request handed out is
// changed by a later one: not a preview that was never sent, nor one with a system
// reminder between its history and its user message, nor one whose system prompt a
// run-start reminder changed.
func TestRequestsShareHistory(t *testing.T) {
	h := newHarness(t, `
system: [{role: R.}]
reminders:
  - {id: sys, text: Sys., placement: system, when: "everyNTurns(3)"}
  - {id: late, text: Late., placement: system, when: "afterTurn(3)"}
  - {id: start, text: Start., placement: run-start, when: "everyNTurns(2)"}
`)
	var reqs []chat.Request
	var want []string
	keep := func(req chat.Request) {
		reqs = append(reqs, req)
		want = append(want, requestJSON(t, req))
	}
	for i := range 6 {
		keep(h.preview("a preview").Request)
		sent := h.send("turn "+strconv.Itoa(i+1), at(i+1)).Plan.Request
		keep(sent)
		if got, want := len(sent.Shared), 2*i; got != want || len(sent.Messages) > 2 {
			t.Errorf("turn %d: the request shares %d messages and has %d of its own, want %d shared and at most 2",
				i+1, got, len(sent.Messages), want)
		}
		if len(sent.Shared) > 0 && &sent.Shared[0] != &h.s.view.wire[0] {
			t.Errorf("turn %d: the request copied the history instead of sharing the branch's", i+1)
		}
	}
	for i := range reqs {
		if got := requestJSON(t, reqs[i]); got != want[i] {
			t.Errorf("request %d changed after it was handed out:\n%s\nwas\n%s", i, got, want[i])
		}
	}
	// A replay of 200 turns: the requests share the history of the branch, one array that
	// grows a few times.
	texts := make([]string, 400)
	for i := range texts {
		texts[i] = "message " + strconv.Itoa(i)
	}
	h.importChat(texts...)
	arrays := map[*chat.WireMessage]bool{}
	if err := h.eng.Replay(h.ctx, "chat-2", false, func(t *Trace) error {
		if len(t.Request.Shared) > 0 {
			arrays[&t.Request.Shared[0]] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(arrays) == 0 || len(arrays) > 12 {
		t.Errorf("the 200 replayed requests use %d arrays, want at most 12 (each growth of one)", len(arrays))
	}
}
