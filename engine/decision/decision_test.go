package decision_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/predicates"
)

// full returns a decision of source with every field set.
func full(source string) decision.Decision {
	return decision.Decision{
		ID: "d<1>", Source: source, Kind: "must", Scope: "In: review", Fired: true,
		Reason: decision.ReasonFired, Detail: "why & how", Placement: "user", Tier: "safety",
		Text: "Stay \"concise\".", Tokens: 7, When: []string{"the user asks"},
		Trace: &predicates.Result{Expr: "once('x')", Value: true, Why: "not latched", Error: "e",
			Children: []predicates.Result{{Expr: "turn > 1", Value: true, Why: "turn 2 > 1", Children: []predicates.Result{}}}},
		OnceLatches: []string{"x"},
		Was:         &decision.Was{Fired: false, Reason: decision.ReasonPredicateFalse},
	}
}

const trace = `{"expr":"once('x')","value":true,"why":"not latched","error":"e","children":[{"expr":"turn > 1","value":true,"why":"turn 2 > 1","children":[]}]}`

func TestMarshalForms(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    decision.Decision
		want string
	}{
		{"reminder, every field", full(decision.SourceReminder),
			`{"id":"d<1>","source":"reminder","fired":true,"reason":"fired","detail":"why & how","placement":"user","tier":"safety",` +
				`"text":"Stay \"concise\".","tokens":7,"trace":` + trace + `,"latches":["x"],"was":{"fired":false,"reason":"predicate_false"}}`},
		{"instruction, every field", full(decision.SourceInstruction),
			`{"id":"d<1>","source":"instruction","kind":"must","scope":"In: review","fired":true,"reason":"fired","detail":"why & how",` +
				`"text":"Stay \"concise\".","when":["the user asks"],"trace":` + trace + `,"latches":["x"],"was":{"fired":false,"reason":"predicate_false"}}`},
		{"reminder, zero", decision.Decision{ID: "r", Source: decision.SourceReminder},
			`{"id":"r","source":"reminder","fired":false,"reason":"","detail":"","placement":"","tier":"","text":"","tokens":0,"trace":null}`},
		{"instruction, zero", decision.Decision{ID: "i", Source: decision.SourceInstruction},
			`{"id":"i","source":"instruction","kind":"","scope":"","fired":false,"reason":"","text":""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf) // as traces are written: <, > and & as they are
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.d); err != nil {
				t.Fatal(err)
			}
			if b := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
			if list := decision.AppendList(nil, []decision.Decision{tc.d, tc.d}); string(list) != "["+tc.want+","+tc.want+"]" {
				t.Errorf("AppendList: got %s", list)
			}
		})
	}
}

// TestStrictDecodeTakesWhatMarshalWrites checks that what a decision of either form writes
// decodes into Fields refusing unknown fields, as an import checks it, giving back every
// field the form writes.
func TestStrictDecodeTakesWhatMarshalWrites(t *testing.T) {
	for _, tc := range []struct {
		source string
		// unwritten zeroes the fields the form does not write.
		unwritten func(d *decision.Decision)
	}{
		{decision.SourceReminder, func(d *decision.Decision) { d.Kind, d.Scope, d.When = "", "", nil }},
		{decision.SourceInstruction, func(d *decision.Decision) { d.Placement, d.Tier, d.Tokens = "", "", 0 }},
	} {
		t.Run(tc.source, func(t *testing.T) {
			d := full(tc.source)
			b := decision.AppendList(nil, []decision.Decision{d})
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			var got []decision.Fields
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("strict decode of %s: %v", b, err)
			}
			want := d
			tc.unwritten(&want)
			if len(got) != 1 || !reflect.DeepEqual(decision.Decision(got[0]), want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestUnmarshalKeepsTheForm checks that a decision read back keeps only the fields of its
// form, whatever else its JSON holds.
func TestUnmarshalKeepsTheForm(t *testing.T) {
	for _, tc := range []struct {
		source string
		// other zeroes the fields of the other form.
		other func(d *decision.Decision)
	}{
		{decision.SourceReminder, func(d *decision.Decision) { d.Kind, d.Scope, d.When = "", "", nil }},
		{decision.SourceInstruction, func(d *decision.Decision) {
			d.Placement, d.Tier, d.Tokens, d.OnceLatches = "", "", 0, nil
		}},
	} {
		t.Run(tc.source, func(t *testing.T) {
			f := decision.Fields(full(tc.source)) // every field of both forms, by the tags
			b, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			var got decision.Decision
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			want := full(tc.source)
			tc.other(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if !reflect.DeepEqual(got.Latches(), want.OnceLatches) {
				t.Errorf("Latches: got %v, want %v", got.Latches(), want.OnceLatches)
			}
		})
	}
	var d decision.Decision
	if err := json.Unmarshal([]byte(`{"id": 1}`), &d); err == nil {
		t.Errorf("a decision with a number for its id: got %+v, want an error", d)
	}
}

func TestDecodeRefusesUnknownField(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader([]byte(`[{"id":"x","source":"reminder","tokenz":1}]`)))
	dec.DisallowUnknownFields()
	var got []decision.Fields
	if err := dec.Decode(&got); err == nil {
		t.Errorf("strict decode of an unknown field: got %+v, want an error", got)
	}
}

func TestFired(t *testing.T) {
	r := func(id string, fired bool, latches ...string) decision.Decision {
		return decision.Decision{ID: id, Source: decision.SourceReminder, Fired: fired, OnceLatches: latches}
	}
	in := func(id string, fired bool, latches ...string) decision.Decision {
		return decision.Decision{ID: id, Source: decision.SourceInstruction, Fired: fired, OnceLatches: latches}
	}
	tests := []struct {
		name string
		ds   []decision.Decision
		want []chat.Fired
	}{
		{"none", nil, nil},
		{"nothing fired", []decision.Decision{r("a", false), in("b", false, "x")}, nil},
		{"reminders", []decision.Decision{r("a", true), r("b", false), r("c", true, "c")},
			[]chat.Fired{{ID: "a"}, {ID: "c", Latches: []string{"c"}}}},
		{"instructions with latches only", []decision.Decision{in("a", true), in("b", true, "x", "y")},
			[]chat.Fired{{ID: "instruction:b", Latches: []string{"x", "y"}}}},
		{"in order", []decision.Decision{in("i", true, "x"), r("r", true)},
			[]chat.Fired{{ID: "instruction:i", Latches: []string{"x"}}, {ID: "r"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := decision.Fired(tc.ds); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
