package chat

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode"
)

func TestTitleFrom(t *testing.T) {
	tests := []struct{ in, want string }{
		{"how many customers?", "how many customers?"},
		{"  two\tlines\nof text  ", "two lines of text"},
		{"\x1b[1mbold\x00 text", "[1mbold text"},
		{strings.Repeat("é", 60), strings.Repeat("é", 60)},
		{strings.Repeat("word ", 20), strings.TrimSpace(strings.Repeat("word ", 12)) + "…"},
		{"", ""},
		{strings.Repeat("x", 59) + " y", strings.Repeat("x", 59) + "…"},
		{strings.Repeat("x", 59) + " y ", strings.Repeat("x", 59) + "…"},
		{strings.Repeat("x", 59) + " ", strings.Repeat("x", 59)},
		{strings.Repeat("x", 60) + " \n", strings.Repeat("x", 60)},
		{strings.Repeat("x", 60) + " y", strings.Repeat("x", 60) + "…"},
		{"bad \xff byte", "bad \xff byte"},
		{strings.Repeat("a ", 29) + "\xffz tail", strings.Repeat("a ", 29) + "\ufffdz…"},
	}
	for _, tt := range tests {
		if got := TitleFrom(tt.in); got != tt.want {
			t.Errorf("TitleFrom(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got, want := TitleFrom(tt.in), titleFromWhole(tt.in); got != want {
			t.Errorf("TitleFrom(%q) = %q, but from the whole text %q", tt.in, got, want)
		}
	}
}

// titleFromWhole is TitleFrom as it was made from the whole text: the fields joined, cut
// as runes.
func titleFromWhole(text string) string {
	s := strings.Join(strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(s); len(r) > TitleLen {
		return strings.TrimSpace(string(r[:TitleLen])) + "…"
	}
	return s
}

// FuzzTitleFrom checks that TitleFrom gives what the whole text's fields give.
func FuzzTitleFrom(f *testing.F) {
	for _, s := range []string{"", "a b", " \t\x1b[1mx\x00 ", strings.Repeat("é ", 40), strings.Repeat("x", 61), "\xff\xfe \u00a0 \u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := TitleFrom(s), titleFromWhole(s); got != want {
			t.Errorf("TitleFrom(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestTitleFromReadsOnlyTheTitle makes a title from a 100 MB message: it costs what the
// title costs, not a copy of the message split into words (1.8 GB allocated, 10 s).
func TestTitleFromReadsOnlyTheTitle(t *testing.T) {
	text := strings.Repeat("lorem ipsum dolor sit amet ", 4<<20) // 108 MiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	title := TitleFrom(text)
	runtime.ReadMemStats(&after)
	if want := "lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem…"; title != want {
		t.Fatalf("title %q, want %q", title, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("TitleFrom of a 108 MiB text allocated %d bytes, want what the title takes", n)
	}
}

func TestCheckTitle(t *testing.T) {
	tests := []struct{ in, err string }{
		{"Support demo", ""},
		{"two\tparts\r\nand lines", ""},
		{"", ""},
		{"bell\a", `title "bell\a": control character`},
		{"del\x7f", `title "del\x7f": control character`},
		{strings.Repeat("x", MaxTitleLen+1), "title longer than 4096 bytes"},
	}
	for _, tt := range tests {
		err := CheckTitle(tt.in)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("CheckTitle(%.20q): %v does not wrap ErrInvalid", tt.in, err)
			}
		}
		if got != tt.err {
			t.Errorf("CheckTitle(%.20q) = %q, want %q", tt.in, got, tt.err)
		}
	}
}
