package inert

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello, world", "hello, world"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"unicode kept", "café ✓ 日本", "café ✓ 日本"},
		{"set title (OSC 0, BEL)", "before\x1b]0;PWNED\x07after", "beforeafter"},
		{"set title (OSC, ST)", "x\x1b]2;PWNED\x1b\\y", "xy"},
		{"clear screen", "\x1b[2J\x1b[Hhi", "hi"},
		{"colour", "\x1b[31mred\x1b[0m", "red"},
		{"clipboard (OSC 52)", "a\x1b]52;c;cHduZWQ=\x07b", "ab"},
		{"hyperlink (OSC 8)", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS", "a\x1bP+q544e\x1b\\b", "ab"},
		{"C1 CSI (its parameters left inert)", "a\u009b2Jb", "a2Jb"},
		{"bell, backspace, carriage return", "a\x07b\x08c\rd", "abcd"},
		{"DEL", "a\x7fb", "ab"},
		{"NUL", "a\x00b", "ab"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"raw 8-bit CSI byte", "a\x9b2Jb", "a\uFFFD2Jb"},
		{"lone ESC", "a\x1bb", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	if got, want := Line("a\nb\tc\x1b[2J"), "a b c"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

func TestExpandTabs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\tb", "a   b"},
		{"\tx", "    x"},
		{"abcd\te", "abcd    e"},
		{"a\n\tb", "a\n    b"},
		{"none", "none"},
	}
	for _, tt := range tests {
		if got := ExpandTabs(tt.in, 4); got != tt.want {
			t.Errorf("ExpandTabs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTextDoesNotCopyCleanText(t *testing.T) {
	s := strings.Repeat("clean text ✓\n", 100)
	if n := testing.AllocsPerRun(10, func() { _ = Text(s) }); n != 0 {
		t.Errorf("Text allocated %v times on clean text", n)
	}
	b := []byte(s)
	if n := testing.AllocsPerRun(10, func() { _ = Clean(b) }); n != 0 {
		t.Errorf("Clean allocated %v times", n)
	}
}

// FuzzText checks that whatever goes in, nothing that can drive a terminal comes out, and
// that cleaning is idempotent.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "hi", "\x1b]0;PWNED\x07", "\x1b[2J", "\x1b]52;c;aGk=\x07", "\u009b31m",
		"a\x1bPq\x1b\\", "\x1b_apc\x1b\\", "\xff\xfe", "\t\n\r", "\x1b[", "\x1b]8;;x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q: not valid UTF-8", s, got)
		}
		for _, r := range got {
			if control(r) || r == 0x1b {
				t.Fatalf("Text(%q) = %q: holds control %U", s, got, r)
			}
		}
		if again := Text(got); again != got {
			t.Fatalf("Text is not idempotent: %q then %q", got, again)
		}
		if clean([]byte(s)) != (got == s) {
			t.Fatalf("clean(%q) = %v, but Text gives %q", s, clean([]byte(s)), got)
		}
	})
}

// benchTexts are replies of about 4 KB: plain ASCII, prose with accents and CJK, and
// chat text with emoji (skin tones, ZWJ sequences, flags).
var benchTexts = []struct{ name, text string }{
	{"ascii", strings.Repeat("The query failed because the column `total` does not exist.\n", 64)},
	{"unicode", strings.Repeat("Le café coûte 3 €, 日本語のテキスト, Ελληνικά — “quoted”.\n", 64)},
	{"emoji", strings.Repeat("Done 👍🏽 by 👨\u200d💻 in 🇫🇷, ❤\ufe0f it 1\ufe0f\u20e3 time.\n", 64)},
}

func BenchmarkText(b *testing.B) {
	for _, bt := range benchTexts {
		b.Run(bt.name, func(b *testing.B) {
			b.SetBytes(int64(len(bt.text)))
			for b.Loop() {
				_ = Text(bt.text)
			}
		})
	}
}
