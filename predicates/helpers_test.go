package predicates

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// testEnv has the classifier "topics" (items alpha and beta).
func testEnv() *Env {
	return &Env{Classifiers: map[string]*Classifier{
		"topics": NewClassifier([]ClassifierItem{
			{Name: "auth", Description: "authentication login password tokens"},
			{Name: "data", Description: "database schema tables sql"},
		}),
	}}
}

func mustParse(t testing.TB, src string) Predicate {
	t.Helper()
	p, err := Parse(src, testEnv())
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return p
}

// evalCase is one row of the predicate tables.
type evalCase struct {
	name string
	src  string
	ctx  *WhenContext
	want bool
	why  string // expected Why; "" = not checked
	err  bool   // Error expected
}

func runEval(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.src)
			r := p.Eval(tc.ctx)
			if r.Value != tc.want {
				t.Errorf("%s: got %v (%s), want %v", tc.src, r.Value, r.Why, tc.want)
			}
			if tc.why != "" && r.Why != tc.why {
				t.Errorf("%s: got why %q, want %q", tc.src, r.Why, tc.why)
			}
			if (r.Error != "") != tc.err {
				t.Errorf("%s: got error %q, want error %v", tc.src, r.Error, tc.err)
			}
			if r.Expr != p.String() {
				t.Errorf("%s: got expr %q, want %q", tc.src, r.Expr, p.String())
			}
		})
	}
}

func turn(n int) *WhenContext { return &WhenContext{Turn: n} }

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// at returns a context whose clock is now and whose previous user message was at prev.
func at(now, prev string) *WhenContext {
	c := &WhenContext{Turn: 2, Now: ts(now)}
	if prev != "" {
		p := ts(prev)
		c.LastMessageAt = &p
		e := c.Now.Sub(p)
		c.Elapsed = &e
	}
	return c
}

func text(s string) chat.Part { return chat.TextPart(s) }

func tool(name string, state chat.ToolState) chat.Part {
	return chat.Part{Type: chat.PartTool, ToolName: name, State: state, ToolCallID: "call_" + name}
}

func toolIO(name string, state chat.ToolState, input, output, errText string) chat.Part {
	p := tool(name, state)
	p.Input = json.RawMessage(input)
	p.Output = output
	p.ErrorText = errText
	return p
}

func assistant(parts ...chat.Part) *chat.Message {
	return &chat.Message{Role: chat.RoleAssistant, Parts: parts}
}

// withReplies returns a context whose replies are rs (oldest first), the last one being
// LastAssistantMessage.
func withReplies(rs ...*chat.Message) *WhenContext {
	c := &WhenContext{Turn: len(rs) + 1, LastAssistantReplies: rs}
	if len(rs) > 0 {
		c.LastAssistantMessage = rs[len(rs)-1]
	}
	return c
}
