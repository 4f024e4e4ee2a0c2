package inert

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

var jsonTests = []struct {
	name, in, want string
}{
	{"plain", `{"a":"b"}`, `{"a":"b"}`},
	{"bidi escaped, an emoji's joiner kept", "{\"a\":\"x\u202Ey \U000E0041 👨\u200D💻 क्\u200Dष\"}", `{"a":"x\u202ey \udb40\udc41 👨` + "\u200D" + `💻 क्` + "\u200D" + `ष"}`},
	{"a joiner that starts a string", "[\"\u200Dx\", \"a\\n\u200D\"]", `["\u200dx", "a\n\u200d"]`},
	{"a selector after an escape", `["\u0041` + "\uFE0F" + `A` + "\uFE0F" + `"]`, `["\u0041\ufe0fA` + "\uFE0F" + `"]`},
	{"DEL and C1 escaped", "[\"a\x7fb\u009bc\"]", `["a\u007fb\u009bc"]`},
	{"raw C0 escaped", "[\"a\x1b[201~\rb\"]", `["a\u001b[201~\u000db"]`},
	{"CR outside strings dropped", "{\r\n\"a\": 1\r\n}", "{\n\"a\": 1\n}"},
	{"escaped quote", `["a\"` + "\u202E" + `"]`, `["a\"\u202e"]`},
	{"invalid UTF-8", "[\"a\xffb\"]", `["a\ufffdb"]`},
}

func TestJSON(t *testing.T) {
	for _, tt := range jsonTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(JSON([]byte(tt.in))); got != tt.want {
				t.Errorf("JSON(%+q) = %+q, want %+q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzJSON checks that JSON keeps the value of valid JSON and leaves no control character
// and no character Visible would mark in it (the request JSON that y copies).
func FuzzJSON(f *testing.F) {
	for _, tt := range jsonTests {
		f.Add(tt.in)
	}
	f.Add(`{"messages":[{"role":"assistant","content":"echo harmless` + "\x1b[201~\rtouch pwned\r\u202E" + `"}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		out := JSON([]byte(s))
		if !utf8.Valid(out) {
			t.Fatalf("JSON(%+q) = %+q: not valid UTF-8", s, out)
		}
		for _, r := range string(out) {
			if control(r) || r == 0x1b || r == '\r' {
				t.Fatalf("JSON(%+q) = %+q: holds %U", s, out, r)
			}
		}
		if shown := show(string(out)); shown != string(out) {
			t.Fatalf("JSON(%+q) = %+q: holds characters Visible marks: %+q", s, out, shown)
		}
		if !json.Valid([]byte(s)) {
			return
		}
		var want, got any
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("JSON(%+q) = %+q: %v", s, out, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("JSON(%+q) = %+q: the value %#v, want %#v", s, out, got, want)
		}
	})
}
