package chat

import (
	"errors"
	"strings"
	"testing"
)

func TestTitleFrom(t *testing.T) {
	tests := []struct{ in, want string }{
		{"how many customers?", "how many customers?"},
		{"  two\tlines\nof text  ", "two lines of text"},
		{"\x1b[1mbold\x00 text", "[1mbold text"},
		{strings.Repeat("é", 60), strings.Repeat("é", 60)},
		{strings.Repeat("word ", 20), strings.TrimSpace(strings.Repeat("word ", 12)) + "…"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := TitleFrom(tt.in); got != tt.want {
			t.Errorf("TitleFrom(%q) = %q, want %q", tt.in, got, tt.want)
		}
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
