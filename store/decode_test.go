package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// The hand-written decoders of stored columns must agree with encoding/json on every
// input: same value when both succeed, and never succeed where encoding/json fails.

func FuzzDecodeFired(f *testing.F) {
	for _, s := range []string{`[{"id":"a"}]`, `[{"id":"a","latches":["x","y"]},{"id":"b"}]`, `[]`, `[{"id":"a\"b"}]`,
		`[{"id":"a","latches":[]}]`, `[{"id":"é"}]`, `[{"id":"a"}] `, `[{"id":"a"},]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []chat.Fired
		wantErr := json.Unmarshal(b, &want)
		got, ok := parseFired(b)
		if !ok {
			return
		}
		if wantErr != nil {
			t.Fatalf("parseFired(%q) accepted what encoding/json refuses: %v", b, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseFired(%q): got %#v, want %#v", b, got, want)
		}
	})
}

func FuzzDecodeParts(f *testing.F) {
	for _, s := range []string{"hello", "", "a\"b", "<tag> & \\", "\u2028", "\xff", "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, parts := range [][]chat.Part{{chat.TextPart(text)}, {chat.TextPart(text), chat.TextPart(text)}} {
			enc, err := marshalJSON(parts)
			if err != nil {
				t.Fatal(err)
			}
			var want, got []chat.Part
			if err := json.Unmarshal([]byte(enc), &want); err != nil {
				t.Fatal(err)
			}
			if err := decodeParts([]byte(enc), &got); err != nil {
				t.Fatalf("decodeParts(%s): %v", enc, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeParts(%s): got %#v, want %#v", enc, got, want)
			}
		}
	})
}

func TestDecodeFiredRoundTrip(t *testing.T) {
	tests := [][]chat.Fired{
		{{ID: "a"}},
		{{ID: "a", Latches: []string{"x"}}, {ID: "b <c>", Latches: []string{"y", "z"}}},
		{{ID: "quote\"d", Latches: []string{"new\nline"}}},
	}
	for _, want := range tests {
		enc, err := marshalJSON(want)
		if err != nil {
			t.Fatal(err)
		}
		var got []chat.Fired
		if err := decodeFired([]byte(enc), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeFired(%s): got %+v, %v; want %+v", enc, got, err, want)
		}
	}
}

// FuzzUnquote feeds raw string bodies, escapes and all, to the single-text-part decoder.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`plain`, `line\nbreak \"quoted\" \\ \/ \b\f\r\t`, `\u00e9\u003c`, `\ud83d\ude00`,
		`\ud83d`, `\ud83dx`, `\udc00\ud83d`, `\u12`, `\x`, `trailing\`, `a"b`, "tab\tin", "\xff", `\u0000`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b := append(append([]byte(`[{"type":"text","text":"`), body...), `"}]`...)
		var want, got []chat.Part
		wantErr := json.Unmarshal(b, &want)
		err := decodeParts(b, &got)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("decodeParts(%q): error %v, encoding/json: %v", b, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeParts(%q): got %#v, want %#v", b, got, want)
		}
	})
}
