package fragment

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// firstItem parses src (a YAML list) and returns its first item.
func firstItem(t testing.TB, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.SequenceNode {
		t.Fatalf("test input is not a list: %q", src)
	}
	return doc.Content[0].Content[0]
}

var testOpt = DecodeOptions{File: "ctx.yaml", BaseDir: "testdata"}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown kind near", "- hnit: x", `ctx.yaml:1:3: unknown fragment kind "hnit"; did you mean hint?`},
		{"unknown kind case", "- style_guide: x", `ctx.yaml:1:3: unknown fragment kind "style_guide"; did you mean styleGuide?`},
		{"unknown kind far", "- zzzzzzzz: x", `ctx.yaml:1:3: unknown fragment kind "zzzzzzzz" (known kinds: role, hint, term, guardrail, explain, example, clarification, workflow, quirk, styleGuide, analogy, glossary, principle, policy, identity, persona, alias, preference, correction, fragment, skills)`},
		{"mis-indented fields", "- guardrail:\n  rule: x\n",
			"ctx.yaml:1:3: guardrail needs a text or a mapping with rule\n" +
				`ctx.yaml:2:3: unexpected key "rule" beside "guardrail": a fragment has exactly one key naming its kind (check the indentation of its fields)`},
		{"unknown field", "- guardrail: {rule: x, reasn: y}", `ctx.yaml:1:24: unknown field "reasn" in guardrail; did you mean reason?`},
		{"unknown field far", "- term: {name: a, definition: b, zzzzzz: c}", `ctx.yaml:1:34: unknown field "zzzzzz" in term (fields: name, definition)`},
		{"steps not a list", "- workflow: {task: Deploy, steps: Build}", "ctx.yaml:1:35: workflow.steps must be a list of texts, got a text"},
		{"steps item mapping", "- workflow: {task: Deploy, steps: [Build, {a: b}]}", "ctx.yaml:1:43: workflow.steps[1] must be a text, got a mapping"},
		{"steps empty", "- workflow: {task: Deploy, steps: []}", "ctx.yaml:1:35: workflow.steps is empty"},
		{"missing one", "- term: {name: MRR}", `ctx.yaml:1:3: term is missing "definition"`},
		{"missing two", "- workflow: {notes: x}", `ctx.yaml:1:3: workflow is missing "task" and "steps"`},
		{"text for mapping kind", "- term: MRR", "ctx.yaml:1:9: term needs a mapping with name and definition, got a text"},
		{"mapping for text kind", "- hint: {text: x}", "ctx.yaml:1:9: hint needs a text, got a mapping"},
		{"list for text kind", "- hint: [a]", "ctx.yaml:1:9: hint needs a text, got a list"},
		{"null text", "- hint:", "ctx.yaml:1:3: hint needs a text"},
		{"empty text", `- hint: ""`, "ctx.yaml:1:9: hint is empty"},
		{"empty required field", `- term: {name: "", definition: x}`, "ctx.yaml:1:16: term.name is empty"},
		{"null required field", "- term:\n    name:\n    definition: x\n", "ctx.yaml:2:5: term.name is empty"},
		{"field not text", "- term: {name: [a], definition: x}", "ctx.yaml:1:16: term.name must be a text, got a list"},
		{"duplicate field", "- term: {name: a, name: b, definition: c}", `ctx.yaml:1:19: duplicate field "name" in term`},
		{"identity empty", "- identity: {}", "ctx.yaml:1:3: identity needs a text or a mapping with name or role"},
		{"not a mapping", "- just text", "ctx.yaml:1:3: a fragment must be a mapping with one key naming its kind, like `hint: text`; got a text"},
		{"empty mapping", "- {}", "ctx.yaml:1:3: empty fragment: expected one key naming its kind (" + strings.Join(Kinds(), ", ") + ")"},
		{"kind not a name", "- [a]: x", "ctx.yaml:1:3: the fragment kind must be a name like hint, got a list"},
		{"policies item", "- principle: {title: t, description: d, policies: [[a]]}", "ctx.yaml:1:52: principle.policies[0] must be a text or a policy mapping, got a list"},
		{"nested policy missing rule", "- principle: {title: t, description: d, policies: [{before: x}]}", `ctx.yaml:1:52: principle.policies[0] is missing "rule"`},
		{"nested policy unknown field", "- policy: {rule: r, policies: [{rule: a, befor: b}]}", `ctx.yaml:1:42: unknown field "befor" in policy.policies[0]; did you mean before?`},
		{"several problems sorted", "- example: {anser: x, question: [q]}",
			`ctx.yaml:1:3: example is missing "answer"` + "\n" +
				`ctx.yaml:1:13: unknown field "anser" in example; did you mean answer?` + "\n" +
				"ctx.yaml:1:33: example.question must be a text, got a list"},

		{"glossary not mapping", "- glossary: [a]", "ctx.yaml:1:13: glossary needs a mapping of term to expression, got a list"},
		{"glossary null", "- glossary:", "ctx.yaml:1:3: glossary needs a mapping of term to expression"},
		{"glossary empty", "- glossary: {}", "ctx.yaml:1:13: glossary is empty"},
		{"glossary bad expression", "- glossary:\n    revenue: [a]\n", `ctx.yaml:2:14: glossary expression of "revenue" must be a text, got a list`},
		{"glossary duplicate", "- glossary: {a: x, a: y}", `ctx.yaml:1:20: duplicate glossary term "a"`},

		{"fragment no content", "- fragment: {name: x}", "ctx.yaml:1:3: fragment needs one of children, data or file"},
		{"fragment two contents", "- fragment: {name: x, data: 1, file: ./a}", "ctx.yaml:1:32: fragment takes only one of children, data or file; got data and file"},
		{"fragment no name", "- fragment: {data: 1}", `ctx.yaml:1:3: fragment is missing "name"`},
		{"fragment bad name", "- fragment: {name: sql guidelines, data: 1}", `ctx.yaml:1:20: fragment name "sql guidelines" is not a valid name: use letters, digits, _ - or ., starting with a letter or _`},
		{"fragment name digit", "- fragment: {name: 1st, data: 1}", `ctx.yaml:1:20: fragment name "1st" is not a valid name: use letters, digits, _ - or ., starting with a letter or _`},
		{"fragment unknown field", "- fragment: {name: x, childs: []}", "ctx.yaml:1:3: fragment needs one of children, data or file\n" +
			`ctx.yaml:1:23: unknown field "childs" in fragment; did you mean children?`},
		{"fragment not mapping", "- fragment: text", "ctx.yaml:1:13: fragment needs a mapping with name and one of children, data or file, got a text"},
		{"children empty", "- fragment: {name: x, children: []}", "ctx.yaml:1:33: fragment.children is empty"},
		{"children text", "- fragment: {name: x, children: hint}", "ctx.yaml:1:33: fragment.children must be a list of fragments, got a text"},
		{"children nested error", "- fragment:\n    name: x\n    children:\n      - hint: ok\n      - hnit: y\n", `ctx.yaml:5:9: unknown fragment kind "hnit"; did you mean hint?`},
		{"data null", "- fragment: {name: x, data: }", "ctx.yaml:1:23: fragment.data is empty"},
		{"data duplicate key", "- fragment: {name: x, data: {a: 1, a: 2}}", `ctx.yaml:1:36: duplicate key "a" in fragment.data`},
		{"data merge key", "- fragment:\n    name: x\n    data:\n      <<: {a: 1}\n", "ctx.yaml:4:7: merge keys (<<) are not supported in fragment.data"},
		{"data bad key", "- fragment: {name: x, data: {[a]: 1}}", "ctx.yaml:1:30: keys in fragment.data must be texts, got a list"},
		{"file missing", "- fragment: {name: schema, file: ./nope.sql}", "ctx.yaml:1:34: ./nope.sql: no such file"},
		{"file is dir", "- fragment: {name: s, file: ./skills}", "ctx.yaml:1:29: ./skills: is a directory, not a file"},
		{"file not path", "- fragment: {name: s, file: [a]}", "ctx.yaml:1:29: fragment.file must be a path, got a list"},

		{"skills missing", "- skills: ./nope", "ctx.yaml:1:11: ./nope: no such directory"},
		{"skills not dir", "- skills: ./schema.sql", "ctx.yaml:1:11: ./schema.sql: not a directory"},
		{"skills null", "- skills:", "ctx.yaml:1:3: skills needs the path of a folder of */SKILL.md files, got nothing"},
		{"skills empty folder", "- skills: ./golden", "ctx.yaml:1:11: ./golden: no */SKILL.md file in this folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Decode(firstItem(t, tt.src), testOpt)
			if err == nil {
				t.Fatalf("got %#v and no error, want %q", f, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got error\n%s\nwant\n%s", got, tt.want)
			}
			if !diag.IsInvalidInput(err) {
				t.Errorf("got error of type %T, want *diag.Error or diag.List", err)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, src string
		want      Fragment
	}{
		{"role", "- role: You are X.", Role("You are X.")},
		{"hint number", "- hint: 42", Hint("42")},
		{"term any order", "- term: {definition: d, name: n}", Term("n", "d")},
		{"guardrail text", "- guardrail: Never expose PII", Text("guardrail", "Never expose PII")},
		{"guardrail mapping", "- guardrail: {action: a, rule: r}", Guardrail("r", "", "a")},
		{"example scalars", "- example: {question: q, answer: 42, note: ''}", Example("q", "42", "")},
		{"workflow", "- workflow: {task: Deploy, steps: [Build, 2], triggers: [], notes: n}",
			Workflow("Deploy", []string{"Build", "2"}, nil, "n")},
		{"analogy", "- analogy: {relationship: r, concepts: [a, b], pitfall: p}",
			Analogy([]string{"a", "b"}, "r", "", "", "p")},
		{"glossary order", "- glossary:\n    revenue: SUM(x)\n    active user: y\n",
			Glossary(GlossaryEntry{"revenue", "SUM(x)"}, GlossaryEntry{"active user", "y"})},
		{"principle policies", "- principle: {title: t, description: d, policies: [p1, {rule: r, policies: [s]}]}",
			Principle("t", "d", String("p1"), Policy("r", "", "", String("s")))},
		{"principle text", "- principle: Prefer clarity", Text("principle", "Prefer clarity")},
		{"identity role only", "- identity: {role: VP}", Identity("", "VP")},
		{"identity text", "- identity: VP of Sales", Text("identity", "VP of Sales")},
		{"persona", "- persona: {name: F, role: R}", Persona("F", "R", "", "")},
		{"persona objective", "- persona: {tone: T, objective: O, role: R, name: F}", Persona("F", "R", "O", "T")},
		{"alias", "- alias: {term: t, meaning: m}", Alias("t", "m")},
		{"preference", "- preference: {aspect: a, value: v}", Preference("a", "v")},
		{"correction", "- correction: {subject: s, clarification: c}", Correction("s", "c")},
		{"quirk", "- quirk: {issue: i, workaround: w}", Quirk("i", "w")},
		{"explain", "- explain: {concept: c, explanation: e}", Explain("c", "e", "")},
		{"clarification", "- clarification: {when: w, ask: a, reason: r}", Clarification("w", "a", "r")},
		{"styleGuide", "- styleGuide: {prefer: p, always: a}", StyleGuide("p", "", "a")},
		{"children", "- fragment:\n    name: sql_guidelines\n    children:\n      - hint: a\n      - hint: b\n",
			Group("sql_guidelines", Hint("a"), Hint("b"))},
		{"data", "- fragment: {name: d, data: {b: 1, a: [x, 2.5, true, null, 0x10], c: {d: ~}, t: 2026-01-02}}",
			New("d", Object{
				{"b", Int(1)},
				{"a", List{String("x"), Float(2.5), Bool(true), Int(16)}},
				{"c", Object{}},
				{"t", String("2026-01-02")},
			})},
		{"data scalar", "- fragment: {name: n, data: .inf}", New("n", Float(posInf()))},
		{"data empty text", "- fragment: {name: n, data: ''}", New("n", String(""))},
		{"data empty list", "- fragment: {name: n, data: []}", New("n", List{})},
		{"data empty mapping", "- fragment: {name: n, data: {}}", New("n", Object{})},
		{"data of nulls", "- fragment: {name: n, data: {a: ~, b: [~]}}", New("n", Object{{"b", List{}}})},
		{"data alias", "- fragment:\n    name: n\n    data: &a {x: 1}\n", New("n", Object{{"x", Int(1)}})},
		{"file", "- fragment: {name: schema, file: ./schema.sql}", New("schema", FileText(mustRead(t, "testdata/schema.sql")))},
		{"skills", "- skills: ./skills", SkillsFragment([]Skill{
			{Name: "charts", Description: "Turn query results into clear charts.", Path: "skills/charts/SKILL.md"},
			{Name: "sql", Description: "Write and debug read-only SQL queries against the warehouse.", Path: "skills/sql/SKILL.md"},
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(firstItem(t, tt.src), testOpt)
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func posInf() float64 { return 1 / zero }

var zero = 0.0

// mustRead returns a file without its final newline, as `file:` does.
func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// TestDecodeReminderForm decodes the value of a reminder's `fragment:` key, and a document.
func TestDecodeReminderForm(t *testing.T) {
	var doc yaml.Node
	src := "id: sql-safety\nfragment: {workflow: {task: Error recovery, steps: [Read the error, Check the schema]}}\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(doc.Content[0].Content[3], testOpt)
	if err != nil {
		t.Fatal(err)
	}
	want := Workflow("Error recovery", []string{"Read the error", "Check the schema"}, nil, "")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
	var one yaml.Node
	if err := yaml.Unmarshal([]byte("hint: h\n"), &one); err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(&one, testOpt); err != nil || !reflect.DeepEqual(got, Hint("h")) {
		t.Errorf("document: got %#v, %v, want %#v", got, err, Hint("h"))
	}
}

func TestDecodeFileNewlines(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("crlf.txt", "a\r\nb\r\n")
	write("two.txt", "a\n\n")
	write("empty.txt", "")
	write("latin1.txt", "caf\xe9\nna\xefve")
	write("nul.txt", "one\ntw\x00o")
	opt := DecodeOptions{File: filepath.Join(dir, "x.ctx.yaml")} // BaseDir defaults to the file's directory
	tests := []struct{ file, want, err string }{
		{"crlf.txt", "a\nb", ""},
		{"two.txt", "a\n", ""}, // only the final newline is dropped
		{"empty.txt", "", "./empty.txt: file is empty"},
		{"latin1.txt", "", "./latin1.txt: invalid UTF-8 (byte 0xe9) at line 1, column 4: a file: fragment is UTF-8 text"},
		{"nul.txt", "", "./nul.txt: a NUL byte at line 2, column 3: a file: fragment is text"},
	}
	for _, tt := range tests {
		got, err := Decode(firstItem(t, "- fragment: {name: f, file: ./"+tt.file+"}"), opt)
		if tt.err != "" {
			if err == nil || !strings.HasSuffix(err.Error(), tt.err) {
				t.Errorf("%s: got error %v, want ...%s", tt.file, err, tt.err)
			}
			continue
		}
		if err != nil || got.Data != FileText(tt.want) {
			t.Errorf("%s: got %#v, %v, want %q", tt.file, got.Data, err, tt.want)
		}
	}
}

func TestDecodeLimits(t *testing.T) {
	// a billion laughs: each level doubles the nodes an alias walk visits
	var b strings.Builder
	b.WriteString("- fragment:\n    name: x\n    data:\n      a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		prev := "*a" + string(rune('0'+(i-1)%10)) + strings.Repeat("z", (i-1)/10)
		name := "a" + string(rune('0'+i%10)) + strings.Repeat("z", i/10)
		b.WriteString("      " + name + ": &" + name + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	_, err := Decode(firstItem(t, b.String()), testOpt)
	if err == nil || !strings.Contains(err.Error(), "too many YAML nodes") {
		t.Errorf("got %v, want a too-many-nodes error", err)
	}

	deep := "- fragment: {name: x, children: [" + strings.Repeat("{fragment: {name: x, children: [", 70) + "{hint: h}" + strings.Repeat("]}}", 70) + "]}"
	_, err = Decode(firstItem(t, deep), testOpt)
	if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("got %v, want a nesting error", err)
	}
}

func TestDecodeHandMadeNodes(t *testing.T) {
	if _, err := Decode(nil, testOpt); err == nil || err.Error() != "ctx.yaml: no fragment to decode" {
		t.Errorf("nil node: got %v", err)
	}
	dangling := &yaml.Node{Kind: yaml.MappingNode, Line: 3, Column: 5, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "hint", Line: 3, Column: 5},
		{Kind: yaml.AliasNode, Value: "gone", Line: 3, Column: 11},
	}}
	if _, err := Decode(dangling, testOpt); err == nil || err.Error() != `ctx.yaml:3:11: alias "gone" does not resolve` {
		t.Errorf("dangling alias: got %v", err)
	}
	if _, err := Decode(&yaml.Node{}, testOpt); err == nil {
		t.Error("zero node: got no error")
	}
}

func TestDecodeErrorTypes(t *testing.T) {
	_, err := Decode(firstItem(t, "- hnit: x"), testOpt)
	var de *diag.Error
	if !errors.As(err, &de) || de.Line != 1 || de.Col != 3 || de.File != "ctx.yaml" {
		t.Errorf("got %#v, want a *diag.Error at ctx.yaml:1:3", err)
	}
	_, err = Decode(firstItem(t, "- example: {anser: x}"), testOpt)
	var dl diag.List
	if !errors.As(err, &dl) || len(dl) != 2 {
		t.Errorf("got %#v, want a diag.List of 2", err)
	}
}

func TestNearest(t *testing.T) {
	tests := []struct {
		got  string
		want []string
	}{
		{"hnit", []string{"hint"}},
		{"Hint", []string{"hint"}},
		{"rol", []string{"role"}},
		{"exemple", []string{"example"}},
		{"glosary", []string{"glossary"}},
		{"frag", []string{"fragment"}},
		{"qqqqqqq", []string{}},
	}
	for _, tt := range tests {
		got := diag.Suggest(tt.got, Kinds())
		if len(got) == 0 && len(tt.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("diag.Suggest(%q, Kinds()) = %v, want %v", tt.got, got, tt.want)
		}
	}
}
