package jsonpos

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

const doc = `{
  "a": 1,
  "list": [10, {"k": "v", "k": "w"}, [true, null]],
  "Obj": {"x": "é", "y": {"z": "last"}},
  "esc\"aped": 2
}`

// mark returns the line and column of the n-th (1-based) occurrence of s in doc.
func mark(t *testing.T, text, s string, n int) (int, int) {
	t.Helper()
	off := -1
	for range n {
		i := strings.Index(text[off+1:], s)
		if i < 0 {
			t.Fatalf("%q not in the text %d times", s, n)
		}
		off += i + 1
	}
	return LineCol([]byte(text), int64(off))
}

func TestFind(t *testing.T) {
	tests := []struct {
		path   Path
		at     string // the text the value starts with
		nth    int    // its occurrence in doc
		n      int    // the elements found
		keyAt  string // FindKey: the text the key starts with ("" for the value)
		keyNth int
	}{
		{Path{}, "{", 1, 0, "", 0},
		{Path{"a"}, "1", 1, 1, `"a"`, 1},
		{Path{"list", 0}, "10", 1, 2, "", 0},
		{Path{"list", 1, "k"}, `"w"`, 1, 3, `"k"`, 2}, // the last of duplicate keys
		{Path{"list", 2, 1}, "null", 1, 3, "", 0},
		{Path{"obj", "y", "z"}, `"last"`, 1, 3, `"z"`, 1}, // a key matched under case folding
		{Path{"Obj", "x"}, `"é"`, 1, 2, `"x"`, 1},
		{Path{`esc"aped`}, "2", 1, 1, `"esc`, 1},
		{Path{"list", 5}, "[10", 1, 1, "", 0},              // no such index: the array
		{Path{"Obj", "missing", "q"}, `{"x"`, 1, 1, "", 0}, // no such key: the object
		{Path{"a", "b"}, "1", 1, 1, "", 0},                 // not an object
		{Path{"list", "k"}, "[10", 1, 1, "", 0},            // not an object
	}
	for _, tt := range tests {
		t.Run(tt.path.String(), func(t *testing.T) {
			off, n := Find([]byte(doc), tt.path)
			line, col := LineCol([]byte(doc), off)
			wl, wc := mark(t, doc, tt.at, tt.nth)
			if line != wl || col != wc || n != tt.n {
				t.Errorf("Find: got %d:%d (%d found), want %d:%d (%d)", line, col, n, wl, wc, tt.n)
			}
			koff, kn := FindKey([]byte(doc), tt.path)
			if tt.keyAt != "" {
				wl, wc = mark(t, doc, tt.keyAt, tt.keyNth)
			}
			if line, col := LineCol([]byte(doc), koff); line != wl || col != wc || kn != n {
				t.Errorf("FindKey: got %d:%d, want %d:%d", line, col, wl, wc)
			}
		})
	}
}

func TestAt(t *testing.T) {
	b := []byte(doc)
	tests := []struct {
		inside string // a text inside the value
		path   string
		at     string // the text the value starts with
	}{
		{`"a"`, "a", "1"},
		{"10", "list[0]", "10"},
		{`"w"`, "list[1].k", `"w"`},
		{"rue", "list[2][0]", "true"},
		{`"last"`, "Obj.y.z", `"last"`},
		{"  \"a\"", "", "{"},
	}
	for _, tt := range tests {
		off := int64(strings.Index(doc, tt.inside) + 1)
		path, got := At(b, off)
		if path.String() != tt.path || got != int64(strings.Index(doc, tt.at)) {
			t.Errorf("At(%q): got %s at %d, want %s at %d", tt.inside, path, got, tt.path, strings.Index(doc, tt.at))
		}
	}
}

func TestValue(t *testing.T) {
	raw, ok := Value([]byte(doc), Path{"list", 1})
	if !ok || string(raw) != `{"k": "v", "k": "w"}` {
		t.Errorf("got %q, %v", raw, ok)
	}
	if _, ok := Value([]byte(doc), Path{"nope"}); ok {
		t.Error("a missing value was found")
	}
}

func TestLineCol(t *testing.T) {
	b := []byte("ab\r\n\tçé\xffx\n")
	tests := []struct {
		off       int64
		line, col int
		what      string
	}{
		{0, 1, 1, "the start"},
		{2, 1, 3, "a carriage return counts as a character"},
		{4, 2, 1, "after the line feed"},
		{5, 2, 2, "a tab counts as one"},
		{7, 2, 3, "a two-byte character counts as one"},
		{10, 2, 5, "an invalid byte counts as one"},
		{-5, 1, 1, "before the start"},
		{99, 3, 1, "past the end"},
	}
	for _, tt := range tests {
		if line, col := LineCol(b, tt.off); line != tt.line || col != tt.col {
			t.Errorf("%s: got %d:%d, want %d:%d", tt.what, line, col, tt.line, tt.col)
		}
	}
}

func TestPathString(t *testing.T) {
	if got := (Path{"messages", 2, "parts", 0, "type"}).String(); got != "messages[2].parts[0].type" {
		t.Errorf("got %q", got)
	}
	if got := (Path{0, "a b", "_ok1"}).String(); got != `[0]["a b"]._ok1` {
		t.Errorf("got %q", got)
	}
}

type inner struct {
	N    int             `json:"n"`
	When time.Time       `json:"when"`
	Raw  json.RawMessage `json:"raw"`
	Skip string          `json:"-"`
}

type Embedded struct {
	Deep string `json:"deep"`
}

type outer struct {
	Embedded
	Name   string           `json:"name"`
	Items  []inner          `json:"items"`
	Fixed  [1]inner         `json:"fixed"`
	ByID   map[string]inner `json:"by_id"`
	ByNum  map[int]string   `json:"by_num"`
	Ptr    *inner           `json:"ptr"`
	Any    any              `json:"any"`
	Bytes  []byte           `json:"bytes"`
	Quoted int              `json:"quoted,string"`
	NoTag  bool
	//lint:ignore U1000 unexported on purpose: encoding/json must not see it
	hidden int
}

func TestFirstProblem(t *testing.T) {
	tests := []struct {
		name, text string
		path       string // "" for no problem
		unknown    bool
		at         string // the text the problem starts with (its last occurrence)
	}{
		{"good", `{"name": "x", "deep": "d", "NoTag": true, "items": [{"n": 1, "when": "2026-01-01T00:00:00Z", "raw": {"any": [1]}}], "any": {"q": 1}, "bytes": "AQI=", "quoted": "12", "by_num": {"3": "c"}}`, "", false, ""},
		{"nulls", `{"name": null, "items": [null], "ptr": null, "fixed": null, "any": null}`, "", false, ""},
		{"unknown top-level", `{"name": "x", "nmae": 1}`, "nmae", true, `"nmae"`},
		{"unknown nested", `{"items": [{"n": 1}, {"n": 2, "m": 3}]}`, "items[1].m", true, `"m"`},
		{"unknown in a map value", `{"by_id": {"a b": {"n": 1, "zz": 0}}}`, `by_id["a b"].zz`, true, `"zz"`},
		{"unknown through a pointer", `{"ptr": {"nn": 1}}`, "ptr.nn", true, `"nn"`},
		{"case folding is no problem", `{"NAME": "x", "Items": [{"N": 1}], "notag": false, "DEEP": ""}`, "", false, ""},
		{"hidden field", `{"hidden": 1}`, "hidden", true, `"hidden"`},
		{"dash-tagged field", `{"Skip": "x"}`, "Skip", true, `"Skip"`},
		{"wrong type", `{"items": [{"n": "1"}]}`, "items[0].n", false, `"1"`},
		{"wrong type, object", `{"name": {"a": [1, 2]}}`, "name", false, `{"a"`},
		{"wrong container", `{"items": {"n": 1}}`, "items", false, `{"n"`},
		{"bad time", `{"items": [{"when": "today"}]}`, "items[0].when", false, `"today"`},
		{"array too long is no problem", `{"fixed": [{"n": 1}, {"bogus": 2}]}`, "", false, ""},
		{"fixed array", `{"fixed": [{"bogus": 2}]}`, "fixed[0].bogus", true, `"bogus"`},
		{"bad map key", `{"by_num": {"x": "c"}}`, "by_num.x", false, `"x"`},
		{"bad base64", `{"bytes": "!!"}`, "bytes", false, `"!!"`},
		{"first in file order", `{"items": [{"n": "one"}], "zz": 1}`, "items[0].n", false, `"one"`},
		{"top-level", `[1]`, "", false, "["},
	}
	typ := reflect.TypeFor[outer]()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(tt.text)
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			decErr := dec.Decode(new(outer))
			p, ok := FirstProblem(b, typ)
			if ok != (decErr != nil) {
				t.Fatalf("FirstProblem found %v (%+v); the decoder says %v", ok, p, decErr)
			}
			if !ok {
				return
			}
			if p.Path.String() != tt.path || p.Unknown != tt.unknown || p.Offset != int64(strings.LastIndex(tt.text, tt.at)) {
				t.Errorf("got %s (unknown %v) at %d, want %s (%v) at %d", p.Path, p.Unknown, p.Offset, tt.path, tt.unknown, strings.LastIndex(tt.text, tt.at))
			}
			if tt.unknown && (p.Err != nil || len(p.Known) == 0) {
				t.Errorf("an unknown field with err %v and known %v", p.Err, p.Known)
			}
			if !tt.unknown && (p.Err == nil || p.Type == nil || len(p.Raw) == 0) {
				t.Errorf("a type problem without its error, type or text: %+v", p)
			}
		})
	}
}

// FuzzFirstProblem checks that nothing makes the scanner panic, and that FirstProblem
// finds a problem in valid JSON exactly when encoding/json refuses it.
func FuzzFirstProblem(f *testing.F) {
	for _, s := range []string{doc, `{"items": [{"n": "1"}]}`, `{"name": "x", "nmae": 1}`, `{"a": [`, `"\"`, `{"by_num": {"1": "a"}}`, `[]`} {
		f.Add([]byte(s))
	}
	typ := reflect.TypeFor[outer]()
	f.Fuzz(func(t *testing.T, b []byte) {
		p, ok := FirstProblem(b, typ)
		Find(b, Path{"items", 0, "n"})
		FindKey(b, Path{"name"})
		At(b, int64(len(b)/2))
		Value(b, Path{"by_id", "a"})
		if !json.Valid(b) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err := dec.Decode(new(outer))
		if ok != (err != nil) {
			t.Fatalf("FirstProblem found %v (%+v); the decoder says %v", ok, p, err)
		}
		if ok && (p.Offset < 0 || p.Offset >= int64(len(b))) {
			t.Fatalf("problem at %d of %d bytes", p.Offset, len(b))
		}
	})
}
