package fragment

import (
	"math"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// FuzzDecode: random YAML never panics; problems are positioned errors; what decodes
// renders to well-formed XML and valid TOML.
func FuzzDecode(f *testing.F) {
	if src, err := os.ReadFile("testdata/rich.ctx.yaml"); err == nil {
		f.Add(string(src))
	}
	for _, s := range []string{
		"- hint: x", "- hnit: x", "- guardrail:\n  rule: x\n", "- workflow: {task: T, steps: [a, {b: c}]}",
		"- fragment: {name: x, data: {a: [1, 2.5, true, ~], b: {c: d}}}", "- fragment: {name: x, file: ./schema.sql}",
		"- fragment: {name: x, file: ./notes.txt}",
		"- skills: ./skills", "- glossary: {a: b}", "- principle: {title: t, description: d, policies: [p, {rule: r}]}",
		"- &a {hint: x}\n- *a", "- fragment: {name: x, children: [{fragment: {name: y, children: [{hint: z}]}}]}",
		"hint: doc", "- fragment: {name: x, data: &d [*d]}", "- {? [a]: b}",
		"- fragment: {name: x, data: {a: '', b: [], c: {}}}", "- persona: {name: n, role: r, objective: o}",
	} {
		f.Add(s)
	}
	opt := DecodeOptions{File: "fuzz.yaml", BaseDir: "testdata"}
	f.Fuzz(func(t *testing.T, src string) {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(src), &doc) != nil || len(doc.Content) == 0 {
			return
		}
		nodes := []*yaml.Node{&doc}
		if root := doc.Content[0]; root.Kind == yaml.SequenceNode {
			nodes = root.Content
		}
		var frags []Fragment
		for _, n := range nodes {
			fr, err := Decode(n, opt)
			if err != nil {
				if !diag.IsInvalidInput(err) {
					t.Fatalf("error %T is not positioned: %v", err, err)
				}
				continue
			}
			frags = append(frags, fr)
		}
		checkAllFormats(t, frags)
	})
}

// checkAllFormats renders frags in every format, grouped or not: XML must be well-formed and
// TOML must parse.
func checkAllFormats(t *testing.T, frags []Fragment) {
	for _, group := range []bool{false, true} {
		for _, format := range Formats() {
			out, err := Render(frags, format, Options{GroupFragments: group})
			if err != nil {
				t.Fatal(err)
			}
			switch format {
			case FormatXML:
				checkXML(t, out)
			case FormatTOML:
				parseTOML(t, out)
			}
		}
	}
}

// FuzzRender: random fragment trees render to well-formed XML and valid TOML, and nothing
// panics.
func FuzzRender(f *testing.F) {
	f.Add([]byte("hello"))
	f.Add([]byte{5, 3, 0, 1, 'a', 6, 2, 4, 1, 'b', 7, 7, 7, 0, 0xff, 0x01, '\n', '\r'})
	f.Add([]byte("\x06\x03\x04\x02\x05\x01\x00\x07steps\x08queries\x09"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{b: data}
		var frags []Fragment
		for n := int(g.next() % 6); n >= 0; n-- {
			frags = append(frags, New(g.name(), g.value(0)))
		}
		checkAllFormats(t, frags)
	})
}

// FuzzTOMLText: any text comes back unchanged (after cleanText, or cleanFileText for a
// FileText) from the TOML it renders to.
func FuzzTOMLText(f *testing.F) {
	for _, s := range []string{"a", "a\nb", `"""`, "\\", "\x00\x1f\x7f", "\r", "é😀\xff", "a\n\n", "\"\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := Render([]Fragment{Hint(s), New("o", Object{{"k", String(s)}}), New("f", FileText(s))}, FormatTOML, Options{})
		m := parseTOML(t, out)
		if want := cleanFileText(s); want != "" && m["f"] != want {
			t.Fatalf("f: got %q, want %q from\n%s", m["f"], want, out)
		}
		want := cleanText(s)
		if want == "" {
			return
		}
		if got := m["hint"]; got != want {
			t.Fatalf("hint: got %q, want %q from\n%s", got, want, out)
		}
		if got := m["o"].(map[string]any)["k"]; got != want {
			t.Fatalf("o.k: got %q, want %q from\n%s", got, want, out)
		}
	})
}

// gen builds values from fuzz bytes.
type gen struct {
	b []byte
	i int
}

func (g *gen) next() byte {
	if g.i >= len(g.b) {
		return 0
	}
	c := g.b[g.i]
	g.i++
	return c
}

func (g *gen) str() string {
	n := int(g.next() % 10)
	var sb strings.Builder
	for range n {
		sb.WriteByte(g.next())
	}
	return sb.String()
}

var fuzzNames = []string{"hint", "steps", "queries", "a b", "1x", "名前", "", "x:y", "policy", "entry", "my-key", "a.b", "\x00"}

func (g *gen) name() string {
	c := g.next()
	if int(c) < len(fuzzNames)*16 {
		return fuzzNames[int(c)%len(fuzzNames)]
	}
	return g.str()
}

func (g *gen) value(depth int) Value {
	kind := g.next() % 10
	if depth > 4 {
		kind %= 4
	}
	switch kind {
	case 0:
		return String(g.str())
	case 1:
		return Int(int64(g.next()) - 128)
	case 2:
		switch g.next() % 5 {
		case 0:
			return Float(math.NaN())
		case 1:
			return Float(math.Inf(1))
		case 2:
			return Float(1e300)
		}
		return Float(float64(g.next()) / 7)
	case 3:
		return Bool(g.next()%2 == 0)
	case 4:
		var o Object
		for n := int(g.next() % 4); n > 0; n-- {
			o = append(o, Field{Key: g.name(), Value: g.value(depth + 1)})
		}
		return o
	case 5:
		var l List
		for n := int(g.next() % 4); n > 0; n-- {
			l = append(l, g.value(depth+1))
		}
		return l
	case 6:
		return New(g.name(), g.value(depth+1))
	case 7:
		var l List
		for n := int(g.next() % 4); n > 0; n-- {
			l = append(l, New(g.name(), g.value(depth+1)))
		}
		return l
	case 8:
		return FileText(g.str())
	}
	return nil
}
