package predicates

import (
	"encoding/json"
	"testing"
)

func TestCombinators(t *testing.T) {
	runEval(t, []evalCase{
		{"and empty", "and()", turn(1), true, "empty and is true", false},
		{"or empty", "or()", turn(1), false, "empty or is false", false},
		{"and all", "and(once(), firstN(2))", turn(1), true, "2 of 2 true", false},
		{"and stops", "and(firstN(5), once(), everyNTurns(1))", turn(2), false, "1 of 3 true, stopped at 2", false},
		{"and last false", "and(firstN(5), once())", turn(2), false, "1 of 2 true", false},
		{"or stops", "or(once(), firstN(5), everyNTurns(1))", turn(2), true, "1 of 3 true, stopped at 2", false},
		{"or none", "or(once(), afterTurn(5))", turn(2), false, "0 of 2 true", false},
		{"not", "not(once())", turn(2), true, "child is false", false},
		{"not true", "not(once())", turn(1), false, "child is true", false},
		{"nested", "and(not(once()), or(everyNTurns(2), afterTurn(9)))", turn(4), true, "2 of 2 true", false},
		{"child error is false", "and(dayChanged())", withLocale(at("2026-03-27T15:30:00Z", "2026-03-27T14:00:00Z"), "Mars/Base", ""), false, "0 of 1 true", false},
	})
	r := mustParse(t, "and(firstN(5), once(), everyNTurns(1))").Eval(turn(2))
	if len(r.Children) != 2 || r.Children[0].Expr != "firstN(5)" || r.Children[1].Expr != "once()" {
		t.Errorf("got children %+v, want the 2 evaluated ones", r.Children)
	}
	r = mustParse(t, "and(dayChanged())").Eval(withLocale(at("2026-03-27T15:30:00Z", "2026-03-27T14:00:00Z"), "Mars/Base", ""))
	if r.Error != "" || !r.HasError() {
		t.Errorf("got error %q HasError %v, want the error on the child only", r.Error, r.HasError())
	}
}

func TestResultJSON(t *testing.T) {
	tests := []struct {
		src  string
		ctx  *WhenContext
		want string
	}{
		{"once()", turn(1), `{"expr":"once()","value":true,"why":"turn 1 == 1","children":[]}`},
		{"not(everyNTurns(2))", turn(3),
			`{"expr":"not(everyNTurns(2))","value":true,"why":"child is false","children":[{"expr":"everyNTurns(2)","value":false,"why":"turn 3 % 2 == 1 != 0","children":[]}]}`},
		{"dayChanged()", withLocale(at("2026-03-27T15:30:00Z", "2026-03-27T14:00:00Z"), "Mars/Base", ""),
			`{"expr":"dayChanged()","value":false,"why":"cannot resolve the time zone","error":"unknown time zone \"Mars/Base\"","children":[]}`},
		{"contentIncludes(['<a&b>'])", content("x <A&B>"), `{"expr":"contentIncludes(['\u003ca\u0026b\u003e'])","value":true,"why":"matched \"\u003ca\u0026b\u003e\"","children":[]}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(mustParse(t, tc.src).Eval(tc.ctx))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.src, b, tc.want)
		}
	}
}
