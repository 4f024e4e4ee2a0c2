package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// aheadInputs are the turns of TestWithNextPlansAsSendDoes: content, tools, clocks that
// change day and hour, so that every kind of predicate sees the turn before.
func aheadInputs(n int) ([]UserInput, []Replier) {
	texts := []string{"deploy the release", "an error in the query", "w001term w002term and the database",
		"plain words", "select * from users", "ship it"}
	var ins []UserInput
	var reps []Replier
	clock := t0
	for i := range n {
		clock = clock.Add(time.Duration(1+i%5*7) * time.Hour / 3)
		in := UserInput{Text: fmt.Sprintf("%s (%d)", texts[i%len(texts)], i+1), At: clock}
		if i%4 == 2 {
			in.Locale = &chat.Locale{Language: "de", TimeZone: "Europe/Berlin"}
		}
		rep := &Scripted{Text: fmt.Sprintf("reply %d %s", i+1, texts[(i+2)%len(texts)])}
		if i%3 == 1 {
			rep.Tools = []ScriptedTool{{Name: "bash", Input: json.RawMessage(`{"q":"ls"}`), Failed: i%2 == 1, Error: "denied", Output: "ok"}}
		}
		if i%5 == 0 {
			rep.Usage = &chat.Usage{PromptTokens: 900 * (i + 1), CompletionTokens: 40, TotalTokens: 900*(i+1) + 40}
		}
		ins, reps = append(ins, in), append(reps, rep)
	}
	return ins, reps
}

// TestWithNextPlansAsSendDoes checks that turns sent with the next one planned while they
// commit (WithNext, as a script plays its turns) are the very turns sent one after the
// other: the same requests, decisions, records and session, from a chat's first save on.
func TestWithNextPlansAsSendDoes(t *testing.T) {
	src := benchContext()
	ins, reps := aheadInputs(40)
	play := func(ahead bool) (*harness, []*TurnResult) {
		h := newHarness(t, src)
		h.s = h.eng.Start(chat.Chat{ID: "chat-2"}) // a draft: its first turn saves it
		var out []*TurnResult
		for i, in := range ins {
			var opts []SendOption
			if ahead && i+1 < len(ins) {
				opts = append(opts, WithNext(ins[i+1]))
			}
			res, err := h.s.Send(h.ctx, in, reps[i], opts...)
			if err != nil {
				t.Fatalf("turn %d: %v", i+1, err)
			}
			if ahead && i+1 < len(ins) && h.s.ahead == nil {
				t.Fatalf("turn %d: no plan made ahead", i+1)
			}
			out = append(out, res)
		}
		return h, out
	}
	plainH, plain := play(false)
	aheadH, ahead := play(true)
	asJSON := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for i := range plain {
		p, a := plain[i], ahead[i]
		for _, c := range []struct {
			what string
			p, a any
		}{
			{"request", p.Plan.Request, a.Plan.Request},
			{"decisions", p.Plan.Decisions, a.Plan.Decisions},
			{"estimate", p.Plan.Estimate, a.Plan.Estimate},
			{"user message", p.Plan.User, a.Plan.User},
			{"assistant message", p.Assistant, a.Assistant},
			{"turn record", p.Turn, a.Turn},
		} {
			if pj, aj := asJSON(c.p), asJSON(c.a); pj != aj {
				t.Fatalf("turn %d: %s differs when planned ahead:\nplain: %.600s\nahead: %.600s", i+1, c.what, pj, aj)
			}
		}
	}
	if p, a := asJSON(plainH.s.Chat()), asJSON(aheadH.s.Chat()); p != a {
		t.Errorf("chat differs: %s vs %s", p, a)
	}
	if plainH.s.Usage() != aheadH.s.Usage() || plainH.s.TurnCount() != aheadH.s.TurnCount() {
		t.Errorf("session differs: usage %+v vs %+v, %d vs %d turns", plainH.s.Usage(), aheadH.s.Usage(),
			plainH.s.TurnCount(), aheadH.s.TurnCount())
	}
	saved := func(h *harness) string {
		h.tb.Helper()
		s, err := h.eng.Open(h.ctx, "chat-2")
		if err != nil {
			t.Fatal(err)
		}
		return asJSON([]any{s.Chat(), s.Messages(), s.Turns()})
	}
	if p, a := saved(plainH), saved(aheadH); p != a {
		t.Errorf("saved chat differs:\nplain: %.800s\nahead: %.800s", p, a)
	}
}

// failOnce is a store whose next commit fails.
type failOnce struct {
	*MemStore
	fail bool
}

func (s *failOnce) Commit(ctx context.Context, c chat.Commit) error {
	if s.fail {
		s.fail = false
		return errors.New("disk full")
	}
	return s.MemStore.Commit(ctx, c)
}

// TestWithNextFailedCommit checks that a turn whose commit fails leaves the session as it
// was, its plan of the next turn made meanwhile thrown away: the next turn sent is
// planned again, on the session without the failed turn.
func TestWithNextFailedCommit(t *testing.T) {
	h := newHarness(t, `reminders: [{id: once, text: First time., when: "once()"}, {id: every, text: Each turn.}]`)
	h.sendN(1)
	store := &failOnce{MemStore: h.store}
	e := h.engine(h.file, func(o *Options) { o.Store = store })
	s, err := e.Open(h.ctx, "chat-1")
	if err != nil {
		t.Fatal(err)
	}
	before, usage := len(s.Messages()), s.Usage()
	next := UserInput{Text: "next", At: at(3)}
	store.fail = true
	if _, err := s.Send(h.ctx, UserInput{Text: "lost", At: at(2)}, &Scripted{Text: "never saved"}, WithNext(next)); err == nil {
		t.Fatal("the failed commit was not reported")
	}
	if len(s.Messages()) != before || s.Usage() != usage || s.TurnCount() != 1 || s.ahead != nil {
		t.Fatalf("after a failed commit: %d messages (want %d), usage %+v (want %+v), %d turns, plan ahead kept: %v",
			len(s.Messages()), before, s.Usage(), usage, s.TurnCount(), s.ahead != nil)
	}
	res, err := s.Send(h.ctx, next, &Scripted{Text: "saved"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Turn != 2 || res.Plan.User.ParentID != s.Messages()[1].ID {
		t.Errorf("the next turn is turn %d after %s, want turn 2 after turn 1's reply", res.Plan.Turn, res.Plan.User.ParentID)
	}
}

// TestWithNextConflict checks that a plan made ahead is not used once the turn before was
// saved aside (another writer moved its branch): the next turn is planned on the new
// branch the session switched to.
func TestWithNextConflict(t *testing.T) {
	h := newRaceHarness(t, 1)
	h.race.other = func() {
		if _, err := h.other.Send(h.ctx, UserInput{Text: "from the other", At: at(2)}, &Scripted{Text: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	next := UserInput{Text: "next", At: at(3)}
	res, err := h.s.Send(h.ctx, UserInput{Text: "mine", At: at(2)}, &Scripted{Text: "saved"}, WithNext(next))
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn.Branch != "main-v2" || h.s.Branch() != "main-v2" {
		t.Fatalf("saved on %s, session on %s; want main-v2", res.Turn.Branch, h.s.Branch())
	}
	got, err := h.s.Send(h.ctx, next, &Scripted{Text: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Plan.Branch != "main-v2" || got.Turn.Branch != "main-v2" || got.Plan.User.ParentID != res.Assistant.ID || got.PlannedOn != "" {
		t.Errorf("next turn planned on %s after %s (saved on %s, planned on %q); want main-v2 after %s",
			got.Plan.Branch, got.Plan.User.ParentID, got.Turn.Branch, got.PlannedOn, res.Assistant.ID)
	}
}

// TestWithNextOtherInput checks that a plan made ahead is used only for the input it was
// made for.
func TestWithNextOtherInput(t *testing.T) {
	h := newHarness(t, `reminders: [{id: deploy, text: Deploying., when: "contentIncludes(['deploy'])"}]`)
	h.sendN(1)
	planned := UserInput{Text: "deploy now", At: at(2)}
	if _, err := h.s.Send(h.ctx, UserInput{Text: "turn 2", At: at(2)}, &Scripted{Text: "ok"}, WithNext(planned)); err != nil {
		t.Fatal(err)
	}
	for _, in := range []UserInput{
		{Text: "something else", At: at(3)},
		{Text: "deploy now", At: at(4)},
		{Text: "deploy now", At: at(2), Locale: &chat.Locale{Language: "fr"}},
	} {
		planned := planned
		if in.Locale != nil {
			planned.Locale = &chat.Locale{Language: "de"}
		}
		if _, err := h.s.Send(h.ctx, UserInput{Text: "step", At: at(2)}, &Scripted{Text: "ok"}, WithNext(planned)); err != nil {
			t.Fatal(err)
		}
		res, err := h.s.Send(h.ctx, in, &Scripted{Text: "ok"})
		if err != nil {
			t.Fatal(err)
		}
		text, loc := res.Plan.User.PlainText(), res.Plan.User.Locale
		deploy := decision(t, res.Plan.Decisions, "deploy").Fired
		if !strings.HasPrefix(text, in.Text) || !res.Plan.At.Equal(in.At) || (loc == nil) != (in.Locale == nil) || (loc != nil && *loc != *in.Locale) ||
			deploy != strings.Contains(in.Text, "deploy") {
			t.Errorf("sent %q at %s, got the plan of %q at %s (deploy fired: %v)", in.Text, in.At, text, res.Plan.At, deploy)
		}
	}
}

// TestWithNextSessionChanged checks that a plan made ahead is not used once the session
// moved in between (a rewind, a switch): the turn is planned where the session is.
func TestWithNextSessionChanged(t *testing.T) {
	h := newHarness(t, `reminders: [{id: every, text: Each turn.}]`)
	h.sendN(2)
	next := UserInput{Text: "next", At: at(4)}
	change := map[string]func() error{
		"rewind": func() error { return h.s.Rewind(h.ctx, 1) },
		"switch": func() error { return h.s.Switch(h.ctx, "main") },
		"regenerate": func() error {
			_, err := h.s.Regenerate(h.ctx, &Scripted{Text: "again"}, at(3))
			return err
		},
		"turn left unanswered": func() error {
			_, err := h.s.SendUnanswered(h.ctx, UserInput{Text: "unanswered", At: at(3)})
			return err
		},
		"restore at the head": func() error {
			if err := h.s.Checkpoint(h.ctx, "here"); err != nil {
				return err
			}
			return h.s.Restore(h.ctx, "here")
		},
	}
	for _, name := range []string{"rewind", "switch", "regenerate", "turn left unanswered", "restore at the head"} {
		if _, err := h.s.Send(h.ctx, UserInput{Text: "step", At: at(3)}, &Scripted{Text: "ok"}, WithNext(next)); err != nil {
			t.Fatal(err)
		}
		if err := change[name](); err != nil {
			t.Fatal(err)
		}
		res, err := h.s.Send(h.ctx, next, &Scripted{Text: "ok"})
		if err != nil {
			t.Fatal(err)
		}
		path := h.s.Messages()
		if res.Plan.Branch != h.s.Branch() || res.Plan.User.ParentID != path[len(path)-3].ID || res.PlannedOn != "" {
			t.Errorf("after a %s: planned on %s after %s (planned on %q), want %s after %s", name,
				res.Plan.Branch, res.Plan.User.ParentID, res.PlannedOn, h.s.Branch(), path[len(path)-3].ID)
		}
	}
}
