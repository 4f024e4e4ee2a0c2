package yamlx

import (
	"bytes"
	"errors"
	"regexp"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
)

func addSeeds(f *testing.F) {
	for _, doc := range sameTreeDocs {
		f.Add([]byte(doc))
	}
	for _, doc := range []string{
		"example: {question: What is churn?, answer: Customers lost in a period.}\n",
		"a: [1\n", "a: b\n c: d\n", "a: *nope\n", "%YAML 1.2\n---\na: 1\n", "a: 1\n---\nb: 2\n",
		"when: >\n  and(once(),\n\n  x)\n", "k: \"a\\\n  b\"\n",
		"k: \"a, \\\r\n  \\\n\n  b\"\n", "k: 'a,\n\n  b'\n",
	} {
		f.Add([]byte(doc))
	}
}

// FuzzGoccyMatchesV3 checks that, where both parsers read a document, the goccy fallback
// gives the tree yaml.v3 gives. Known goccy differences are skipped (see knownDifference).
func FuzzGoccyMatchesV3(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || bytes.ContainsAny(data, "\r\t\x00\ufeff") || knownDifference(data) {
			return
		}
		want, err := v3Parse(data)
		if err != nil || IsNull(want) {
			return
		}
		got, err := parseGoccy(data)
		if err != nil {
			return
		}
		if d := diffNodes("", want, got); d != "" {
			t.Errorf("%q:\n%s", data, d)
		}
	})
}

// knownDifferences match documents that goccy/go-yaml v1.19.2 reads differently from
// yaml.v3 in ways the converter does not undo; the fuzzer skips them. They are exotic for
// the files ctxlab reads, and the fallback only runs on documents yaml.v3 rejects.
var knownDifferences = []*regexp.Regexp{
	// Explicit keys and values ("? a", "0\n: "): yaml.v3 puts an empty value at the next
	// token, goccy after the key; yaml.v3 drops a ':' line after a scalar document.
	// "[?00]" is a plain scalar for goccy (rightly), a key for yaml.v3.
	regexp.MustCompile(`(?m)^[ -]*[?:]|[\[{,]\s*\?`),
	// A tag that ends the input ("!0", "a: !t" without a line break) or a line with an
	// empty node ("- !\n-", "0: ! &00\n0:", an anchor after the tag): goccy drops it or
	// takes the next line as its node.
	regexp.MustCompile(`![^\s]*([ \t]+&[^\s]*)?[ \t]*(#.*)?(\n|\z)`),
	// An anchor or alias name with a ':' ("&0: 00"): the YAML spec allows it, goccy reads it
	// so, yaml.v3 ends the name at the ':'.
	regexp.MustCompile(`[&*][^\s,\[\]{}]*:`),
	// A flow indicator starting a scalar outside flow collections ("!t ,"): YAML forbids it; yaml.v3
	// reads an empty scalar, goccy ",".
	regexp.MustCompile(`(?m)^[^\[{\n]*(^|\s)[,\]}]`),
	// An empty sequence entry ("  - \n 00"): the two disagree on what the next, less
	// indented, lines belong to.
	regexp.MustCompile(`(?m)-[ \t]*$`),
	// A document marker glued to text ("...#"): yaml.v3 reads a scalar, goccy a marker.
	regexp.MustCompile(`(?m)^(---|\.\.\.)[^\s]`),
	// A block scalar in an input without a final line break (">\n  0\n  0", "|\n 0 "):
	// goccy does not fold its last line and drops its trailing blanks.
	regexp.MustCompile(`(?s)[|>].*[^\n]\z`),
	// An empty block scalar at the end of the input ("0: |2+   \n"): goccy keeps a line
	// break.
	regexp.MustCompile(`[|>][-+0-9]*[ \t]*(#.*)?\n?\z`),
	// A block scalar that starts a line (" >\n0\n"): the two disagree on the indentation
	// its content needs.
	regexp.MustCompile(`(?m)^[ ]*([!&][^\s]*[ ]+)*[|>]`),
	// A ':' right before a flow indicator ("{0000:}") or another character ("{0:0}") in a
	// flow collection: yaml.v3 keeps it in the scalar, goccy makes a key.
	regexp.MustCompile(`:[,\]}]|[\[{].*:[^\s]`),
}

// mergeKey is a "<<" where goccy reads it right: a block mapping key.
var mergeKey = regexp.MustCompile(`(?m)^[ ]*(- )*<<: `)

func knownDifference(data []byte) bool {
	// "<<" elsewhere ("00<<: ", "0 <<: "): goccy reads a merge key inside a plain scalar.
	if bytes.Count(data, []byte("<<")) != len(mergeKey.FindAll(data, -1)) {
		return true
	}
	for _, re := range knownDifferences {
		if re.Match(data) {
			return true
		}
	}
	return false
}

// FuzzParse checks that Parse never panics, that its errors are positioned inside the
// input, that no tree it returns is nested deeper than MaxDepth, and that ValuePosition stays inside the file for every scalar and offset.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Parse("f.yaml", data)
		// YAML ends a line at \n, \r\n or a lone \r.
		lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) - bytes.Count(data, []byte("\r\n")) + 1
		if err != nil {
			var de *diag.Error
			if !errors.As(err, &de) {
				t.Fatalf("got %T %v, want *diag.Error", err, err)
			}
			if de.Line < 1 || de.Line > lines+1 || de.Col < 1 {
				t.Fatalf("error %v outside the input (%d lines)", err, lines)
			}
			return
		}
		if d := treeDepth(n, 0); d != nil {
			t.Fatalf("parsed a tree nested deeper than %d levels (at %d:%d)", MaxDepth, d.Line, d.Column)
		}
		count := 0
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n == nil || count > 1000 {
				return
			}
			count++
			if n.Kind == yaml.ScalarNode {
				for off := 0; off <= len(n.Value) && off < 200; off++ {
					line, col := ValuePosition(data, n, off)
					if line < 1 || line > lines+1 || col < 1 {
						t.Fatalf("ValuePosition(%q, %d) = %d:%d outside the input", n.Value, off, line, col)
					}
				}
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(n)
		_, _ = JSON(n)
	})
}
