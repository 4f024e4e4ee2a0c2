package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

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

func FuzzDecodeResponses(f *testing.F) {
	rs := []chat.Response{
		{FinishReason: "tool_calls", Usage: &chat.Usage{PromptTokens: 373, CompletionTokens: 12, TotalTokens: 385, CachedTokens: 128, ReasoningTokens: 7},
			EstimatedPrompt: 380, TTFT: 410 * time.Millisecond, Latency: 26 * time.Hour},
		{FinishReason: "length", EstimatedPrompt: 402, Latency: time.Nanosecond},
		{FinishReason: "é", Usage: &chat.Usage{}},
	}
	f.Add(chat.AppendResponsesJSON(nil, rs))
	for _, s := range []string{`[]`, `null`, `[{"finish_reason":"stop","usage":null,"estimated_prompt_tokens":0,"ttft":0,"latency":0}]`,
		`[{"finish_reason":"a\"b","usage":null,"estimated_prompt_tokens":0,"ttft":0,"latency":0}]`,
		`[{"finish_reason":"stop","usage":null,"estimated_prompt_tokens":01,"ttft":0,"latency":0}]`,
		`[{"finish_reason":"stop","usage":null,"estimated_prompt_tokens":-1,"ttft":0,"latency":0}]`,
		`[{"finish_reason":"stop","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"reasoning_tokens":0},"estimated_prompt_tokens":1,"ttft":999999999999999999,"latency":0}]`,
		`[{"finish_reason":"stop","usage":{"prompt_tokens":1},"estimated_prompt_tokens":1,"ttft":0,"latency":0}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []chat.Response
		wantErr := json.Unmarshal(b, &want)
		got, ok := parseResponses(b)
		if !ok {
			return
		}
		if wantErr != nil {
			t.Fatalf("parseResponses(%q) accepted what encoding/json refuses: %v", b, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseResponses(%q): got %#v, want %#v", b, got, want)
		}
	})
}

// TestResponsesReadByHand checks that the form the store writes is read by hand, not
// given to encoding/json.
func TestResponsesReadByHand(t *testing.T) {
	rs := []chat.Response{
		{FinishReason: "tool_calls", Usage: &chat.Usage{PromptTokens: 373, CompletionTokens: 12, TotalTokens: 385, CachedTokens: 128},
			EstimatedPrompt: 380, TTFT: 410 * time.Millisecond, Latency: 620 * time.Millisecond},
		{FinishReason: "length", EstimatedPrompt: 402, TTFT: 95 * time.Millisecond, Latency: 1730 * time.Millisecond},
	}
	got, ok := parseResponses(chat.AppendResponsesJSON(nil, rs))
	if !ok || !reflect.DeepEqual(got, rs) {
		t.Errorf("parseResponses of what the store writes: got %+v, %v; want %+v", got, ok, rs)
	}
}

func FuzzDecodeReminders(f *testing.F) {
	for _, s := range []string{`[{"id":"concise","part_index":0,"start":14,"end":55,"mode":"inline"}]`,
		`[{"id":"a","part_index":0,"start":0,"end":9,"mode":"inline"},{"id":"b","part_index":1,"start":0,"end":40,"mode":"part"}]`,
		`[{"id":"a","part_index":01,"start":0,"end":9,"mode":"inline"}]`, `[{"id":"a","part_index":0,"start":-1,"end":9,"mode":"inline"}]`,
		`[{"id":"a","part_index":0,"start":9999999999,"end":9,"mode":"inline"}]`, `[{"id":"a\"","part_index":0,"start":0,"end":9,"mode":"x"}]`,
		`[{"id":"a","part_index":0,"start":1.5,"end":9,"mode":"inline"}]`, `[]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []chat.ReminderSpan
		wantErr := json.Unmarshal(b, &want)
		got, ok := parseReminders(b)
		if !ok {
			return
		}
		if wantErr != nil {
			t.Fatalf("parseReminders(%q) accepted what encoding/json refuses: %v", b, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseReminders(%q): got %#v, want %#v", b, got, want)
		}
	})
}

func TestDecodeRemindersRoundTrip(t *testing.T) {
	tests := [][]chat.ReminderSpan{
		{{ID: "concise", Part: 0, Start: 14, End: 55, Mode: chat.SpanInline}},
		{{ID: "a", Start: 3, End: 40, Mode: chat.SpanInline}, {ID: "builtin:date", Part: 1, End: 70, Mode: chat.SpanPart}},
		{{ID: "é \"quoted\"", Part: 2, Start: 123456789, End: 123456800, Mode: chat.SpanPart}}, // encoding/json's path
	}
	for _, want := range tests {
		enc, err := marshalJSON(want)
		if err != nil {
			t.Fatal(err)
		}
		var got []chat.ReminderSpan
		if err := decodeReminders([]byte(enc), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeReminders(%s): got %+v, %v; want %+v", enc, got, err, want)
		}
		if _, hand := parseReminders([]byte(enc)); hand == strings.Contains(enc, `\"`) {
			t.Errorf("parseReminders(%s): read by hand %v", enc, hand)
		}
	}
}

func FuzzDecodeParts(f *testing.F) {
	for _, s := range []string{"hello", "", "a\"b", "<tag> & \\", "\u2028", "\xff", "tab\there"} {
		f.Add(s, []byte(`{"query":"select 1"}`), 0)
	}
	f.Add("x", []byte(`"a string"`), 2)
	f.Add("x", []byte(`[1, {"a": [true, null]}]`), 1)
	f.Add("x", []byte(`42`), 1)
	f.Fuzz(func(t *testing.T, text string, input []byte, round int) {
		if !json.Valid(input) {
			input = nil
		}
		tool := chat.Part{Type: chat.PartTool, ToolCallID: "call_" + text, ToolName: text, State: chat.ToolOutputError,
			Input: input, Output: text, ErrorText: text, Round: round}
		for _, parts := range [][]chat.Part{{chat.TextPart(text)}, {chat.TextPart(text), chat.TextPart(text)},
			{tool, chat.TextPart(text)}, {{Type: chat.PartTool, ToolName: text, Input: input}}} {
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

// FuzzParseParts feeds the hand-written parser any bytes: it must refuse what
// encoding/json refuses and agree with it on the rest.
func FuzzParseParts(f *testing.F) {
	for _, s := range []string{`[{"type":"text","text":"hi"}]`, `[{"type":"text","text":"a\"b\u00e9"},{"type":"text","text":""}]`,
		`[{"type":"tool","tool_call_id":"c1","tool_name":"run_sql","state":"output-available","input":{"q":"s\"}"},"output":"[1]","round":2}]`,
		`[{"type":"tool","input":[1,{"a":"]"}],"error_text":"no"}]`, `[{"type":"tool","input":"x"}]`, `[{"type":"tool","input":{]}]`,
		`[{"type":"text","text":"a","text":"b"}]`, `[{"type":"tool","round":-1}]`, `[{"type":"tool","round":007}]`, `[]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []chat.Part
		wantErr := json.Unmarshal(b, &want)
		got, ok := parseArray(b, parsePart)
		if !ok {
			return
		}
		if wantErr != nil {
			t.Fatalf("parseParts(%q) accepted what encoding/json refuses: %v", b, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseParts(%q): got %#v, want %#v", b, got, want)
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

func BenchmarkDecodeParts(b *testing.B) {
	reply := strings.Repeat("Here is what the query returned, with a \"short\" explanation of each figure:\n\n", 4)
	for _, bb := range []struct {
		name  string
		parts []chat.Part
	}{
		{"text", []chat.Part{chat.TextPart("Please look at the customers table again and tell me how many signed up this week, by plan.")}},
		{"escaped", []chat.Part{chat.TextPart(reply)}},
		{"tool", []chat.Part{{Type: chat.PartTool, ToolCallID: "call_000000000005", ToolName: "run_sql", State: chat.ToolOutputAvailable,
			Input: json.RawMessage(`{"query":"select count(*) from customers"}`), Output: `[{"count": 42}]`}, chat.TextPart(reply)}},
	} {
		enc, err := marshalJSON(bb.parts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			var parts []chat.Part
			for b.Loop() {
				if err := decodeParts([]byte(enc), &parts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecodePartsMemory checks that decoding a long column costs memory in proportion to
// it: each text gets room for itself, not for the rest of the column.
func TestDecodePartsMemory(t *testing.T) {
	var parts []chat.Part
	for i := range 200 {
		parts = append(parts, chat.Part{Type: chat.PartTool, ToolCallID: fmt.Sprintf("call_%d", i), ToolName: "run_sql",
			State: chat.ToolOutputAvailable, Input: json.RawMessage(`{"query":"select 1"}`),
			Output: strings.Repeat("a line of \"output\"\n", 300)})
	}
	enc, err := marshalJSON(parts)
	if err != nil {
		t.Fatal(err)
	}
	var got []chat.Part
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := decodeParts([]byte(enc), &got); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 4*uint64(len(enc)) {
		t.Errorf("decoding a column of %d bytes allocated %d bytes, want at most 4 times the column", len(enc), n)
	}
	if !reflect.DeepEqual(got, parts) {
		t.Errorf("decodeParts: the parts differ")
	}
}
