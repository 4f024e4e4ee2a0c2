package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestScanRemoved: the fast scan of recorded decisions gives what json.Unmarshal gives,
// and declines what it does not take.
func TestScanRemoved(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"empty", `[]`, true},
		{"one", `[{"id":"a","source":"reminder","fired":true,"reason":"fired"}]`, true},
		{"nested and skipped", ` [ {"id":"a","trace":{"expr":"and(x, y)","kids":[{"v":true},{"v":null,"n":-1.5e3}],"s":"q\"uote\\"},"fired":false,"reason":"predicate_false","source":"reminder"} , {"reason":"cap_reached","id":"b\u00e9"} ] `, true},
		{"unicode escape", `[{"id":"\u0041\n","fired":true}]`, true},
		{"not an array", `{"id":"a"}`, false},
		{"trailing garbage", `[] x`, false},
		{"bad number", `[{"id":"a","n":01}]`, false},
		{"numbers", `[{"id":"a","n":[0,-1,1.5,2e10,-0.5E-3,1e+2],"b":[true,false,null]}]`, true},
		{"bad literal", `[{"id":"a","n":tru}]`, false},
		{"bad exponent", `[{"id":"a","n":1e}]`, false},
		{"other case", `[{"ID":"a"}]`, false},
		{"unterminated", `[{"id":"a"`, false},
		{"wrong type", `[{"id":1}]`, false},
		{"control character", "[{\"id\":\"a\x01\"}]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scanRemoved([]byte(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("scanRemoved: error %v, want ok %v", err, tt.ok)
			}
			if !tt.ok {
				return
			}
			var want []Removed
			if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				want = []Removed{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func FuzzScanRemoved(f *testing.F) {
	f.Add(`[{"id":"a","source":"reminder","fired":true,"reason":"fired","trace":{"k":[1,2,{"x":null}]}}]`)
	f.Add(`[]`)
	f.Add(`[{"id":"\ud83d\ude00"}]`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := scanRemoved([]byte(in))
		if err != nil {
			return // json.Unmarshal takes over
		}
		var want []Removed
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("scanRemoved took %q, which json.Unmarshal refuses: %v", in, err)
		}
		if len(want) == 0 {
			want = []Removed{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %+v, want %+v", in, got, want)
		}
	})
}

// TestScanRemovedOffsets: a quote, an escape or a control character at any offset of a
// string is found, in the skipped values and in those read.
func TestScanRemovedOffsets(t *testing.T) {
	for off := range 20 {
		pad := strings.Repeat("x", off)
		for _, tt := range []struct {
			name, in string
			ok       bool
		}{
			{"escaped quote", `[{"id":"` + pad + `\"q","trace":"` + pad + `\"` + pad + `","reason":"r` + pad + `"}]`, true},
			{"escaped backslash", `[{"trace":"` + pad + `\\` + pad + `","id":"` + pad + `é\\"}]`, true},
			{"control character", "[{\"trace\":\"" + pad + "\x1f" + pad + "\",\"id\":\"a\"}]", false},
			{"tab", "[{\"id\":\"" + pad + "\t\"}]", false},
			{"high bytes", `[{"trace":"` + pad + "\xc3\xa9\xe2\x82\xac" + pad + `","id":"i` + pad + `"}]`, true},
			{"unterminated", `[{"trace":"` + pad, false},
		} {
			got, err := scanRemoved([]byte(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("%s at %d: error %v, want ok %v", tt.name, off, err, tt.ok)
			}
			if !tt.ok {
				continue
			}
			var want []Removed
			if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s at %d: got %+v, want %+v", tt.name, off, got, want)
			}
		}
	}
}
