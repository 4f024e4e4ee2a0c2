package yamlx

import (
	"strings"
	"testing"
)

// TestParseRefusesBytes is issue 12 item 8: invalid UTF-8 and NUL bytes in a context file
// were read as U+FFFD, silently, into the prompt sent. Bytes YAML does not allow are
// refused at the first of them (columns in code points).
func TestParseRefusesBytes(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string // want "" for accepted
	}{
		{"invalid UTF-8 in a quoted string", "a: 1\nb: \"x\xffy\"\n", "f.yaml:2:6: invalid UTF-8 (byte 0xff): a YAML file is UTF-8 text"},
		{"invalid UTF-8 after non-ASCII", "a: héllo\xc3\n", "f.yaml:1:9: invalid UTF-8 (byte 0xc3): a YAML file is UTF-8 text"},
		{"invalid UTF-8 in a comment", "# \xfe\na: 1\n", "f.yaml:1:3: invalid UTF-8 (byte 0xfe): a YAML file is UTF-8 text"},
		{"a NUL in a plain scalar", "a: x\x00y\n", "f.yaml:1:5: a NUL byte: a YAML file is text"},
		{"an escape character", "a: \"\x1b[31m\"\n", "f.yaml:1:5: control character U+001B: a YAML file holds printable characters only"},
		{"DEL", "a: x\x7f\n", "f.yaml:1:5: control character U+007F: a YAML file holds printable characters only"},
		{"a C1 control", "a: x\u0090\n", "f.yaml:1:5: control character U+0090: a YAML file holds printable characters only"},
		{"U+FFFF", "a: x\uffff\n", "f.yaml:1:5: control character U+FFFF: a YAML file holds printable characters only"},
		{"tabs, CRLF, NEL, a byte order mark and emoji", "\ufeffa:\t\"x\u0085y\"\r\nb: 🙂\n", ""},
		{"an escaped NUL", `a: "x\0y"` + "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.doc))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want it parsed", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestParseRefusesTags is issue 12 item 8: YAML tags like !!python/object were accepted
// silently. A tag other than those of plain values is refused at its node, in yaml.v3's
// path and in goccy's (a `?` ending a plain scalar in a flow mapping is YAML only goccy
// reads).
func TestParseRefusesTags(t *testing.T) {
	const goccyOnly = "b: {x?: 1}\n"
	for _, tc := range []struct {
		name, doc, want string // want "" for accepted
	}{
		{"!!python/object", "a: !!python/object:os.system [ls]\n", "f.yaml:1:4: YAML tag !!python/object:os.system is not accepted"},
		{"!!binary", "a:\n  - !!binary aGVsbG8=\n", "f.yaml:2:5: YAML tag !!binary is not accepted"},
		{"!!set", "a: !!set {x, y}\n", "f.yaml:1:4: YAML tag !!set is not accepted"},
		{"!!timestamp", "a: !!timestamp 2001-12-14\n", "f.yaml:1:4: YAML tag !!timestamp is not accepted"},
		{"a custom tag", "a: !custom x\n", "f.yaml:1:4: YAML tag !custom is not accepted"},
		{"a custom tag on a key", "!k a: 1\n", "f.yaml:1:1: YAML tag !k is not accepted"},
		{"a custom tag in goccy's path", goccyOnly + "c: !custom x\n", "f.yaml:2:4: YAML tag !custom is not accepted"},
		{"a verbatim custom tag", "a: !<tag:example.com,2000:x> y\n", "f.yaml:1:4: YAML tag tag:example.com,2000:x is not accepted"},
		{"the tags of plain values", "a: !!str 1\nb: !!int \"2\"\nc: !!float 3\nd: !!bool true\ne: !!null ~\nf: !!seq [1]\ng: !!map {h: 1}\n", ""},
		{"a verbatim standard tag", "a: !<tag:yaml.org,2002:str> 1\n", ""},
		{"the tags of plain values in goccy's path", goccyOnly + "c: !!str 1\n", ""},
		{"a tag in a comment or a string", "# !!python/object\na: \"!!binary x\"\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.doc))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want it parsed", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want+": only the tags of plain values")):
				t.Fatalf("got %v, want %q…", err, tc.want)
			}
		})
	}
}
