package predicates

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseCanonical(t *testing.T) {
	tests := []struct{ src, want string }{
		{"everyNTurns(3)", "everyNTurns(3)"},
		{"  everyNTurns ( 3 )  ", "everyNTurns(3)"},
		{"\n\tand(\n everyNTurns(3),\n not(once())\n)", "and(everyNTurns(3), not(once()))"},
		{"once()", "once()"},
		{`once("it's")`, `once('it\'s')`},
		{`once('a\\b\n\t\r\u00e9\u0001')`, `once('a\\b\n\t\ré\u0001')`},
		{"firstN(0)", "firstN(0)"},
		{"afterTurn(2.0)", "afterTurn(2)"},
		{`contentIncludes(["a", 'b'])`, "contentIncludes(['a', 'b'])"},
		{"contentIncludes('a', 'b')", "contentIncludes(['a', 'b'])"},
		{"contentPattern(/x/si)", "contentPattern(/x/is)"},
		{`contentPattern(/a\/b/)`, `contentPattern(/a\/b/)`},
		{"contentPattern(//)", "contentPattern(//)"},
		{"contentMatches(['t'], threshold=0)", "contentMatches(['t'])"},
		{"contentMatches(['t'], threshold=-0.50)", "contentMatches(['t'], threshold=-0.5)"},
		{"classifies('topics', topN=5, threshold=0.25)", "classifies('topics', threshold=0.25)"},
		{"classifies('topics', threshold=1, topN=2)", "classifies('topics', topN=2, threshold=1)"},
		{"lastAssistantLength(lte=5, gte=1)", "lastAssistantLength(gte=1, lte=5)"},
		{"lastAssistantLength(eq=0)", "lastAssistantLength(eq=0)"},
		{"toolCalled(/^ba/i)", "toolCalled(/^ba/i)"},
		{"toolFailed('bash')", "toolFailed('bash')"},
		{"anyToolCalled()", "anyToolCalled()"},
		{"toolCall(errorText=/x/, state='output-error', name='b', output='o', input=/i/)",
			"toolCall(name='b', state='output-error', input=/i/, output='o', errorText=/x/)"},
		{"toolCallCount('x', eq=2)", "toolCallCount('x', eq=2)"},
		// Positional arguments may follow named ones: they fill the parameters in order.
		{"toolCallCount(gte=2, 'x')", "toolCallCount('x', gte=2)"},
		{"toolFailedStreak(gte=3, /ba/, lte=5)", "toolFailedStreak(/ba/, gte=3, lte=5)"},
		{"classifies(topN=2, 'topics', threshold=1)", "classifies('topics', topN=2, threshold=1)"},
		{"contentMatches(threshold=0.5, ['t'])", "contentMatches(['t'], threshold=0.5)"},
		{"contentMatches(threshold=0.5, 'a', 'b')", "contentMatches(['a', 'b'], threshold=0.5)"},
		{"toolFailedStreak('bash')", "toolFailedStreak('bash', gte=1)"},
		{"usageExceeds(10000)", "usageExceeds(10000)"},
		{"elapsedExceeds(90s)", "elapsedExceeds(1m30s)"},
		{"elapsedExceeds(1.5h)", "elapsedExceeds(1h30m)"},
		{"elapsedExceeds(36h)", "elapsedExceeds(1d12h)"},
		{"elapsedExceeds(1500)", "elapsedExceeds(1s500ms)"},
		{"elapsedExceeds(0)", "elapsedExceeds(0)"},
		{"elapsedExceeds(1d2h3m4s5ms)", "elapsedExceeds(1d2h3m4s5ms)"},
		{"dayChanged()", "dayChanged()"},
		{"dayChanged(tz='Asia/Tokyo')", "dayChanged(tz='Asia/Tokyo')"},
		{"hourChanged(tz='')", "hourChanged()"},
		{"seasonChanged(tz='UTC', hemisphere='south')", "seasonChanged(hemisphere='south', tz='UTC')"},
		{"seasonChanged(hemisphere='north')", "seasonChanged()"},
		{"withinLastN(3, toolFailed('bash'))", "withinLastN(3, toolFailed('bash'))"},
		{"everyOfLastN(-1, anyToolCalled())", "everyOfLastN(-1, anyToolCalled())"},
		{"and()", "and()"},
		{"or(once(), and())", "or(once(), and())"},
		{"not(not(once()))", "not(not(once()))"},
		{"once('東京')", "once('東京')"},
		{"once('a')\u00a0", "once('a')"},
	}
	for _, tc := range tests {
		p, err := Parse(tc.src, testEnv())
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if got := p.String(); got != tc.want {
			t.Errorf("Parse(%q).String(): got %q, want %q", tc.src, got, tc.want)
		}
		q, err := Parse(p.String(), testEnv())
		if err != nil || q.String() != p.String() {
			t.Errorf("reparse %q: got %v %v", p.String(), q, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src    string
		offset int
		msg    string
	}{
		{"", 0, "expected predicate name, found end of input"},
		{"   ", 3, "expected predicate name, found end of input"},
		{"'x'", 0, "expected predicate name, found string 'x'"},
		{"everyNTurns", 11, `expected '(' after "everyNTurns", found end of input`},
		{"hourChanged + 1", 12, `expected '(' after "hourChanged", found '+'`},
		{"everyNTurns(3 x)", 14, "expected ')' or ',' after argument, found 'x'"},
		{"everyNTurns(3", 13, "expected ')' or ',' after argument, found end of input"},
		{"everyNTurns(3,)", 14, "expected argument, found ')'"},
		{"everyNTurns(,3)", 12, "expected argument, found ','"},
		{"everyNTurns(3) x", 15, "expected end of expression, found 'x'"},
		{"everyNTurns(3))", 14, "expected end of expression, found ')'"},
		{"and(once() once())", 11, "expected ')' or ',' after argument, found 'once'"},
		{"and(once(), x)", 13, `expected '(' or '=' after "x", found ')'`},
		{"everyNTurns(3 ; )", 14, "expected ')' or ',' after argument, found ';'"},
		{"once('é' é)", 10, "expected ')' or ',' after argument, found 'é'"},
		{"once('x'\xff)", 8, "expected ')' or ',' after argument, found byte 0xff"},
		{"contentIncludes(['a' 'b'])", 21, "expected ']' or ',' after list item, found string 'b'"},
		{"contentIncludes([,])", 17, "expected list item or ']', found ','"},
		{"contentMatches(['a'], threshold=)", 32, `expected value after "threshold=", found ')'`},
		{"everyNTurn(3)", 0, `unknown predicate "everyNTurn"; did you mean everyNTurns?`},
		{"and(once(), dayChange())", 12, `unknown predicate "dayChange"; did you mean dayChanged?`},
		{"tool('x')", 0, `unknown predicate "tool"; did you mean toolCall, toolCallCount or toolCalled?`},
		{"ONCE()", 0, `unknown predicate "ONCE"; did you mean once?`},
		// Nothing close enough for "did you mean": the nearest three by edit distance, ties in
		// name order.
		{"zzzzzzzzzzzzzzzz()", 0, `unknown predicate "zzzzzzzzzzzzzzzz"; nearest known predicates: afterTurn, and, anyToolCalled`},
		{"and(once(), bogus())", 12, `unknown predicate "bogus"; nearest known predicates: usageExceeds, not, once`},
		{"messageContains('x')", 0, `unknown predicate "messageContains"; nearest known predicates: contentIncludes, contentMatches, usageExceeds`},
		{"everyNTurns()", 12, "everyNTurns expects 1 number argument, got 0 arguments"},
		{"everyNTurns(1, 2)", 15, "everyNTurns expects 1 number argument, got 2 positional arguments"},
		{"everyNTurns('3')", 12, "everyNTurns expects 1 number argument, got string '3'"},
		{"everyNTurns(5m)", 12, "everyNTurns expects 1 number argument, got duration 5m"},
		{"everyNTurns(0)", 12, "everyNTurns expects n >= 1, got 0"},
		{"everyNTurns(1.5)", 12, "everyNTurns expects an integer, got 1.5"},
		{"everyNTurns(n=3)", 12, `unknown argument "n": everyNTurns takes no named arguments`},
		{"firstN(-1)", 7, "firstN expects n >= 0, got -1"},
		{"usageExceeds(-5)", 13, "usageExceeds expects n >= 0, got -5"},
		{"usageExceeds(99999999999999999999)", 13, "usageExceeds: number 99999999999999999999 out of range"},
		{"once(3)", 5, "once expects at most 1 string argument (a latch id), got number 3"},
		{"once('')", 5, "once expects a non-empty latch id"},
		{"once('a', 'b')", 10, "once expects at most 1 string argument (a latch id), got 2 positional arguments"},
		{"contentIncludes([])", 16, "contentIncludes expects at least one keyword"},
		{"contentIncludes()", 16, "contentIncludes expects at least one keyword"},
		{"contentIncludes([''])", 17, "contentIncludes expects non-empty keywords"},
		{"contentIncludes([1])", 17, "contentIncludes expects a list of keywords, got number 1"},
		{"contentIncludes(['a'], ['b'])", 23, "contentIncludes expects a list of keywords, got 2 positional arguments"},
		{"contentPattern('x')", 15, "contentPattern expects 1 regex argument, got string 'x'"},
		{"contentPattern(/a/g)", 18, "unknown regex flag 'g'; expected i, m or s"},
		{"contentPattern(/a/ii)", 19, "duplicate regex flag 'i'"},
		{"contentPattern(/a(/)", 15, "invalid regex /a(/: error parsing regexp: missing closing ): `a(`"},
		{"contentPattern(/abc", 15, "unterminated regex: expected a closing '/'"},
		{"contentMatches(['a'], threshold='x')", 32, "contentMatches expects threshold to be a number, got string 'x'"},
		{"contentMatches(['a'], limit=2)", 22, `unknown argument "limit" for contentMatches; expected threshold`},
		{"classifies('nope')", 11, `unknown classifier "nope"; known classifiers: topics`},
		{"classifies('topics', topN=0)", 26, "classifies expects topN >= 1, got 0"},
		{"lastAssistantLength()", 20, "lastAssistantLength needs gte=, lte= or eq="},
		{"lastAssistantLength(gte=1, eq=2)", 27, "lastAssistantLength: eq cannot be combined with gte or lte"},
		{"lastAssistantLength(gte=-1)", 24, "lastAssistantLength expects gte >= 0, got -1"},
		{"lastAssistantLength(gte=5, lte=2)", 27, "lastAssistantLength: gte 5 is above lte 2, nothing can match"},
		{"lastAssistantLength(5)", 20, "lastAssistantLength expects only named arguments (gte=, lte=, eq=), got 1 positional argument"},
		{"lastAssistantLength(gte=1, gte=2)", 27, `duplicate argument "gte"`},
		{"toolCallCount(gte=1, 'x', gte=2)", 26, `duplicate argument "gte"`},
		{"toolCallCount(gte=1, 'x', 'y')", 26, "toolCallCount expects 1 tool name argument (string or /regex/), got 2 positional arguments"},
		{"classifies(topN=2, 'topics', 'b')", 29, "classifies expects 1 string argument (a classifier name), got 2 positional arguments"},
		{"contentMatches(threshold=1, ['a'], ['b'])", 35, "contentMatches expects a list of topics, got 2 positional arguments"},
		{"withinLastN(3, n=1, once())", 15, `unknown argument "n": withinLastN takes no named arguments`},
		{"toolCallCount('x', eq=-1)", 22, "toolCallCount expects eq >= 0, got -1"},
		{"toolCalled(3)", 11, "toolCalled expects 1 tool name argument (string or /regex/), got number 3"},
		{"toolCalled()", 11, "toolCalled expects 1 tool name argument (string or /regex/), got 0 arguments"},
		{"toolCall(state='done')", 15, "toolCall expects state 'input-streaming', 'input-available', 'output-available' or 'output-error', got string 'done'"},
		{"toolCall('x')", 9, "toolCall expects only named arguments (name=, state=, input=, output=, errorText=), got 1 positional argument"},
		{"toolCall(input=3)", 15, "toolCall expects input to be a string or /regex/, got number 3"},
		{"elapsedExceeds('1h')", 15, "elapsedExceeds expects 1 duration argument (90s, 5m, 2h, 1d; a bare number is milliseconds), got string '1h'"},
		{"elapsedExceeds(-5m)", 15, "elapsedExceeds expects a duration >= 0, got -5m"},
		{"elapsedExceeds(5x)", 16, `unknown duration unit "x"; expected ms, s, m, h or d`},
		{"elapsedExceeds(1h30)", 19, "expected a duration unit (ms, s, m, h or d)"},
		{"elapsedExceeds(999999999999d)", 15, "duration out of range"},
		{"dayChanged(tz='Mars/Base')", 14, `unknown time zone "Mars/Base"`},
		{"dayChanged(tz=3)", 14, "dayChanged expects tz to be a zone name string, got number 3"},
		{"dayChanged('UTC')", 11, "dayChanged expects only named arguments (tz=), got 1 positional argument"},
		{"dayChanged(hemisphere='south')", 11, `unknown argument "hemisphere" for dayChanged; expected tz`},
		{"seasonChanged(hemisphere='east')", 25, "seasonChanged expects hemisphere 'north' or 'south', got string 'east'"},
		{"withinLastN(once(), 2)", 12, "withinLastN expects a number and a predicate, got predicate once(…)"},
		{"withinLastN(2, 'x')", 15, "withinLastN expects a number and a predicate, got string 'x'"},
		{"withinLastN(2)", 13, "withinLastN expects a number and a predicate, got 1 argument"},
		{"and(once(), 3)", 12, "and expects predicate arguments, got number 3"},
		{"and(once(), [once()])", 12, "and expects predicate arguments, got list [once()]"},
		{"not()", 4, "not expects 1 predicate argument, got 0 arguments"},
		{"not(once(), once())", 12, "not expects 1 predicate argument, got 2 positional arguments"},
		{"once('abc", 5, "unterminated string"},
		{`once('a\`, 5, "unterminated string"},
		{`once('a\q')`, 7, `unknown escape \q; expected \\, \', \", \n, \r, \t or \uXXXX`},
		{`once('\u12')`, 6, `invalid \u escape: expected 4 hex digits`},
		{`once('\ud800')`, 6, `invalid \u escape: surrogate code point`},
		{"once(-)", 5, "expected argument, found '-'"},
		{strings.Repeat("not(", 70) + "once()" + strings.Repeat(")", 70), 259, "expression nested too deeply (more than 64 levels)"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src, testEnv())
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q): got %v, want a *ParseError", tc.src, err)
			continue
		}
		if pe.Offset != tc.offset || pe.Msg != tc.msg {
			t.Errorf("Parse(%q):\ngot  %d %s\nwant %d %s", tc.src, pe.Offset, pe.Msg, tc.offset, tc.msg)
		}
	}
}

func TestParseNilEnv(t *testing.T) {
	_, err := Parse("classifies('topics')", nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Msg != `unknown classifier "topics"; no classifiers are defined` {
		t.Errorf("got %v, want an unknown classifier error", err)
	}
	if p, err := Parse("once()", nil); err != nil || p.String() != "once()" {
		t.Errorf("got %v %v, want once()", p, err)
	}
}

func TestNames(t *testing.T) {
	names := Names()
	want := []string{"afterTurn", "and", "anyToolCalled", "classifies", "contentIncludes", "contentMatches",
		"contentPattern", "dayChanged", "elapsedExceeds", "everyNTurns", "everyOfLastN", "firstN",
		"hourChanged", "lastAssistantLength", "monthChanged", "not", "once", "or", "seasonChanged",
		"toolCall", "toolCallCount", "toolCalled", "toolFailed", "toolFailedStreak", "usageExceeds",
		"weekChanged", "withinLastN", "yearChanged"}
	if !slices.Equal(names, want) {
		t.Errorf("Names():\ngot  %v\nwant %v", names, want)
	}
	if (&ParseError{Offset: 3, Msg: "x"}).Error() != "offset 3: x" {
		t.Errorf("ParseError.Error: got %q", (&ParseError{Offset: 3, Msg: "x"}).Error())
	}
}
