package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/ctxlab/ctxlab/themes"
)

func TestWrapLine(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"two words", 5, []string{"two", "words"}},
		{"a longer sentence to wrap", 10, []string{"a longer", "sentence", "to wrap"}},
		{"unbreakableword", 5, []string{"unbre", "akabl", "eword"}},
		{"  indented code line", 10, []string{"  indented", "code line"}},
		{"spaces    between", 8, []string{"spaces", "between"}},
		{"日本語のテキスト", 5, []string{"日本", "語の", "テキ", "スト"}},
		{"日本", 1, nil}, // wide characters cannot be shown in one cell
		// A line is cut between grapheme clusters: a flag (2 cells, two runes of 2 cells
		// each alone) and a letter with its accent stay whole.
		{"ab🇫🇷 cd", 4, []string{"ab🇫🇷", "cd"}},
		{"abc🇫🇷", 4, []string{"abc", "🇫🇷"}},
		{"abcéf", 4, []string{"abcé", "f"}},
		{"", 4, []string{""}},
		{"x", 0, []string{"x"}},
	}
	for _, tt := range tests {
		got := wrapLineToWidth(tt.in, max(tt.width, 1))
		if tt.want == nil {
			for _, l := range got {
				if ansi.StringWidth(l) > 1 {
					t.Errorf("wrapLine(%q, %d) = %q: wider than the width", tt.in, tt.width, got)
				}
			}
			continue
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrapLine(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestWrapIndented(t *testing.T) {
	tests := []struct {
		name              string
		text              string
		indent, hang, wid int
		want              []string
	}{
		{"hang", "one two three four", 2, 2, 12, []string{"  one two", "    three", "    four"}},
		{"no hang", "one two three four", 2, 0, 12, []string{"  one two", "  three four"}},
		{"code continues under its indent", "    long code line here", 0, 0, 14, []string{"    long code", "      line", "      here"}},
		{"lines kept", "a\nb", 1, 0, 10, []string{" a", " b"}},
		{"tabs expanded", "\tx", 0, 0, 10, []string{"    x"}},
		{"indent wider than the width leaves room", "abcdef", 10, 0, 8, []string{"      ab", "      cd", "      ef"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range wrapHanging(tt.text, tt.indent, tt.hang, tt.wid) {
				got = append(got, l.pad+l.text)
				if w := ansi.StringWidth(l.pad + l.text); w > tt.wid {
					t.Errorf("%q is %d wide, over %d", l.pad+l.text, w, tt.wid)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEscapedLines(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"a\nb"`, `"a\n|b"`},
		{`"a\\nb"`, `"a\\nb"`}, // an escaped backslash, then n
		{`"a\n"`, `"a\n|"`},    // a text that ends with a line break
		{`a\n`, `a\n`},         // nothing after the escape: one part
		{`"\t\n\u0041"`, `"\t\n|\u0041"`},
		{`no escapes`, `no escapes`},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range escapedLines(tt.in) {
			got = append(got, tt.in[p[0]:p[1]])
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("escapedLines(%s) = %s, want %s", tt.in, g, tt.want)
		}
	}
}

func TestReminderMask(t *testing.T) {
	tests := []struct {
		line       string
		inside     bool
		want       string // x where masked
		wantInside bool
	}{
		{"a<system-reminder>b</system-reminder>c", false, "." + strings.Repeat("x", 36) + ".", false},
		{"a<system-reminder>b", false, ".xxxxxxxxxxxxxxxxxx", true},
		{"b</system-reminder>c", true, "xxxxxxxxxxxxxxxxxxx.", false},
		{"plain", false, ".....", false},
		{"all inside", true, "xxxxxxxxxx", true},
	}
	for _, tt := range tests {
		mask := make([]bool, len(tt.line))
		inside := reminderMask(tt.line, mask, tt.inside)
		var b strings.Builder
		for _, m := range mask {
			if m {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		if b.String() != tt.want || inside != tt.wantInside {
			t.Errorf("reminderMask(%q, %v) = %s %v, want %s %v", tt.line, tt.inside, b.String(), inside, tt.want, tt.wantInside)
		}
	}
}

// TestPaintIsRender checks that the builder's reuse of each role's ends draws exactly what
// the theme's Render draws, in colour, for every theme and role.
func TestPaintIsRender(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	for _, th := range []*themes.Theme{themes.Dark(), themes.Light(), themes.Mono()} {
		bb := &tabBuilder{th: th}
		for role := themes.Text; role <= themes.Accent; role++ {
			for _, s := range []string{"a word", "  two  spaces ", "日本語", "x"} {
				if got, want := bb.paint(role, s), th.Render(role, s); got != want {
					t.Errorf("%s role %d %q: paint %q, Render %q", th.Name, role, s, got, want)
				}
			}
		}
	}
}
