package fragment

import (
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// loadRich decodes every entry of testdata/rich.ctx.yaml.
func loadRich(t testing.TB) []Fragment {
	t.Helper()
	return loadFixture(t, "testdata/rich.ctx.yaml")
}

// loadFixture decodes every entry of the system list of a context file under testdata.
func loadFixture(t testing.TB, path string) []Fragment {
	t.Helper()
	var frags []Fragment
	for _, n := range systemNodes(t, path) {
		f, err := Decode(n, DecodeOptions{File: path})
		if err != nil {
			t.Fatal(err)
		}
		frags = append(frags, f)
	}
	return frags
}

// richNodes returns the entries of the system list of testdata/rich.ctx.yaml.
func richNodes(t testing.TB) []*yaml.Node {
	t.Helper()
	return systemNodes(t, "testdata/rich.ctx.yaml")
}

// systemNodes returns the entries of the system list of a context file.
func systemNodes(t testing.TB, path string) []*yaml.Node {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0].Content[1].Content
}

var goldenExt = map[string]string{FormatXML: "xml", FormatMarkdown: "md", FormatTOML: "toml", FormatTOON: "toon"}

// TestGolden renders the fixtures under testdata in every format and compares the output with
// testdata/golden. rich.ctx.yaml holds every kind and is rendered with and without
// group_fragments.
//
// reference.ctx.yaml holds fragments rendered by @deepagents/context 0.29.1 for comparison
// (persona with objective, empty data, fragments with children); its goldens are the
// reference's output except where the spec says otherwise:
//   - empty data renders nothing in every format: the reference writes `<blank></blank>` and
//     `<note></note>` in XML, a heading with nothing under it and `- **note**: ` bullets in
//     Markdown, `blank = ""`, `nothing = []` and `[void]` in TOML, and `blank: ""`,
//     `nothing[0]:`, `void:` in TOON;
//   - TOML is valid TOML: children of the same name share one key holding an array (the
//     reference repeats `hint = …`, which TOML parsers refuse).
func TestGolden(t *testing.T) {
	type fixture struct {
		name   string
		groups []bool
	}
	for _, fx := range []fixture{{"rich", []bool{false, true}}, {"reference", []bool{false}}} {
		frags := loadFixture(t, filepath.Join("testdata", fx.name+".ctx.yaml"))
		for _, format := range Formats() {
			for _, group := range fx.groups {
				name := fx.name + "." + goldenExt[format]
				if group {
					name = fx.name + ".grouped." + goldenExt[format]
				}
				goldenCase(t, name, frags, format, group)
			}
		}
	}
}

// goldenCase renders frags and compares the output with testdata/golden/NAME.
func goldenCase(t *testing.T, name string, frags []Fragment, format string, group bool) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		got, err := Render(frags, format, Options{GroupFragments: group})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if got+"\n" != string(want) {
			t.Errorf("output differs from %s (run go test -update and review the diff):\n%s", path, got)
		}
		checkLines(t, got)
		switch format {
		case FormatXML:
			checkXML(t, got)
		case FormatTOML:
			parseTOML(t, got)
		}
	})
}

// checkLines fails on trailing blanks, tab indentation and JavaScript leftovers.
func checkLines(t *testing.T, out string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if strings.TrimRight(line, " \t") != line {
			t.Errorf("line %d ends with blanks: %q", i+1, line)
		}
		if strings.HasPrefix(line, "\t") {
			t.Errorf("line %d is indented with a tab: %q", i+1, line)
		}
	}
	for _, bad := range []string{"[object Object]", "undefined", "<nil>", "%!"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q", bad)
		}
	}
}

// checkXML fails unless out is a well-formed sequence of XML elements.
func checkXML(t testing.TB, out string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader("<root>" + out + "</root>"))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, out)
		}
	}
}

// parseTOML parses out and returns the document.
func parseTOML(t testing.TB, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := toml.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("invalid TOML: %v\n%s", err, out)
	}
	return m
}

// TestTOMLRichValues checks what the rich TOML means once parsed back.
func TestTOMLRichValues(t *testing.T) {
	out, _ := Render(loadRich(t), FormatTOML, Options{})
	m := parseTOML(t, out)
	get := func(path ...any) any {
		var v any = m
		for _, p := range path {
			switch k := p.(type) {
			case string:
				v = v.(map[string]any)[k]
			case int:
				v = v.([]any)[k]
			}
		}
		return v
	}
	tests := []struct {
		path []any
		want any
	}{
		{[]any{"role"}, "You are a careful data analyst for Acme."},
		{[]any{"hint", 1}, "Prefer CTEs.\n\nNever use SELECT * in \"production\" & <staging>."},
		{[]any{"schema"}, mustRead(t, "testdata/schema.sql")},
		{[]any{"note"}, "Amounts are in cents.\nDates are in UTC.\n"},
		{[]any{"workflow", "steps"}, []any{"Build", "Test", "Ship"}},
		{[]any{"guardrail", 1}, "Never drop tables"},
		{[]any{"glossary", "entry", 1, "expression"}, "last_login > NOW() - INTERVAL '30 days'"},
		{[]any{"sql_guidelines", "limits", "max_rows"}, int64(500)},
		{[]any{"sql_guidelines", "limits", "timeout_s"}, 2.5},
		{[]any{"reports", "rows", 1, "name"}, "Bob"},
		{[]any{"available_skills", "skill", 1, "path"}, "skills/sql/SKILL.md"},
	}
	for _, tt := range tests {
		if got := get(tt.path...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%v = %#v, want %#v", tt.path, got, tt.want)
		}
	}
}

type renderCase struct {
	name  string
	frags []Fragment
	group bool
	want  string
}

func runRenderCases(t *testing.T, format string, tests []renderCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(tt.frags, format, Options{GroupFragments: tt.group})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			switch format {
			case FormatXML:
				checkXML(t, got)
			case FormatTOML:
				parseTOML(t, got)
			}
		})
	}
}

func TestXML(t *testing.T) {
	runRenderCases(t, FormatXML, []renderCase{
		{"escape", []Fragment{Hint(`a & b < c > d "e" 'f'`)}, false,
			`<hint>a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;</hint>`},
		{"multi-line", []Fragment{Hint("line1\n\n  \nline2\n")}, false,
			"<hint>\n  line1\n\n\n  line2\n</hint>"},
		{"nested multi-line", []Fragment{New("x", Object{{"a", String("1\n 2")}})}, false,
			"<x>\n  <a>\n    1\n     2\n  </a>\n</x>"},
		{"crlf", []Fragment{Hint("a\r\nb")}, false, "<hint>\n  a\n  b\n</hint>"},
		{"control characters", []Fragment{Hint("a\x01b\rc\xff")}, false, "<hint>a\uFFFDb&#xD;c\uFFFD</hint>"},
		{"empties render nothing", []Fragment{
			Hint(""), New("o", Object{}), New("l", List{}), New("n", nil),
			New("deep", Object{{"a", Object{{"b", List{String("")}}}}}),
			Group("g", Hint("")), New("f", Hint("")), Hint("kept"),
		}, false, "<hint>kept</hint>"},
		{"singular of array keys", []Fragment{New("x", Object{{"queries", Strings("a", "b")}, {"policies", Strings("p")}})}, false,
			"<x>\n  <queries>\n    <query>a</query>\n    <query>b</query>\n  </queries>\n  <policies>\n    <policy>p</policy>\n  </policies>\n</x>"},
		{"objects in lists", []Fragment{New("rows", List{Object{{"id", Int(1)}, {"name", String("a")}}})}, false,
			"<rows>\n  <row>\n    <id>1</id>\n    <name>a</name>\n  </row>\n</rows>"},
		{"scalars", []Fragment{New("n", Object{{"i", Int(-3)}, {"f", Float(2.5)}, {"big", Float(1e21)}, {"b", Bool(false)}})}, false,
			"<n>\n  <i>-3</i>\n  <f>2.5</f>\n  <big>1e+21</big>\n  <b>false</b>\n</n>"},
		{"nested fragment", []Fragment{New("outer", Hint("h"))}, false, "<outer>\n  <hint>h</hint>\n</outer>"},
		{"mixed list keeps order", []Fragment{New("items", List{String("a"), Hint("h"), String("b")})}, false,
			"<items>\n  <item>a</item>\n  <hint>h</hint>\n  <item>b</item>\n</items>"},
		{"glossary", []Fragment{Glossary(GlossaryEntry{"revenue", "SUM(x)"}, GlossaryEntry{"churn", "a < b"})}, false,
			"<glossary>\n  <entry>\n    <term>revenue</term>\n    <expression>SUM(x)</expression>\n  </entry>\n" +
				"  <entry>\n    <term>churn</term>\n    <expression>a &lt; b</expression>\n  </entry>\n</glossary>"},
		{"tag names", []Fragment{New("my key", String("1")), New("1st", String("2")), New("", String("3")),
			New("名前", String("4")), New("a:b", String("5"))}, false,
			"<my_key>1</my_key>\n<_1st>2</_1st>\n<_>3</_>\n<名前>4</名前>\n<a_b>5</a_b>"},
		{"group top level by first appearance", []Fragment{Hint("a"), Role("r"), Hint("b")}, true,
			"<hints>\n  <hint>a</hint>\n  <hint>b</hint>\n</hints>\n<roles>\n  <role>r</role>\n</roles>"},
		{"group at every level even once", []Fragment{Group("g", Hint("a"), Term("t", "d"), Hint("b"))}, true,
			"<gs>\n  <g>\n    <hints>\n      <hint>a</hint>\n      <hint>b</hint>\n    </hints>\n" +
				"    <terms>\n      <term>\n        <name>t</name>\n        <definition>d</definition>\n      </term>\n    </terms>\n  </g>\n</gs>"},
		{"group nested fragment data", []Fragment{New("outer", Hint("h"))}, true,
			"<outers>\n  <outer>\n    <hints>\n      <hint>h</hint>\n    </hints>\n  </outer>\n</outers>"},
		{"group glossary", []Fragment{Glossary(GlossaryEntry{"a", "b"})}, true,
			"<glossaries>\n  <glossary>\n    <entries>\n      <entry>\n        <term>a</term>\n        <expression>b</expression>\n      </entry>\n    </entries>\n  </glossary>\n</glossaries>"},
		{"group empty", []Fragment{Hint(""), Group("g", Hint(""))}, true, ""},
		{"nothing", nil, false, ""},
	})
}

func TestMarkdown(t *testing.T) {
	runRenderCases(t, FormatMarkdown, []renderCase{
		{"text", []Fragment{Hint("x")}, false, "## Hint\nx"},
		{"title case", []Fragment{StyleGuide("p", "", "")}, false, "## Style Guide\n- **prefer**: p"},
		{"sections", []Fragment{Role("r"), Term("MRR", "m")}, false,
			"## Role\nr\n\n## Term\n- **name**: MRR\n- **definition**: m"},
		{"objects in lists", []Fragment{New("rows", List{Object{{"id", Int(1)}, {"name", String("a")}}, Object{{"id", Int(2)}}})}, false,
			"## Rows\n- **row**:\n  - **id**: 1\n  - **name**: a\n- **row**:\n  - **id**: 2"},
		{"objects in object lists", []Fragment{New("r", Object{{"queries", List{Object{{"q", String("x")}}}}})}, false,
			"## R\n- **queries**:\n  - **query**:\n    - **q**: x"},
		{"multi-line value", []Fragment{New("x", Object{{"a", String("1\n\n2")}})}, false, "## X\n- **a**:\n  1\n\n  2"},
		{"multi-line item", []Fragment{New("x", Strings("a\nb", "c"))}, false, "## X\n- a\n  b\n- c"},
		{"multi-line top", []Fragment{Role("a\n\nb\n")}, false, "## Role\na\n\nb"},
		{"nested lists", []Fragment{New("m", List{List{Int(1), Int(2)}})}, false, "## M\n- **m**:\n  - 1\n  - 2"},
		{"children", []Fragment{Group("sql_guidelines", Hint("a"), Hint("b"))}, false,
			"## Sql Guidelines\n- **hint**: a\n- **hint**: b"},
		{"empties", []Fragment{Hint(""), New("o", Object{}), New("x", Object{{"e", List{}}}), Hint("k")}, false, "## Hint\nk"},
		{"group", []Fragment{Hint("a"), Role("r"), Hint("b")}, true,
			"## Hints\n- **hint**: a\n- **hint**: b\n\n## Roles\n- **role**: r"},
		{"group nested", []Fragment{Group("g", Hint("a"))}, true, "## Gs\n- **g**:\n  - **hints**:\n    - **hint**: a"},
	})
}

func TestTOML(t *testing.T) {
	runRenderCases(t, FormatTOML, []renderCase{
		{"text", []Fragment{Hint("a")}, false, `hint = "a"`},
		{"repeated names make a list", []Fragment{Hint("a"), Hint("b")}, false, `hint = ["a", "b"]`},
		{"scalars before tables", []Fragment{Term("n", "d"), Hint("late")}, false,
			"hint = \"late\"\n\n[term]\nname = \"n\"\ndefinition = \"d\""},
		{"quoted keys", []Fragment{New("my key", Object{{"a.b", String("x")}, {"ok_key-1", Int(1)}, {"", Bool(true)}})}, false,
			"[\"my key\"]\n\"a.b\" = \"x\"\nok_key-1 = 1\n\"\" = true"},
		{"multi-line string", []Fragment{Hint("say \"hi\"\nC:\\path\n\"\"\"\nend\"")}, false,
			"hint = \"\"\"\nsay \"hi\"\nC:\\\\path\n\\\"\\\"\"\nend\\\"\"\"\""},
		{"floats", []Fragment{New("n", Object{{"a", Float(3)}, {"b", Float(math.NaN())}, {"c", Float(math.Inf(-1))}, {"d", Float(1e-7)}})}, false,
			"[n]\na = 3.0\nb = nan\nc = -inf\nd = 1e-07"},
		{"control characters", []Fragment{Hint("a\x01\x7fb\tc\rd")}, false, "hint = \"a\\u0001\\u007Fb\tc\\rd\""},
		{"mixed list", []Fragment{New("l", List{String("a"), Hint("h")})}, false, "l = [\n  \"a\",\n  { hint = \"h\" },\n]"},
		{"inline table in list", []Fragment{New("o", Object{{"l", List{Object{{"a", Int(1)}}, String("b")}}})}, false,
			"[o]\nl = [\n  { a = 1 },\n  \"b\",\n]"},
		{"spread list", []Fragment{Hint("a\nb"), Hint("c")}, false, "hint = [\n  \"\"\"\na\nb\"\"\",\n  \"c\",\n]"},
		{"arrays of tables in arrays of tables", []Fragment{
			New("t", Object{{"x", Int(1)}, {"sub", List{Object{{"y", Int(2)}}, Object{{"y", Int(3)}}}}}),
			New("t", Object{{"x", Int(4)}, {"o", Object{{"z", String("w")}}}}),
		}, false,
			"[[t]]\nx = 1\n\n[[t.sub]]\ny = 2\n\n[[t.sub]]\ny = 3\n\n[[t]]\nx = 4\n\n[t.o]\nz = \"w\""},
		{"group", []Fragment{Hint("a"), Term("n", "d")}, true,
			"hints = [\"a\"]\n\n[[terms]]\nname = \"n\"\ndefinition = \"d\""},
		{"nothing", nil, false, ""},
	})
}

// TestTOMLRoundTrip: a text always comes back from the TOML it renders to.
func TestTOMLRoundTrip(t *testing.T) {
	for _, s := range []string{"plain", "two\nlines", "q\"uote", `back\slash`, "\"\"\"", "ends with \"", "tab\there",
		"cr\rhere", "nul\x00here", "del\x7f", "é😀", "trailing\n\n", "\n\nleading", "\"\n\"", "a\\\nb"} {
		for _, frags := range [][]Fragment{{Hint(s)}, {Hint(s), Hint("x")}, {New("o", Object{{"k", String(s)}})}} {
			out, _ := Render(frags, FormatTOML, Options{})
			m := parseTOML(t, out)
			var got any
			switch v := m["hint"].(type) {
			case string:
				got = v
			case []any:
				got = v[0]
			default:
				got = m["o"].(map[string]any)["k"]
			}
			if want := cleanText(s); got != want {
				t.Errorf("%q: got %q back from\n%s", s, got, out)
			}
		}
	}
}

func TestTOON(t *testing.T) {
	runRenderCases(t, FormatTOON, []renderCase{
		{"text", []Fragment{Hint("Use CTEs")}, false, "hint: Use CTEs"},
		{"object", []Fragment{Term("LTV", "Lifetime Value")}, false, "term:\n  name: LTV\n  definition: Lifetime Value"},
		{"primitive array", []Fragment{New("tags", Strings("admin", "ops", "a,b"))}, false, `tags[3]: admin,ops,"a,b"`},
		{"tabular", []Fragment{New("users", List{
			Object{{"id", Int(1)}, {"name", String("Ada")}},
			Object{{"name", String("Bob")}, {"id", Int(2)}},
		})}, false, "users[2]{id,name}:\n  1,Ada\n  2,Bob"},
		{"non-uniform", []Fragment{New("items", List{Object{{"a", Int(1)}}, Object{{"b", Int(2)}}})}, false,
			"items[2]:\n  - a: 1\n  - b: 2"},
		{"nested object in list item", []Fragment{New("items", List{Object{{"name", String("test")}, {"nested", Object{{"x", Int(1)}}}}})}, false,
			"items[1]:\n  - name: test\n    nested:\n      x: 1"},
		{"list item with nested object first", []Fragment{New("items", List{Object{{"nested", Object{{"x", Int(1)}}}, {"n", Int(2)}}, Int(3)})}, false,
			"items[2]:\n  - nested:\n      x: 1\n    n: 2\n  - 3"},
		{"list item with tabular first", []Fragment{New("items", List{
			Object{{"rows", List{Object{{"a", Int(1)}}, Object{{"a", Int(2)}}}}, {"n", Int(3)}},
			String("x"),
		})}, false, "items[2]:\n  - rows[2]{a}:\n      1\n      2\n    n: 3\n  - x"},
		{"arrays of arrays", []Fragment{New("m", List{List{Int(1), Int(2)}, List{String("a")}})}, false,
			"m[2]:\n  - [2]: 1,2\n  - [1]: a"},
		{"numbers", []Fragment{New("n", Object{{"z", Float(math.Copysign(0, -1))}, {"nan", Float(math.NaN())}, {"big", Float(1e21)}, {"f", Float(0.1)}, {"i", Int(-7)}})}, false,
			"n:\n  z: 0\n  nan: null\n  big: 1000000000000000000000\n  f: 0.1\n  i: -7"},
		{"keys", []Fragment{New("my key", String("v")), New("a.b", String("w")), New("1a", String("x"))}, false,
			"\"my key\": v\na.b: w\n\"1a\": x"},
		// Children are a list, one item per child, as the reference's ToonRenderer writes them
		// (checked against @deepagents/context 0.29.1, which gives the same text).
		{"children", []Fragment{Group("container", Hint("Use CTEs"))}, false, "container[1]:\n  - hint: Use CTEs"},
		{"repeated children", []Fragment{Group("t", Hint("a"), Hint("b"))}, false, "t[2]:\n  - hint: a\n  - hint: b"},
		{"children of every shape", []Fragment{Group("checks", Hint("Read the error"), Term("MRR", "monthly"),
			New("limits", Object{{"max_rows", Int(500)}, {"strict", Bool(true)}}))}, false,
			"checks[3]:\n  - hint: Read the error\n  - term:\n      name: MRR\n      definition: monthly\n" +
				"  - limits:\n      max_rows: 500\n      strict: true"},
		{"children never tabular", []Fragment{Group("t", New("a", Object{{"x", Int(1)}}), New("a", Object{{"x", Int(2)}}))}, false,
			"t[2]:\n  - a:\n      x: 1\n  - a:\n      x: 2"},
		{"children beside values", []Fragment{New("t", List{Object{{"hint", String("x")}}, Hint("y"), String("z")})}, false,
			"t[3]:\n  - hint: x\n  - hint: y\n  - z"},
		{"empty children left out", []Fragment{Group("t", Hint(""), New("d", List{}), Hint("a"))}, false, "t[1]:\n  - hint: a"},
		{"only empty children", []Fragment{Group("t", Hint(""), New("d", Object{})), Hint("h")}, false, "hint: h"},
		// Where the reference writes what TOON cannot read back, the TOON form of the same data:
		// the reference gives "outer[2]:\n  - inner:\n      - hint: a\n      - hint: b\n  - hint: c"
		// (list items under a key without an array header) ...
		{"nested children", []Fragment{Group("outer", Group("inner", Hint("a"), Hint("b")), Hint("c"))}, false,
			"outer[2]:\n  - inner[2]:\n      - hint: a\n      - hint: b\n  - hint: c"},
		// ... and "outer[2]:\n  - tags:\n\n  - hint: c" (the array lost).
		{"array child", []Fragment{Group("outer", New("tags", Strings("a", "b")), Hint("c"))}, false,
			"outer[2]:\n  - tags[2]: a,b\n  - hint: c"},
		{"nested fragment data", []Fragment{New("outer", Hint("a"))}, false, "outer:\n  hint: a"},
		{"grouped children", []Fragment{Group("instructions", Hint("a"), Term("n", "d"), Hint("b"), New("data", String("x")))}, true,
			"instructions[3]:\n  - hints[2]: a,b\n  - terms[1]{name,definition}:\n      n,d\n  - data: x"},
		// The reference's glossary is a list of {term, expression} objects: a table.
		{"glossary tabular", []Fragment{Glossary(GlossaryEntry{"revenue", "SUM(x)"}, GlossaryEntry{"churn", "lost: users"})}, false,
			"glossary[2]{term,expression}:\n  revenue,SUM(x)\n  churn,\"lost: users\""},
		// (The reference drops the header of a glossary child: "t[1]:\n  - glossary:\n      a,b".)
		{"glossary as a child", []Fragment{Group("t", Glossary(GlossaryEntry{"a", "b"}))}, false,
			"t[1]:\n  - glossary[1]{term,expression}:\n      a,b"},
		{"empty glossary", []Fragment{Glossary(GlossaryEntry{"", ""}), Hint("h")}, false, "hint: h"},
		{"fragment named glossary", []Fragment{Group("glossary", Hint("a"))}, false, "glossary[1]:\n  - hint: a"},
		{"multi-line text", []Fragment{Hint("a\n\tb \"c\"")}, false, `hint: "a\n\tb \"c\""`},
		{"group", []Fragment{Hint("a"), Term("n", "d")}, true, "hints[1]: a\nterms[1]{name,definition}:\n  n,d"},
		{"nothing", nil, false, ""},
	})
}

func TestTOONQuoting(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"", true}, {" x", true}, {"x ", true}, {"true", true}, {"false", true}, {"null", true},
		{"123", true}, {"-1.5e3", true}, {"05", true}, {"1.", false}, {"a:b", true}, {"a,b", true},
		{"-flag", true}, {"-", true}, {"[x]", true}, {"{x}", true}, {`a"b`, true}, {`a\b`, true},
		{"a\tb", true}, {"a\nb", true}, {"hello world", false}, {"café ☕", false}, {"a|b", false},
		{"True", false}, {"e5", false},
	}
	for _, tt := range tests {
		if got := toonNeedsQuotes(tt.s, ','); got != tt.want {
			t.Errorf("toonNeedsQuotes(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestNewRenderer(t *testing.T) {
	_, err := NewRenderer("yaml", Options{})
	if want := `unknown renderer "yaml" (known: xml, markdown, toml, toon)`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	for _, format := range append(Formats(), "") {
		if _, err := NewRenderer(format, Options{}); err != nil {
			t.Errorf("NewRenderer(%q): %v", format, err)
		}
	}
	def, _ := Render([]Fragment{Hint("h")}, "", Options{})
	if def != "<hint>h</hint>" {
		t.Errorf("default renderer gave %q, want XML", def)
	}
}

// TestRenderConcurrent renders from several goroutines (run with -race to check the caches).
func TestRenderConcurrent(t *testing.T) {
	frags := loadRich(t)
	want, _ := Render(frags, FormatXML, Options{GroupFragments: true})
	done := make(chan string)
	for range 4 {
		go func() {
			out, _ := Render(frags, FormatXML, Options{GroupFragments: true})
			done <- out
		}()
	}
	for range 4 {
		if got := <-done; got != want {
			t.Error("concurrent render differs")
		}
	}
}

// TestRenderEmptyData: a generic fragment whose data is an empty text, list or mapping (or
// holds only empty members) decodes and renders nothing in every format, and the fragments
// around it are untouched; inside a mapping, empty members are left out.
func TestRenderEmptyData(t *testing.T) {
	around := func(data string) string {
		return "- role: r\n- fragment: {name: x, data: " + data + "}\n- hint: h\n"
	}
	bare := map[string]string{
		FormatXML:      "<role>r</role>\n<hint>h</hint>",
		FormatMarkdown: "## Role\nr\n\n## Hint\nh",
		FormatTOML:     "role = \"r\"\n\nhint = \"h\"",
		FormatTOON:     "role: r\nhint: h",
	}
	members := map[string]string{
		FormatXML:      "<role>r</role>\n<x>\n  <b>1</b>\n</x>\n<hint>h</hint>",
		FormatMarkdown: "## Role\nr\n\n## X\n- **b**: 1\n\n## Hint\nh",
		FormatTOML:     "role = \"r\"\n\nhint = \"h\"\n\n[x]\nb = 1",
		FormatTOON:     "role: r\nx:\n  b: 1\nhint: h",
	}
	tests := []struct {
		name, src string
		want      map[string]string
	}{
		{"empty text", around(`""`), bare},
		{"blank block", "- role: r\n- fragment:\n    name: x\n    data: |\n\n- hint: h\n", bare},
		{"empty list", around("[]"), bare},
		{"empty mapping", around("{}"), bare},
		{"list of empties", around(`["", [], {}, ~]`), bare},
		{"mapping of empties", around(`{a: "", b: [], c: {d: ""}, e: ~}`), bare},
		{"empty members", around(`{a: "", b: 1, c: [], d: {}}`), members},
	}
	for _, tt := range tests {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tt.src), &doc); err != nil {
			t.Fatal(err)
		}
		var frags []Fragment
		for _, n := range doc.Content[0].Content {
			f, err := Decode(n, DecodeOptions{File: "ctx.yaml"})
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			frags = append(frags, f)
		}
		for _, format := range Formats() {
			for _, group := range []bool{false, true} {
				got, err := Render(frags, format, Options{GroupFragments: group})
				if err != nil {
					t.Fatal(err)
				}
				if group {
					// grouped too, an empty fragment is as if it were not there
					if tt.want[format] == bare[format] {
						without, _ := Render([]Fragment{frags[0], frags[2]}, format, Options{GroupFragments: true})
						if got != without {
							t.Errorf("%s as grouped %s: got\n%q\nwant\n%q", tt.name, format, got, without)
						}
					}
					continue
				}
				if got != tt.want[format] {
					t.Errorf("%s as %s: got\n%q\nwant\n%q", tt.name, format, got, tt.want[format])
				}
			}
		}
	}
}

// TestRenderFileNewlines: a `file:` fragment loses its final newline ("\n" or "\r\n") and
// nothing more; the renderers keep the newlines before it.
func TestRenderFileNewlines(t *testing.T) {
	tests := []struct {
		name, content, format, want string
	}{
		{"no final newline", "a", FormatXML, "<f>a</f>"},
		{"one final newline", "a\n", FormatXML, "<f>a</f>"},
		{"one final CRLF", "a\r\n", FormatXML, "<f>a</f>"},
		{"two final newlines", "a\n\n", FormatXML, "<f>\n  a\n\n</f>"},
		{"two final CRLFs", "a\r\n\r\n", FormatXML, "<f>\n  a\n\n</f>"},
		{"three final newlines", "a\n\n\n", FormatXML, "<f>\n  a\n\n\n</f>"},
		{"multi-line", "a\nb\n", FormatXML, "<f>\n  a\n  b\n</f>"},
		{"multi-line and a blank line", "a\n  b\n\n", FormatXML, "<f>\n  a\n    b\n\n</f>"},
		{"only line breaks", "\n\n\n", FormatXML, ""},
		{"markdown", "a\n\n", FormatMarkdown, "## F\na\n"},
		{"toml", "a\n\n", FormatTOML, "f = \"\"\"\na\n\"\"\""},
		{"toon", "a\n\n", FormatTOON, `f: "a\n"`},
	}
	dir := t.TempDir()
	opt := DecodeOptions{File: filepath.Join(dir, "x.ctx.yaml")}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("f%d.txt", i)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Decode(firstItem(t, "- fragment: {name: f, file: ./"+name+"}"), opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Render([]Fragment{f}, tt.format, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%q as %s: got\n%q\nwant\n%q", tt.content, tt.format, got, tt.want)
			}
			if tt.format == FormatTOML {
				if m := parseTOML(t, got); m["f"] != strings.TrimSuffix(strings.ReplaceAll(tt.content, "\r\n", "\n"), "\n") {
					t.Errorf("TOML gives back %q", m["f"])
				}
			}
		})
	}
}

// TestGroupOwnPlural: with group_fragments, a name that is its own plural (data, news,
// instructions, available_skills) gets no parent of the same name; its fragments are written
// as without grouping, and what they hold is still grouped.
func TestGroupOwnPlural(t *testing.T) {
	top := []Fragment{New("data", String("a")), Hint("h"), New("data", String("b"))}
	nested := []Fragment{Group("instructions", Hint("a"), New("news", String("n")))}
	tests := []struct {
		format string
		frags  []Fragment
		want   string
	}{
		{FormatXML, top, "<data>a</data>\n<data>b</data>\n<hints>\n  <hint>h</hint>\n</hints>"},
		{FormatXML, nested, "<instructions>\n  <hints>\n    <hint>a</hint>\n  </hints>\n  <news>n</news>\n</instructions>"},
		{FormatMarkdown, top, "## Data\na\n\n## Data\nb\n\n## Hints\n- **hint**: h"},
		{FormatMarkdown, nested, "## Instructions\n- **hints**:\n  - **hint**: a\n- **news**: n"},
		{FormatTOML, top, "data = [\"a\", \"b\"]\n\nhints = [\"h\"]"},
		{FormatTOML, nested, "[instructions]\nhints = [\"a\"]\nnews = \"n\""},
		{FormatTOON, top, "data[2]: a,b\nhints[1]: h"},
		{FormatTOON, nested, "instructions[2]:\n  - hints[1]: a\n  - news: n"},
	}
	for _, tt := range tests {
		t.Run(tt.format+" "+tt.frags[0].Name, func(t *testing.T) {
			runRenderCases(t, tt.format, []renderCase{{"grouped", tt.frags, true, tt.want}})
		})
	}
}
