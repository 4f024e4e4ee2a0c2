// Package enginetest checks implementations of the engine's interfaces against the
// contract the engine relies on. TestStore runs one conformance suite of engine.Store;
// the SQLite store (store.DB) is the reference, and engine.MemStore must behave the same.
package enginetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// t0 is the clock of the fixture chat; at(n) is n seconds later.
var t0 = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

// The fixture chat (see seed): main is u1 a1 u2 a2 u4 (u4 a user message whose turn t4
// failed before any reply), alt forks main at a1 with u3 a3.
const chatID = "c1"

func message(id, parent string, role chat.Role, sec int) chat.Message {
	return chat.Message{ID: id, ParentID: parent, Role: role, Parts: []chat.Part{chat.TextPart("text of " + id)}, CreatedAt: at(sec)}
}

func turn(id, branch string, n int, user, asst string, sec int) chat.Turn {
	rep := chat.Usage{PromptTokens: 10 * n, CompletionTokens: n, TotalTokens: 11 * n}
	return chat.Turn{ID: id, ChatID: chatID, Branch: branch, Number: n, UserMessageID: user, AssistantMessageID: asst,
		At: at(sec), Request: chat.SentRequest{Model: "m", SystemPrompt: "system of " + id},
		Fired:     []chat.Fired{{ID: "r-" + id, Latches: []string{"once-" + id}}},
		Decisions: json.RawMessage(`[{"id":"r-` + id + `","fired":true}]`),
		Reported:  &rep, Estimated: chat.Usage{PromptTokens: 9 * n, CompletionTokens: n, TotalTokens: 10 * n},
		TTFT: 5 * time.Millisecond, Latency: 20 * time.Millisecond, FinishReason: "stop"}
}

// fixture is the chat seed writes, as the store must give it back.
type fixture struct {
	chat                   chat.Chat
	u1, a1, u2, a2, u3, a3 chat.Message
	u4                     chat.Message
	t1, t2, t3, t4         chat.Turn
	alt                    chat.Branch
}

func newFixture() *fixture {
	f := &fixture{
		chat: chat.Chat{ID: chatID, Title: "First chat", Metadata: map[string]any{"team": "data"}, ActiveBranch: "main",
			CreatedAt: at(0), UpdatedAt: at(0)},
		u1: message("u1", "", chat.RoleUser, 1), a1: message("a1", "u1", chat.RoleAssistant, 2),
		u2: message("u2", "a1", chat.RoleUser, 3), a2: message("a2", "u2", chat.RoleAssistant, 4),
		u3: message("u3", "a1", chat.RoleUser, 6), a3: message("a3", "u3", chat.RoleAssistant, 7),
		u4: message("u4", "a2", chat.RoleUser, 8),
		t1: turn("t1", "main", 1, "u1", "a1", 2), t2: turn("t2", "main", 2, "u2", "a2", 4),
		t3: turn("t3", "alt", 2, "u3", "a3", 7), t4: turn("t4", "main", 3, "u4", "", 8),
		alt: chat.Branch{Name: "alt", Head: "a3", Parent: "main", CreatedAt: at(5)},
	}
	f.t4.Reported, f.t4.FinishReason, f.t4.Error = nil, "", "model: 500 Internal Server Error"
	// Turn 1 was a tool loop of two requests, the second reporting no usage; turn 2
	// sent one request; turn 3 was saved before ctxlab kept responses.
	first := chat.Usage{PromptTokens: 7, CompletionTokens: 1, TotalTokens: 8, CachedTokens: 2}
	f.t1.Responses = []chat.Response{
		{FinishReason: "tool_calls", Usage: &first, EstimatedPrompt: 6, TTFT: 5 * time.Millisecond, Latency: 9 * time.Millisecond},
		{FinishReason: "length", EstimatedPrompt: 12, TTFT: 3 * time.Millisecond, Latency: 11 * time.Millisecond},
	}
	f.t2.Responses = []chat.Response{{FinishReason: "stop", Usage: f.t2.Reported, EstimatedPrompt: 18, TTFT: 5 * time.Millisecond,
		Latency: 20 * time.Millisecond}}
	// Turns 1 and 2 were sent with one context file, turn 3 with none (a plain chat);
	// turn 4 was saved before ctxlab recorded it (not known).
	sent, none := strings.Repeat("0123456789abcdef", 4), ""
	f.t1.ContextDigest, f.t2.ContextDigest, f.t3.ContextDigest = &sent, &sent, &none
	return f
}

// seed writes the fixture chat step by step, as the engine does.
func (f *fixture) seed(tb testing.TB, s engine.Store) {
	tb.Helper()
	ctx := context.Background()
	must(tb, "create chat", s.CreateChat(ctx, f.chat))
	must(tb, "commit turn 1", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", NewHead: "a1",
		Messages: []chat.Message{f.u1, f.a1}, Turns: []chat.Turn{f.t1}}))
	must(tb, "commit turn 2", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "a1", NewHead: "a2",
		Messages: []chat.Message{f.u2, f.a2}, Turns: []chat.Turn{f.t2}}))
	nb := f.alt
	nb.Head = "a1"
	must(tb, "commit on a new branch", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "alt", NewBranch: &nb, NewHead: "a3",
		Messages: []chat.Message{f.u3, f.a3}, Turns: []chat.Turn{f.t3}}))
	must(tb, "commit a failed turn", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "a2", NewHead: "u4",
		Messages: []chat.Message{f.u4}, Turns: []chat.Turn{f.t4}}))
}

func must(tb testing.TB, what string, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
}

// storeCase is one behaviour of the contract, run on a fresh store holding the fixture.
type storeCase struct {
	name string
	run  func(t *testing.T, ctx context.Context, s engine.Store, f *fixture)
}

// errorCase is an operation on the fixture that must fail with an error of kind want.
type errorCase struct {
	name string
	op   func(ctx context.Context, s engine.Store, f *fixture) error
	want error
}

// TestStore checks the stores open returns against the contract of engine.Store: each
// case runs as a subtest on a fresh, empty store from open (which closes it when the
// test ends), seeded with a small chat of two branches.
func TestStore(t *testing.T, open func(t *testing.T) engine.Store) {
	runCases(t, func(t *testing.T, f *fixture) (engine.Store, func(*testing.T)) {
		s := open(t)
		f.seed(t, s)
		return s, nil
	})
}

// TestOverlay checks a store layered over another, as engine.MemStore is over a saved
// chat in a dry run: the same cases run on overlay(base), where base is a fresh store
// from open seeded with the chat, so every read goes through to the base. After each
// case the base must still hold the chat exactly as seeded: an overlay keeps every write
// to itself.
func TestOverlay(t *testing.T, open func(t *testing.T) engine.Store, overlay func(base engine.Store) engine.Store) {
	runCases(t, func(t *testing.T, f *fixture) (engine.Store, func(*testing.T)) {
		base := open(t)
		f.seed(t, base)
		return overlay(base), func(t *testing.T) {
			t.Helper()
			checkFixture(t, context.Background(), base, f)
			checkUntouched(t, context.Background(), base, f)
		}
	})
}

// runCases runs every case on the store setup returns, seeded with the fixture, then
// calls the check setup returns, if any.
func runCases(t *testing.T, setup func(t *testing.T, f *fixture) (engine.Store, func(*testing.T))) {
	for _, tc := range storeCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			s, after := setup(t, f)
			tc.run(t, context.Background(), s, f)
			if after != nil {
				after(t)
			}
		})
	}
	for _, tc := range errorCases {
		t.Run("error/"+tc.name, func(t *testing.T) {
			f := newFixture()
			s, after := setup(t, f)
			err := tc.op(context.Background(), s, f)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got error %v, want one wrapping %v", err, tc.want)
			}
			// A refused operation writes nothing.
			checkFixture(t, context.Background(), s, f)
			if after != nil {
				after(t)
			}
		})
	}
}

// checkUntouched checks, beyond checkFixture, that the chat's record and branches are as
// seeded, and that none of the chats, turns and checkpoints the cases write is there.
func checkUntouched(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
	t.Helper()
	c, err := s.Chat(ctx, chatID)
	must(t, "chat", err)
	want := f.chat
	want.UpdatedAt = at(8)
	same(t, "chat in the base", c, want)
	bs, err := s.Branches(ctx, chatID)
	must(t, "branches", err)
	same(t, "branches in the base", bs, []chat.BranchInfo{
		{Branch: chat.Branch{Name: "main", Head: "u4", CreatedAt: at(0)}, Turns: 3, Messages: 5},
		{Branch: f.alt, Turns: 2, Messages: 4},
	})
	for _, id := range []string{"c2", "c3"} {
		if _, err := s.Chat(ctx, id); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("chat %s in the base: got %v, want ErrNotFound", id, err)
		}
	}
	for _, id := range []string{"t5", "t9"} {
		if _, err := s.Turn(ctx, chatID, id); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("turn %s in the base: got %v, want ErrNotFound", id, err)
		}
	}
	if _, err := s.Checkpoint(ctx, chatID, "good"); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("checkpoint in the base: got %v, want ErrNotFound", err)
	}
}

// checkFixture checks that the store holds the fixture chat as seed wrote it.
func checkFixture(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
	t.Helper()
	c, err := s.Chat(ctx, chatID)
	must(t, "chat", err)
	if c.ActiveBranch != "main" {
		t.Errorf("active branch %q, want main", c.ActiveBranch)
	}
	for name, head := range map[string]string{"main": "u4", "alt": "a3"} {
		b, err := s.Branch(ctx, chatID, name)
		must(t, "branch "+name, err)
		if b.Head != head {
			t.Errorf("branch %s: head %q, want %q", name, b.Head, head)
		}
	}
	bs, err := s.Branches(ctx, chatID)
	must(t, "branches", err)
	if len(bs) != 2 {
		t.Errorf("got %d branches, want 2", len(bs))
	}
	u, err := s.ChatUsage(ctx, chatID)
	must(t, "chat usage", err)
	if want := f.usage(); u != want {
		t.Errorf("chat usage %+v, want %+v", u, want)
	}
}

// usage is the fixture chat's usage: Counted over every turn.
func (f *fixture) usage() chat.Usage {
	var u chat.Usage
	for _, tr := range []chat.Turn{f.t1, f.t2, f.t3, f.t4} {
		u = u.Add(tr.Counted())
	}
	return u
}

// light returns the light record of a turn (what PathWithTurns must give).
func light(t chat.Turn) chat.Turn {
	return chat.Turn{ID: t.ID, Number: t.Number, UserMessageID: t.UserMessageID, AssistantMessageID: t.AssistantMessageID, Fired: t.Fired}
}

func lights(ts []chat.Turn) []chat.Turn {
	out := make([]chat.Turn, len(ts))
	for i := range ts {
		out[i] = light(ts[i])
	}
	return out
}

func ids(ms []chat.Message) []string {
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = ms[i].ID
	}
	return out
}

func turnIDs(ts []chat.Turn) []string {
	out := make([]string, len(ts))
	for i := range ts {
		out[i] = ts[i].ID
	}
	return out
}

// same reports a difference between got and want with what it is.
func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", what, dump(got), dump(want))
	}
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

var storeCases = []storeCase{
	{"create chat", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		c := chat.Chat{ID: "c2", Title: "Second", ActiveBranch: "trunk", CreatedAt: at(100), UpdatedAt: at(100)}
		must(t, "create chat", s.CreateChat(ctx, c))
		got, err := s.Chat(ctx, "c2")
		must(t, "chat", err)
		same(t, "chat", got, c)
		bs, err := s.Branches(ctx, "c2")
		must(t, "branches", err)
		same(t, "branches", bs, []chat.BranchInfo{{Branch: chat.Branch{Name: "trunk", CreatedAt: at(100)}}})
		u, err := s.ChatUsage(ctx, "c2")
		must(t, "chat usage", err)
		same(t, "usage", u, chat.Usage{})
	}},
	{"create chat without a branch: main", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		must(t, "create chat", s.CreateChat(ctx, chat.Chat{ID: "c2", CreatedAt: at(100), UpdatedAt: at(100)}))
		got, err := s.Chat(ctx, "c2")
		must(t, "chat", err)
		if got.ActiveBranch != "main" {
			t.Errorf("active branch %q, want main", got.ActiveBranch)
		}
		if _, err := s.Branch(ctx, "c2", "main"); err != nil {
			t.Errorf("branch main: %v", err)
		}
	}},
	{"the same ids in another chat", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		c := chat.Chat{ID: "c2", ActiveBranch: "main", CreatedAt: at(100), UpdatedAt: at(100)}
		u1, a1 := f.u1, f.a1
		t1 := f.t1
		t1.ChatID = "c2"
		must(t, "commit", s.Commit(ctx, chat.Commit{ChatID: "c2", Branch: "main", NewHead: "a1", NewChat: &c,
			Messages: []chat.Message{u1, a1}, Turns: []chat.Turn{t1}}))
		path, err := s.Path(ctx, "c2", "a1")
		must(t, "path", err)
		same(t, "path of c2", path, []chat.Message{u1, a1})
		checkFixture(t, ctx, s, f)
	}},
	{"fixture", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		checkFixture(t, ctx, s, f)
		c, err := s.Chat(ctx, chatID)
		must(t, "chat", err)
		want := f.chat
		want.UpdatedAt = at(8) // the clock of the last step
		same(t, "chat", c, want)
	}},
	{"path", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		for _, tt := range []struct {
			head string
			want []chat.Message
		}{
			{"", nil},
			{"u1", []chat.Message{f.u1}},
			{"u4", []chat.Message{f.u1, f.a1, f.u2, f.a2, f.u4}},
			{"a3", []chat.Message{f.u1, f.a1, f.u3, f.a3}},
		} {
			got, err := s.Path(ctx, chatID, tt.head)
			must(t, "path to "+tt.head, err)
			if len(got) == 0 && len(tt.want) == 0 {
				continue
			}
			same(t, "path to "+tt.head, got, tt.want)
		}
	}},
	{"path with turns", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		for _, tt := range []struct {
			name      string
			head      string
			known     func(string) bool
			wantMsgs  []string
			wantTurns []chat.Turn
			wantFork  string
		}{
			{"whole path, no failed turn", "u4", nil, []string{"u1", "a1", "u2", "a2", "u4"}, []chat.Turn{f.t1, f.t2}, ""},
			{"nothing known", "a3", func(string) bool { return false }, []string{"u1", "a1", "u3", "a3"}, []chat.Turn{f.t1, f.t3}, ""},
			{"tail after a fork", "a3", func(id string) bool { return id == "a1" || id == "u1" }, []string{"u3", "a3"}, []chat.Turn{f.t3}, "a1"},
			{"head known", "a2", func(id string) bool { return id == "a2" }, nil, nil, "a2"},
			{"empty head", "", nil, nil, nil, ""},
		} {
			ms, ts, fork, err := s.PathWithTurns(ctx, chatID, tt.head, tt.known)
			must(t, tt.name, err)
			if got := ids(ms); len(got) > 0 || len(tt.wantMsgs) > 0 {
				same(t, tt.name+": messages", got, tt.wantMsgs)
			}
			if got := lights(ts); len(got) > 0 || len(tt.wantTurns) > 0 {
				same(t, tt.name+": turns", got, lights(tt.wantTurns))
			}
			if fork != tt.wantFork {
				t.Errorf("%s: fork %q, want %q", tt.name, fork, tt.wantFork)
			}
		}
	}},
	{"complete turns", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		main, err := s.Path(ctx, chatID, "u4")
		must(t, "path", err)
		ts, err := s.CompleteTurns(ctx, chatID, main)
		must(t, "complete turns of main", err)
		same(t, "turns of main", ts, []chat.Turn{f.t1, f.t2, f.t4})
		alt, err := s.Path(ctx, chatID, "a3")
		must(t, "path", err)
		ts, err = s.CompleteTurns(ctx, chatID, alt)
		must(t, "complete turns of alt", err)
		same(t, "turns of alt", ts, []chat.Turn{f.t1, f.t3})
		ts, err = s.CompleteTurns(ctx, chatID, nil)
		must(t, "complete turns of no path", err)
		if len(ts) != 0 {
			t.Errorf("got turns %v for no path, want none", turnIDs(ts))
		}
	}},
	{"complete turns in commit order at one message", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		retry := turn("t5", "main", 3, "u4", "", 9)
		retry.Reported, retry.Error = nil, "model: timeout"
		must(t, "commit a second failed turn", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "u4",
			Turns: []chat.Turn{retry}}))
		main, err := s.Path(ctx, chatID, "u4")
		must(t, "path", err)
		ts, err := s.CompleteTurns(ctx, chatID, main)
		must(t, "complete turns", err)
		same(t, "turns", turnIDs(ts), []string{"t1", "t2", "t4", "t5"})
	}},
	{"a turn's chat and branch come from its commit", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		u5, a5 := message("u5", "u4", chat.RoleUser, 10), message("a5", "u5", chat.RoleAssistant, 11)
		t5 := turn("t5", "", 4, "u5", "a5", 11)
		t5.ChatID = ""
		must(t, "commit", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "a5",
			Messages: []chat.Message{u5, a5}, Turns: []chat.Turn{t5}}))
		got, err := s.Turn(ctx, chatID, "t5")
		must(t, "turn", err)
		if got.ChatID != chatID || got.Branch != "main" {
			t.Errorf("turn saved in chat %q on branch %q, want %q on main", got.ChatID, got.Branch, chatID)
		}
	}},
	{"turn", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		for _, want := range []chat.Turn{f.t1, f.t3, f.t4} {
			got, err := s.Turn(ctx, chatID, want.ID)
			must(t, "turn "+want.ID, err)
			same(t, "turn "+want.ID, got, want)
		}
	}},
	{"commit moves the head", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		a4 := message("a4", "u4", chat.RoleAssistant, 20)
		t5 := turn("t5", "main", 3, "u4", "a4", 20)
		must(t, "commit", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "a4",
			Messages: []chat.Message{a4}, Turns: []chat.Turn{t5}}))
		b, err := s.Branch(ctx, chatID, "main")
		must(t, "branch", err)
		if b.Head != "a4" {
			t.Errorf("head %q, want a4", b.Head)
		}
		c, err := s.Chat(ctx, chatID)
		must(t, "chat", err)
		if !c.UpdatedAt.Equal(at(20)) {
			t.Errorf("chat updated at %v, want %v (the step's clock)", c.UpdatedAt, at(20))
		}
		u, err := s.ChatUsage(ctx, chatID)
		must(t, "usage", err)
		if want := f.usage().Add(t5.Counted()); u != want {
			t.Errorf("usage %+v, want %+v", u, want)
		}
		bs, err := s.Branches(ctx, chatID)
		must(t, "branches", err)
		if bs[0].Messages != 6 || bs[0].Turns != 3 {
			t.Errorf("main has %d messages and %d turns, want 6 and 3", bs[0].Messages, bs[0].Turns)
		}
	}},
	{"commit activates", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		u5 := message("u5", "a3", chat.RoleUser, 20)
		must(t, "commit", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "alt", ExpectHead: "a3", NewHead: "u5",
			Messages: []chat.Message{u5}, Activate: true}))
		c, err := s.Chat(ctx, chatID)
		must(t, "chat", err)
		if c.ActiveBranch != "alt" {
			t.Errorf("active branch %q, want alt", c.ActiveBranch)
		}
	}},
	{"commit creates the chat", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		c := chat.Chat{ID: "c2", Title: "New", ActiveBranch: "main", CreatedAt: at(30), UpdatedAt: at(30)}
		u, a := message("x1", "", chat.RoleUser, 31), message("x2", "x1", chat.RoleAssistant, 32)
		tr := turn("tx", "main", 1, "x1", "x2", 32)
		tr.ChatID = "c2"
		must(t, "commit", s.Commit(ctx, chat.Commit{ChatID: "c2", Branch: "main", NewHead: "x2", NewChat: &c,
			Messages: []chat.Message{u, a}, Turns: []chat.Turn{tr}}))
		got, err := s.Chat(ctx, "c2")
		must(t, "chat", err)
		c.UpdatedAt = at(32)
		same(t, "chat", got, c)
		got2, err := s.Turn(ctx, "c2", "tx")
		must(t, "turn", err)
		same(t, "turn", got2, tr)
	}},
	{"a refused step does not create its chat", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		c := chat.Chat{ID: "c2", ActiveBranch: "main", CreatedAt: at(30), UpdatedAt: at(30)}
		u := message("x1", "nowhere", chat.RoleUser, 31)
		err := s.Commit(ctx, chat.Commit{ChatID: "c2", Branch: "main", NewHead: "x1", NewChat: &c, Messages: []chat.Message{u}})
		if !errors.Is(err, chat.ErrNotFound) {
			t.Fatalf("commit with an unknown parent: got %v, want ErrNotFound", err)
		}
		if _, err := s.Chat(ctx, "c2"); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("chat of a refused step: got %v, want ErrNotFound", err)
		}
	}},
	{"commit on a new branch", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		u5 := message("u5", "a2", chat.RoleUser, 20)
		nb := chat.Branch{Name: "edit", Head: "a2", Parent: "main", CreatedAt: at(20)}
		must(t, "commit", s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "edit", NewBranch: &nb, NewHead: "u5",
			Messages: []chat.Message{u5}, Activate: true}))
		b, err := s.Branch(ctx, chatID, "edit")
		must(t, "branch", err)
		same(t, "branch", b, chat.Branch{Name: "edit", Head: "u5", Parent: "main", CreatedAt: at(20)})
		c, err := s.Chat(ctx, chatID)
		must(t, "chat", err)
		if c.ActiveBranch != "edit" {
			t.Errorf("active branch %q, want edit", c.ActiveBranch)
		}
	}},
	{"branches", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		bs, err := s.Branches(ctx, chatID)
		must(t, "branches", err)
		same(t, "branches", bs, []chat.BranchInfo{
			{Branch: chat.Branch{Name: "main", Head: "u4", CreatedAt: at(0)}, Turns: 3, Messages: 5},
			{Branch: f.alt, Turns: 2, Messages: 4},
		})
		b, err := s.Branch(ctx, chatID, "alt")
		must(t, "branch", err)
		same(t, "branch alt", b, f.alt)
	}},
	{"create branch", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		for _, b := range []chat.Branch{
			{Name: "at-a2", Head: "a2", Parent: "main", CreatedAt: at(40)},
			{Name: "empty", Parent: "alt", CreatedAt: at(41)},
		} {
			must(t, "create branch "+b.Name, s.CreateBranch(ctx, chatID, b, false))
			got, err := s.Branch(ctx, chatID, b.Name)
			must(t, "branch "+b.Name, err)
			same(t, "branch "+b.Name, got, b)
		}
		bs, err := s.Branches(ctx, chatID)
		must(t, "branches", err)
		var names []string
		for _, b := range bs {
			names = append(names, b.Name)
		}
		same(t, "branch names", names, []string{"main", "alt", "at-a2", "empty"})
		if bs[2].Messages != 4 || bs[2].Turns != 2 || bs[3].Messages != 0 || bs[3].Turns != 0 {
			t.Errorf("counts: at-a2 %d messages %d turns, empty %d messages %d turns; want 4 2 0 0",
				bs[2].Messages, bs[2].Turns, bs[3].Messages, bs[3].Turns)
		}
		c, err := s.Chat(ctx, chatID)
		must(t, "chat", err)
		if c.ActiveBranch != "main" {
			t.Errorf("active branch %q, want main (not activated)", c.ActiveBranch)
		}
		must(t, "create and activate", s.CreateBranch(ctx, chatID, chat.Branch{Name: "on", Head: "a1", CreatedAt: at(42)}, true))
		if c, _ = s.Chat(ctx, chatID); c.ActiveBranch != "on" {
			t.Errorf("active branch %q, want on", c.ActiveBranch)
		}
	}},
	{"active branch", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		must(t, "set active branch", s.SetActiveBranch(ctx, chatID, "alt"))
		c, err := s.Chat(ctx, chatID)
		must(t, "chat", err)
		if c.ActiveBranch != "alt" {
			t.Errorf("active branch %q, want alt", c.ActiveBranch)
		}
		must(t, "set it back", s.SetActiveBranch(ctx, chatID, "main"))
		checkFixture(t, ctx, s, f)
	}},
	{"checkpoints", func(t *testing.T, ctx context.Context, s engine.Store, f *fixture) {
		must(t, "set checkpoint", s.SetCheckpoint(ctx, chatID, "good", "a1"))
		cp, err := s.Checkpoint(ctx, chatID, "good")
		must(t, "checkpoint", err)
		if cp.Name != "good" || cp.MessageID != "a1" {
			t.Errorf("checkpoint %+v, want good at a1", cp)
		}
		must(t, "overwrite checkpoint", s.SetCheckpoint(ctx, chatID, "good", "a3"))
		cp, err = s.Checkpoint(ctx, chatID, "good")
		must(t, "checkpoint", err)
		if cp.Name != "good" || cp.MessageID != "a3" {
			t.Errorf("overwritten checkpoint %+v, want good at a3", cp)
		}
	}},
}

// noChat is a chat id the fixture does not have.
const noChat = "nope"

var errorCases = []errorCase{
	// Not found.
	{"chat not found", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, err := s.Chat(ctx, noChat)
		return err
	}, chat.ErrNotFound},
	{"usage of no chat", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, err := s.ChatUsage(ctx, noChat)
		return err
	}, chat.ErrNotFound},
	{"branch not found", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, err := s.Branch(ctx, chatID, "nope")
		return err
	}, chat.ErrNotFound},
	{"branches of no chat", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, err := s.Branches(ctx, noChat)
		return err
	}, chat.ErrNotFound},
	{"path to no message", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, err := s.Path(ctx, chatID, "nope")
		return err
	}, chat.ErrNotFound},
	{"path to another chat's message", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, err := s.Path(ctx, noChat, "a1")
		return err
	}, chat.ErrNotFound},
	{"path with turns to no message", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, _, _, err := s.PathWithTurns(ctx, chatID, "nope", nil)
		return err
	}, chat.ErrNotFound},
	{"turn not found", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, err := s.Turn(ctx, chatID, "nope")
		return err
	}, chat.ErrNotFound},
	{"checkpoint not found", func(ctx context.Context, s engine.Store, f *fixture) error {
		_, err := s.Checkpoint(ctx, chatID, "nope")
		return err
	}, chat.ErrNotFound},
	{"commit to no chat", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.Commit(ctx, chat.Commit{ChatID: noChat, Branch: "main", NewHead: "x1",
			Messages: []chat.Message{message("x1", "", chat.RoleUser, 60)}})
	}, chat.ErrNotFound},
	{"commit to no branch", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "nope", NewHead: "x1",
			Messages: []chat.Message{message("x1", "", chat.RoleUser, 60)}})
	}, chat.ErrNotFound},
	{"commit with an unknown parent", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "x1",
			Messages: []chat.Message{message("x1", "nope", chat.RoleUser, 60)}})
	}, chat.ErrNotFound},
	{"new branch at no message", func(ctx context.Context, s engine.Store, f *fixture) error {
		nb := chat.Branch{Name: "x", Head: "nope", CreatedAt: at(60)}
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "x", NewBranch: &nb, NewHead: "nope"})
	}, chat.ErrNotFound},
	{"create branch in no chat", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateBranch(ctx, noChat, chat.Branch{Name: "x", CreatedAt: at(60)}, false)
	}, chat.ErrNotFound},
	{"create branch at no message", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateBranch(ctx, chatID, chat.Branch{Name: "x", Head: "nope", CreatedAt: at(60)}, false)
	}, chat.ErrNotFound},
	{"create branch from no branch", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateBranch(ctx, chatID, chat.Branch{Name: "x", Head: "a1", Parent: "nope", CreatedAt: at(60)}, false)
	}, chat.ErrNotFound},
	{"activate no branch", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.SetActiveBranch(ctx, chatID, "nope")
	}, chat.ErrNotFound},
	{"activate in no chat", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.SetActiveBranch(ctx, noChat, "main")
	}, chat.ErrNotFound},
	{"checkpoint at no message", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.SetCheckpoint(ctx, chatID, "cp", "nope")
	}, chat.ErrNotFound},
	{"checkpoint in no chat", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.SetCheckpoint(ctx, noChat, "cp", "a1")
	}, chat.ErrNotFound},

	// Conflicts.
	{"chat id taken", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateChat(ctx, chat.Chat{ID: chatID, ActiveBranch: "main", CreatedAt: at(60), UpdatedAt: at(60)})
	}, chat.ErrConflict},
	{"commit creating a chat that exists", func(ctx context.Context, s engine.Store, f *fixture) error {
		c := chat.Chat{ID: chatID, ActiveBranch: "other", CreatedAt: at(60), UpdatedAt: at(60)}
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "other", NewChat: &c, NewHead: "x1",
			Messages: []chat.Message{message("x1", "", chat.RoleUser, 60)}})
	}, chat.ErrConflict},
	{"head moved", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "a2", NewHead: "x1",
			Messages: []chat.Message{message("x1", "a2", chat.RoleUser, 60)}})
	}, chat.ErrConflict},
	{"head moved on an empty branch", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", NewHead: "x1",
			Messages: []chat.Message{message("x1", "", chat.RoleUser, 60)}})
	}, chat.ErrConflict},
	{"message id taken", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "a1",
			Messages: []chat.Message{message("a1", "u4", chat.RoleAssistant, 60)}})
	}, chat.ErrConflict},
	{"turn id taken", func(ctx context.Context, s engine.Store, f *fixture) error {
		a := message("x1", "u4", chat.RoleAssistant, 60)
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "x1",
			Messages: []chat.Message{a}, Turns: []chat.Turn{turn("t1", "main", 3, "u4", "x1", 60)}})
	}, chat.ErrConflict},
	{"a turn twice in one step", func(ctx context.Context, s engine.Store, f *fixture) error {
		a := message("x1", "u4", chat.RoleAssistant, 60)
		tr := turn("t9", "main", 3, "u4", "x1", 60)
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "x1",
			Messages: []chat.Message{a}, Turns: []chat.Turn{tr, tr}})
	}, chat.ErrConflict},
	{"new branch name taken", func(ctx context.Context, s engine.Store, f *fixture) error {
		nb := chat.Branch{Name: "alt", Head: "a2", CreatedAt: at(60)}
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "alt", NewBranch: &nb, NewHead: "x1",
			Messages: []chat.Message{message("x1", "a2", chat.RoleUser, 60)}})
	}, chat.ErrConflict},
	{"create branch name taken", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateBranch(ctx, chatID, chat.Branch{Name: "alt", Head: "a2", CreatedAt: at(60)}, true)
	}, chat.ErrConflict},

	// Invalid input.
	{"empty chat id", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateChat(ctx, chat.Chat{ActiveBranch: "main", CreatedAt: at(60), UpdatedAt: at(60)})
	}, chat.ErrInvalid},
	{"chat id with a control character", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateChat(ctx, chat.Chat{ID: "c\x002", ActiveBranch: "main", CreatedAt: at(60), UpdatedAt: at(60)})
	}, chat.ErrInvalid},
	{"title with a control character", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateChat(ctx, chat.Chat{ID: "c2", Title: "a\x1bb", ActiveBranch: "main", CreatedAt: at(60), UpdatedAt: at(60)})
	}, chat.ErrInvalid},
	{"empty message id", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "",
			Messages: []chat.Message{message("", "u4", chat.RoleAssistant, 60)}})
	}, chat.ErrInvalid},
	{"unknown role", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "x1",
			Messages: []chat.Message{message("x1", "u4", "robot", 60)}})
	}, chat.ErrInvalid},
	{"a message twice in one step", func(ctx context.Context, s engine.Store, f *fixture) error {
		m := message("x1", "u4", chat.RoleAssistant, 60)
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "x1",
			Messages: []chat.Message{m, m}})
	}, chat.ErrInvalid},
	{"empty turn id", func(ctx context.Context, s engine.Store, f *fixture) error {
		a := message("x1", "u4", chat.RoleAssistant, 60)
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "x1",
			Messages: []chat.Message{a}, Turns: []chat.Turn{turn("", "main", 3, "u4", "x1", 60)}})
	}, chat.ErrInvalid},
	{"a turn of another chat", func(ctx context.Context, s engine.Store, f *fixture) error {
		a := message("x1", "u4", chat.RoleAssistant, 60)
		tr := turn("t9", "main", 3, "u4", "x1", 60)
		tr.ChatID = "other"
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "main", ExpectHead: "u4", NewHead: "x1",
			Messages: []chat.Message{a}, Turns: []chat.Turn{tr}})
	}, chat.ErrInvalid},
	{"commit creating another chat", func(ctx context.Context, s engine.Store, f *fixture) error {
		c := chat.Chat{ID: "c3", ActiveBranch: "main", CreatedAt: at(60), UpdatedAt: at(60)}
		return s.Commit(ctx, chat.Commit{ChatID: "c2", Branch: "main", NewChat: &c, NewHead: "x1",
			Messages: []chat.Message{message("x1", "", chat.RoleUser, 60)}})
	}, chat.ErrInvalid},
	{"new branch of another name", func(ctx context.Context, s engine.Store, f *fixture) error {
		nb := chat.Branch{Name: "x", Head: "a2", CreatedAt: at(60)}
		return s.Commit(ctx, chat.Commit{ChatID: chatID, Branch: "y", NewBranch: &nb, NewHead: "x1",
			Messages: []chat.Message{message("x1", "a2", chat.RoleUser, 60)}})
	}, chat.ErrInvalid},
	{"empty branch name", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.CreateBranch(ctx, chatID, chat.Branch{Head: "a1", CreatedAt: at(60)}, false)
	}, chat.ErrInvalid},
	{"empty checkpoint name", func(ctx context.Context, s engine.Store, f *fixture) error {
		return s.SetCheckpoint(ctx, chatID, "", "a1")
	}, chat.ErrInvalid},
}
