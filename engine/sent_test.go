package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestTraceSent checks that a trace says whether its request went to a model, as the turn
// was sent and as it replays: a live turn did, a scripted reply and a message saved
// unanswered did not, nor does a plan.
func TestTraceSent(t *testing.T) {
	lc := newLiveChat(t, 0)
	ctx := context.Background()
	var sent []bool
	res, err := lc.send(ctx, "hello", &engine.Live{Model: newScriptModel(chat.Reply{Text: "Hi."})})
	if err != nil {
		t.Fatal(err)
	}
	sent = append(sent, res.Trace("c1").Sent)
	if res, err = lc.send(ctx, "written", &engine.Scripted{Text: "By hand."}); err != nil {
		t.Fatal(err)
	}
	sent = append(sent, res.Trace("c1").Sent)
	if res, err = lc.sess.SendUnanswered(ctx, engine.UserInput{Text: "anyone?", At: liveT0.Add(2 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	sent = append(sent, res.Trace("c1").Sent)
	want := []bool{true, false, false}
	if !slices.Equal(sent, want) {
		t.Errorf("sent: got %v, want %v", sent, want)
	}
	for _, reevaluate := range []bool{false, true} {
		var got []bool
		if err := lc.eng.Replay(ctx, "c1", reevaluate, func(tr *engine.Trace) error {
			got = append(got, tr.Sent)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("replayed (re-evaluate %v): got %v, want %v", reevaluate, got, want)
		}
	}
	if plan := engine.PlanTrace("c1", lc.sess.Preview(engine.UserInput{Text: "next"})); plan.Sent {
		t.Error("a plan's trace says it was sent")
	}
}
