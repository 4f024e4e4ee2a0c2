package fragment

import (
	"fmt"
	"testing"

	"go.yaml.in/yaml/v3"
)

// benchFragments is a 40-fragment system prompt: the rich fixture (every kind, nested
// fragments, a file, glossary, skills) topped up with hints.
func benchFragments(b *testing.B) []Fragment {
	frags := loadRich(b)
	for i := 0; len(frags) < 40; i++ {
		frags = append(frags, Hint(fmt.Sprintf("Extra hint %d: keep answers short and cite the table you used.", i)))
	}
	return frags[:40]
}

// BenchmarkRender renders the 40-fragment prompt; it runs on every turn.
func BenchmarkRender(b *testing.B) {
	frags := benchFragments(b)
	for _, format := range Formats() {
		for _, group := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/group=%v", format, group), func(b *testing.B) {
				r, err := NewRenderer(format, Options{GroupFragments: group})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					_ = r.Render(frags)
				}
			})
		}
	}
}

// BenchmarkDecode decodes every entry of the rich fixture (once with the file and skills
// folder reads, once without them).
func BenchmarkDecode(b *testing.B) {
	all := richNodes(b)
	var noIO []*yaml.Node
	for _, n := range all {
		if k := n.Content[0].Value; k != "skills" && !(k == "fragment" && len(n.Content[1].Content) > 2 && n.Content[1].Content[2].Value == "file") {
			noIO = append(noIO, n)
		}
	}
	opt := DecodeOptions{File: "testdata/rich.ctx.yaml"}
	for _, c := range []struct {
		name  string
		nodes []*yaml.Node
	}{{"all", all}, {"no-io", noIO}} {
		b.Run(fmt.Sprintf("%s/%d-entries", c.name, len(c.nodes)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, n := range c.nodes {
					if _, err := Decode(n, opt); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
