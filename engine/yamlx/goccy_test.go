package yamlx

import (
	"bytes"
	"fmt"
	"testing"

	"go.yaml.in/yaml/v3"
)

// v3Parse returns yaml.v3's tree of the first document of data.
func v3Parse(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// diffNodes returns the first difference between two trees, or "".
func diffNodes(path string, a, b *yaml.Node) string {
	if a == nil || b == nil {
		if a != b {
			return fmt.Sprintf("%s: yaml.v3 %v, goccy %v", path, a, b)
		}
		return ""
	}
	type view struct {
		Kind   yaml.Kind
		Tag    string
		Value  string
		Style  yaml.Style
		Anchor string
		Line   int
		Column int
		N      int
	}
	va := view{a.Kind, a.Tag, a.Value, a.Style, a.Anchor, a.Line, a.Column, len(a.Content)}
	vb := view{b.Kind, b.Tag, b.Value, b.Style, b.Anchor, b.Line, b.Column, len(b.Content)}
	if va != vb {
		return fmt.Sprintf("%s: yaml.v3 %+v, goccy %+v", path, va, vb)
	}
	if a.Kind == yaml.AliasNode {
		if a.Alias == nil || b.Alias == nil || a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column {
			return fmt.Sprintf("%s: aliases point at different nodes", path)
		}
		return ""
	}
	for i := range a.Content {
		if d := diffNodes(fmt.Sprintf("%s/%d", path, i), a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// sameTreeDocs are documents both parsers read; the trees must be the same.
var sameTreeDocs = []string{
	"a: 1\nb: two\nc: [x, 'y', \"z\"]\n",
	"list:\n  - a\n  - b: c\n    d: e\n  - - nested\n    - more\n",
	"base: &b {x: 1}\nother: *b\n",
	"x: &a1 hello\ny: *a1\nz: [*a1, *a1]\n",
	"- &anc\n  a: 1\n- *anc\n",
	"defaults: &d\n  tier: safety\n  placement: part\nreminder:\n  <<: *d\n  id: x\n",
	"s: 'it''s'\nd: \"q\\\"u\\u00e9 \\t x\"\n",
	"lit: |\n  line1\n  line2\nfold: >\n  a\n  b\nkeep: |+\n  k\n\nstrip: |-\n  s\n",
	"text: >-\n  folded\n  more\n\n  para\n",
	"a: |2\n    indented\n",
	"- |\n  in seq\n- >\n  fold\n",
	"t: !!str 5\nu: !custom x\nn: ~\nf: 1.5\nb: true\ninf: .inf\nnan: .nan\n",
	"a: -.inf\nb: +1\nc: 1e3\nd: 0b101\ne: yes\nf: ~\ng: Null\nh: NULL\ni: True\nj: 0x1F\nk: 0o17\n",
	"empty:\ne2: []\ne3: {}\n",
	"- a\n- b\n",
	"\"quoted key\": v\n'single': w\n",
	"multi: this is\n  a multi line\n  plain\n",
	" indented: 1\n",
	"key: \"multi\n  line\"\n",
	"é: ü\nk: \"日本語\"\nключ: 'значение'\n",
	"? complex\n: value\n",
	"a: {b: [1, {c: d}], e: f}\n",
	"- [a, b]\n- {c: d}\n",
	"a:\n- b\n- c\n",
	"# comment\na: 1 # trailing\n# between\nb:\n  # inside\n  - x # c\n",
	"---\na: 1\n...\n",
	"a: \"x\\ny\"\nb: 'a\n\n  b'\nc: \"\\x41\\u263A\\U0001F600\"\n",
	"url: http://example.com:8080/x\ntime: 2026-03-27T14:30:00Z\ndate: 2026-03-27\n",
	"{a: 1, b: [2, 3]}\n",
	"[a, {b: c}, [d]]\n",
	"a: &x 1\nb: &x 2\nc: *x\n",
	"e: ''\nf: \"\"\n",
	"- a: 1\n  b: 2\n- c: 3\n",
	"a:\n  b:\n    c: d\n  e: f\ng: h\n",
	"a: 'x' \nb: \"y\"   # c\n",
	"s: \"tab\\tx\"\n",
	"when: |\n  and(\n    once(),\n    everyNTurns(3)\n  )\n",
	"tools:\n  - {name: run_sql, input: {query: select 1}, error: permission denied}\n",
	"a: !!map {b: c}\n",
	"[!t a, !t b, c]\n",
	"{a: !t b, c: d}\n",
	"a: !t &x [b, \"c\"]\nd: *x\n",
	"a: !t\n  b: c\n",
	"0:", "a:   ", "a:  # c\n", "a:\n  b:\n", "-", "- a\n-\n", "{a: }", "{a}", "a: !t\n",
	"0 \n0000", "k:  a  \n  b", "- a \n  b", "[a \n b]", "k: é \n b",
	"when: and(once(),   \n  everyNTurns(3))\n",
	"- 0\n - 0", "0: 0\n -0", "! 00\n", "00 \n", "k: true \nl: x\n", "[a , b]", "renderer: tomll \n", "0\n-", "|\n 00", ">\n 1e3", "{! 0}", "0: 0\n -\n", "0: 0\n -\n ", " \n0 \n", "[0: 0]", "{&a 0,*a}", "- 00\n  - 0\n  0", "0: 00\n - #", "a: x\n  -y\n  z", "a: x\n\n\n  y # c\n", "0<<: 0", "A000:\n  - 0\n  - 0: 0\nA0000: 0\n 00000000000\n    -00000\n", "{&a 0, b: *a}",
}

func TestGoccyMatchesV3(t *testing.T) {
	for _, doc := range sameTreeDocs {
		want, err := v3Parse([]byte(doc))
		if err != nil {
			t.Fatalf("yaml.v3 rejects %q: %v", doc, err)
		}
		got, err := parseGoccy([]byte(doc))
		if err != nil {
			t.Fatalf("goccy rejects %q: %v", doc, err)
		}
		if d := diffNodes("", want, got); d != "" {
			t.Errorf("%q:\n%s", doc, d)
		}
	}
}
