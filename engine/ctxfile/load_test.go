package ctxfile

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/fragment"
)

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("t.ctx.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return f
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "---\n", "\n\n"} {
		f := mustParse(t, src)
		if f.Version != 1 || f.Renderer != "xml" || f.GroupFragments || f.ExplainReminders || f.ReminderBudgetTokens != 0 {
			t.Errorf("%q: got version %d renderer %q group %v explain %v budget %d, want 1 xml false false 0",
				src, f.Version, f.Renderer, f.GroupFragments, f.ExplainReminders, f.ReminderBudgetTokens)
		}
		if f.Classifiers == nil || len(f.Reminders)+len(f.Instructions)+len(f.Tools)+len(f.System) != 0 {
			t.Errorf("%q: got %+v, want an empty file with a classifier map", src, f)
		}
		if f.Path != "t.ctx.yaml" || f.Dir != "." {
			t.Errorf("%q: got path %q dir %q, want t.ctx.yaml .", src, f.Path, f.Dir)
		}
	}
}

func TestReminderDefaults(t *testing.T) {
	f := mustParse(t, `
reminders:
  - id: plain
    text: Stay concise.
  - id: tuned
    text: Careful.
    when: everyNTurns(3)
    placement: run-start
    tier: safety
    max_per_chat: 2
    min_turns_between: 3
    enabled: false
`)
	if len(f.Reminders) != 2 {
		t.Fatalf("got %d reminders, want 2", len(f.Reminders))
	}
	r := f.Reminders[0]
	if r.ID != "plain" || r.Text != "Stay concise." || r.Placement != PlaceInline || r.Tier != TierGuidance ||
		!r.Enabled || r.When != nil || r.MaxPerChat != 0 || r.MinTurnsBetween != 0 || r.Builtin != "" || r.Template != nil {
		t.Errorf("got %+v, want the defaults (inline, guidance, enabled, every turn)", r)
	}
	r = f.Reminders[1]
	if r.Placement != PlaceRunStart || r.Tier != TierSafety || r.Enabled || r.When == nil ||
		r.When.String() != "everyNTurns(3)" || r.MaxPerChat != 2 || r.MinTurnsBetween != 3 {
		t.Errorf("got %+v, want run-start safety disabled everyNTurns(3) 2 3", r)
	}
	if !f.ExplainReminders {
		t.Errorf("got explain_reminders false, want true when the file has reminders")
	}
}

func TestExplainReminders(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"version: 1\n", false},
		{"reminders: [{id: a, text: x}]\n", true},
		{"explain_reminders: false\nreminders: [{id: a, text: x}]\n", false},
		{"explain_reminders: true\n", true},
		{"reminders: []\n", false},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.src).ExplainReminders; got != tt.want {
			t.Errorf("%q: got explain_reminders %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestInstructionDefaults(t *testing.T) {
	f := mustParse(t, `
modes:
  - name: Booking
    if: contentIncludes(['book'])
instructions:
  - id: a
    prompt: "  Validate dates.  "
  - id: b
    kind: never
    mode: Booking
    prompt: Book twice.
    when: one condition
    if: [afterTurn(1), not(once())]
    enabled: false
`)
	a, b := f.Instructions[0], f.Instructions[1]
	if a.Kind != KindShould || !a.Enabled || a.Mode != "" || a.Prompt != "Validate dates." || a.When != nil || a.If != nil {
		t.Errorf("got %+v, want kind should, enabled, global, trimmed prompt", a)
	}
	if b.Kind != KindNever || b.Enabled || b.Mode != "Booking" || len(b.When) != 1 || b.When[0] != "one condition" || len(b.If) != 2 {
		t.Errorf("got %+v, want never, disabled, Booking, one when, two ifs", b)
	}
	if len(f.Modes) != 1 || f.Modes[0].Name != "Booking" || f.Modes[0].If.String() != "contentIncludes(['book'])" {
		t.Errorf("got modes %+v", f.Modes)
	}
}

func TestBuiltinTemporal(t *testing.T) {
	f := mustParse(t, `
reminders:
  - builtin: temporal
    tz: Asia/Tokyo
    hemisphere: south
    placement: system
  - builtin: locale
`)
	want := []string{"builtin:date", "builtin:time", "builtin:month", "builtin:year", "builtin:season", "builtin:locale"}
	var got []string
	for _, r := range f.Reminders {
		got = append(got, r.ID)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got ids %v, want %v", got, want)
	}
	for i, r := range f.Reminders[:5] {
		if r.Builtin != strings.TrimPrefix(want[i], "builtin:") || r.TZ != "Asia/Tokyo" || !r.Southern || r.Placement != PlaceSystem {
			t.Errorf("reminder %d: got %+v, want builtin %s in Asia/Tokyo, south, system", i, r, want[i])
		}
	}
	if r := f.Reminders[5]; r.Builtin != BuiltinLocale || r.TZ != "" || r.Placement != PlaceInline {
		t.Errorf("got %+v, want builtin locale, inline", r)
	}
}

func TestBuiltinSkills(t *testing.T) {
	f := mustParse(t, `
system:
  - skills: ./testdata/spec/skills
reminders:
  - builtin: skills
    when: afterTurn(1)
`)
	r := f.Reminders[0]
	if r.ID != "builtin:skills" || r.Builtin != BuiltinSkills || r.TopN != 5 || r.Threshold != 0 || r.When == nil {
		t.Errorf("got %+v, want builtin:skills with top_n 5, threshold 0 and a when", r)
	}
	if len(f.Skills) != 2 || f.Skills[0].Name != "charts" || f.Skills[1].Name != "sql" || f.SkillIndex == nil {
		t.Errorf("got skills %+v, want charts and sql with an index", f.Skills)
	}
}

func TestFragmentReminder(t *testing.T) {
	f := mustParse(t, `
reminders:
  - id: sql-safety
    fragment: {workflow: {task: Error recovery, steps: [Read the error, Fix the query]}}
  - id: hint
    fragment: {hint: "Use <CTE> & LIMIT"}
`)
	want := "<workflow>\n  <task>Error recovery</task>\n  <steps>\n    <step>Read the error</step>\n    <step>Fix the query</step>\n  </steps>\n</workflow>"
	if got := f.Reminders[0].Text; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got, want := f.Reminders[1].Text, "<hint>Use &lt;CTE&gt; &amp; LIMIT</hint>"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSystemFidelity: persona takes objective, and a fragment with empty data loads (it
// renders nothing) while the fragments around it render as usual.
func TestSystemFidelity(t *testing.T) {
	f := mustParse(t, `
system:
  - persona: {name: Freya, role: Data Assistant, objective: Answer revenue questions, tone: friendly}
  - fragment: {name: blank, data: ""}
  - fragment: {name: none, data: []}
  - fragment: {name: void, data: {a: "", b: {}}}
  - hint: Keep answers short.
`)
	if len(f.System) != 5 {
		t.Fatalf("got %d system fragments, want 5", len(f.System))
	}
	got, err := fragment.Render(f.System, "xml", fragment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "<persona>\n  <name>Freya</name>\n  <role>Data Assistant</role>\n  <objective>Answer revenue questions</objective>\n" +
		"  <tone>friendly</tone>\n</persona>\n<hint>Keep answers short.</hint>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTemplateExecutes(t *testing.T) {
	f := mustParse(t, `
reminders:
  - id: long-chat
    template: "This chat has run {{.Turn}} turns on {{.Branch}}{{if .Elapsed}}, {{.Elapsed}} since the last message{{end}}."
  - id: slice
    template: "{{slice .Content 0 20}}"
`)
	var b bytes.Buffer
	d := time.Minute
	if err := f.Reminders[0].Template.Execute(&b, TemplateData{Turn: 7, Branch: "main-v2", Elapsed: &d}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "This chat has run 7 turns on main-v2, 1m0s since the last message."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	b.Reset()
	if err := f.Reminders[0].Template.Execute(&b, TemplateData{Turn: 1, Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "This chat has run 1 turns on main."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if f.Reminders[1].Template == nil {
		t.Errorf("got no template for a slice past the sample content, want one (the real content may be longer)")
	}
}

func TestTemplateOutputLimit(t *testing.T) {
	_, err := Parse("t.ctx.yaml", []byte("reminders:\n  - id: a\n    template: \"{{range 100000}}xxxxxxxxxx{{end}}\"\n"))
	if err == nil || !strings.Contains(err.Error(), "renders more than 64 KiB") {
		t.Errorf("got %v, want an error about the output size", err)
	}
}

func TestTools(t *testing.T) {
	f := mustParse(t, `
tools:
  - name: run_sql
    description: Run a read-only SQL query
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    result: '[{"count": 42}]'
  - name: fail
    error: permission denied
  - name: structured
    result: {rows: [1, 2], ok: true}
`)
	if len(f.Tools) != 3 {
		t.Fatalf("got %d tools, want 3", len(f.Tools))
	}
	sql := f.Tool("run_sql")
	if sql == nil || sql.Description != "Run a read-only SQL query" || sql.Result != `[{"count": 42}]` || sql.IsError {
		t.Errorf("got %+v", sql)
	}
	if got, want := string(sql.Parameters), `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`; got != want {
		t.Errorf("got parameters %s, want %s", got, want)
	}
	if fail := f.Tool("fail"); fail == nil || !fail.IsError || fail.Error != "permission denied" || fail.Result != "" {
		t.Errorf("got %+v, want a canned error", fail)
	}
	if got, want := f.Tool("structured").Result, `{"rows":[1,2],"ok":true}`; got != want {
		t.Errorf("got result %s, want %s", got, want)
	}
	if f.Tool("nope") != nil {
		t.Errorf("got a tool for an unknown name")
	}
}

func TestModelDefaults(t *testing.T) {
	f := mustParse(t, "model: {name: gpt-4o-mini, temperature: 0.2, top_p: 1, max_tokens: 1024, seed: 7}\n")
	m := f.Model
	if m.Name != "gpt-4o-mini" || m.Temperature == nil || *m.Temperature != 0.2 || m.TopP == nil || *m.TopP != 1 ||
		m.MaxTokens != 1024 || m.Seed == nil || *m.Seed != 7 {
		t.Errorf("got %+v", m)
	}
	if m := mustParse(t, "model: {name: x}\n").Model; m.Temperature != nil || m.TopP != nil || m.Seed != nil {
		t.Errorf("got %+v, want unset temperature, top_p and seed", m)
	}
}

// TestSpecExample loads the example of spec/context-file.md (with the files it names).
func TestSpecExample(t *testing.T) {
	f, err := Load(filepath.Join("testdata", "spec", "example.ctx.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Dir != filepath.Join("testdata", "spec") || f.Renderer != "xml" || f.GroupFragments || !f.ExplainReminders {
		t.Errorf("got dir %q renderer %q group %v explain %v", f.Dir, f.Renderer, f.GroupFragments, f.ExplainReminders)
	}
	if f.Model.Name != "gpt-4o-mini" || *f.Model.Temperature != 0.2 || f.Model.MaxTokens != 1024 {
		t.Errorf("got model %+v", f.Model)
	}
	if got := len(f.System); got != 9 {
		t.Errorf("got %d system fragments, want 9", got)
	}
	if len(f.Skills) != 2 || f.SkillIndex == nil {
		t.Errorf("got skills %+v, want charts and sql", f.Skills)
	}
	if f.Classifiers["topics"] == nil {
		t.Errorf("got no topics classifier")
	}
	var ids []string
	for _, r := range f.Reminders {
		ids = append(ids, r.ID)
	}
	if got, want := strings.Join(ids, ","), "concise,sql-safety,long-chat,builtin:date,builtin:skills"; got != want {
		t.Errorf("got reminders %s, want %s", got, want)
	}
	if r := f.Reminders[3]; r.TZ != "Asia/Tokyo" {
		t.Errorf("got date tz %q, want Asia/Tokyo", r.TZ)
	}
	if r := f.Reminders[4]; r.TopN != 3 || r.Threshold != 0.5 {
		t.Errorf("got skills top_n %d threshold %g, want 3 0.5", r.TopN, r.Threshold)
	}
	if r := f.Reminders[1]; r.Placement != PlacePart || r.Tier != TierSafety || !strings.HasPrefix(r.Text, "<workflow>") {
		t.Errorf("got %+v", r)
	}
	if r := f.Reminders[2]; r.MaxPerChat != 2 || r.MinTurnsBetween != 3 || r.Template == nil {
		t.Errorf("got %+v", r)
	}
	if in := f.Instructions[1]; in.Mode != "Booking" || len(in.When) != 2 || in.When[1] != "!the user already chose" || len(in.If) != 1 {
		t.Errorf("got %+v", in)
	}
	if f.Instructions[0].Kind != KindMust {
		t.Errorf("got kind %q, want must", f.Instructions[0].Kind)
	}
	if tool := f.Tool("run_sql"); tool == nil || tool.Result != `[{"count": 42}]` {
		t.Errorf("got tool %+v", tool)
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.ctx.yaml"))
	if err == nil || !strings.HasSuffix(err.Error(), "nope.ctx.yaml: no such file") || !diag.IsInvalidInput(err) {
		t.Errorf("got %v, want FILE: no such file, an invalid input", err)
	}
}

func TestAliases(t *testing.T) {
	f := mustParse(t, `
instructions:
  - id: a
    prompt: &p Validate dates.
    if: &conds [afterTurn(1), not(once())]
  - id: b
    prompt: *p
    if: *conds
`)
	if len(f.Instructions[1].If) != 2 || f.Instructions[1].Prompt != "Validate dates." {
		t.Errorf("got %+v, want the aliased prompt and conditions", f.Instructions[1])
	}
}
