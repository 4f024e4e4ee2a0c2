package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/store"
)

// TestReplayReadsTurnsAtOnce checks that a replay reading all the turns of the branch at
// once (store.DB is an engine.TurnsReader) prints what one reading them turn by turn
// prints.
func TestReplayReadsTurnsAtOnce(t *testing.T) {
	isolateCtxlabEnv(t)
	db, err := store.Open(replayFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	file, err := ctxfile.Load("testdata/demo/support-edited.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	replay := func(st engine.Store, chatID string, reevaluate bool) string {
		t.Helper()
		eng, err := engine.New(engine.Options{Context: file, Store: st})
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		err = eng.Replay(context.Background(), chatID, reevaluate, func(tr *engine.Trace) error {
			out, err = tr.AppendJSON(out)
			out = append(out, '\n')
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	var _ engine.TurnsReader = db
	for _, chatID := range []string{"demo-1", "branching-1"} {
		for _, reevaluate := range []bool{false, true} {
			// Wrapped, the store shows the engine only its Store methods.
			byTurn, atOnce := replay(struct{ engine.Store }{db}, chatID, reevaluate), replay(db, chatID, reevaluate)
			if atOnce != byTurn {
				t.Errorf("replay %s (re-evaluate %v): turns read at once give\n%s\nturn by turn\n%s", chatID, reevaluate, atOnce, byTurn)
			}
		}
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
