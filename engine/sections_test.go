package engine_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/script"
)

// playDemo plays the support demo script in memory and returns each turn's trace as sent.
func playDemo(t *testing.T) []engine.Trace {
	t.Helper()
	sc, err := script.Load("../testdata/demo/support.script.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file, err := ctxfile.Load("../testdata/demo/support.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Context: file, Store: engine.NewMemStore(nil),
		Now: func() time.Time { return time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	var out []engine.Trace
	r := &script.Runner{Engine: eng, OnTurn: func(_ *script.Step, res *engine.TurnResult) {
		out = append(out, res.Trace("demo-1"))
	}}
	if _, err := r.Run(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	return out
}

// describe lists sections as "kind name tokens".
func describe(ss []engine.PromptSection) []string {
	var out []string
	for _, s := range ss {
		d := s.Kind
		if s.Name != "" {
			d += " " + s.Name
		}
		out = append(out, d)
	}
	return out
}

func TestPromptSectionsOfTheDemo(t *testing.T) {
	traces := playDemo(t)
	if len(traces) != 4 {
		t.Fatalf("got %d traces, want 4", len(traces))
	}
	fragments := []string{"fragment role", "fragment hint", "fragment term", "fragment guardrail", "fragment workflow",
		"fragment example", "fragment sql_guidelines", "fragment schema", "fragment available_skills"}
	for i, tr := range traces {
		ss := engine.PromptSections(&tr)
		want := append([]string(nil), fragments...)
		if i == 3 { // 18 hours later: welcome-back, a run-start reminder, opens the prompt
			want = append([]string{"run_start welcome-back"}, want...)
		}
		want = append(want, "instructions", "explanation")
		if got := describe(ss); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("turn %d: sections\n got %q\nwant %q", tr.Turn, got, want)
		}
		// The sections are the prompt, in order, with nothing left out.
		rest := tr.SystemPrompt
		sum := 0
		for _, s := range ss {
			at := strings.Index(rest, s.Text)
			if at < 0 {
				t.Fatalf("turn %d: section %s %s not found in order", tr.Turn, s.Kind, s.Name)
			}
			if gap := rest[:at]; strings.TrimLeft(gap, "\n") != "" {
				t.Errorf("turn %d: text %q before section %s %s belongs to none", tr.Turn, gap, s.Kind, s.Name)
			}
			rest = rest[at+len(s.Text):]
			if s.Kind == engine.SectionFragment {
				sum += s.Tokens
			}
		}
		if rest != "" {
			t.Errorf("turn %d: %q after the last section", tr.Turn, rest)
		}
		est := tr.Usage.Estimated.BySource
		for _, s := range ss {
			switch s.Kind {
			case engine.SectionInstructions:
				if s.Tokens != est.Instructions || !s.WithExplanation {
					t.Errorf("turn %d: instructions %d tokens (with explanation %v), want %d (true)", tr.Turn, s.Tokens, s.WithExplanation, est.Instructions)
				}
			case engine.SectionExplanation:
				if s.Tokens != -1 {
					t.Errorf("turn %d: explanation sized %d, want -1 (counted with the instructions)", tr.Turn, s.Tokens)
				}
			case engine.SectionRunStart:
				if s.Tokens <= 0 {
					t.Errorf("turn %d: run-start %s sized %d", tr.Turn, s.Name, s.Tokens)
				}
			}
		}
		var each int
		for _, f := range est.EachFragment {
			each += f.Tokens
		}
		if sum != each {
			t.Errorf("turn %d: fragment sections sum to %d tokens, want %d", tr.Turn, sum, each)
		}
	}
}

func TestPromptSectionsWithoutSizes(t *testing.T) {
	sizes := &engine.Estimate{Fragments: 9, Instructions: 4,
		EachFragment: []engine.FragmentTokens{{Name: "role", Tokens: 3}, {Name: "hint", Tokens: 6}}}
	instr := engine.Decision{ID: "i", Source: engine.SourceInstruction, Fired: true, Reason: engine.ReasonFired,
		Kind: "must", Scope: "In: compare", Text: "Compare.", When: []string{"asked", "!busy"}}
	block := "## Instructions\n- [must] [In: compare] Compare. (apply only when: asked; do not apply when: busy)"
	tests := []struct {
		name   string
		prompt string
		est    *engine.Estimate
		ds     []engine.Decision
		want   []string // kind name tokens
	}{
		{name: "recorded turn: no sizes, one fragments section", prompt: "<role>R</role>\n<hint>H</hint>",
			want: []string{"fragments  -1"}},
		{name: "markdown headings", prompt: "## Role\nR\n\n## Hint\nH", est: sizes,
			want: []string{"fragment role 3", "fragment hint 6"}},
		{name: "toml puts scalars first: one section", prompt: "hint = \"H\"\n\n[role]\nx = 1", est: sizes,
			want: []string{"fragments  9"}},
		{name: "a name missing: one section", prompt: "<role>R</role>\n<hints><hint>H</hint></hints>", est: sizes,
			want: []string{"fragments  9"}},
		{name: "instructions with a mode and when", prompt: "<role>R</role>\n<hint>H</hint>\n\n" + block, est: sizes,
			ds: []engine.Decision{instr}, want: []string{"fragment role 3", "fragment hint 6", "instructions  4"}},
		{name: "instructions only", prompt: block, ds: []engine.Decision{instr}, want: []string{"instructions  -1"}},
		{name: "an instruction block the prompt does not hold stays with the fragments", prompt: "<role>R</role>",
			ds: []engine.Decision{instr}, want: []string{"fragments  -1"}},
		{name: "a run-start reminder the prompt does not start with is not a section", prompt: "<role>R</role>",
			ds:   []engine.Decision{{ID: "r", Source: engine.SourceReminder, Fired: true, Placement: ctxfile.PlaceRunStart, Text: "Hi.", Tokens: 2}},
			want: []string{"fragments  -1"}},
		{name: "run-start alone", prompt: "<system-reminder>Hi.</system-reminder>",
			ds:   []engine.Decision{{ID: "r", Source: engine.SourceReminder, Fired: true, Placement: ctxfile.PlaceRunStart, Text: "Hi.", Tokens: 2}},
			want: []string{"run_start r 2"}},
		{name: "empty prompt", prompt: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &engine.Trace{SystemPrompt: tt.prompt, Decisions: tt.ds}
			tr.Usage.Estimated.BySource = tt.est
			var got []string
			for _, s := range engine.PromptSections(tr) {
				got = append(got, s.Kind+" "+s.Name+" "+strconv.Itoa(s.Tokens))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
