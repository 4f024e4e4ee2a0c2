package predicates

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

var fuzzSeeds = []string{
	"and(everyNTurns(3), not(once()))",
	"or(contentIncludes(['a', \"b\"]), contentPattern(/x\\/y/ims))",
	"contentMatches(['red apple', 'green apple pie'], threshold=0.5)",
	"classifies('topics', topN=2, threshold=0.1)",
	"lastAssistantLength(gte=1, lte=5)",
	"toolCall(name=/ba/, state='output-error', input='{\"a\": 1}', output='x', errorText=/e/)",
	"toolFailedStreak('bash', gte=3)",
	"toolCallCount(gte=2, 'x')",
	"classifies(threshold=0.1, 'topics', topN=2)",
	"contentMatches(threshold=1, 'a', ['b'])",
	"toolCallCount(gte=1, 'x', gte=2)",
	"withinLastN(3, toolCallCount(/./, eq=2))",
	"everyOfLastN(2, anyToolCalled())",
	"elapsedExceeds(1d2h3m4s5ms)",
	"elapsedExceeds(-1.5h)",
	"seasonChanged(hemisphere='south', tz='Asia/Tokyo')",
	"dayChanged(tz='Mars/Base')",
	"once('\\u00e9\\n\\'')",
	"once(\"x\\\\\")",
	"usageExceeds(1e5)",
	"firstN(3.0)",
	"everyNTurns(3 x)",
	"contentPattern(/a/g)",
	"once('abc",
	"and(once(), [once()])",
	"",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	ctx := &WhenContext{
		Turn:    3,
		Content: "deploy the apple pie",
		LastAssistantMessage: assistant(text("ok"),
			toolIO("bash", chat.ToolOutputError, `{"a": 1}`, "", "e")),
		CurrentMessage: &chat.Message{Locale: &chat.Locale{TimeZone: "Europe/Paris"}},
	}
	ctx.LastAssistantReplies = []*chat.Message{ctx.LastAssistantMessage}
	env := testEnv()
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse(src, env)
		if err != nil {
			pe, ok := err.(*ParseError)
			if !ok {
				t.Fatalf("Parse(%q): got %T, want *ParseError", src, err)
			}
			if pe.Offset < 0 || pe.Offset > len(src) {
				t.Fatalf("Parse(%q): offset %d outside [0, %d]", src, pe.Offset, len(src))
			}
			return
		}
		s := p.String()
		q, err := Parse(s, env)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse: %v", src, s, err)
		}
		if q.String() != s {
			t.Fatalf("Parse(%q): canonical %q reparses as %q", src, s, q.String())
		}
		c := *ctx
		if r := p.Eval(&c); r.Expr != s {
			t.Fatalf("Parse(%q): got Result.Expr %q, want %q", src, r.Expr, s)
		}
	})
}
