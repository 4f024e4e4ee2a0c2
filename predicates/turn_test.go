package predicates

import (
	"slices"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func TestTurnPredicates(t *testing.T) {
	fired := &WhenContext{Turn: 4, FiredOnce: map[string]bool{"intro": true}}
	runEval(t, []evalCase{
		{"every 3 at 6", "everyNTurns(3)", turn(6), true, "turn 6 % 3 == 0", false},
		{"every 3 at 7", "everyNTurns(3)", turn(7), false, "turn 7 % 3 == 1 != 0", false},
		{"every 1 at 1", "everyNTurns(1)", turn(1), true, "turn 1 % 1 == 0", false},
		{"every 2 at 1", "everyNTurns(2)", turn(1), false, "turn 1 % 2 == 1 != 0", false},
		{"once at 1", "once()", turn(1), true, "turn 1 == 1", false},
		{"once at 2", "once()", turn(2), false, "turn 2 != 1", false},
		{"once id new", "once('intro')", turn(3), true, `latch "intro" not fired yet`, false},
		{"once id fired", "once('intro')", fired, false, `latch "intro" already fired`, false},
		{"once other id", "once('other')", fired, true, `latch "other" not fired yet`, false},
		{"firstN inside", "firstN(3)", turn(3), true, "turn 3 <= 3", false},
		{"firstN outside", "firstN(3)", turn(4), false, "turn 4 > 3", false},
		{"firstN 0", "firstN(0)", turn(1), false, "turn 1 > 0", false},
		{"afterTurn after", "afterTurn(2)", turn(3), true, "turn 3 > 2", false},
		{"afterTurn at", "afterTurn(2)", turn(2), false, "turn 2 <= 2", false},
		{"nil context", "once()", nil, false, "turn 0 != 1", false},
	})
}

func TestOnceLatch(t *testing.T) {
	tests := []struct {
		src   string
		ctx   *WhenContext
		want  []string
		value bool
	}{
		{"once('a')", turn(1), []string{"a"}, true},
		{"once('a')", &WhenContext{FiredOnce: map[string]bool{"a": true}}, nil, false},
		{"and(once('a'), once('b'))", turn(2), []string{"a", "b"}, true},
		// short-circuited: once('b') is never reached and latches nothing
		{"and(once(), once('b'))", turn(2), nil, false},
		{"or(once('a'), once('b'))", turn(2), []string{"a"}, true},
		{"once()", turn(1), nil, true},
	}
	for _, tc := range tests {
		r := mustParse(t, tc.src).Eval(tc.ctx)
		if got := r.Latches(); !slices.Equal(got, tc.want) || r.Value != tc.value {
			t.Errorf("%s: got latches %v value %v, want %v %v", tc.src, got, r.Value, tc.want, tc.value)
		}
	}
}

func TestUsageElapsed(t *testing.T) {
	usage := &WhenContext{Turn: 3, Usage: chat.Usage{PromptTokens: 8000, CompletionTokens: 2000}}
	runEval(t, []evalCase{
		{"usage reached", "usageExceeds(10000)", usage, true, "usage 10000 >= 10000", false},
		{"usage below", "usageExceeds(10001)", usage, false, "usage 10000 < 10001", false},
		{"usage total wins", "usageExceeds(50)", &WhenContext{Usage: chat.Usage{PromptTokens: 10, TotalTokens: 60}}, true, "usage 60 >= 50", false},
		{"elapsed above", "elapsedExceeds(1h30m)", at("2026-03-27T12:00:00Z", "2026-03-27T10:00:00Z"), true, "elapsed 2h0m0s >= 1h30m0s", false},
		{"elapsed below", "elapsedExceeds(3h)", at("2026-03-27T12:00:00Z", "2026-03-27T10:00:00Z"), false, "elapsed 2h0m0s < 3h0m0s", false},
		{"elapsed bare ms", "elapsedExceeds(7200000)", at("2026-03-27T12:00:00Z", "2026-03-27T10:00:00Z"), true, "elapsed 2h0m0s >= 2h0m0s", false},
		{"elapsed shown to the second", "elapsedExceeds(1h)", at("2026-03-27T12:00:00.592264402Z", "2026-03-27T10:00:00Z"), true, "elapsed 2h0m1s >= 1h0m0s", false},
		{"elapsed under a second shown to the ms", "elapsedExceeds(1h)", at("2026-03-27T10:00:00.592264402Z", "2026-03-27T10:00:00Z"), false, "elapsed 592ms < 1h0m0s", false},
		{"elapsed days", "elapsedExceeds(1d)", at("2026-03-28T10:00:00Z", "2026-03-27T10:00:00Z"), true, "elapsed 24h0m0s >= 24h0m0s", false},
		{"turn 1 zero", "elapsedExceeds(0)", turn(1), false, "no previous message: nothing elapsed", false},
	})
	// Elapsed is derived from LastMessageAt when the engine did not set it.
	c := at("2026-03-27T12:00:00Z", "2026-03-27T11:00:00Z")
	c.Elapsed = nil
	if r := ElapsedExceeds(time.Hour).Eval(c); !r.Value {
		t.Errorf("derived elapsed: got %v (%s), want true", r.Value, r.Why)
	}
}

func TestInvalidConstructors(t *testing.T) {
	tests := []struct {
		p    Predicate
		expr string
	}{
		{EveryNTurns(0), "everyNTurns(0)"},
		{OnceID(""), "once('')"},
		{FirstN(-1), "firstN(-1)"},
		{AfterTurn(-2), "afterTurn(-2)"},
		{UsageExceeds(-1), "usageExceeds(-1)"},
		{ElapsedExceeds(-time.Second), "elapsedExceeds(-1s)"},
		{ContentIncludes(), "contentIncludes([])"},
		{ContentIncludes("a", ""), "contentIncludes(['a', ''])"},
		{ContentPattern(nil), "contentPattern()"},
		{ContentMatches(nil, 0), "contentMatches([])"},
		{Classifies("x", nil, 5, 0), "classifies('x')"},
		{Classifies("x", NewClassifier(nil), 0, 0), "classifies('x', topN=0)"},
		{LastAssistantLength(CountSpec{}), "lastAssistantLength()"},
		{LastAssistantLength(CountSpec{EQ: ptr(1), GTE: ptr(0)}), "lastAssistantLength(gte=0, eq=1)"},
		{ToolCallCount(Exact("x"), AtLeast(-1)), "toolCallCount('x', gte=-1)"},
		{ToolFailedStreak(Exact("x"), Between(3, 2)), "toolFailedStreak('x', gte=3, lte=2)"},
		{ToolCall(ToolCallSpec{State: "done"}), "toolCall(state='done')"},
		{DayChanged("Mars/Base"), "dayChanged(tz='Mars/Base')"},
		{Not(nil), "not(…)"},
		{And(Once(), nil), "and(…)"},
		{WithinLastN(2, nil), "withinLastN(2, …)"},
	}
	for _, tc := range tests {
		r := tc.p.Eval(turn(1))
		if r.Value || r.Error == "" || r.Expr != tc.expr {
			t.Errorf("%s: got value %v error %q expr %q, want false, an error and the expr", tc.expr, r.Value, r.Error, r.Expr)
		}
		if err := Validate(tc.p); err == nil {
			t.Errorf("Validate(%s): got nil, want an error", tc.expr)
		}
	}
	if err := Validate(And(Once(), Not(EveryNTurns(0)))); err == nil {
		t.Errorf("Validate of a nested invalid node: got nil, want an error")
	}
	if err := Validate(mustParse(t, "and(once(), withinLastN(2, toolCalled('x')))")); err != nil {
		t.Errorf("Validate of a parsed predicate: got %v, want nil", err)
	}
}

func ptr(n int) *int { return &n }
