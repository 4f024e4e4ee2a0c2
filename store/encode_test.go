package store

import (
	"encoding/json"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// trickyStrings are strings whose JSON form needs escapes, or looks as if it might.
var trickyStrings = []string{
	"", "plain", `quote " and backslash \`, "tags <b>&amp;</b>", "line\nbreak\ttab\rcr\b\f",
	"\x00\x01\x1f control", "bad utf-8 \xff\xfe here", "separators \u2028 and \u2029", "日本語 and émoji 🙂",
	"a longer text of plain ASCII, long enough for the eight-byte steps of the scanner <system-reminder>x</system-reminder>",
}

// TestEncodersMatchMarshal checks the hand-written encoders against marshalJSON byte for
// byte, and that what they write decodes back to the same values.
func TestEncodersMatchMarshal(t *testing.T) {
	var partLists [][]chat.Part
	for _, s := range trickyStrings {
		partLists = append(partLists,
			[]chat.Part{chat.TextPart(s)},
			[]chat.Part{{Type: chat.PartType(s), Text: s, ToolCallID: s, ToolName: s, State: chat.ToolState(s), Output: s, ErrorText: s, Round: len(s)}},
		)
	}
	partLists = append(partLists, nil, []chat.Part{},
		[]chat.Part{chat.TextPart("a"), {Type: "tool-call", ToolCallID: "c1", ToolName: "run_sql", State: chat.ToolOutputError, ErrorText: "denied", Round: -2}},
		[]chat.Part{{Type: "tool-call", ToolName: "run_sql", Input: json.RawMessage(`{ "query" : "select 1" }`)}})
	for _, ps := range partLists {
		want, err := marshalJSON(ps)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeParts(ps)
		if err != nil || got != want {
			t.Errorf("encodeParts(%#v):\ngot  %s (%v)\nwant %s", ps, got, err, want)
		}
		var back []chat.Part
		if err := decodeParts([]byte(got), &back); err != nil {
			t.Errorf("decodeParts(%s): %v", got, err)
		}
	}

	for _, s := range trickyStrings {
		spans := []chat.ReminderSpan{{ID: s, Part: 1, Start: -3, End: 1 << 40, Mode: s}, {ID: "r2", Mode: chat.SpanPart}}
		want, _ := marshalJSON(spans)
		if got := encodeReminders(spans); got != want {
			t.Errorf("encodeReminders(%#v):\ngot  %s\nwant %s", spans, got, want)
		}
		for _, fired := range [][]chat.Fired{{{ID: s}}, {{ID: "a", Latches: []string{s, "b"}}, {ID: s, Latches: []string{}}}} {
			want, _ := marshalJSON(fired)
			if got := encodeFired(fired); got != want {
				t.Errorf("encodeFired(%#v):\ngot  %s\nwant %s", fired, got, want)
			}
		}
	}
}

// FuzzEncodeParts compares encodeParts with marshalJSON on any text.
func FuzzEncodeParts(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s, s, 3)
	}
	f.Fuzz(func(t *testing.T, text, name string, round int) {
		ps := []chat.Part{chat.TextPart(text), {Type: "tool-call", ToolName: name, Output: text, Round: round}}
		want, err := marshalJSON(ps)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := encodeParts(ps); err != nil || got != want {
			t.Errorf("encodeParts:\ngot  %q (%v)\nwant %q", got, err, want)
		}
	})
}

// BenchmarkEncodeMessage encodes the columns of a user message as a turn of the
// vs-deepagents workload has it: a text of about 1 KB with 15 reminders baked in.
func BenchmarkEncodeMessage(b *testing.B) {
	text := ""
	var spans []chat.ReminderSpan
	for i := range 15 {
		start := len(text)
		text += "<system-reminder>Stay concise and cite the runbook.</system-reminder>\n"
		spans = append(spans, chat.ReminderSpan{ID: "r" + string(rune('a'+i)), Start: start, End: len(text), Mode: chat.SpanInline})
	}
	parts := []chat.Part{chat.TextPart(text + "my slow query fails with an error (turn 12)")}
	for _, enc := range []struct {
		name string
		fn   func() (string, string, error)
	}{
		{"hand", func() (string, string, error) {
			p, err := encodeParts(parts)
			return p, encodeReminders(spans), err
		}},
		{"marshal", func() (string, string, error) {
			p, err := marshalJSON(parts)
			r, _ := marshalJSON(spans)
			return p, r, err
		}},
	} {
		b.Run(enc.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := enc.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
