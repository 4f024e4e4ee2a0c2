package predicates

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// TestMemoStreak checks that a streak resumed from a Memo equals the one read from all
// the replies, turn after turn, on branches that share a prefix, after a switch, and for
// replies that do not extend the ones the Memo holds.
func TestMemoStreak(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	states := []chat.ToolState{chat.ToolOutputError, chat.ToolOutputError, chat.ToolOutputAvailable, chat.ToolInputAvailable, chat.ToolInputStreaming}
	reply := func() *chat.Message {
		var parts []chat.Part
		for range r.IntN(4) {
			parts = append(parts, tool([]string{"bash", "grep", "run_sql"}[r.IntN(3)], states[r.IntN(len(states))]))
		}
		if r.IntN(3) == 0 {
			parts = append(parts, text("words"))
		}
		return assistant(parts...)
	}
	var main []*chat.Message
	for range 300 {
		main = append(main, reply())
	}
	// other shares main's first 150 replies, then has its own.
	other := append(main[:150:150], reply())
	for range 100 {
		other = append(other, reply())
	}
	var ps []Predicate // parsed once: a Memo keeps what it holds by predicate
	for _, src := range []string{"toolFailedStreak('bash', gte=2)", "toolFailedStreak(/^(bash|run_sql)$/)", "toolFailedStreak('grep', eq=1)"} {
		ps = append(ps, mustParse(t, src))
	}
	memo := NewMemo()
	check := func(what string, replies []*chat.Message) {
		t.Helper()
		for _, p := range ps {
			src := p.String()
			want := p.Eval(&WhenContext{LastAssistantReplies: replies})
			for range 2 { // the second reads the Memo the first left
				got := p.Eval(&WhenContext{LastAssistantReplies: replies, Memo: memo})
				if got.Value != want.Value || got.Why != want.Why {
					t.Fatalf("%s, %d replies, %s: got %v (%s), want %v (%s)", what, len(replies), src, got.Value, got.Why, want.Value, want.Why)
				}
			}
		}
	}
	for n := 0; n <= len(main); n++ {
		check("main", main[:n])
	}
	for n := 140; n < len(other); n += 3 {
		check("switched to other", other[:n])
		check("back on main", main[:n+1])
	}
	check("a shorter prefix", main[:10])
	check("main again", main)
	// A context without replies reads its last assistant message, memo or not.
	last := assistant(tool("bash", chat.ToolOutputError), tool("bash", chat.ToolOutputError))
	if got := mustParse(t, "toolFailedStreak('bash', eq=2)").Eval(&WhenContext{LastAssistantMessage: last, Memo: memo}); !got.Value {
		t.Errorf("got %v (%s) for the last message alone, want true", got.Value, got.Why)
	}
}

// BenchmarkFailStreakGrowth evaluates toolFailedStreak on a branch whose replies all fail
// (the streak never ends), turn after turn, with the branch's Memo: the cost per turn does
// not grow with the replies.
func BenchmarkFailStreakGrowth(b *testing.B) {
	for _, n := range []int{100, 5000} {
		b.Run(fmt.Sprintf("replies=%d", n), func(b *testing.B) {
			p := mustParse(b, "toolFailedStreak('bash', gte=3)")
			replies := make([]*chat.Message, 0, n+b.N+1)
			for range n {
				replies = append(replies, assistant(tool("bash", chat.ToolOutputError)))
			}
			memo := NewMemo()
			p.Eval(&WhenContext{LastAssistantReplies: replies, Memo: memo})
			for b.Loop() {
				replies = append(replies, assistant(tool("bash", chat.ToolOutputError)))
				if r := p.Eval(&WhenContext{LastAssistantReplies: replies, Memo: memo}); !r.Value {
					b.Fatal(r.Why)
				}
			}
		})
	}
}
