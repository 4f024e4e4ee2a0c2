package chat

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, tt := range []struct {
		name, want string // want: "" for a name accepted
	}{
		{"main-v2", ""},
		{strings.Repeat("é", MaxNameLen/2), ""},
		{"", "empty branch name"},
		{strings.Repeat("x", MaxNameLen+1), `branch name "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"…: longer than 1024 bytes`},
		{"a\xffb", `branch name "a\xffb": not valid UTF-8`},
		{"a\tb", `branch name "a\tb": control character`},
		{"a\x7fb", `branch name "a\x7fb": control character`},
		{"a\u009b2Jb", `branch name "a\u009b2Jb": control character`},
		{"a\u0085b", `branch name "a\u0085b": control character`},
		{"a\u00a0b", ""},
	} {
		err := CheckName("branch name", tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckName(%.20q): got %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want || !errors.Is(err, ErrInvalid)):
			t.Errorf("CheckName(%.20q): got %v, want %s (ErrInvalid)", tt.name, err, tt.want)
		}
	}
}
