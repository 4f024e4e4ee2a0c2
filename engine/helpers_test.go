package engine

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	dec "github.com/ctxlab/ctxlab/engine/decision"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// t0 is the clock of the first turn of most tests: Friday 2026-03-27 14:30:00 UTC.
var t0 = time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)

// ctxPath names the inline context files; it sits in testdata so that `- skills: ./skills`
// resolves to testdata/skills.
const ctxPath = "testdata/inline.ctx.yaml"

// parseFile parses an inline context file, failing the test on any error.
func parseFile(tb testing.TB, src string) *ctxfile.File {
	tb.Helper()
	f, err := ctxfile.Parse(ctxPath, []byte(src))
	if err != nil {
		tb.Fatalf("parse context file: %v\n%s", err, src)
	}
	return f
}

// counter is a deterministic id source: id-0001, id-0002, … Like any Options.NewID it is
// safe for concurrent use.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) next() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("id-%04d", c.n)
}

// harness is an engine over a MemStore with a fixed clock and deterministic ids, and one
// open chat.
type harness struct {
	tb    testing.TB
	ctx   context.Context
	file  *ctxfile.File
	store *MemStore
	ids   *counter
	eng   *Engine
	s     *Session
}

type harnessOpt func(*Options)

// newHarness parses src and creates the chat "chat-1".
func newHarness(tb testing.TB, src string, opts ...harnessOpt) *harness {
	tb.Helper()
	h := &harness{tb: tb, ctx: context.Background(), file: parseFile(tb, src), store: NewMemStore(nil), ids: &counter{}}
	h.eng = h.engine(h.file, opts...)
	s, err := h.eng.Create(h.ctx, chat.Chat{ID: "chat-1", Title: "test chat"})
	if err != nil {
		tb.Fatalf("create chat: %v", err)
	}
	h.s = s
	return h
}

// engine returns a new engine on the harness's store and id counter.
func (h *harness) engine(f *ctxfile.File, opts ...harnessOpt) *Engine {
	h.tb.Helper()
	o := Options{Context: f, Store: h.store, Now: func() time.Time { return t0 }, NewID: h.ids.next}
	for _, fn := range opts {
		fn(&o)
	}
	e, err := New(o)
	if err != nil {
		h.tb.Fatalf("new engine: %v", err)
	}
	return e
}

// reopen drops the session and opens the chat again with a fresh engine on the same
// store, so nothing survives in process memory.
func (h *harness) reopen() {
	h.tb.Helper()
	h.eng = h.engine(h.file)
	s, err := h.eng.Open(h.ctx, "chat-1")
	if err != nil {
		h.tb.Fatalf("reopen: %v", err)
	}
	h.s = s
}

// at returns the clock of turn n when turns are one minute apart.
func at(n int) time.Time { return t0.Add(time.Duration(n-1) * time.Minute) }

// send sends text at the given time with a scripted reply "ok".
func (h *harness) send(text string, when time.Time) *TurnResult {
	h.tb.Helper()
	return h.sendIn(UserInput{Text: text, At: when}, &Scripted{Text: "ok"})
}

func (h *harness) sendIn(in UserInput, r Replier) *TurnResult {
	h.tb.Helper()
	res, err := h.s.Send(h.ctx, in, r)
	if err != nil {
		h.tb.Fatalf("send %q: %v", in.Text, err)
	}
	return res
}

// sendN sends n turns "turn K", one minute apart, starting after the turns already there.
func (h *harness) sendN(n int) []*TurnResult {
	h.tb.Helper()
	var out []*TurnResult
	for range n {
		k := h.s.TurnCount() + 1
		out = append(out, h.send(fmt.Sprintf("turn %d", k), at(k)))
	}
	return out
}

// preview plans the next turn with text.
func (h *harness) preview(text string) *Plan {
	k := h.s.TurnCount() + 1
	return h.s.Preview(UserInput{Text: text, At: at(k)})
}

// decision returns the decision with id, failing the test when there is none.
func decision(tb testing.TB, ds []Decision, id string) Decision {
	tb.Helper()
	for _, d := range ds {
		if d.ID == id {
			return d
		}
	}
	tb.Fatalf("no decision %q in %v", id, ids(ds))
	return Decision{}
}

func ids(ds []Decision) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

// summary writes a decision as "id:reason" plus " (detail)" when there is one.
func summary(d Decision) string {
	s := d.ID + ":" + d.Reason
	if d.Detail != "" {
		s += " (" + d.Detail + ")"
	}
	return s
}

// firedIDs lists the fired reminders of a plan, in order.
func firedIDs(ds []Decision) []string {
	var out []string
	for _, d := range ds {
		if d.Source == SourceReminder && d.Fired {
			out = append(out, d.ID)
		}
	}
	return out
}

// reasonsPerTurn sends turns and returns, per turn, the reason of reminder id.
func (h *harness) reasons(id string, turns int) []string {
	h.tb.Helper()
	var out []string
	for _, r := range h.sendN(turns) {
		out = append(out, summary(decision(h.tb, r.Plan.Decisions, id)))
	}
	return out
}

func wantErrIs(tb testing.TB, err, target error) {
	tb.Helper()
	if !errors.Is(err, target) {
		tb.Fatalf("got error %v, want one wrapping %v", err, target)
	}
}

// marshalDecisions encodes a decision list as a JSON array, as turn records keep it.
func marshalDecisions(ds []Decision) []byte { return dec.AppendList(nil, ds) }
