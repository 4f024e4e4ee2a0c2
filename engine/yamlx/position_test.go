package yamlx

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// valueOf returns the value node of key in the top-level mapping of doc.
func valueOf(t *testing.T, doc, key string) *yaml.Node {
	t.Helper()
	root, err := Parse("t.yaml", []byte(doc))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i+1]
		}
	}
	t.Fatalf("no key %q", key)
	return nil
}

// runeAt returns the character at line:col (1-based, code points) of doc, whose lines may
// end with \n, \r\n or a lone \r.
func runeAt(doc string, line, col int) (rune, bool) {
	doc = strings.ReplaceAll(doc, "\r\n", "\n")
	lines := strings.Split(strings.ReplaceAll(doc, "\r", "\n"), "\n")
	if line < 1 || line > len(lines) {
		return 0, false
	}
	r := []rune(lines[line-1])
	if col < 1 || col > len(r) {
		return 0, false
	}
	return r[col-1], true
}

func TestValuePosition(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		key  string
		find string // the offset is the first occurrence of find in the value; $ is its end
		want string // LINE:COL
	}{
		{"plain", "when: and(once(), x)\n", "when", "x", "1:19"},
		{"plain start", "when: once()\n", "when", "once", "1:7"},
		{"plain after multi-byte", "é: 日本 x\n", "é", "x", "1:7"},
		{"plain multi-line", "when: and(once(),\n  everyNTurns(3) x)\n", "when", "x", "2:18"},
		{"plain multi-line blank line", "when: a\n\n  b x\n", "when", "x", "3:5"},
		{"plain trailing blanks folded", "when: a   \n   b x\n", "when", "x", "2:6"},
		{"single quoted", "when: 'a(''x'', y)'\n", "when", "y", "1:17"},
		{"single quoted escape before", "when: 'it''s ''q'' z'\n", "when", "z", "1:20"},
		{"single quoted multi-line", "when: 'and(a,\n   b) z'\n", "when", "z", "2:7"},
		{"double quoted", `when: "a(\"x\", y)"` + "\n", "when", "y", "1:17"},
		{"double quoted unicode escape", `when: "\u00e9\U0001F600\x41 z"` + "\n", "when", "z", "1:29"},
		{"double quoted tab escape", `when: "a\tb"` + "\n", "when", "b", "1:11"},
		{"double quoted escaped line break", "when: \"abc\\\n   def\"\n", "when", "e", "2:5"},
		{"double quoted folded line", "when: \"abc\n   def\"\n", "when", "e", "2:5"},
		{"double quoted escaped line break then target", "when: \"and(once(), \\\n      bogus())\"\n", "when", "b", "2:7"},
		{"double quoted escaped line break at start", "when: \"\\\n  x\"\n", "when", "x", "2:3"},
		{"double quoted two escaped line breaks", "when: \"a\\\n  \\\n  x\"\n", "when", "x", "3:3"},
		{"double quoted escaped line break tab indent", "when: \"a\\\n\t\tx\"\n", "when", "x", "2:3"},
		{"double quoted escaped line break then empty line", "when: \"a\\\n\n  x\"\n", "when", "x", "3:3"},
		{"double quoted escaped CRLF", "a: 1\r\nwhen: \"a(\\\r\n  x)\"\r\n", "when", "x", "3:3"},
		{"double quoted escaped CR", "a: 1\rwhen: \"a(\\\r  x)\"\r", "when", "x", "3:3"},
		{"double quoted folded line then target", "when: \"a,\n   x\"\n", "when", "x", "2:4"},
		{"double quoted folded trailing blanks then target", "when: \"a,  \n   x\"\n", "when", "x", "2:4"},
		{"double quoted folded empty line then target", "when: \"a,\n\n   x\"\n", "when", "x", "3:4"},
		{"single quoted folded line then target", "when: 'a,\n   x'\n", "when", "x", "2:4"},
		{"single quoted folded empty line then target", "when: 'a,\n\n   x'\n", "when", "x", "3:4"},
		{"single quoted backslash at line end", "when: 'a\\\n   x'\n", "when", "x", "2:4"},
		{"multi-byte before value", "ключ: \"日本語 x\"\n", "ключ", "x", "1:12"},
		{"multi-byte inside value", "k: 'ü''ü x'\n", "k", "x", "1:10"},
		{"literal first line", "when: |\n  and(\n    once(),\n    x\n  )\n", "when", "and", "2:3"},
		{"literal", "when: |\n  and(\n    once(),\n    x\n  )\n", "when", "x", "4:5"},
		{"literal deep indent", "when: |\n      a\n      b x\n", "when", "x", "3:9"},
		{"literal with blank line", "when: |\n  a\n\n  b x\n", "when", "x", "4:5"},
		{"literal keep indicator", "when: |+\n  a\n  b x\n\n", "when", "x", "3:5"},
		{"literal indentation indicator", "when: |2\n    a\n   b x\n", "when", "x", "3:6"},
		{"literal end of input", "when: |\n  and(once()\nnext: x\n", "when", "$", "2:13"},
		{"folded", "when: >\n  and(once(),\n  x)\n", "when", "x", "3:3"},
		{"folded blank line", "when: >\n  a\n\n  b x\n", "when", "x", "4:5"},
		{"folded strip", "when: >-\n  a\n  b x\n", "when", "x", "3:5"},
		{"anchored", "when: &w and(y)\n", "when", "y", "1:14"},
		{"tagged", "when: !!str and(y)\n", "when", "y", "1:17"},
		{"tagged quoted", "when: !!str 'and(y)'\n", "when", "y", "1:18"},
		{"CRLF line ends", "a: 1\r\nwhen: and(x,\r\n  y z)\r\n", "when", "z", "3:5"},
		{"CRLF literal", "when: |\r\n  a\r\n  b z\r\n", "when", "z", "3:5"},
		{"plain end of input", "when: and(once()\n", "when", "$", "1:17"},
		{"quoted end of input", "when: 'and(once('\n", "when", "$", "1:17"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := valueOf(t, tt.doc, tt.key)
			off := 0
			switch tt.find {
			case "":
			case "$":
				off = len(n.Value)
			default:
				off = strings.Index(n.Value, tt.find)
				if off < 0 {
					t.Fatalf("%q not in value %q", tt.find, n.Value)
				}
			}
			line, col := ValuePosition([]byte(tt.doc), n, off)
			if got := fmt.Sprintf("%d:%d", line, col); got != tt.want {
				t.Errorf("ValuePosition(%q) = %s, want %s", tt.find, got, tt.want)
			}
			if tt.find != "" && tt.find != "$" {
				want, _ := utf8.DecodeRuneInString(tt.find)
				if r, ok := runeAt(tt.doc, line, col); !ok || r != want {
					t.Errorf("character at %d:%d is %q, want %q", line, col, r, want)
				}
			}
		})
	}
}
