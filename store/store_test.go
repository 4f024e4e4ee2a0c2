package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

func TestCreateChat(t *testing.T) {
	db := storetest.MustOpenMemory(t)
	want := chat.Chat{ID: "demo-1", Title: "Support demo", Metadata: map[string]any{"tier": "pro", "n": json.Number("12345678901234567890")},
		CreatedAt: time.Date(2026, 3, 27, 14, 30, 0, 123456789, time.FixedZone("X", 3600))}
	if err := db.CreateChat(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := db.Chat(ctx, "demo-1")
	if err != nil {
		t.Fatal(err)
	}
	want.ActiveBranch = store.DefaultBranch
	want.UpdatedAt = want.CreatedAt
	if !got.CreatedAt.Equal(want.CreatedAt) || got.CreatedAt.Location() != time.UTC || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Errorf("times: got %v / %v, want %v in UTC", got.CreatedAt, got.UpdatedAt, want.CreatedAt)
	}
	got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Chat: got %+v, want %+v", got, want)
	}
	b, err := db.Branch(ctx, "demo-1", "main")
	if err != nil || b.Head != "" || b.Name != "main" {
		t.Errorf("Branch main: got %+v, %v; want empty head", b, err)
	}

	err = db.CreateChat(ctx, chat.Chat{ID: "demo-1"})
	if !errors.Is(err, store.ErrConflict) || err.Error() != `chat "demo-1" already exists` {
		t.Errorf("CreateChat twice: got %v, want ErrConflict `chat \"demo-1\" already exists`", err)
	}
	if _, err := db.Chat(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Chat(nope): got %v, want ErrNotFound", err)
	}
	for _, bad := range []chat.Chat{{}, {ID: "x\ny"}, {ID: string(make([]byte, 300))}, {ID: "ok", ActiveBranch: "\x00"}} {
		if err := db.CreateChat(ctx, bad); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("CreateChat(%q): got %v, want ErrInvalid", bad.ID, err)
		}
	}
}

func TestClockSetsTimes(t *testing.T) {
	db := storetest.MustOpenMemory(t)
	db.Now = func() time.Time { return t0 }
	if err := db.CreateChat(ctx, chat.Chat{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	c, _ := db.Chat(ctx, "c")
	if !c.CreatedAt.Equal(t0) || !c.UpdatedAt.Equal(t0) {
		t.Errorf("got created %v updated %v, want %v", c.CreatedAt, c.UpdatedAt, t0)
	}
	db.Now = func() time.Time { return t0.Add(time.Hour) }
	if err := db.CreateBranch(ctx, "c", chat.Branch{Name: "b"}, false); err != nil {
		t.Fatal(err)
	}
	c, _ = db.Chat(ctx, "c")
	b, _ := db.Branch(ctx, "c", "b")
	if !c.UpdatedAt.Equal(t0.Add(time.Hour)) || !b.CreatedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("got chat updated %v, branch created %v; want %v", c.UpdatedAt, b.CreatedAt, t0.Add(time.Hour))
	}
}

func TestCommitAndPath(t *testing.T) {
	db := openFile(t)
	b := newChat(t, db, "c")
	head := b.turns("main", "", 3)
	path, err := db.Path(ctx, "c", head)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(path), "c-u1 c-a1 c-u2 c-a2 c-u3 c-a3"; got != want {
		t.Errorf("Path: got %s, want %s", got, want)
	}
	// Every field round-trips.
	want := b.step("main", "x", "hello").Messages[0]
	want.ID, want.ParentID = "c-u1", ""
	want.Parts = []chat.Part{chat.TextPart("message number 1 about topic0")}
	want.CreatedAt = t0.Add(time.Minute)
	if !reflect.DeepEqual(path[0], want) {
		t.Errorf("Path[0]: got %+v, want %+v", path[0], want)
	}
	if ps, err := db.Path(ctx, "c", ""); err != nil || len(ps) != 0 {
		t.Errorf(`Path(""): got %d messages, %v; want none`, len(ps), err)
	}
	if _, err := db.Path(ctx, "c", "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Path(nope): got %v, want ErrNotFound", err)
	}
	br, _ := db.Branch(ctx, "c", "main")
	if br.Head != head {
		t.Errorf("head: got %q, want %q", br.Head, head)
	}
	c, _ := db.Chat(ctx, "c")
	if !c.UpdatedAt.Equal(t0.Add(3*time.Minute + time.Second)) {
		t.Errorf("updated: got %v, want the last message's time %v", c.UpdatedAt, t0.Add(3*time.Minute+time.Second))
	}
}

func TestMessageRoundTrip(t *testing.T) {
	db := storetest.MustOpenMemory(t)
	newChat(t, db, "c")
	msgs := []chat.Message{
		{ID: "s", Role: chat.RoleSystem, Parts: []chat.Part{}, CreatedAt: t0},
		{ID: "u", ParentID: "s", Role: chat.RoleUser, CreatedAt: t0.Add(1),
			Parts:     []chat.Part{chat.TextPart("a \"quoted\" <tag> & \\ \u2028 é"), chat.TextPart("<system-reminder>be brief</system-reminder>")},
			Reminders: []chat.ReminderSpan{{ID: "brief", Part: 1, Start: 0, End: 43, Mode: chat.SpanPart}}},
		{ID: "a", ParentID: "u", Role: chat.RoleAssistant, CreatedAt: t0.Add(2), Interrupted: true,
			Parts: []chat.Part{{Type: chat.PartTool, ToolCallID: "call_1", ToolName: "run_sql", State: chat.ToolOutputError,
				Input: json.RawMessage(`{"query":"select 1"}`), ErrorText: "permission denied"}, chat.TextPart("")}},
		{ID: "t", ParentID: "a", Role: chat.RoleTool, CreatedAt: t0.Add(3), Parts: []chat.Part{{Type: chat.PartText, Text: "x", ToolCallID: "call_1"}}},
		{ID: "n", ParentID: "t", Role: chat.RoleUser, CreatedAt: t0.Add(4)},
	}
	if err := db.Commit(ctx, chat.Commit{ChatID: "c", Branch: "main", NewHead: "n", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Path(ctx, "c", "n")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, msgs) {
		t.Errorf("Path:\ngot  %+v\nwant %+v", got, msgs)
	}
	one, err := db.Message(ctx, "c", "a")
	if err != nil || !reflect.DeepEqual(one, msgs[2]) {
		t.Errorf("Message(a): got %+v, %v; want %+v", one, err, msgs[2])
	}
	some, err := db.Messages(ctx, "c", []string{"t", "s", "t"})
	if err != nil || ids(some) != "t s t" {
		t.Errorf("Messages(t s t): got %s, %v", ids(some), err)
	}
	if _, err := db.Messages(ctx, "c", []string{"s", "zz"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Messages with a missing id: got %v, want ErrNotFound", err)
	}
	if _, err := db.Message(ctx, "other", "s"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Message of another chat: got %v, want ErrNotFound", err)
	}
}

func TestBranchesAndCheckpoints(t *testing.T) {
	db := openFile(t)
	b := newChat(t, db, "c")
	h2 := b.turns("main", "", 2)
	path, _ := db.Path(ctx, "c", h2)
	// Edit turn 2's user message: a new branch from its parent, written with the first step.
	c := b.step("main-v2", path[1].ID, "edited")
	c.NewBranch = &chat.Branch{Name: "main-v2", Head: path[1].ID, Parent: "main"}
	c.Activate = true
	if err := db.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateBranch(ctx, "c", chat.Branch{Name: "empty", Parent: "main"}, false); err != nil {
		t.Fatal(err)
	}
	got, err := db.Branches(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		name, head, parent string
		turns, msgs        int
	}
	var rows []row
	for _, g := range got {
		rows = append(rows, row{g.Name, g.Head, g.Parent, g.Turns, g.Messages})
	}
	want := []row{{"main", "c-a2", "", 2, 4}, {"main-v2", "c-a3", "main", 2, 4}, {"empty", "", "main", 0, 0}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("Branches: got %+v, want %+v", rows, want)
	}
	ch, _ := db.Chat(ctx, "c")
	if ch.ActiveBranch != "main-v2" {
		t.Errorf("active: got %q, want main-v2", ch.ActiveBranch)
	}
	kids, err := db.Children(ctx, "c", "c-a1")
	if err != nil || ids(kids) != "c-u2 c-u3" {
		t.Errorf("Children(c-a1): got %s, %v; want c-u2 c-u3", ids(kids), err)
	}
	roots, err := db.Children(ctx, "c", "")
	if err != nil || ids(roots) != "c-u1" {
		t.Errorf("Children(root): got %s, %v", ids(roots), err)
	}

	errs := []struct {
		name string
		err  error
		want error
	}{
		{"CreateBranch twice", db.CreateBranch(ctx, "c", chat.Branch{Name: "main"}, false), store.ErrConflict},
		{"CreateBranch bad head", db.CreateBranch(ctx, "c", chat.Branch{Name: "x", Head: "nope"}, false), store.ErrNotFound},
		{"CreateBranch bad parent", db.CreateBranch(ctx, "c", chat.Branch{Name: "x", Parent: "nope"}, false), store.ErrNotFound},
		{"CreateBranch bad chat", db.CreateBranch(ctx, "nope", chat.Branch{Name: "x"}, false), store.ErrNotFound},
		{"SetActiveBranch missing", db.SetActiveBranch(ctx, "c", "nope"), store.ErrNotFound},
		{"SetCheckpoint bad message", db.SetCheckpoint(ctx, "c", "k", "nope"), store.ErrNotFound},
		{"Commit NewBranch exists", db.Commit(ctx, chat.Commit{ChatID: "c", Branch: "main", NewBranch: &chat.Branch{}}), store.ErrConflict},
	}
	for _, e := range errs {
		if !errors.Is(e.err, e.want) {
			t.Errorf("%s: got %v, want %v", e.name, e.err, e.want)
		}
	}
	if _, err := db.Branches(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Branches(nope): got %v, want ErrNotFound", err)
	}

	if err := db.SetActiveBranch(ctx, "c", "main"); err != nil {
		t.Fatal(err)
	}
	if ch, _ := db.Chat(ctx, "c"); ch.ActiveBranch != "main" {
		t.Errorf("after SetActiveBranch: active %q, want main", ch.ActiveBranch)
	}

	for _, k := range []struct{ name, msg string }{{"before-choice", "c-u1"}, {"later", "c-a2"}, {"before-choice", "c-a1"}} {
		if err := db.SetCheckpoint(ctx, "c", k.name, k.msg); err != nil {
			t.Fatal(err)
		}
	}
	cps, err := db.Checkpoints(ctx, "c")
	if err != nil || len(cps) != 2 || cps[0].Name != "before-choice" || cps[0].MessageID != "c-a1" || cps[1].Name != "later" {
		t.Errorf("Checkpoints: got %+v, %v; want before-choice at c-a1 (overwritten, first), later", cps, err)
	}
	cp, err := db.Checkpoint(ctx, "c", "later")
	if err != nil || cp.MessageID != "c-a2" {
		t.Errorf("Checkpoint(later): got %+v, %v", cp, err)
	}
	if _, err := db.Checkpoint(ctx, "c", "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Checkpoint(nope): got %v, want ErrNotFound", err)
	}
}

func TestTurns(t *testing.T) {
	db := openFile(t)
	b := newChat(t, db, "c")
	h2 := b.turns("main", "", 2)
	// Regenerate turn 2 on a branch: same user message, new assistant message and turn.
	regen := b.step("main-v2", "c-u2", "again")
	regen.Messages = regen.Messages[1:]
	regen.Messages[0].ParentID = "c-u2"
	regen.Turns[0].UserMessageID = "c-u2"
	regen.NewBranch = &chat.Branch{Head: "c-u2", Parent: "main"}
	regen.Activate = true
	if err := db.Commit(ctx, regen); err != nil {
		t.Fatal(err)
	}
	// A turn that failed before any reply: no assistant message.
	fail := b.step("main", h2, "fails")
	fail.Messages = fail.Messages[:1]
	fail.NewHead = fail.Messages[0].ID
	fail.Turns[0].AssistantMessageID = ""
	fail.Turns[0].Error = "model: 500"
	if err := db.Commit(ctx, fail); err != nil {
		t.Fatal(err)
	}

	// PathWithTurns reads the turns of the assistant messages it walks (not the failed turn,
	// which has none), and stops at a known message.
	main, turns, fork, err := db.PathWithTurns(ctx, "c", "c-u4", nil)
	if err != nil || len(main) != 5 || fork != "" {
		t.Fatalf("PathWithTurns(main): %d messages, fork %q, %v", len(main), fork, err)
	}
	var light []string
	for _, tr := range turns {
		light = append(light, fmt.Sprintf("%s#%d %s>%s fired %d", tr.ID, tr.Number, tr.UserMessageID, tr.AssistantMessageID, len(tr.Fired)))
	}
	if want := []string{"c-t1#1 c-u1>c-a1 fired 1", "c-t2#2 c-u2>c-a2 fired 1"}; !reflect.DeepEqual(light, want) {
		t.Errorf("PathWithTurns(main) turns: got %v, want %v", light, want)
	}
	tail, turns, fork, err := db.PathWithTurns(ctx, "c", "c-a3", func(id string) bool { return id == "c-u2" })
	if err != nil || len(tail) != 1 || tail[0].ID != "c-a3" || fork != "c-u2" || len(turns) != 1 || turns[0].ID != "c-t3" || turns[0].UserMessageID != "c-u2" {
		t.Errorf("PathWithTurns(main-v2 tail): got %+v, %+v, fork %q, %v", tail, turns, fork, err)
	}

	// Both ways of finding a path's turns: by message id (short paths) and by scanning the
	// chat's turns (long paths).
	for _, short := range []int{1000, 0} {
		restore := store.SetShortPath(short)
		main, _ := db.Path(ctx, "c", "c-u4")
		turns, err := db.PathTurns(ctx, "c", main)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tr := range turns {
			got = append(got, tr.ID)
			if tr.Decisions != nil || tr.Request.SystemPrompt != "" || tr.ChatID != "c" {
				t.Errorf("PathTurns %s: decisions %s, system prompt %q, chat %q; want a light record", tr.ID, tr.Decisions, tr.Request.SystemPrompt, tr.ChatID)
			}
		}
		if want := []string{"c-t1", "c-t2", "c-t4"}; !reflect.DeepEqual(got, want) {
			t.Errorf("PathTurns(main): got %v, want %v", got, want)
		}
		v2, _ := db.Path(ctx, "c", "c-a3")
		light, err := db.PathTurnsWith(ctx, "c", v2, store.DetailLight)
		if err != nil || len(light) != 2 || light[1].ID != "c-t3" || light[1].Request.SystemPrompt != "" || len(light[1].Fired) != 1 ||
			light[1].Number != 3 || light[1].FinishReason != "" || light[1].Reported != nil || light[1].At.IsZero() {
			t.Errorf("PathTurnsWith(main-v2, light): got %+v, %v; want c-t1 c-t3, light", light, err)
		}
		stats, err := db.PathTurnsWith(ctx, "c", v2, store.DetailStats)
		if err != nil || len(stats) != 2 || stats[1].FinishReason != "stop" || stats[1].Reported == nil || stats[1].TTFT == 0 || stats[1].Request.Model != "" {
			t.Errorf("PathTurnsWith(main-v2, stats): got %+v, %v", stats, err)
		}
		restore()
	}

	full, err := db.Turn(ctx, "c", "c-t3")
	if err != nil {
		t.Fatal(err)
	}
	want := regen.Turns[0]
	want.ChatID, want.Branch = "c", "main-v2"
	if !reflect.DeepEqual(full, want) {
		t.Errorf("Turn(c-t3):\ngot  %+v\nwant %+v", full, want)
	}
	dec, err := db.TurnDecisions(ctx, "c", "c-t1")
	if err != nil || string(dec) != string(b.decisions) {
		t.Errorf("TurnDecisions: got %s, %v; want %s", dec, err, b.decisions)
	}
	if _, err := db.TurnDecisions(ctx, "c", "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TurnDecisions(nope): got %v, want ErrNotFound", err)
	}
	if _, err := db.Turn(ctx, "c", "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Turn(nope): got %v, want ErrNotFound", err)
	}
	byUser, err := db.TurnsByMessage(ctx, "c", "c-u2", store.DetailDecisions)
	if err != nil || len(byUser) != 2 || byUser[0].ID != "c-t2" || byUser[1].ID != "c-t3" || byUser[1].Decisions == nil {
		t.Errorf("TurnsByMessage(c-u2): got %+v, %v; want c-t2 c-t3 with decisions", byUser, err)
	}

	// Usage: every turn of the chat, on every branch, reported or estimated.
	u, err := db.ChatUsage(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	var sum chat.Usage
	for _, id := range []string{"c-t1", "c-t2", "c-t3", "c-t4"} {
		tr, _ := db.Turn(ctx, "c", id)
		sum = sum.Add(tr.Counted())
	}
	if u != sum || u.PromptTokens != 101+102+103+104 {
		t.Errorf("ChatUsage: got %+v, want %+v", u, sum)
	}

	s, err := db.Load(ctx, "c", "", store.DetailLight)
	if err != nil {
		t.Fatal(err)
	}
	if s.Branch.Name != "main-v2" || ids(s.Messages) != "c-u1 c-a1 c-u2 c-a3" || len(s.Turns) != 2 || s.Usage != sum {
		t.Errorf("Load(active): got branch %q, path %s, %d turns, usage %+v", s.Branch.Name, ids(s.Messages), len(s.Turns), s.Usage)
	}
	if _, err := db.Load(ctx, "c", "nope", store.DetailLight); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load(nope): got %v, want ErrNotFound", err)
	}
}

func TestListChats(t *testing.T) {
	db := storetest.MustOpenMemory(t)
	a := newChat(t, db, "alpha")
	a.turn("main", "", "Deploying the café service")
	bb := newChat(t, db, "beta")
	if err := db.CreateBranch(ctx, "beta", chat.Branch{Name: "side"}, false); err != nil {
		t.Fatal(err)
	}
	h := bb.turn("main", "", "quarterly report")
	bb.turn("main", h, "more about the report")
	newChat(t, db, "empty")
	// A reminder baked into a user message is not searchable.
	const rem = "<system-reminder>stay concise</system-reminder>"
	c := a.step("main", "alpha-a1", "hi "+rem)
	c.Messages[0].Reminders = []chat.ReminderSpan{{ID: "concise", Part: 0, Start: 3, End: 3 + len(rem), Mode: chat.SpanInline}}
	c.Messages[1].Parts = []chat.Part{chat.TextPart("ok")}
	if err := db.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}

	all, err := db.ListChats(ctx, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id                        string
		branches, turns, messages int
	}
	var got []row
	for _, s := range all {
		got = append(got, row{s.ID, s.Branches, s.Turns, s.Messages})
	}
	// alpha and beta were updated at the same time (ties go by id); empty has the time of
	// the test clock (2026-01-01), older.
	want := []row{{"alpha", 1, 2, 4}, {"beta", 2, 2, 4}, {"empty", 1, 0, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ListChats: got %+v, want %+v", got, want)
	}
	if all[1].Usage.PromptTokens != 101+102 {
		t.Errorf("beta usage: got %+v", all[1].Usage)
	}

	for _, tc := range []struct {
		search string
		want   []string
	}{
		{"report", []string{"beta"}},
		{"REPORT quarterly", []string{"beta"}},
		{"repo", []string{"beta"}}, // word prefix
		{"cafe", []string{"alpha"}},
		{"reply", []string{"alpha", "beta"}},
		{"concise", nil}, // only in a reminder
		{"report café", nil},
		{`a"b OR`, nil},
		{`"`, nil},
		{`NEAR( AND * ) : ^ -`, nil},
		{`report"`, []string{"beta"}},
		{`  `, []string{"alpha", "beta", "empty"}},
	} {
		list, err := db.ListChats(ctx, store.ListOptions{Search: tc.search})
		if err != nil {
			t.Errorf("ListChats(search %q): %v", tc.search, err)
			continue
		}
		var got []string
		for _, s := range list {
			got = append(got, s.ID)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ListChats(search %q): got %v, want %v", tc.search, got, tc.want)
		}
	}
	one, err := db.ListChats(ctx, store.ListOptions{Limit: 1})
	if err != nil || len(one) != 1 || one[0].ID != "alpha" {
		t.Errorf("ListChats(limit 1): got %+v, %v", one, err)
	}
}

func TestPathTail(t *testing.T) {
	db := storetest.MustOpenMemory(t)
	b := newChat(t, db, "c")
	head := b.turns("main", "", 3) // c-u1 c-a1 c-u2 c-a2 c-u3 c-a3
	c := b.step("alt", "c-a1", "fork")
	c.NewBranch = &chat.Branch{Head: "c-a1", Parent: "main"}
	if err := db.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	alt := b.turn("alt", c.NewHead, "more") // c-u4 c-a4 c-u5 c-a5
	mainPath, _ := db.Path(ctx, "c", head)
	onMain := map[string]bool{}
	for _, m := range mainPath {
		onMain[m.ID] = true
	}
	tests := []struct {
		name       string
		head       string
		known      func(string) bool
		tail, fork string
	}{
		{"switch to alt", alt, func(id string) bool { return onMain[id] }, "c-u4 c-a4 c-u5 c-a5", "c-a1"},
		{"nothing known", alt, func(string) bool { return false }, "c-u1 c-a1 c-u4 c-a4 c-u5 c-a5", ""},
		{"head known", head, func(id string) bool { return onMain[id] }, "", head},
		{"empty head", "", func(string) bool { return true }, "", ""},
	}
	for _, tc := range tests {
		tail, fork, err := db.PathTail(ctx, "c", tc.head, tc.known)
		if err != nil || ids(tail) != tc.tail || fork != tc.fork {
			t.Errorf("%s: got tail %q fork %q (%v), want %q fork %q", tc.name, ids(tail), fork, err, tc.tail, tc.fork)
		}
	}
	if _, _, err := db.PathTail(ctx, "c", "ghost", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PathTail(ghost): got %v, want ErrNotFound", err)
	}
}

// TestPathRuns checks paths that cross many runs of consecutive rows (two chats written in
// turn, forks from the middle of a run) against a walk of the parent ids, whole and with
// the walk stopped at a fork in the middle of a run.
func TestPathRuns(t *testing.T) {
	db := openFile(t)
	a, b := newChat(t, db, "a"), newChat(t, db, "b")
	parent := map[string]string{}
	record := func(c chat.Commit) string {
		t.Helper()
		if err := db.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Messages {
			parent[m.ID] = m.ParentID
		}
		return c.NewHead
	}
	headA, headB := "", ""
	for i := range 6 { // a and b interleaved: every turn of a starts a new run
		headA = record(a.step("main", headA, fmt.Sprintf("a %d", i)))
		headB = record(b.step("main", headB, fmt.Sprintf("b %d", i)))
	}
	headA = record(a.step("main", headA, "a run of two turns"))
	headA = record(a.step("main", headA, "the second of them"))
	fork := a.step("alt", "a-u7", "a fork from the middle of a run") // parent a-u7, itself mid-run
	fork.NewBranch = &chat.Branch{Head: "a-u7", Parent: "main"}
	alt := record(fork)

	naive := func(head string) string {
		var out []string
		for id := head; id != ""; id = parent[id] {
			out = append([]string{id}, out...)
		}
		return strings.Join(out, " ")
	}
	for _, head := range []string{headA, headB, alt, "a-u1", "a-a3", "a-u7"} {
		chatID := head[:1]
		got, err := db.Path(ctx, chatID, head)
		if err != nil || ids(got) != naive(head) {
			t.Errorf("Path(%s): got %q (%v), want %q", head, ids(got), err, naive(head))
		}
		for i := 1; i < len(got); i++ {
			if got[i].ParentID != got[i-1].ID {
				t.Errorf("Path(%s): %s has parent %q, want %q", head, got[i].ID, got[i].ParentID, got[i-1].ID)
			}
		}
	}
	// Back from main's head to the fork at a-u7, which sits inside a run.
	onAlt := map[string]bool{}
	for _, id := range strings.Fields(naive(alt)) {
		onAlt[id] = true
	}
	tail, at, err := db.PathTail(ctx, "a", headA, func(id string) bool { return onAlt[id] })
	if want := "a-a7 a-u8 a-a8"; err != nil || ids(tail) != want || at != "a-u7" {
		t.Errorf("PathTail to the fork: got %q at %q (%v), want %q at a-u7", ids(tail), at, err, want)
	}
}
