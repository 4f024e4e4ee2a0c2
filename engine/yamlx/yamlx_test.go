package yamlx

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr string // "" = parses
		wantNil bool   // an empty document
	}{
		{name: "empty", doc: "", wantNil: true},
		{name: "comments only", doc: "# nothing\n  # here\n", wantNil: true},
		{name: "document marker only", doc: "---\n", wantNil: true},
		{name: "null only", doc: "~\n", wantNil: true},
		{name: "mapping", doc: "a: 1\n"},
		{name: "yaml.v3 rejects ? before } (goccy fallback)", doc: "example: {question: What is churn?, answer: Customers lost.}\n"},
		{name: "YAML 1.2 directive (goccy fallback)", doc: "%YAML 1.2\n---\na: 1\n"},
		{name: "second document", doc: "a: 1\n---\nb: 2\n", wantErr: "f.yaml:2:1: expected one YAML document, found a second one"},
		{name: "second document after a fallback document", doc: "a: {q: What?}\n---\nb: 2\n", wantErr: "f.yaml:2:1: expected one YAML document, found a second one"},
		{name: "unclosed flow sequence", doc: "a: [1\n", wantErr: "f.yaml:1:4: invalid YAML: sequence end token ']' not found"},
		{name: "unclosed flow mapping", doc: "{a: 1\n", wantErr: "f.yaml:1:1: invalid YAML: could not find flow mapping end token '}'"},
		{name: "mapping value after a multi-line scalar", doc: "a: b\n c: d\n", wantErr: "f.yaml:2:3: invalid YAML: mapping value is not allowed in this context"},
		{name: "mapping value in a plain scalar", doc: "a: b: c\n", wantErr: "f.yaml:1:5: invalid YAML: mapping value is not allowed in this context"},
		{name: "tab indentation", doc: "a:\n\t- b\n", wantErr: "f.yaml:2:1: invalid YAML: found character '\t' that cannot start any token"},
		{name: "unterminated single quote", doc: "a: 'x\n", wantErr: "f.yaml:1:4: invalid YAML: could not find end character of single-quoted text"},
		{name: "unterminated double quote", doc: "a: \"x\n", wantErr: "f.yaml:1:4: invalid YAML: could not find end character of double-quoted text"},
		{name: "reserved character", doc: "key: @x\n", wantErr: "f.yaml:1:6: invalid YAML: '@' is a reserved character"},
		{name: "unknown escape", doc: "a: \"\\q\"\n", wantErr: "f.yaml:1:6: invalid YAML: found unknown escape character 'q'"},
		{name: "list then mapping", doc: "a:\n  - b\n  c: d\n", wantErr: "f.yaml:3:3: invalid YAML: value is not allowed in this context"},
		{name: "unknown anchor", doc: "a: *nope\n", wantErr: "f.yaml:1:4: invalid YAML: unknown anchor \"nope\" referenced"},
		{name: "alias before its anchor", doc: "a: *x\nb: &x 1\n", wantErr: "f.yaml:1:4: invalid YAML: unknown anchor \"x\" referenced"},
		{name: "unknown anchor in a fallback document", doc: "x: {q: What?}\ny: *z\n", wantErr: "f.yaml:2:4: invalid YAML: unknown anchor \"z\" referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse("f.yaml", []byte(tt.doc))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("got no error, want %q", tt.wantErr)
				}
				if got := err.Error(); got != tt.wantErr {
					t.Errorf("got error %q, want %q", got, tt.wantErr)
				}
				var de *diag.Error
				if !errors.As(err, &de) {
					t.Errorf("got %T, want *diag.Error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if (n == nil) != tt.wantNil {
				t.Errorf("got node %v, want nil=%v", n, tt.wantNil)
			}
		})
	}
}

func TestParseFallbackValues(t *testing.T) {
	n, err := Parse("f.yaml", []byte("example: {question: What is churn?, answer: Customers lost in a period.}\n"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := JSON(n)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"example":{"question":"What is churn?","answer":"Customers lost in a period."}}`
	if string(js) != want {
		t.Errorf("got %s, want %s", js, want)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"a: {}", "a mapping"}, {"a: []", "a list"}, {"a: x", "a string"}, {"a: 1", "an integer"},
		{"a: 1.5", "a number"}, {"a: true", "a boolean"}, {"a: ~", "null"}, {"a: 2001-12-14", "a !!timestamp value"},
		{"a: &x 1\nb: *x", "an integer"},
	}
	for _, tt := range tests {
		root, err := Parse("f.yaml", []byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := Describe(root.Content[len(root.Content)-1]); got != tt.want {
			t.Errorf("Describe(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
	if got := Describe(nil); got != "nothing" {
		t.Errorf("Describe(nil) = %q, want nothing", got)
	}
	// Parse refuses a custom tag (TestParseRefusesTags); a node made otherwise has one.
	if got := Describe(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!custom", Value: "x"}); got != "a !custom value" {
		t.Errorf("Describe(!custom x) = %q, want a !custom value", got)
	}
}

// errText joins a reader's errors, one per line.
func errText(r *Reader) string {
	if err := r.Err(); err != nil {
		return err.Error()
	}
	return ""
}

func TestReaderFields(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
		keys []string // the keys Fields returns, in order
	}{
		{name: "known keys", doc: "name: a\nif: b\n", keys: []string{"name", "if"}},
		{name: "suggestion", doc: "name: a\nnmae: b\n", want: `f.yaml:2:1: unknown key "nmae" in mode; did you mean name?`, keys: []string{"name", "nmae"}},
		{name: "no suggestion lists the keys", doc: "zzzzzz: 1\n", want: `f.yaml:1:1: unknown key "zzzzzz" in mode (known keys: if, name)`, keys: []string{"zzzzzz"}},
		{name: "duplicate key", doc: "name: a\nif: b\nname: c\n", want: `f.yaml:3:1: mode: duplicate key "name" (first at line 1)`, keys: []string{"name", "if"}},
		{name: "not a mapping", doc: "- a\n", want: "f.yaml:1:1: mode must be a mapping, found a list"},
		{name: "a scalar", doc: "x\n", want: "f.yaml:1:1: mode must be a mapping, found a string"},
		{name: "complex key", doc: "? [a]\n: b\n", want: "f.yaml:1:3: mode: keys must be plain names, found a list"},
		{name: "merge key is a key like any other", doc: "base: &b {name: x}\n<<: *b\n", want: `f.yaml:1:1: unknown key "base" in mode (known keys: if, name)` + "\n" + `f.yaml:2:1: unknown key "<<" in mode (known keys: if, name)`, keys: []string{"base", "<<"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := Parse("f.yaml", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			r := &Reader{File: "f.yaml"}
			fs, ok := r.Fields(root, "mode", "name", "if")
			if got := errText(r); got != tt.want {
				t.Errorf("got errors\n%s\nwant\n%s", got, tt.want)
			}
			if ok != (tt.want == "") {
				t.Errorf("got ok %v, want %v", ok, tt.want == "")
			}
			var keys []string
			for _, f := range fs.List {
				keys = append(keys, f.Key.Value)
			}
			if strings.Join(keys, ",") != strings.Join(tt.keys, ",") {
				t.Errorf("got keys %v, want %v", keys, tt.keys)
			}
			if (fs.Node == nil) != strings.Contains(tt.want, "must be a mapping") {
				t.Errorf("got Node %v, want nil only for a non-mapping", fs.Node)
			}
		})
	}
}

func TestFieldsGet(t *testing.T) {
	root, err := Parse("f.yaml", []byte("a: 1\nb: ~\nc:\nd: &x v\ne: *x\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := (&Reader{File: "f.yaml"}).Mapping(root, "m")
	for key, want := range map[string]string{"a": "1", "b": "<nil>", "c": "<nil>", "e": "v", "zz": "<nil>"} {
		got := "<nil>"
		if n := fs.Get(key); n != nil {
			got = n.Value
		}
		if got != want {
			t.Errorf("Get(%q) = %s, want %s", key, got, want)
		}
		if fs.Has(key) != (want != "<nil>") {
			t.Errorf("Has(%q) = %v, want %v", key, fs.Has(key), want != "<nil>")
		}
	}
}

func TestReaderScalars(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		read func(r *Reader, n *yamlNode) any
		want any
		err  string
	}{
		{"string", "v: hello", readString, "hello", ""},
		{"string from a number", "v: 2", readString, "2", ""},
		{"string from a list", "v: [a]", readString, "", "f.yaml:1:4: v must be a string, found a list"},
		{"string from a mapping", "v: {a: b}", readString, "", "f.yaml:1:4: v must be a string, found a mapping"},
		{"string from null", "v: ~", readString, "", "f.yaml:1:4: v must be a string, found null"},
		{"strings from one", "v: a", readStrings, "a", ""},
		{"strings from a list", "v: [a, b]", readStrings, "a|b", ""},
		{"strings with a list inside", "v: [a, [b]]", readStrings, "a|", "f.yaml:1:8: v item must be a string, found a list"},
		{"int", "v: 42", readInt, 42, ""},
		{"int hex", "v: 0x1F", readInt, 31, ""},
		{"int underscores", "v: 1_000", readInt, 1000, ""},
		{"int negative", "v: -3", readInt, -3, ""},
		{"int from a float", "v: 1.5", readInt, 0, "f.yaml:1:4: v must be an integer, found a number"},
		{"int from a quoted number", `v: "1"`, readInt, 0, "f.yaml:1:4: v must be an integer, found a string"},
		{"int out of range", "v: 99999999999", readInt, 0, `f.yaml:1:4: v: "99999999999" is out of range`},
		{"float", "v: 0.5", readFloat, 0.5, ""},
		{"float from an int", "v: 2", readFloat, 2.0, ""},
		{"float nan", "v: .nan", readFloat, 0.0, `f.yaml:1:4: v: ".nan" is not a finite number`},
		{"float inf", "v: -.inf", readFloat, 0.0, `f.yaml:1:4: v: "-.inf" is not a finite number`},
		{"float from a string", "v: hot", readFloat, 0.0, "f.yaml:1:4: v must be a number, found a string"},
		{"bool", "v: false", readBool, false, ""},
		{"bool True", "v: True", readBool, true, ""},
		{"bool yes is a string", "v: yes", readBool, false, "f.yaml:1:4: v must be true or false, found a string"},
		{"bool from an int", "v: 1", readBool, false, "f.yaml:1:4: v must be true or false, found an integer"},
		{"sequence", "v: [a, b]", readSeq, 2, ""},
		{"sequence from a mapping", "v: {a: 1}", readSeq, 0, "f.yaml:1:4: v must be a list, found a mapping"},
		{"alias", "a: &x 7\nv: *x", readInt, 7, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := Parse("f.yaml", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			r := &Reader{File: "f.yaml"}
			got := tt.read(r, root.Content[len(root.Content)-1])
			if got != tt.want {
				t.Errorf("got %v (%T), want %v (%T)", got, got, tt.want, tt.want)
			}
			if e := errText(r); e != tt.err {
				t.Errorf("got error %q, want %q", e, tt.err)
			}
		})
	}
}

func TestErrorfNil(t *testing.T) {
	r := &Reader{File: "f.yaml"}
	r.Errorf(nil, "whole %s", "file")
	if got, want := errText(r), "f.yaml:1:1: whole file"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
