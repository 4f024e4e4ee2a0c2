package script_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/script"
)

// TestPlanAheadPlaysTheSameChat checks that a script played with its turns planned while
// the ones before commit (Runner.PlanAhead) is the very chat played one turn after the
// other: the same turns, steps and saved chat, through edits, regenerates, checkpoints,
// restores, switches and rewinds.
func TestPlanAheadPlaysTheSameChat(t *testing.T) {
	for _, name := range []string{"support", "branching"} {
		t.Run(name, func(t *testing.T) {
			sc, err := script.Load("../../testdata/demo/" + name + ".script.yaml")
			if err != nil {
				t.Fatal(err)
			}
			file, err := ctxfile.Load("../../testdata/demo/support.ctx.yaml")
			if err != nil {
				t.Fatal(err)
			}
			play := func(ahead bool) []string {
				var mu sync.Mutex
				n := 0
				eng, err := engine.New(engine.Options{Context: file, Store: engine.NewMemStore(nil),
					Now: func() time.Time { return time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC) },
					NewID: func() string {
						mu.Lock()
						defer mu.Unlock()
						n++
						return fmt.Sprintf("id-%04d", n)
					}})
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				add := func(v any) {
					b, err := json.Marshal(v)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, string(b))
				}
				r := &script.Runner{Engine: eng, Model: &engine.Scripted{Text: "live"}, PlanAhead: ahead,
					OnTurn: func(_ *script.Step, res *engine.TurnResult) { add(res.Trace(res.Turn.ChatID)) },
					OnStep: func(_ *script.Step, what string) { add(what) }}
				sess, err := r.Run(context.Background(), sc)
				if err != nil {
					t.Fatal(err)
				}
				add([]any{sess.Chat(), sess.Branch(), sess.Messages(), sess.Turns(), sess.Usage()})
				return out
			}
			plain, ahead := play(false), play(true)
			if len(plain) != len(ahead) {
				t.Fatalf("%d steps played ahead, %d one after the other", len(ahead), len(plain))
			}
			for i := range plain {
				if plain[i] != ahead[i] {
					t.Fatalf("step %d differs when planned ahead:\nplain: %.500s\nahead: %.500s", i, plain[i], ahead[i])
				}
			}
		})
	}
}
