package yamlx

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/diag"
)

func nest(open, mid, close string, n int) string {
	return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
}

func blockNest(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "a: 1\n")
	return b.String()
}

func TestParseDepth(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      string // "" = parses
	}{
		{"flow list at the limit", "x: " + nest("[", "", "]", MaxDepth-1), ""},
		{"flow list past the limit", "x: " + nest("[", "", "]", MaxDepth), "f.yaml:1:103: nesting is too deep (more than 100 levels)"},
		{"flow mapping past the limit", "x:\n  " + nest("{a: ", "1", "}", MaxDepth+5), "f.yaml:2:399: nesting is too deep (more than 100 levels)"},
		{"flow across lines", "x: [\n" + strings.Repeat(" [\n", MaxDepth) + strings.Repeat("]", MaxDepth+1), "f.yaml:100:2: nesting is too deep (more than 100 levels)"},
		{"block past the limit", blockNest(MaxDepth + 1), "f.yaml:101:101: nesting is too deep (more than 100 levels)"},
		{"block at the limit", blockNest(MaxDepth - 1), ""},
		{"brackets in double quotes", `x: "` + strings.Repeat("[", 500) + "\"\n", ""},
		{"brackets in single quotes", "x: ['" + strings.Repeat("[{", 500) + "''']\n", ""},
		{"brackets in a quote spanning lines", "x: [\"a\n  " + strings.Repeat("[", 500) + "\\\"\"]\n", ""},
		{"brackets in a plain scalar", "x: a " + strings.Repeat("[", 500) + "\n", ""},
		{"brackets in a comment", "x: 1 # " + strings.Repeat("[", 500) + "\ny: [1] #" + strings.Repeat("{", 500) + "\n", ""},
		{"brackets in a block scalar", "x: |\n  " + strings.Repeat("[", 500) + "\n\n  " + strings.Repeat("{", 500) + "\ny: 1\n", ""},
		{"brackets in a folded scalar in a list", "- >-\n    " + strings.Repeat("[", 500) + "\n- b\n", ""},
		{"an apostrophe in a word does not hide nesting", "x: it's\ny: " + nest("[", "", "]", MaxDepth+1) + "\nz: '\n", "f.yaml:2:103: nesting is too deep (more than 100 levels)"},
		{"an apostrophe after a word in flow does not hide nesting", "x: [a 'b, " + nest("[", "", "]", MaxDepth+1) + ", 'c]\n", "f.yaml:1:109: nesting is too deep (more than 100 levels)"},
		{"a quote on a continuation line does not hide nesting", "x: text\n  'abc\ny: " + nest("[", "", "]", MaxDepth+1) + "\nz: '\n", "f.yaml:3:103: nesting is too deep (more than 100 levels)"},
		{"an escaped quote does not end a string", `x: ["\"` + strings.Repeat("[", 500) + `"]`, ""},
		{"compact block lists past the limit", strings.Repeat("- ", MaxDepth+1) + "x\n", "f.yaml:1:201: nesting is too deep (more than 100 levels)"},
		{"compact block lists at the limit", strings.Repeat("- ", MaxDepth) + "x\n", ""},
		{"compact explicit keys past the limit", strings.Repeat("? ", MaxDepth+1) + "x\n", "f.yaml:1:201: nesting is too deep (more than 100 levels)"},
		{"block list in a mapping in a flow list", "a:\n  - b: " + nest("[", "", "]", MaxDepth-3) + "\n", ""},
		{"block and flow past the limit together", "a:\n  - b: " + nest("[", "", "]", MaxDepth-2) + "\n", "f.yaml:2:105: nesting is too deep (more than 100 levels)"},
		{"a key after a quoted key", "\"a\": 1\n\"b\":\n  - " + nest("[", "", "]", MaxDepth-2) + "\n", ""},
		{"a new document starts at depth 0", strings.Repeat("- ", MaxDepth-1) + "x\n---\n" + strings.Repeat("- ", MaxDepth-1) + "x\n", "f.yaml:2:1: expected one YAML document, found a second one"},
		{"a block scalar more indented than its key's line", "- a: |\n    " + strings.Repeat("[", 500) + "\n  b: 1\n", ""},
		{"a key less indented than a block scalar's content", "- a: |\n  b: " + nest("[", "", "]", MaxDepth) + "\n", "f.yaml:2:104: nesting is too deep (more than 100 levels)"},
		{"a block scalar at the top of the document", "--- |\n" + strings.Repeat("[", 500) + "\n", ""},
		{"a document marker ends a block scalar", "--- |\n  text\n--- " + nest("[", "", "]", MaxDepth+1) + "\n", "f.yaml:3:105: nesting is too deep (more than 100 levels)"},
		{"nesting on a document marker's line", "--- " + nest("[", "", "]", MaxDepth+1) + "\n", "f.yaml:1:105: nesting is too deep (more than 100 levels)"},
		{"a tag glued to a flow list", "x: !t" + nest("[", "", "]", MaxDepth) + "\n", "f.yaml:1:105: nesting is too deep (more than 100 levels)"},
		{"lines after a bad block scalar header are scanned", "x: |a\n  y: " + nest("[", "", "]", MaxDepth) + "\n", "f.yaml:2:104: nesting is too deep (more than 100 levels)"},
		{"a block scalar header with indicators and a comment", "x: |2- # c\n  " + strings.Repeat("[", 500) + "\n", ""},
		{"a tag before a flow list", "x: !!seq " + nest("[", "", "]", MaxDepth+1), "f.yaml:1:109: nesting is too deep (more than 100 levels)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.doc))
			got := ""
			if err != nil {
				got = err.Error()
				var de *diag.Error
				if !errors.As(err, &de) {
					t.Fatalf("got %T, want *diag.Error", err)
				}
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestParseDeepBounded is the probe of issue 12: 40,000-50,000 levels of flow nesting in
// 80-250 KB took gigabytes. It is refused quickly, in little memory.
func TestParseDeepBounded(t *testing.T) {
	for _, doc := range []string{
		"x: " + nest("[", "", "]", 40_000),
		"x: " + nest("{a: ", "1", "}", 50_000),
		"x: " + nest("[a: ", "", "]", 40_000),
		"x: " + nest("!!seq [", "", "]", 40_000),
		"x: " + nest("[", "", "", 50_000),    // unclosed, as yaml.v3 rejects it
		strings.Repeat("- ", 40_000) + "x\n", // yaml.v3 took 2.4 GB
		strings.Repeat("- !!seq ", 20_000) + "x\n",
		"x:\n" + strings.Repeat("? ", 40_000) + "1\n",
		"- a: |\n  b: " + nest("[", "", "", 40_000), // content a block scalar does not hold
		"--- " + nest("[", "", "", 40_000),
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Parse("f.yaml", []byte(doc))
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "nesting is too deep (more than 100 levels)") {
			t.Errorf("%.12q…: got %v, want nesting is too deep", doc, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10<<20 {
			t.Errorf("%.12q…: allocated %d MB, want under 10 MB", doc, alloc>>20)
		}
	}
}

// FuzzScanDepth checks the depth scan against the parsers, with a small limit: a document
// yaml.v3 (or, where it fails, goccy/go-yaml) reads nested deeper than twice the limit
// (the scan may count a list at the column of its key as one level with it) is refused by
// the scan.
func FuzzScanDepth(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{
		"- - - - - - - - - - - x\n", "a: [[[[[[[[[[[1]]]]]]]]]]]\n", "a:\n- b:\n  - c:\n    - d:\n      - e:\n        - f: [[[[x]]]]\n",
		"x: 'a\ny: [[[[[[[[[[]]]]]]]]]]\nz: '\n", "x: \"\\\"[[[\"\n", "? [[[[[[[[[[a]]]]]]]]]]\n", "- !!seq [[[[[[[[[[]]]]]]]]]]\n",
		"a: |\n  [[[[\nb: {c: {d: {e: {f: {g: {h: {i: {j: {k: 1}}}}}}}}}\n",
	} {
		f.Add([]byte(s))
	}
	const limit = 4
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := v3Parse(data)
		if err != nil {
			n, err = parseGoccy(data)
		}
		if err != nil || n == nil {
			return
		}
		if _, _, msg := scanDepthLimit(data, limit, MaxValues); msg != "" {
			return
		}
		if d := treeDepthLimit(n, 0, 2*limit+1); d != nil {
			t.Fatalf("the scan let through %q, nested deeper than %d at %d:%d", data, 2*limit+1, d.Line, d.Column)
		}
	})
}

// TestParseLargeInvalidBounded: a large file yaml.v3 rejects is not handed to goccy/go-yaml,
// which needs about 150 bytes per byte of input; yaml.v3's error is given, at the line it
// names (for an unclosed flow collection, the line before the one that opens it: yaml.v3
// counts that line from 0).
func TestParseLargeInvalidBounded(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"just over the goccy bound", strings.Repeat("- x\n", maxGoccyInput/4) + "- [a\n",
			"f.yaml:65536:1: invalid YAML: did not find expected ',' or ']'"},
		{"8 MiB, more values than MaxValues", "system:\n" + strings.Repeat("  - hint: x\n", (8<<20)/12-10) + "  - hint: [a\n",
			"f.yaml:100001:11: too many values (more than 300000)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Parse("f.yaml", []byte(tc.doc))
			runtime.ReadMemStats(&after)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
				t.Errorf("allocated %d MB, want under 100 MB", alloc>>20)
			}
		})
	}
}

func TestScanValues(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want string // "" = under the limit of 4 values
	}{
		{"a: [1, 2]\n", ""},
		{"a: [1, 2, 3]\n", "1:11: too many values (more than 4)"},
		{"- a\n- b\n- c\n", "3:1: too many values (more than 4)"},
		{"a: 'x'\nb: \"y\"\nc: 1\n", "3:1: too many values (more than 4)"},
		{"a: |\n  x\n  y\n  z\nb: c\n", ""},
		{"a: |\n  x\nb: c\nd: e\n", "4:1: too many values (more than 4)"},
		{"a: &x 1\nb: *x\n", ""},
		{"a: {b: 1, c: d}\n", "1:11: too many values (more than 4)"},
		{"# a b c d e f\na: b # c d e f\n", ""},
		{"a: \"b c d e f g\"\n", ""},
		{"a: b c d e f g\n", ""},
	} {
		line, col, msg := scanDepthLimit([]byte(tc.doc), MaxDepth, 4)
		got := ""
		if msg != "" {
			got = fmt.Sprintf("%d:%d: %s", line, col, msg)
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.doc, got, tc.want)
		}
	}
}
