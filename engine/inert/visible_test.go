package inert

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/uniseg"
)

// visibleTests are texts with characters a terminal draws as nothing or that reorder the
// text: those that could mislead are shown, those that do their job (in real Hindi,
// Sinhala, Bengali, Persian and emoji text) are kept.
var visibleTests = []struct {
	name, in, want string
}{
	{"plain", "hello, world", "hello, world"},
	{"right-to-left override", "invoice_\u202Etxt.exe", "invoice_⟨U+202E⟩txt.exe"},
	{"every bidi control", "\u061C\u200E\u200F\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069",
		"⟨U+061C⟩⟨U+200E⟩⟨U+200F⟩⟨U+202A⟩⟨U+202B⟩⟨U+202C⟩⟨U+202D⟩⟨U+202E⟩⟨U+2066⟩⟨U+2067⟩⟨U+2068⟩⟨U+2069⟩"},
	{"zero-width space", "gpt-4o\u200B-mini", "gpt-4o⟨U+200B⟩-mini"},
	{"word joiner, BOM, soft hyphen", "a\u2060b\uFEFFc\u00ADd", "a⟨U+2060⟩b⟨U+FEFF⟩c⟨U+00AD⟩d"},
	{"Hangul filler as a name", "\u3164\u3164", "⟨U+3164⟩⟨U+3164⟩"},
	{"joiner between Latin letters", "pay\u200Dpal", "pay⟨U+200D⟩pal"},
	{"non-joiner between Latin letters", "run\u200C_sql", "run⟨U+200C⟩_sql"},
	{"joiner at the start", "\u200Dhello", "⟨U+200D⟩hello"},
	{"joiner after a space", "a \u200Db", "a ⟨U+200D⟩b"},
	{"two joiners", "क्\u200D\u200Dष", "क्\u200D⟨U+200D⟩ष"},
	{"Hindi conjunct: joiner after the virama", "क्\u200Dष", "क्\u200Dष"},
	{"Hindi: non-joiner after the virama", "क्\u200Cष", "क्\u200Cष"},
	{"Sinhala: shri", "ශ්\u200Dරී", "ශ්\u200Dරී"},
	{"Bengali: ra, joiner, virama, ya", "র\u200D্য", "র\u200D্য"},
	{"Persian: non-joiner inside a word", "می\u200Cخواهم", "می\u200Cخواهم"},
	{"Persian: joiner after heh", "ه\u200D", "ه\u200D"},
	{"emoji ZWJ sequence", "👨\u200D💻", "👨\u200D💻"},
	{"rainbow flag", "🏳\uFE0F\u200D🌈", "🏳\uFE0F\u200D🌈"},
	{"skin tone in a ZWJ sequence", "🧑🏽\u200D💻", "🧑🏽\u200D💻"},
	{"couple with heart", "👩\u200D❤\uFE0F\u200D👨", "👩\u200D❤\uFE0F\u200D👨"},
	{"heart and keycap", "❤\uFE0F 1\uFE0F\u20E3", "❤\uFE0F 1\uFE0F\u20E3"},
	{"ideographic variation selector", "葛\U000E0100", "葛\U000E0100"},
	{"a run of selectors hides bytes", "😀\uFE0F\uFE01\U000E0101", "😀\uFE0F⟨U+FE01⟩⟨U+E0101⟩"},
	{"selector after a space", "a \uFE0F", "a ⟨U+FE0F⟩"},
	{"subdivision flag", "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"},
	{"tags hiding text", "ok\U000E0049\U000E0067", "ok⟨U+E0049⟩⟨U+E0067⟩"},
	{"too many tags after a flag", "🏴" + strings.Repeat("\U000E0061", 7) + "\U000E007F",
		"🏴" + strings.Repeat("\U000E0061", 6) + "⟨U+E0061⟩⟨U+E007F⟩"},
	{"combining grapheme joiner between marks", "a\u0301\u034F\u0300", "a\u0301\u034F\u0300"},
	{"combining grapheme joiner alone", "\u034F", "⟨U+034F⟩"},
	{"controls removed, then shown", "a\x1b[2J\u202Eb\r", "a⟨U+202E⟩b"},
}

func TestVisible(t *testing.T) {
	for _, tt := range visibleTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Visible(tt.in); got != tt.want {
				t.Errorf("Visible(%+q) = %+q, want %+q", tt.in, got, tt.want)
			}
		})
	}
}

func TestVisibleLine(t *testing.T) {
	if got, want := VisibleLine("a\n\u202Eb\tc"), "a ⟨U+202E⟩b c"; got != want {
		t.Errorf("VisibleLine = %+q, want %+q", got, want)
	}
	if got, want := DisplayLine("👨\u200D💻\n\u200B"), "👨💻 ⟨U+200B⟩"; got != want {
		t.Errorf("DisplayLine = %+q, want %+q", got, want)
	}
}

// TestMarkWidth: a mark is as wide for every measure the workbench uses as tmux draws it
// (one cell a character: ⟨ and ⟩ are narrow in every East Asian width table).
func TestMarkWidth(t *testing.T) {
	for _, s := range []string{"⟨U+202E⟩", "⟨U+E0041⟩"} {
		runes := 0
		for _, r := range s {
			runes += runewidth.RuneWidth(r)
		}
		n := utf8.RuneCountInString(s)
		if ansi.StringWidth(s) != n || uniseg.StringWidth(s) != n || runes != n {
			t.Errorf("%s: x/ansi %d, uniseg %d, go-runewidth %d cells, want %d", s, ansi.StringWidth(s), uniseg.StringWidth(s), runes, n)
		}
	}
}

func TestVisibleDoesNotCopy(t *testing.T) {
	for _, s := range []string{benchTexts[0].text, benchTexts[1].text, benchTexts[2].text,
		strings.Repeat("क्\u200Dष می\u200Cخواهم 👨\u200D💻 ❤\uFE0F\n", 50)} {
		if n := testing.AllocsPerRun(10, func() { _ = Visible(s) }); n != 0 {
			t.Errorf("Visible allocated %v times on text it keeps as it is: %.40q", n, s)
		}
	}
}

// TestHold: a text cut anywhere and made visible in two pieces, the first up to Hold and
// the rest with the next piece, is shown as it is whole.
func TestHold(t *testing.T) {
	for _, tt := range visibleTests {
		s := Text(tt.in)
		for i := range len(s) + 1 {
			if !utf8.ValidString(s[:i]) {
				continue
			}
			h := Hold(s[:i])
			if got := Visible(s[:h]) + Visible(s[h:]); got != tt.want {
				t.Errorf("%s: cut at %d, held from %d: %+q, want %+q", tt.name, i, h, got, tt.want)
			}
		}
	}
}

// checkPasteable fails if s holds a control character (C0 but newline and tab, DEL, C1),
// or a character Visible would mark (a bidi control, an invisible character) out of place.
func checkPasteable(t *testing.T, what, in, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s(%+q) = %+q: not valid UTF-8", what, in, s)
	}
	for _, r := range s {
		if control(r) || r == 0x1b {
			t.Fatalf("%s(%+q) = %+q: holds control %U", what, in, s, r)
		}
	}
	if again := show(s); again != s {
		t.Fatalf("%s(%+q) = %+q: holds characters Visible marks: %+q", what, in, s, again)
	}
}

// showRunes is show as its rules read, rune by rune: the reference show's fast scan is
// checked against.
func showRunes(s string) string {
	var b strings.Builder
	c := lookback{tags: -1}
	for _, r := range s {
		if hidden(r) && !c.keeps(r) {
			writeMark(&b, r)
			c = lookback{tags: -1}
			continue
		}
		b.WriteRune(r)
		c.next(r)
	}
	return b.String()
}

// FuzzVisible checks that what Visible gives (what is drawn, printed and copied) holds
// nothing that can drive a terminal or reorder it unseen, that it follows its rules as
// read rune by rune, that it is idempotent, that it
// leaves what Clean passes as it is, and that a stream made visible in pieces cut at Hold is shown as whole.
func FuzzVisible(f *testing.F) {
	for _, tt := range visibleTests {
		f.Add(tt.in, len(tt.in)/2)
	}
	f.Add("echo harmless\x1b[201~\rtouch pwned\r", 14)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		got := Visible(s)
		if want := showRunes(Text(s)); got != want {
			t.Fatalf("Visible(%+q) = %+q, but rune by rune %+q", s, got, want)
		}
		checkPasteable(t, "Visible", s, got)
		if again := Visible(got); again != got {
			t.Fatalf("Visible is not idempotent: %+q, then %+q", got, again)
		}
		if Clean([]byte(s)) && got != s {
			t.Fatalf("Clean(%+q), but Visible gives %+q", s, got)
		}
		line := VisibleLine(s)
		checkPasteable(t, "VisibleLine", s, line)
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("VisibleLine(%+q) = %+q: not one line", s, line)
		}
		text := Text(s)
		if cut < 0 || cut > len(text) || !utf8.ValidString(text[:cut]) {
			return
		}
		h := Hold(text[:cut])
		if pieces := Visible(text[:h]) + Visible(text[h:]); pieces != got {
			t.Fatalf("Visible(%+q) = %+q, but cut at %d (held from %d): %+q", s, got, cut, h, pieces)
		}
	})
}

func BenchmarkVisible(b *testing.B) {
	for _, bt := range benchTexts {
		b.Run(bt.name, func(b *testing.B) {
			b.SetBytes(int64(len(bt.text)))
			for b.Loop() {
				_ = Visible(bt.text)
			}
		})
	}
}
