package store_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/store"
)

// bigDecisions is a decision list of n entries with predicate traces, about 250 bytes each.
func bigDecisions(n int) json.RawMessage {
	type trace struct {
		Expr     string  `json:"expr"`
		Value    bool    `json:"value"`
		Why      string  `json:"why"`
		Children []trace `json:"children"`
	}
	type decision struct {
		ID, Source, Reason, Detail, Placement, Tier, Text string
		Fired                                             bool
		Tokens                                            int
		Trace                                             trace
	}
	ds := make([]decision, n)
	for i := range ds {
		ds[i] = decision{ID: fmt.Sprintf("reminder-%d", i), Source: "reminder", Reason: "predicate_false", Placement: "inline",
			Tier: "guidance", Text: "Stay concise.", Tokens: 4,
			Trace: trace{Expr: "turn() > 3", Why: "turn 2 > 3 is false"}}
	}
	b, _ := json.Marshal(ds)
	return b
}

func BenchmarkCommitTurn(b *testing.B) {
	db := openFile(b)
	cb := newChat(b, db, "bench")
	cb.decisions = bigDecisions(200)
	head := ""
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		c := cb.step("main", head, "a user message of ordinary length, asking about the quarterly report")
		start := time.Now()
		if err := db.Commit(ctx, c); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		head = c.NewHead
	}
	reportQuantiles(b, times)
	b.ReportMetric(float64(len(cb.decisions)), "decision-bytes")
}

// BenchmarkCommitDecisions commits turns whose 200 decisions repeat, turn after turn,
// their expressions and texts and change their reasons (turnDecisions), as the engine's
// do: the store keeps the repeated pieces once. file-KB/turn is the size of the database
// per turn committed.
func BenchmarkCommitDecisions(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.db")
	db, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	cb := newChat(b, db, "bench")
	head := ""
	lists := make([]json.RawMessage, 16)
	for i := range lists {
		lists[i] = turnDecisions(i+1, 200)
	}
	times := make([]time.Duration, 0, b.N)
	for b.Loop() {
		cb.decisions = lists[cb.n%len(lists)]
		c := cb.step("main", head, "a user message of ordinary length, asking about the quarterly report")
		start := time.Now()
		if err := db.Commit(ctx, c); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		head = c.NewHead
	}
	reportQuantiles(b, times)
	if err := db.Close(); err != nil { // which checkpoints the WAL into the file
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/1024/float64(len(times)), "file-KB/turn")
	b.ReportMetric(float64(len(lists[0])), "decision-bytes")
}

func reportQuantiles(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// bigChat is an export of a chat with a main branch of n messages (n/2 turns) and a
// branch "alt" forked 1,000 messages before main's head, as long as main.
func bigChat(n int) format.Export {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := format.NewExport(chat.Archive{Chat: chat.Chat{ID: "big", Title: "big", ActiveBranch: "main", CreatedAt: at, UpdatedAt: at}})
	text := strings.Repeat("Some words of a message about deployments and reports. ", 4)
	// addTurns adds count/2 turns on branch from parent, the first numbered turn.
	addTurns := func(branch, parent string, from, count, turn int) string {
		for i := from; i < from+count; i += 2 {
			u := chat.Message{ID: fmt.Sprintf("%s-%d", branch, i), ParentID: parent, Role: chat.RoleUser,
				Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: at.Add(time.Duration(i) * time.Second)}
			a := chat.Message{ID: fmt.Sprintf("%s-%d", branch, i+1), ParentID: u.ID, Role: chat.RoleAssistant,
				Parts: []chat.Part{chat.TextPart(text + text)}, CreatedAt: u.CreatedAt.Add(time.Second)}
			e.Messages = append(e.Messages, u, a)
			e.Turns = append(e.Turns, chat.Turn{ID: fmt.Sprintf("%s-t%d", branch, i), ChatID: "big", Branch: branch, Number: turn + (i-from)/2,
				UserMessageID: u.ID, AssistantMessageID: a.ID, At: u.CreatedAt,
				Request:   chat.SentRequest{Model: "scripted", SystemPrompt: strings.Repeat("<role>You help.</role>\n", 40)},
				Fired:     []chat.Fired{{ID: "concise"}},
				Decisions: json.RawMessage(`[{"id":"concise","source":"reminder","fired":true,"reason":"fired"}]`),
				Estimated: chat.Usage{PromptTokens: 100, CompletionTokens: 20}})
			parent = a.ID
		}
		return parent
	}
	mainHead := addTurns("main", "", 0, n, 1)
	fork := fmt.Sprintf("main-%d", n-1001) // the reply of turn (n-1000)/2
	altHead := addTurns("alt", fork, n, 1000, (n-1000)/2+1)
	e.Branches = []chat.Branch{{Name: "main", Head: mainHead, CreatedAt: at}, {Name: "alt", Head: altHead, Parent: "main", CreatedAt: at}}
	e.Checkpoints = []chat.Checkpoint{{Name: "fork", MessageID: fork, CreatedAt: at}}
	return e
}

// openBig opens a file database holding bigChat(10_000).
func openBig(b *testing.B) *store.DB {
	b.Helper()
	db, err := store.Open(benchPath(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := format.ImportChat(ctx, db, bigChat(10_000)); err != nil {
		b.Fatal(err)
	}
	return db
}

func BenchmarkPath10k(b *testing.B) {
	db := openBig(b)
	br, _ := db.Branch(ctx, "big", "main")
	for b.Loop() {
		p, err := db.Path(ctx, "big", br.Head)
		if err != nil || len(p) != 10_000 {
			b.Fatalf("Path: %d messages, %v", len(p), err)
		}
	}
}

// BenchmarkPathInterleaved reads a path of 6,000 messages written turn by turn while
// another chat was written too: every turn is a run of its own.
func BenchmarkPathInterleaved(b *testing.B) {
	db, err := store.Open(benchPath(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	x, y := newChat(b, db, "x"), newChat(b, db, "y")
	head, other := "", ""
	for range 3000 {
		head = x.turn("main", head, "a question about the orders")
		other = y.turn("main", other, "another chat meanwhile")
	}
	for b.Loop() {
		p, err := db.Path(ctx, "x", head)
		if err != nil || len(p) != 6000 {
			b.Fatalf("Path: %d messages, %v", len(p), err)
		}
	}
}

func BenchmarkPathTurns10k(b *testing.B) {
	db := openBig(b)
	br, _ := db.Branch(ctx, "big", "main")
	p, _ := db.Path(ctx, "big", br.Head)
	for b.Loop() {
		ts, err := db.PathTurns(ctx, "big", p)
		if err != nil || len(ts) != 5_000 {
			b.Fatalf("PathTurns: %d turns, %v", len(ts), err)
		}
	}
}

// BenchmarkLoad10k opens the chat on its 10,000-message branch: path and light turns.
func BenchmarkLoad10k(b *testing.B) {
	db := openBig(b)
	for b.Loop() {
		s, err := db.Load(ctx, "big", "", store.DetailLight)
		if err != nil || len(s.Messages) != 10_000 || len(s.Turns) != 5_000 {
			b.Fatalf("Load: %d messages, %d turns, %v", len(s.Messages), len(s.Turns), err)
		}
	}
}

// BenchmarkBranchSwitch switches between two 10,000-message branches by reloading the
// whole path: SetActiveBranch, Branch, Path.
func BenchmarkBranchSwitch(b *testing.B) {
	db := openBig(b)
	names := []string{"alt", "main"}
	i := 0
	for b.Loop() {
		name := names[i%2]
		i++
		if err := db.SetActiveBranch(ctx, "big", name); err != nil {
			b.Fatal(err)
		}
		br, err := db.Branch(ctx, "big", name)
		if err != nil {
			b.Fatal(err)
		}
		if p, err := db.Path(ctx, "big", br.Head); err != nil || len(p) != 10_000 {
			b.Fatalf("Path: %d, %v", len(p), err)
		}
	}
}

// BenchmarkBranchSwitchTurns is BenchmarkBranchSwitch with the branch's turns, as the
// engine loads them (PathTurns: requests included).
func BenchmarkBranchSwitchTurns(b *testing.B) {
	db := openBig(b)
	names := []string{"alt", "main"}
	i := 0
	for b.Loop() {
		name := names[i%2]
		i++
		if err := db.SetActiveBranch(ctx, "big", name); err != nil {
			b.Fatal(err)
		}
		br, _ := db.Branch(ctx, "big", name)
		p, err := db.Path(ctx, "big", br.Head)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.PathTurns(ctx, "big", p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBranchSwitchTail switches keeping the shared prefix in memory: SetActiveBranch,
// Branch, PathTail from the other branch's head, light turns of the tail.
func BenchmarkBranchSwitchTail(b *testing.B) {
	db := openBig(b)
	paths := map[string][]chat.Message{}
	for _, name := range []string{"alt", "main"} {
		br, _ := db.Branch(ctx, "big", name)
		paths[name], _ = db.Path(ctx, "big", br.Head)
	}
	names := []string{"alt", "main"}
	i := 0
	for b.Loop() {
		name, from := names[i%2], names[(i+1)%2]
		i++
		cur := make(map[string]int, len(paths[from]))
		for j, m := range paths[from] {
			cur[m.ID] = j
		}
		if err := db.SetActiveBranch(ctx, "big", name); err != nil {
			b.Fatal(err)
		}
		br, _ := db.Branch(ctx, "big", name)
		tail, fork, err := db.PathTail(ctx, "big", br.Head, func(id string) bool { _, ok := cur[id]; return ok })
		if err != nil || len(tail) != 1000 {
			b.Fatalf("PathTail: %d, %v", len(tail), err)
		}
		p := append(paths[from][:cur[fork]+1:cur[fork]+1], tail...)
		if len(p) != 10_000 {
			b.Fatalf("path of %d", len(p))
		}
		if ts, err := db.PathTurnsWith(ctx, "big", tail, store.DetailLight); err != nil || len(ts) != 500 {
			b.Fatalf("PathTurnsWith: %d, %v", len(ts), err)
		}
	}
}

func BenchmarkExport10k(b *testing.B) {
	db := openBig(b)
	for b.Loop() {
		e, err := db.ExportChat(ctx, "big")
		if err != nil || len(e.Messages) != 11_000 {
			b.Fatalf("Export: %d, %v", len(e.Messages), err)
		}
		if err := format.NewExport(e).Encode(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImport10k(b *testing.B) {
	e := bigChat(10_000)
	db := openFile(b)
	i := 0
	for b.Loop() {
		i++
		if err := format.ImportChat(ctx, db, e.WithChatID(fmt.Sprint("big-", i))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	db := openBig(b)
	for b.Loop() {
		if l, err := db.ListChats(ctx, store.ListOptions{Search: "deploy report"}); err != nil || len(l) != 1 {
			b.Fatalf("search: %d, %v", len(l), err)
		}
	}
}

func benchPath(b *testing.B) string {
	if os.Getenv("BENCH_MEMORY") != "" {
		return store.Memory
	}
	return filepath.Join(b.TempDir(), "big.db")
}

func BenchmarkPathTurnsLight10k(b *testing.B) {
	db := openBig(b)
	br, _ := db.Branch(ctx, "big", "main")
	p, _ := db.Path(ctx, "big", br.Head)
	for b.Loop() {
		ts, err := db.PathTurnsWith(ctx, "big", p, store.DetailLight)
		if err != nil || len(ts) != 5_000 {
			b.Fatalf("PathTurns: %d turns, %v", len(ts), err)
		}
	}
}

// BenchmarkListChats1000 lists 1,000 chats, all of them and the latest one: without an
// index on updated_at (migration 0007) both sort the chats table, and only the chats
// returned have their branches read.
func BenchmarkListChats1000(b *testing.B) {
	db := openFile(b)
	for i := range 1000 {
		at := t0.Add(time.Duration(i*7919%1000) * time.Minute)
		if err := db.CreateChat(ctx, chat.Chat{ID: fmt.Sprintf("chat-%d", i), Title: "a chat", CreatedAt: at, UpdatedAt: at}); err != nil {
			b.Fatal(err)
		}
	}
	for _, limit := range []int{0, 1} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			for b.Loop() {
				l, err := db.ListChats(ctx, store.ListOptions{Limit: limit})
				if err != nil || (limit > 0 && len(l) != limit) || (limit == 0 && len(l) != 1000) {
					b.Fatalf("got %d chats, %v", len(l), err)
				}
			}
		})
	}
}

// halfChangingDecisions is turnDecisions where, as in a real chat, about half the
// reminders decide the same way for the same reason from one turn to the next.
func halfChangingDecisions(n, reminders int) json.RawMessage {
	return decisionList(n, reminders, func(i int) bool { return i%2 == 0 })
}

// BenchmarkPrepareDecisions is the work on a turn's 200-decision list that the engine has
// done off the turn's path (checked and planned, the elements that did not change taken
// from the list before), then the commit that writes it late (CommitLate). "scanned"
// prepares the JSON (PrepareDecisions), which is scanned; "encoded" the same list as the
// engine's decision.Encoder gives it (PrepareList), which is not. prepare-µs and
// commit-µs are medians.
func BenchmarkPrepareDecisions(b *testing.B) {
	for _, encoded := range []bool{false, true} {
		name := map[bool]string{false: "scanned", true: "encoded"}[encoded]
		b.Run(name, func(b *testing.B) {
			db := openFile(b)
			cb := newChat(b, db, "bench")
			head := ""
			var enc decision.Encoder
			var prep, commit []time.Duration
			for b.Loop() {
				list := halfChangingDecisions(cb.n+1, 200)
				var encodedList *decision.List
				if encoded {
					encodedList = enc.EncodeList(decisionStructs(cb.n+1, 200, func(i int) bool { return i%2 == 0 }))
					if string(encodedList.JSON) != string(list) {
						b.Fatalf("the encoded list differs from the JSON one:\n%.300s\n%.300s", encodedList.JSON, list)
					}
					list = encodedList.JSON
				}
				c := cb.step("main", head, "a user message of ordinary length, asking about the quarterly report")
				start := time.Now()
				if encoded {
					db.PrepareList(encodedList)
				} else {
					db.PrepareDecisions(list)
				}
				prep = append(prep, time.Since(start))
				start = time.Now()
				if err := db.CommitLate(ctx, c, func() json.RawMessage { return list }); err != nil {
					b.Fatal(err)
				}
				commit = append(commit, time.Since(start))
				head = c.NewHead
			}
			slices.Sort(prep)
			slices.Sort(commit)
			b.ReportMetric(float64(prep[len(prep)/2].Nanoseconds())/1e3, "prepare-µs")
			b.ReportMetric(float64(commit[len(commit)/2].Nanoseconds())/1e3, "commit-µs")
			b.ReportMetric(float64(len(halfChangingDecisions(1, 200))), "decision-bytes")
		})
	}
}
