package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/ctxlab/ctxlab/engine/inert"
)

// fuzzWidths are the widths FuzzMarkdown lays inputs out at: each input at one of them,
// picked by its length (a layout is the costly part of an input).
var fuzzWidths = []int{1, 8, 20, 40, 76, 120}

// fuzzLayouts are the renderers of FuzzMarkdown, by width (dark: glamour's heaviest style).
var fuzzLayouts = map[int]*mdLayout{}

// FuzzMarkdown: whatever a reply holds, what reaches glamour is bounded. At a width the
// text is laid out (textBounds, then the tree and treeBounds, as a layout off the UI
// goroutine does it) within 2 s of CPU time, into at most mdMaxLines lines; a text shown
// plain keeps every character, in lines no wider than the width.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"Some **bold** text, `code`, a [link](https://example.com).\n\n- a\n- b\n\n> quote\n",
		"# Title\n\n1. one\n2. two\n\n```go\nfunc main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
		strings.Repeat("> ", 100) + "x",
		strings.Repeat("- ", 400) + "x",
		strings.Repeat("> - ", 20) + "x",
		strings.Repeat("*a ", 300) + "x" + strings.Repeat(" a*", 300),
		strings.Repeat("[", 500) + "x" + strings.Repeat("]", 500),
		strings.Repeat("[a]( ", 300),
		strings.Repeat("- [ ] a\n", 300),
		strings.Repeat("# a\n", 300),
		"|" + strings.Repeat(" a |", 200) + "\n|" + strings.Repeat("-|", 200) + "\n",
		"term\n: definition\n\n---\n\n<div>html</div>\n\n~~strike~~ www.example.com",
		hostileToken(3000),
		"漢字仮名" + strings.Repeat("漢字", 600),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		text := mdText(inert.Text(in))
		w := fuzzWidths[len(in)%len(fuzzWidths)]
		l := fuzzLayouts[w]
		if l == nil {
			l = newLayout("dark", termenv.Ascii, w)
			fuzzLayouts[w] = l
		}
		start := cpuTime()
		res := mdResult{lines: wrapToWidth(text, w), note: textBounds(text)}
		if res.note == "" {
			res = l.lay(text)
		}
		if d := cpuTime() - start; d > 2*time.Second {
			t.Errorf("width %d: laid out in %v of CPU time", w, d)
		}
		if n, most := len(res.lines), mdMaxLines(text); n > most {
			t.Errorf("width %d: %d lines from %d bytes, at most %d", w, n, len(text), most)
		}
		if res.note == "" || w < 2 {
			return
		}
		if got, want := strings.Join(strings.Fields(strings.Join(res.lines, " ")), ""), strings.Join(strings.Fields(text), ""); got != want {
			t.Errorf("width %d: shown plain (%s), %q of %q", w, res.note, got, want)
		}
		for _, line := range res.lines {
			if lw := ansi.StringWidth(line); lw > w {
				t.Errorf("width %d: a plain line %d wide: %q", w, lw, line)
			}
		}
	})
}

// mdMaxLines is the most lines a text is laid out in: 4 a byte (a character a line at
// width 1, and the lines glamour puts around blocks). Unbounded, glamour laid 82 bytes of
// nested blockquotes out in 81,421 lines.
func mdMaxLines(text string) int {
	return (len(text)+1)*4 + 8
}
