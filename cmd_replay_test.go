package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

// TestMemStoreTurnsMatchDatabase checks that the engine's MemStore gives a replay the
// turn records the database gives it (engine.Store's CompleteTurns): the same chat, made
// the same way in each, with a regenerated reply and two turns that failed before any
// reply at one user message, has the same turns on each branch and replays the same. A
// MemStore over the database gives the database's turns first, then its own.
func TestMemStoreTurnsMatchDatabase(t *testing.T) {
	ctx := context.Background()
	file, err := ctxfile.Load("testdata/demo/support.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)
	minute := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	// failed commits a turn that failed before any reply at the user message "u-fail" of
	// main-v2 (made with the first).
	failed := func(st engine.Store, id, head string) {
		t.Helper()
		c := chat.Commit{ChatID: "c", Branch: "main-v2", ExpectHead: head, NewHead: "u-fail",
			Turns: []chat.Turn{{ID: id, ChatID: "c", Branch: "main-v2", Number: 3, UserMessageID: "u-fail", At: minute(3),
				Request: chat.SentRequest{Model: "m", SystemPrompt: "S."}, Error: "model: " + id}}}
		if head != "u-fail" {
			c.Messages = []chat.Message{{ID: "u-fail", ParentID: head, Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("three")}, CreatedAt: minute(3)}}
		}
		if err := st.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// build makes the chat in st and returns an engine on st.
	build := func(st engine.Store) *engine.Engine {
		t.Helper()
		n := 0
		eng, err := engine.New(engine.Options{Context: file, Store: st, Now: func() time.Time { return t0 },
			NewID: func() string { n++; return fmt.Sprintf("id-%02d", n) }})
		if err != nil {
			t.Fatal(err)
		}
		s, err := eng.Create(ctx, chat.Chat{ID: "c", Title: "turns"})
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range []string{"one", "two"} {
			if _, err := s.Send(ctx, engine.UserInput{Text: text, At: minute(i)}, &engine.Scripted{Text: "ok"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Regenerate(ctx, &engine.Scripted{Text: "again"}, minute(2)); err != nil {
			t.Fatal(err)
		}
		msgs := s.Messages()
		failed(st, "f1", msgs[len(msgs)-1].ID)
		failed(st, "f2", "u-fail")
		return eng
	}
	// turns lists the complete turn records of a branch as "id#number error".
	turns := func(st engine.Store, branch string) []string {
		t.Helper()
		b, err := st.Branch(ctx, "c", branch)
		if err != nil {
			t.Fatal(err)
		}
		path, err := st.Path(ctx, "c", b.Head)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := st.CompleteTurns(ctx, "c", path)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tr := range ts {
			if tr.Request.Model == "" {
				t.Errorf("branch %s: turn %s has no request, want complete records", branch, tr.ID)
			}
			out = append(out, fmt.Sprintf("%s#%d %s", tr.ID, tr.Number, tr.Error))
		}
		return out
	}
	replay := func(eng *engine.Engine) string {
		t.Helper()
		var out []byte
		err := eng.Replay(ctx, "c", false, func(tr *engine.Trace) error {
			var err error
			out, err = tr.AppendJSON(out)
			out = append(out, '\n')
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}

	db, mem := storetest.MustOpenMemory(t), engine.NewMemStore(nil)
	fromDB, fromMem := build(db), build(mem)
	for _, branch := range []string{"main", "main-v2"} {
		if a, b := turns(mem, branch), turns(db, branch); !slices.Equal(a, b) {
			t.Errorf("branch %s: the MemStore gives turns %q, the database %q", branch, a, b)
		}
	}
	want := turns(db, "main-v2")
	if n := len(want); n != 4 || want[n-2] != "f1#3 model: f1" || want[n-1] != "f2#3 model: f2" {
		t.Errorf("main-v2: got turns %q, want two answered, then f1 and f2, as committed", want)
	}
	if a, b := replay(fromMem), replay(fromDB); a != b {
		t.Errorf("replayed from the MemStore\n%s\nfrom the database\n%s", a, b)
	}

	overlay := engine.NewMemStore(db)
	failed(overlay, "f3", "u-fail")
	if got, want := turns(overlay, "main-v2"), append(want, "f3#3 model: f3"); !slices.Equal(got, want) {
		t.Errorf("a MemStore over the database gives turns %q, want %q", got, want)
	}
}

// TestReplayUnderItsOwnFileChangesNothing replays every branch of every chat the scripts
// of testdata record, with --context the file each was recorded with: no decision may be
// marked changed or removed (edits, regenerates, restores and rewinds included).
func TestReplayUnderItsOwnFileChangesNothing(t *testing.T) {
	isolateCtxlabEnv(t)
	ctx := context.Background()
	var scripts []string
	for _, dir := range []string{"testdata/demo", "testdata/cli"} {
		found, err := filepath.Glob(filepath.Join(dir, "*.script.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, found...)
	}
	if len(scripts) < 10 {
		t.Fatalf("found %d scripts, want the demo and test scripts", len(scripts))
	}
	for _, path := range scripts {
		t.Run(filepath.Base(path), func(t *testing.T) {
			sc, err := script.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			dbPath := filepath.Join(t.TempDir(), "ctxlab.db")
			mustRunCtxlab(t, "run", path, "--db", dbPath)
			db, err := store.Open(dbPath)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			chats, err := db.ListChats(ctx, store.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chats {
				branches, err := db.Branches(ctx, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range branches {
					if err := db.SetActiveBranch(ctx, c.ID, b.Name); err != nil {
						t.Fatal(err)
					}
					traces := mustRunCtxlab(t, "replay", c.ID, "--db", dbPath, "--context", sc.Context, "--json")
					type replayed struct {
						Turn      int
						Decisions []struct {
							ID, Reason string
							Was        *struct{ Reason string }
						}
						Removed []struct{ ID string }
					}
					var turns []replayed
					for line := range strings.Lines(traces) {
						var tr replayed
						if err := json.Unmarshal([]byte(line), &tr); err != nil {
							t.Fatal(err)
						}
						turns = append(turns, tr)
					}
					if len(turns) != b.Turns {
						t.Errorf("chat %s, branch %s: replayed %d turns, want %d", c.ID, b.Name, len(turns), b.Turns)
					}
					for _, tr := range turns {
						for _, d := range tr.Decisions {
							if d.Was != nil {
								t.Errorf("chat %s, branch %s, turn %d: %s: %s, marked changed (was %s)", c.ID, b.Name, tr.Turn, d.ID, d.Reason, d.Was.Reason)
							}
						}
						for _, d := range tr.Removed {
							t.Errorf("chat %s, branch %s, turn %d: %s marked removed", c.ID, b.Name, tr.Turn, d.ID)
						}
					}
				}
			}
		})
	}
}

// TestUserTextOfALongMessage is issue 22 item 11: the replay of a chat of a 100 MB message
// took 3.2 GB. The text a turn's block shows of its user message is not copied by a
// regular expression when it holds no reminder, and a reminder is still taken out.
func TestUserTextOfALongMessage(t *testing.T) {
	text := strings.Repeat("lorem ipsum dolor sit amet ", 20<<20/27)
	req := chat.Request{Messages: []chat.WireMessage{{Role: chat.RoleUser, Content: text + " "}}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := userText(req)
	runtime.ReadMemStats(&after)
	if got != strings.TrimSpace(text) {
		t.Fatalf("userText: %d bytes, want the message's %d", len(got), len(text))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("userText of a 20 MB message allocated %d MB", n>>20)
	}
	req.Messages[0].Content = "hello<system-reminder>Stay concise.</system-reminder> there"
	if got := userText(req); got != "hello there" {
		t.Errorf("userText with a reminder: %q, want %q", got, "hello there")
	}
}
