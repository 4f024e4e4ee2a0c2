package inert

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/uniseg"
)

// cellsTests are clusters terminals and libraries measure differently, what Cells makes
// of them, and the cells tmux 3.3a draws the result in (measured: the cursor column after
// printing it; `printf '\033[H\033[2J%s'` then `tmux display -p '#{cursor_x}'`).
var cellsTests = []struct {
	name, in, want string
	cells          int
}{
	{"skin tone (tmux 4, x/ansi 2)", "👍🏽", "👍", 2},
	{"ZWJ sequence (xterm 4, tmux 2)", "👨\u200d💻", "👨💻", 4},
	{"flag", "🇫🇷", "🇫🇷", 2},
	{"heart with U+FE0F (tmux 1, x/ansi 2)", "❤\ufe0f", "❤", 1},
	{"keycap", "1\ufe0f\u20e3", "1\u20e3", 1},
	{"tag sequence (go-runewidth 8)", "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "🏴", 2},
	{"e and a combining accent", "e\u0301", "e\u0301", 1},
	{"hangul", "한글", "한글", 4},
	{"rainbow flag", "🏳\ufe0f\u200d🌈", "🏳🌈", 3},
	{"couple with heart", "👩\u200d❤\ufe0f\u200d👨", "👩❤👨", 5},
	{"skin tone in a ZWJ sequence", "🧑🏽\u200d💻", "🧑💻", 4},
	{"text-default base, tone, gender", "⛹🏽\u200d♀\ufe0f", "⛹♀", 2},
	{"emoji with U+FE0E (uniseg 1)", "👍\ufe0e", "👍", 2},
	{"lone regional indicator (x/ansi 2, tmux 1)", "🇫", "F", 1},
	{"flag and a lone regional indicator", "🇺🇸🇫", "🇺🇸F", 3},
	{"skin tone after a letter (x/ansi 1, tmux 3)", "a🏽", "a", 1},
	{"lone skin tone (uniseg 0)", "🏽", "", 0},
	{"in a sentence", "ok 👍🏽, by 👨\u200d💻 in 🇫🇷!", "ok 👍, by 👨💻 in 🇫🇷!", 21},
}

func TestCells(t *testing.T) {
	for _, tt := range cellsTests {
		t.Run(tt.name, func(t *testing.T) {
			got := Cells(tt.in)
			if got != tt.want {
				t.Fatalf("Cells(%+q) = %+q, want %+q", tt.in, got, tt.want)
			}
			// Every measure the workbench's libraries use agrees with tmux.
			runes := 0
			for _, r := range got {
				runes += runewidth.RuneWidth(r)
			}
			for _, m := range []struct {
				name string
				n    int
			}{{"x/ansi StringWidth (lipgloss.Width)", ansi.StringWidth(got)}, {"uniseg StringWidth (textarea)", uniseg.StringWidth(got)},
				{"go-runewidth rune by rune (glamour, reflow)", runes}} {
				if m.n != tt.cells {
					t.Errorf("%s of %+q = %d, want %d (what tmux draws)", m.name, got, m.n, tt.cells)
				}
			}
		})
	}
}

func TestCellsKeeps(t *testing.T) {
	for _, s := range []string{
		"plain text\nover lines",
		"café, naïve, Tiếng Việt, 日本語, Ελληνικά, عربى",
		"क्\u200dष",   // Devanagari: the joiner of a script stays
		"ශ්\u200dරී",  // Sinhala
		"x\u200dy",    // a joiner between letters
		"🇫🇷🇩🇪",        // two flags
		"1\u20e3 ⌚ ☺", // no selector to drop
	} {
		if got := Cells(s); got != s {
			t.Errorf("Cells(%+q) = %+q, want it unchanged", s, got)
		}
	}
}

func TestDisplay(t *testing.T) {
	if got, want := Display("a\x1b[2J👍🏽\tb"), "a👍\tb"; got != want {
		t.Errorf("Display = %+q, want %+q", got, want)
	}
	if got, want := DisplayLine("👨\u200d💻\nx\x07"), "👨💻 x"; got != want {
		t.Errorf("DisplayLine = %+q, want %+q", got, want)
	}
}

func TestCellsDoesNotCopy(t *testing.T) {
	for _, s := range []string{strings.Repeat("clean text ✓ é 日本 ─│▌\n", 100), benchTexts[0].text, benchTexts[1].text} {
		if n := testing.AllocsPerRun(10, func() { _ = Display(s) }); n != 0 {
			t.Errorf("Display allocated %v times on text it leaves as it is", n)
		}
	}
}

// odd reports whether r is a character Cells may rewrite (firstOdd's byte patterns).
func odd(r rune) bool {
	return r == 0x200D || r == 0xFE0E || r == 0xFE0F || regional(r) || modifier(r) || tag(r)
}

// FuzzCells checks that Cells is idempotent, leaves no character terminals disagree on
// (no modifier, selector or tag; no joiner in an emoji sequence; no lone regional
// indicator), and that firstOdd's byte scan finds what a rune scan finds.
func FuzzCells(f *testing.F) {
	for _, tt := range cellsTests {
		f.Add(tt.in)
	}
	f.Add("क्\u200dष 🇫🇷🇩 a\u200d👍")
	f.Fuzz(func(t *testing.T, s string) {
		want := -1
		for i, r := range s {
			if odd(r) && utf8.ValidString(s[i:i+utf8.RuneLen(r)]) {
				want = i
				break
			}
		}
		if got := firstOdd(s); got != want && utf8.ValidString(s) {
			t.Fatalf("firstOdd(%+q) = %d, want %d", s, got, want)
		}
		if !utf8.ValidString(s) {
			return
		}
		got := Cells(s)
		if again := Cells(got); again != got {
			t.Fatalf("Cells is not idempotent: %+q, then %+q", got, again)
		}
		it := graphemes.FromString(got)
		for it.Next() {
			c := it.Value()
			first, _ := utf8.DecodeRuneInString(c)
			ri := 0
			for _, r := range c {
				switch {
				case modifier(r), r == 0xFE0E, r == 0xFE0F, tag(r):
					t.Fatalf("Cells(%+q) = %+q: cluster %+q holds %U", s, got, c, r)
				case r == 0x200D && unicode.IsSymbol(first):
					t.Fatalf("Cells(%+q) = %+q: a joiner in emoji cluster %+q", s, got, c)
				case regional(r):
					ri++
				}
			}
			if ri != 0 && ri != 2 {
				t.Fatalf("Cells(%+q) = %+q: cluster %+q holds %d regional indicators", s, got, c, ri)
			}
		}
	})
}

func BenchmarkDisplay(b *testing.B) {
	for _, bt := range benchTexts {
		b.Run(bt.name, func(b *testing.B) {
			b.SetBytes(int64(len(bt.text)))
			for b.Loop() {
				_ = Display(bt.text)
			}
		})
	}
}
