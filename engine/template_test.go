package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func TestTemplates(t *testing.T) {
	tests := []struct {
		name string
		tmpl string
		want []string // the text per turn; "-reason" when it does not fire
	}{
		{name: "turn", tmpl: `Turn {{.Turn}}.`, want: []string{"Turn 1.", "Turn 2.", "Turn 3."}},
		{name: "content", tmpl: `You said: {{.Content}}`, want: []string{"You said: first", "You said: second <b>", "You said: third"}},
		{name: "branch", tmpl: `On {{.Branch}}.`, want: []string{"On main.", "On main.", "On main."}},
		{name: "message count", tmpl: `{{.MessageCount}} messages.`, want: []string{"1 messages.", "3 messages.", "5 messages."}},
		{name: "elapsed", tmpl: `{{with .Elapsed}}{{.}} since the last message{{end}}`, want: []string{"-empty_text", "1m30s since the last message", "2h0m0s since the last message"}},
		{name: "last message at", tmpl: `{{if .LastMessageAt}}Last: {{.LastMessageAt.Format "15:04:05"}}{{else}}First.{{end}}`, want: []string{"First.", "Last: 14:30:00", "Last: 14:31:30"}},
		{name: "usage", tmpl: `{{.Usage.PromptTokens}}+{{.Usage.CompletionTokens}}={{.Usage.TotalTokens}}`, want: []string{"0+0=0", "100+20=120", "200+40=240"}},
		{name: "usage as the spec names it", tmpl: `{{.Usage.Input}} in, {{.Usage.Output}} out, {{.Usage.Total}} in all, {{.Usage.Cached}} cached, {{.Usage.Reasoning}} reasoning`,
			want: []string{"0 in, 0 out, 0 in all, 0 cached, 0 reasoning", "100 in, 20 out, 120 in all, 0 cached, 0 reasoning", "200 in, 40 out, 240 in all, 0 cached, 0 reasoning"}},
		{name: "now", tmpl: `{{.Now.Format "2006-01-02 15:04:05"}}`, want: []string{"2026-03-27 14:30:00", "2026-03-27 14:31:30", "2026-03-27 16:31:30"}},
		{name: "blank on some turns", tmpl: `{{if eq .Turn 2}}Second turn.{{end}}`, want: []string{"-empty_text", "Second turn.", "-empty_text"}},
		{name: "run-time error", tmpl: `Last at {{.LastMessageAt.Hour}}`, want: []string{"-predicate_error", "Last at 14", "Last at 14"}},
	}
	turns := []struct {
		text string
		at   time.Time
	}{{"first", t0}, {"second <b>", t0.Add(90 * time.Second)}, {"third", t0.Add(90*time.Second + 2*time.Hour)}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "reminders:\n  - id: r\n    template: '"+tc.tmpl+"'\n")
			for i, tt := range turns {
				usage := &chat.Usage{PromptTokens: 100, CompletionTokens: 20}
				res := h.sendIn(UserInput{Text: tt.text, At: tt.at}, &Scripted{Text: "ok", Usage: usage})
				d := decision(t, res.Plan.Decisions, "r")
				got := d.Text
				if !d.Fired {
					got = "-" + d.Reason
				}
				if got != tc.want[i] {
					t.Errorf("turn %d: got %q, want %q (%s)", i+1, got, tc.want[i], summary(d))
				}
			}
		})
	}
}

// TestTemplateOnBranch checks .Branch, .Turn and .MessageCount after an edit.
func TestTemplateOnBranch(t *testing.T) {
	h := newHarness(t, `reminders: [{id: r, template: "{{.Branch}} turn {{.Turn}} of {{.MessageCount}}"}]`)
	h.sendN(3)
	res, err := h.s.Edit(h.ctx, 2, UserInput{Text: "edited", At: at(4)}, &Scripted{Text: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if got := decision(t, res.Plan.Decisions, "r").Text; got != "main-v2 turn 2 of 3" {
		t.Errorf("got %q, want main-v2 turn 2 of 3", got)
	}
}

// TestTemplateOutputIsBounded checks that a runaway template stops with an error instead
// of filling memory.
func TestTemplateOutputIsBounded(t *testing.T) {
	// 7 KB a turn: fine on the loader's sample data (turn 2), too much by turn 10.
	h := newHarness(t, "reminders:\n  - {id: big, template: \"{{range .Turn}}{{range 700}}0123456789{{end}}{{end}}\"}\n")
	h.sendN(9)
	d := decision(t, h.preview("hello").Decisions, "big")
	if d.Reason != ReasonPredicateError || !strings.Contains(d.Detail, "more than 64 KiB") {
		t.Errorf("got %s %q, want predicate_error: the template wrote more than 64 KiB", d.Reason, d.Detail)
	}
}
