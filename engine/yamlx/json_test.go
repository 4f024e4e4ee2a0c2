package yamlx

import (
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name, doc, want, err string
	}{
		{name: "key order kept", doc: "z: 1\na: 2\nm: 3", want: `{"z":1,"a":2,"m":3}`},
		{name: "nested", doc: "type: object\nproperties: {query: {type: string}}\nrequired: [query]",
			want: `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`},
		{name: "scalars", doc: "s: x\ni: -3\nf: 1.5\nb: true\nn: ~\nq: '007'",
			want: `{"s":"x","i":-3,"f":1.5,"b":true,"n":null,"q":"007"}`},
		{name: "empty collections", doc: "a: []\nb: {}", want: `{"a":[],"b":{}}`},
		{name: "aliases expanded", doc: "a: &x {k: v}\nb: *x", want: `{"a":{"k":"v"},"b":{"k":"v"}}`},
		{name: "timestamp as written", doc: "d: 2026-03-27", want: `{"d":"2026-03-27"}`},
		{name: "escaping", doc: `s: "a\"b<>&\u00e9"`, want: `{"s":"a\"b\u003c\u003e\u0026é"}`},
		{name: "top-level list", doc: "- 1\n- [2]", want: `[1,[2]]`},
		{name: "nan", doc: "a:\n  b: .nan", err: `line 2: ".nan" has no JSON form`},
		{name: "inf", doc: "a: [.inf]", err: `line 1: ".inf" has no JSON form`},
		{name: "negative inf", doc: "a: -.Inf", err: `line 1: "-.Inf" has no JSON form`},
		{name: "duplicate nested key", doc: "a: {b: 1, b: 2}", err: `line 1: duplicate key "b"`},
		{name: "complex key", doc: "a:\n  ? [k]\n  : v", err: "line 2: keys must be plain names, found a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := Parse("f.yaml", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			js, err := JSON(root)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("got error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			if string(js) != tt.want {
				t.Errorf("got %s, want %s", js, tt.want)
			}
		})
	}
}

func TestJSONBillionLaughs(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	root, err := Parse("f.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = JSON(root)
	if err == nil || !strings.Contains(err.Error(), "too many values") {
		t.Fatalf("got error %v, want too many values", err)
	}
}

func TestJSONDeep(t *testing.T) {
	// Parse refuses a tree deeper than MaxDepth; aliases can still build a deeper value.
	doc := "a: &a " + strings.Repeat("[", 60) + strings.Repeat("]", 60) + "\n" +
		"b: " + strings.Repeat("[", 60) + "*a" + strings.Repeat("]", 60) + "\n"
	root, err := Parse("f.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := JSON(root); err == nil || !strings.Contains(err.Error(), "nesting is too deep") {
		t.Fatalf("got error %v, want nesting is too deep", err)
	}
}
