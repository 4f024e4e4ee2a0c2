package main

import (
	"context"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
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
