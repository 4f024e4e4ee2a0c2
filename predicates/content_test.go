package predicates

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func content(s string) *WhenContext { return &WhenContext{Turn: 2, Content: s} }

func TestContentPredicates(t *testing.T) {
	runEval(t, []evalCase{
		{"includes any", "contentIncludes(['error', 'Deploy'])", content("Please DEPLOY now"), true, `matched "Deploy"`, false},
		{"includes substring", "contentIncludes(['fail'])", content("it failed"), true, `matched "fail"`, false},
		{"includes none", "contentIncludes(['error', 'fail'])", content("all good"), false, "none of 2 keywords in content", false},
		{"includes one none", "contentIncludes(['error'])", content("all good"), false, `no "error" in content`, false},
		{"includes unicode case", "contentIncludes(['ÉCOLE'])", content("à l'école"), true, `matched "ÉCOLE"`, false},
		{"includes varargs", "contentIncludes('x', 'good')", content("all good"), true, `matched "good"`, false},
		{"includes empty content", "contentIncludes(['a'])", content(""), false, `no "a" in content`, false},
		{"pattern i", "contentPattern(/dep(loy)?/i)", content("We DEPLOY"), true, `matched "DEPLOY"`, false},
		{"pattern no", "contentPattern(/^deploy$/)", content("deploy now"), false, "/^deploy$/ no match", false},
		{"pattern m", "contentPattern(/^now$/m)", content("deploy\nnow"), true, `matched "now"`, false},
		{"pattern s", "contentPattern(/a.b/s)", content("a\nb"), true, `matched "a\nb"`, false},
		{"pattern slash", `contentPattern(/a\/b/)`, content("x a/b"), true, `matched "a/b"`, false},
		{"matches reference", "contentMatches(['red apple', 'green apple pie'])", content("apple pie"), true, `bm25 "green apple pie"=1.37 > 0`, false},
		{"matches threshold", "contentMatches(['red apple', 'green apple pie'], threshold=1.5)", content("apple pie"), false, `bm25 "green apple pie"=1.37 <= 1.5`, false},
		{"matches none", "contentMatches(['red apple'])", content("banana"), false, "bm25 no topic scored", false},
		{"matches stop words only", "contentMatches(['red apple'])", content("the and of"), false, "bm25 no query terms in content", false},
		{"matches unicode", "contentMatches(['東京 旅行', 'naïve bayes'])", content("NAÏVE approach"), true, "", false},
		{"classifies", "classifies('topics')", content("reset my password please"), true, "bm25 auth=1.10 > 0", false},
		{"classifies two", "classifies('topics', topN=1)", content("password sql"), true, "bm25 auth=1.10 > 0", false},
		{"classifies threshold", "classifies('topics', threshold=2)", content("password"), false, "bm25 best auth=1.10 <= 2", false},
		{"classifies none", "classifies('topics')", content("weather"), false, "bm25 no item scored", false},
	})
}

func TestContentCaches(t *testing.T) {
	c := content("Deploy the AUTH service")
	ContentIncludes("auth").Eval(c)
	if c.lowerContent == nil || *c.lowerContent != "deploy the auth service" {
		t.Fatalf("got lowerContent %v, want the lower-cased content", c.lowerContent)
	}
	ContentMatches([]string{"auth"}, 0).Eval(c)
	if !c.tokenized || len(c.contentTokens) != 3 {
		t.Fatalf("got tokens %v (tokenized %v), want [deploy auth service]", c.contentTokens, c.tokenized)
	}
	// a window evaluates on a copy: the caches it fills come back
	c2 := withReplies(assistant(text("x")))
	c2.Content = "apple pie"
	WithinLastN(1, ContentMatches([]string{"apple"}, 0)).Eval(c2)
	if !c2.tokenized {
		t.Errorf("got tokenized false after a window, want the cache kept")
	}
}

func TestLastAssistantLength(t *testing.T) {
	msg := assistant(text("héllo"), tool("x", chat.ToolOutputAvailable), text("wörld"))
	c := &WhenContext{Turn: 2, LastAssistantMessage: msg}
	runEval(t, []evalCase{
		{"code points", "lastAssistantLength(eq=11)", c, true, "length 11 == 11", false},
		{"eq miss", "lastAssistantLength(eq=10)", c, false, "length 11 != 10", false},
		{"gte", "lastAssistantLength(gte=11)", c, true, "length 11 >= 11", false},
		{"gte miss", "lastAssistantLength(gte=12)", c, false, "length 11 < 12", false},
		{"lte", "lastAssistantLength(lte=11)", c, true, "length 11 <= 11", false},
		{"lte miss", "lastAssistantLength(lte=5)", c, false, "length 11 > 5", false},
		{"range", "lastAssistantLength(gte=5, lte=20)", c, true, "length 11 in [5, 20]", false},
		{"no message", "lastAssistantLength(lte=0)", turn(1), true, "length 0 <= 0", false},
		{"no message gte", "lastAssistantLength(gte=1)", turn(1), false, "length 0 < 1", false},
	})
	if got, want := runeLen(msg), len([]rune(msg.PlainText())); got != want {
		t.Errorf("runeLen: got %d, want %d", got, want)
	}
}
