package chat

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// checkScan compares ScanJSON with encoding/json's Valid and Compact.
func checkScan(t *testing.T, in []byte) {
	t.Helper()
	valid, compact := ScanJSON(in)
	if want := json.Valid(in); valid != want {
		t.Fatalf("ScanJSON(%q) valid = %v, json.Valid says %v", in, valid, want)
	}
	if !valid {
		if compact {
			t.Fatalf("ScanJSON(%q): compact but not valid", in)
		}
		return
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, in); err != nil {
		t.Fatalf("json.Compact(%q): %v", in, err)
	}
	if want := bytes.Equal(buf.Bytes(), in); compact != want {
		t.Fatalf("ScanJSON(%q) compact = %v, json.Compact changes it: %v", in, compact, want)
	}
	checkStrings(t, in)
}

// checkStrings checks that ScanJSONStrings reports the strings of in, valid JSON, as
// encoding/json's tokens give them, in order and without overlap.
func checkStrings(t *testing.T, in []byte) {
	t.Helper()
	var got []string
	last := 0
	v, _ := ScanJSONStrings(in, func(start, end int) {
		if start < last || end <= start || end > len(in) {
			t.Fatalf("ScanJSONStrings(%q): string at %d:%d after %d", in, start, end, last)
		}
		last = end
		var s string
		if err := json.Unmarshal(in[start:end], &s); err != nil {
			t.Fatalf("ScanJSONStrings(%q): %q at %d:%d is not a string: %v", in, in[start:end], start, end, err)
		}
		got = append(got, s)
	})
	if !v {
		t.Fatalf("ScanJSONStrings(%q) not valid", in)
	}
	var want []string
	dec := json.NewDecoder(bytes.NewReader(in))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if s, ok := tok.(string); ok {
			want = append(want, s)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ScanJSONStrings(%q) = %q, want %q", in, got, want)
	}
}

func TestScanJSON(t *testing.T) {
	tests := []string{
		``, ` `, `null`, `true`, `false`, `nul`, `truex`, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`, `-12.5e10`,
		`"a"`, `"`, `"\"`, `"\u00e9"`, `"\u00g9"`, `"\u00"`, `"\x"`, `"\/\b\f\n\r\t"`, "\"\x01\"", "\"\x7f\xff\xfe\"",
		`[]`, `[ ]`, `[1,]`, `[1 ,2]`, `[,1]`, `{}`, `{ }`, `{"a":1}`, `{"a" : 1}`, `{"a":1,}`, `{a:1}`, `{"a"}`,
		`{"a":[1,{"b":null}],"c":"d"}`, " {\"a\":1}\n", `{"a":1}}`, `[1][2]`, `[`, `{"a":`, `{"a":1`, "[\"a\"\t]",
		`[true,false,null,"x",-1.0e-2,{"k":[]}]`,
		`["a string longer than eight bytes","with \"quotes\" and \\ inside","\u00e9t\u00e9 \n\t","\\"]`,
		"[\"eight+1 b\x01ytes\"]", "[\"control at sixteen..\x1f\"]", `{"ünïcödé kéy longer":"värde ∑ longer than 8"}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	}
	for _, in := range tests {
		checkScan(t, []byte(in))
	}
}

func FuzzScanJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c\n"}]}`, ` [ 1 , -2.5e3 ] `, `"\u12ab"`, `{"x":true,"y":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkScan(t, in) })
}

// BenchmarkScanJSON checks 200 decisions as a turn records them, against json.Valid,
// which the store used before.
func BenchmarkScanJSON(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 200 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"id":"r001","source":"reminder","fired":false,"reason":"predicate_false","detail":"","placement":"inline","tier":"guidance","text":"r001: Cite the forecast source.","tokens":9,"trace":{"expr":"contentMatches(['sprint dependency refund attribution', 'regional vendor monitor', 'queue payroll archive'])","value":false,"why":"best score 0.12 \u003c 0.3","children":[]}}`)
	}
	sb.WriteString("]")
	in := []byte(sb.String())
	b.Run("ScanJSON", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			if v, c := ScanJSON(in); !v || !c {
				b.Fatal("not valid and compact")
			}
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			if !json.Valid(in) {
				b.Fatal("not valid")
			}
		}
	})
}
