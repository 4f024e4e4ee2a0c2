package format

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

var t0 = time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)

// seqIDs returns an id generator giving m1, m2, …
func seqIDs() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("m%d", n) }
}

func ptrs(ms []chat.Message) []*chat.Message {
	out := make([]*chat.Message, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
}

// roundTrip decodes a JSON messages array, imports it and converts it back.
func roundTrip(t *testing.T, in string) (Imported, string) {
	t.Helper()
	arr, err := DecodeOpenAI([]byte(in))
	if err != nil {
		t.Fatalf("DecodeOpenAI: %v", err)
	}
	im, err := FromOpenAI(arr.Messages, seqIDs(), t0)
	if err != nil {
		t.Fatalf("FromOpenAI: %v", err)
	}
	out := []chat.WireMessage{}
	if im.HasSystem {
		out = append(out, chat.WireMessage{Role: chat.RoleSystem, Content: im.System})
	}
	out = append(out, ToOpenAI(ptrs(im.Messages))...)
	b, err := chat.Marshal(out)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	return im, string(b)
}

func TestFromOpenAIRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		roles string // roles of the imported chat messages
	}{
		{"plain",
			`[{"role":"user","content":"hello"},{"role":"assistant","content":"Hi! How can I help?"},{"role":"user","content":"bye <b>&</b>"},{"role":"assistant","content":""}]`,
			"user assistant user assistant"},
		{"system",
			`[{"role":"system","content":"You help.\nBriefly."},{"role":"user","content":"hello"},{"role":"assistant","content":"Hi!"}]`,
			"user assistant"},
		{"multi-part",
			`[{"role":"user","content":[{"type":"text","text":"look at this"},{"type":"text","text":"<system-reminder>Stay concise.</system-reminder>"}]},{"role":"assistant","content":"Done."}]`,
			"user assistant"},
		{"tool calls then text",
			`[{"role":"user","content":"count"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{\"query\":\"select 1\"}"}},{"id":"c2","type":"function","function":{"name":"run_sql","arguments":"{}"}}]},{"role":"tool","content":"permission denied","tool_call_id":"c1"},{"role":"tool","content":"[{\"n\": 2}]","tool_call_id":"c2"},{"role":"assistant","content":"There are 2."},{"role":"user","content":"thanks"}]`,
			"user assistant user"},
		{"text before calls, two rounds",
			`[{"role":"user","content":"go"},{"role":"assistant","content":"Let me look.","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\":[1,2]}"}}]},{"role":"tool","content":"one","tool_call_id":"a"},{"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]},{"role":"tool","content":"","tool_call_id":"b"},{"role":"assistant","content":"Now with b.","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"three","tool_call_id":"c"},{"role":"assistant","content":"All done."}]`,
			"user assistant"},
		{"calls without closing text",
			`[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"one","tool_call_id":"a"},{"role":"user","content":"and?"}]`,
			"user assistant user"},
		{"empty", `[]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, got := roundTrip(t, tt.in)
			if got != tt.in {
				t.Errorf("round trip:\ngot  %s\nwant %s", got, tt.in)
			}
			roles := make([]string, len(im.Messages))
			for i, m := range im.Messages {
				roles[i] = string(m.Role)
				wantParent := ""
				if i > 0 {
					wantParent = im.Messages[i-1].ID
				}
				if m.ParentID != wantParent {
					t.Errorf("message %d: got parent %q, want %q", i, m.ParentID, wantParent)
				}
				if !m.CreatedAt.Equal(t0) {
					t.Errorf("message %d: got time %v, want %v", i, m.CreatedAt, t0)
				}
			}
			if got := strings.Join(roles, " "); got != tt.roles {
				t.Errorf("got roles %q, want %q", got, tt.roles)
			}
		})
	}
}

// TestFromOpenAIDeveloper checks that a leading developer message, OpenAI's newer name
// for the system message, is read as one: the chat's system prompt.
func TestFromOpenAIDeveloper(t *testing.T) {
	im, got := roundTrip(t, `[{"role":"developer","content":"Be brief."},{"role":"user","content":"hi"}]`)
	if want := `[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if !im.HasSystem || im.System != "Be brief." || len(im.Messages) != 1 {
		t.Errorf("got %+v, want the system prompt and one user message", im)
	}
}

func TestFromOpenAIToolParts(t *testing.T) {
	in := `[{"role":"user","content":"go"},{"role":"assistant","content":"Checking.","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{ \"query\" : \"select 1\" }"}}]},{"role":"tool","content":"permission denied","tool_call_id":"c1"},{"role":"assistant","content":"It failed."}]`
	arr, err := DecodeOpenAI([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	im, err := FromOpenAI(arr.Messages, seqIDs(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Messages) != 2 {
		t.Fatalf("got %d messages, want 2", len(im.Messages))
	}
	a := im.Messages[1]
	want := []chat.Part{
		chat.TextPart("Checking."),
		{Type: chat.PartTool, ToolCallID: "c1", ToolName: "run_sql", State: chat.ToolOutputAvailable,
			Input: []byte(`{"query":"select 1"}`), Output: "permission denied"},
		chat.TextPart("It failed."),
	}
	got, _ := chat.Marshal(a.Parts)
	wantJSON, _ := chat.Marshal(want)
	if !bytes.Equal(got, wantJSON) {
		t.Errorf("got parts %s, want %s", got, wantJSON)
	}
	if a.ID != "m2" || a.ParentID != "m1" {
		t.Errorf("got id %q parent %q, want m2 and m1", a.ID, a.ParentID)
	}
}

func TestFromOpenAIErrors(t *testing.T) {
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	tests := []struct {
		name, in, want string
	}{
		{"unknown role", `[{"role":"user","content":"a"},{"role":"wizard","content":"b"}]`,
			`messages[1]: unknown role "wizard" (want system, developer, user, assistant or tool)`},
		{"no role", `[{"content":"a"}]`, `messages[0]: message has no role`},
		{"late system", `[{"role":"user","content":"a"},{"role":"system","content":"b"}]`,
			`messages[1]: system message after the start: only a leading system or developer message can be imported (it becomes the chat's system_prompt)`},
		{"late developer", `[{"role":"system","content":"a"},{"role":"developer","content":"b"}]`,
			`messages[1]: developer message after the start: only a leading system or developer message can be imported (it becomes the chat's system_prompt)`},
		{"developer with calls", `[{"role":"developer","content":"a","tool_calls":[{"id":"x","function":{"name":"f"}}]}]`,
			`messages[0]: developer message has tool_calls (only an assistant message makes calls)`},
		{"image part", `[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}}]}]`,
			`messages[0]: content[1]: part type "image_url" is not supported (only text parts can be imported)`},
		{"image part in assistant", `[{"role":"assistant","content":[{"type":"input_audio"}]}]`,
			`messages[0]: content[0]: part type "input_audio" is not supported (only text parts can be imported)`},
		{"tool answers no call", `[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"},{"role":"tool","content":"d","tool_call_id":"x"}]`,
			`messages[3]: tool message with tool_call_id "x" answers no call`},
		{"tool answers another id", `[` + call + `,{"role":"tool","content":"d","tool_call_id":"y"}]`,
			`messages[1]: tool message with tool_call_id "y" answers no call`},
		{"tool answers twice", `[` + call + `,{"role":"tool","content":"d","tool_call_id":"x"},{"role":"tool","content":"d","tool_call_id":"x"}]`,
			`messages[2]: tool message with tool_call_id "x" answers a call already answered`},
		{"tool without id", `[` + call + `,{"role":"tool","content":"d"}]`, `messages[1]: tool message has no tool_call_id`},
		{"call never answered, user follows", `[` + call + `,{"role":"user","content":"c"}]`,
			`messages[0]: tool call "x" has no tool message answering it`},
		{"call never answered, at the end", `[{"role":"user","content":"c"},` + call + `]`,
			`messages[1]: tool call "x" has no tool message answering it`},
		{"call never answered, assistant follows", `[` + call + `,{"role":"assistant","content":"c"}]`,
			`messages[0]: tool call "x" has no tool message answering it`},
		{"call without id", `[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]`,
			`messages[0]: tool_calls[0]: no id`},
		{"call id twice", `[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f"}},{"id":"a","function":{"name":"f"}}]}]`,
			`messages[0]: tool_calls[1]: id "a" used twice`},
		{"call type", `[{"role":"assistant","tool_calls":[{"id":"a","type":"custom","function":{"name":"f"}}]}]`,
			`messages[0]: tool_calls[0]: type "custom" is not supported (want "function")`},
		{"call without name", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"arguments":"{}"}}]}]`,
			`messages[0]: tool_calls[0]: no function name`},
		{"arguments not JSON", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{query: 1}"}}]}]`,
			`messages[0]: tool_calls[0]: arguments are not JSON: invalid character 'q' looking for beginning of object key string`},
		{"user with calls", `[{"role":"user","content":"a","tool_calls":[{"id":"a","function":{"name":"f"}}]}]`,
			`messages[0]: user message has tool_calls (only an assistant message makes calls)`},
		{"tool with calls", `[` + call + `,{"role":"tool","content":"d","tool_call_id":"x","tool_calls":[{"id":"b","function":{"name":"f"}}]}]`,
			`messages[1]: tool message has tool_calls (only an assistant message makes calls)`},
		{"assistant with call id", `[{"role":"assistant","content":"a","tool_call_id":"x"}]`,
			`messages[0]: assistant message has a tool_call_id (only a tool message answers a call)`},
		// Issue 12 item 7: arrays that were imported, then left out of every turn by replay
		// (while export --format openai kept them): a chat starts with a user message, and
		// a reply answers one.
		{"starts with the assistant", `[{"role":"assistant","content":"Welcome!"},{"role":"user","content":"hi"}]`,
			`messages[0]: the array starts with an assistant message: a chat starts with a user message`},
		{"starts with the assistant after the system message", `[{"role":"system","content":"s"},{"role":"assistant","content":"Welcome!"}]`,
			`messages[1]: the array starts with an assistant message: a chat starts with a user message`},
		{"assistant after assistant",
			`[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"one","tool_call_id":"a"},{"role":"assistant","content":"first"},{"role":"assistant","content":"second"}]`,
			`messages[4]: assistant message after an assistant message: a reply answers a user message (join the two, or put the user message between them)`},
		{"two replies in a row", `[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"assistant","content":"c"}]`,
			`messages[2]: assistant message after an assistant message: a reply answers a user message (join the two, or put the user message between them)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arr, err := DecodeOpenAI([]byte(tt.in))
			if err != nil {
				t.Fatalf("DecodeOpenAI: %v", err)
			}
			_, err = FromOpenAI(arr.Messages, seqIDs(), t0)
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got error %q, want %q", err, tt.want)
			}
			var e *OpenAIError
			if !errors.As(err, &e) || !errors.Is(err, chat.ErrInvalid) {
				t.Errorf("got %T, want an *OpenAIError wrapping chat.ErrInvalid", err)
			}
		})
	}
}

func TestDecodeOpenAI(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		n      int
		offset []int64
	}{
		{"array", " [ {\"role\":\"user\",\"content\":\"a\"} ,\n{\"role\":\"assistant\"}]\n", 2, []int64{3, 35}},
		{"request body", `{"model":"m","messages":[{"role":"user","content":"a"}],"tools":[{"x":1}]}`, 1, []int64{25}},
		{"arguments as an object", `[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":{"q": 1}}}]}]`, 1, []int64{1}},
		{"unknown fields ignored", `[{"role":"assistant","content":"a","refusal":null,"name":"bob"}]`, 1, []int64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := DecodeOpenAI([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Messages) != tt.n {
				t.Fatalf("got %d messages, want %d", len(a.Messages), tt.n)
			}
			if fmt.Sprint(a.Offsets) != fmt.Sprint(tt.offset) {
				t.Errorf("got offsets %v, want %v", a.Offsets, tt.offset)
			}
			for i, off := range a.Offsets {
				if tt.in[off] != '{' {
					t.Errorf("offset %d of message %d: got %q, want '{'", off, i, tt.in[off])
				}
			}
		})
	}
	a, err := DecodeOpenAI([]byte(`[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":{"q": 1}}}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Messages[0].ToolCalls[0].Function.Arguments; got != `{"q": 1}` {
		t.Errorf("got arguments %q, want %q", got, `{"q": 1}`)
	}
}

func TestDecodeOpenAIErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
		offset         int64
	}{
		{"empty", ``, "unexpected end of the file (truncated?)", 0},
		{"truncated", `[{"role":"user","content":"a"},{"role":"us`, "unexpected end of the file (truncated?)", 42},
		{"truncated after a message", `[{"role":"user","content":"a"}`, "unexpected end of the file (truncated?)", 30},
		{"syntax", "[{\"role\":\"user\",\n \"content\": \"a\",}]", "invalid character '}' looking for beginning of object key string", 33},
		{"not an array", `"hello"`, `want a JSON array of messages, or an object with a "messages" array`, 0},
		{"number", `  42`, `want a JSON array of messages, or an object with a "messages" array`, 2},
		{"no messages", `{"model":"m"}`, `the object has no "messages" array`, 0},
		{"messages not an array", `{"messages": {"role":"user"}}`, `"messages" is not an array`, 13},
		{"messages twice", `{"messages":[],"messages":[]}`, `"messages" given twice`, 25},
		{"trailing data", `[] []`, "data after the end of the JSON value", 3},
		{"trailing garbage", `[]x`, "invalid character 'x' after top-level value", 2},
		{"element not an object", `[{"role":"user"}, 7]`, "messages[1]: a message must be a JSON object", 18},
		{"role not a string", `[ {"role": 5}]`, "messages[0]: role: want a string, not number", 11},
		{"content a number", `[{"role":"user","content":5}]`, "messages[0]: content: want a string, an array of text parts or null, not a number", 1},
		{"content an object", `[{"role":"user","content":{"text":"a"}}]`, "messages[0]: content: want a string, an array of text parts or null, not an object", 1},
		{"content parts wrong", `[{"role":"user","content":["a"]}]`, `messages[0]: content: want an array of parts like {"type": "text", "text": "…"}`, 1},
		{"text part without text", `[{"role":"user","content":[{"type":"text"}]}]`, `messages[0]: content[0]: text part without "text"`, 1},
		{"tool calls not an array", `[{"role":"assistant","tool_calls":{}}]`, "messages[0]: tool_calls: want an array, not object", 34},
		{"function call", `[{"role":"assistant","function_call":{"name":"f"}}]`, `messages[0]: the legacy "function_call" is not supported; use "tool_calls"`, 1},
		{"deep nesting", strings.Repeat("[", 20000), "exceeded max depth", -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeOpenAI([]byte(tt.in))
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			var e *OpenAIError
			if !errors.As(err, &e) {
				t.Fatalf("got %T (%v), want *OpenAIError", err, err)
			}
			if tt.offset == -2 {
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("got error %q, want it to hold %q", err, tt.want)
				}
				return
			}
			if err.Error() != tt.want {
				t.Errorf("got error %q, want %q", err, tt.want)
			}
			if e.Offset != tt.offset {
				t.Errorf("got offset %d, want %d", e.Offset, tt.offset)
			}
		})
	}
}

func TestOpenAIBakedReminders(t *testing.T) {
	u := chat.Message{ID: "u1", Role: chat.RoleUser, Parts: []chat.Part{
		chat.TextPart("hi<system-reminder>Stay concise.</system-reminder>"),
		chat.TextPart("<system-reminder>Be safe.</system-reminder>"),
	}, Reminders: []chat.ReminderSpan{{ID: "concise", Part: 0, Start: 2, End: 50, Mode: chat.SpanInline}}}
	a := chat.Message{ID: "a1", ParentID: "u1", Role: chat.RoleAssistant, Parts: []chat.Part{
		{Type: chat.PartTool, ToolCallID: "c", ToolName: "f", State: chat.ToolOutputError, Input: []byte(`{"q":1}`), ErrorText: "denied"},
		{Type: chat.PartTool, ToolCallID: "d", ToolName: "f", State: chat.ToolInputAvailable},
		chat.TextPart("Sorry."),
	}}
	got, err := chat.Marshal(ToOpenAI([]*chat.Message{&u, &a}))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","content":[{"type":"text","text":"hi<system-reminder>Stay concise.</system-reminder>"},{"type":"text","text":"<system-reminder>Be safe.</system-reminder>"}]},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"q\":1}"}}]},` +
		`{"role":"tool","content":"denied","tool_call_id":"c"},{"role":"assistant","content":"Sorry."}]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestSystemMessage(t *testing.T) {
	tests := []struct {
		meta map[string]any
		ok   bool
	}{
		{nil, false},
		{map[string]any{"system_prompt": "You help."}, true},
		{map[string]any{"system_prompt": 3}, false},
	}
	for _, tt := range tests {
		w, ok := SystemMessage(chat.Chat{Metadata: tt.meta})
		if ok != tt.ok {
			t.Errorf("SystemMessage(%v): got ok %v, want %v", tt.meta, ok, tt.ok)
		}
		if ok && (w.Role != chat.RoleSystem || w.Content != "You help.") {
			t.Errorf("SystemMessage(%v): got %+v", tt.meta, w)
		}
	}
}

func TestWriteOpenAI(t *testing.T) {
	var b bytes.Buffer
	if err := WriteOpenAI(&b, nil); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "[]\n" {
		t.Errorf("got %q, want %q", got, "[]\n")
	}
	b.Reset()
	if err := WriteOpenAI(&b, []chat.WireMessage{{Role: chat.RoleUser, Content: "<a>"}}); err != nil {
		t.Fatal(err)
	}
	want := "[\n  {\n    \"role\": \"user\",\n    \"content\": \"<a>\"\n  }\n]\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// FuzzDecodeOpenAI checks that no input makes the decoder or the import panic, and that
// whatever imports converts back to an array that imports to the same chat.
func FuzzDecodeOpenAI(f *testing.F) {
	for _, s := range []string{
		`[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`,
		`{"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`,
		`[{"role":"user","content":"go"},{"role":"assistant","content":"x","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"one","tool_call_id":"a"},{"role":"assistant","content":"done"}]`,
		`[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":{"q":[1,2]}}}]},{"role":"tool","tool_call_id":"a","content":[{"type":"text","text":"r"}]}]`,
		`[`, `{"messages":`, `[{"role":"user","content":5}]`, `[] []`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		arr, err := DecodeOpenAI(b)
		// Read in place or by the json.Decoder, a file gives the same messages.
		if inPlace, ok := decodeInPlace(b); ok {
			streamed, err := decodeStream(b)
			if err != nil || !reflect.DeepEqual(inPlace, streamed) {
				t.Fatalf("read in place: %+v\nwith a json.Decoder: %+v, %v", inPlace, streamed, err)
			}
		}
		if err != nil {
			var e *OpenAIError
			if !errors.As(err, &e) {
				t.Fatalf("got %T, want *OpenAIError", err)
			}
			if e.Offset < 0 || e.Offset > int64(len(b)) {
				t.Fatalf("offset %d outside the input of %d bytes", e.Offset, len(b))
			}
			return
		}
		if len(arr.Offsets) != len(arr.Messages) {
			t.Fatalf("got %d offsets for %d messages", len(arr.Offsets), len(arr.Messages))
		}
		im, err := FromOpenAI(arr.Messages, seqIDs(), t0)
		if err != nil {
			return
		}
		wire := []chat.WireMessage{}
		if im.HasSystem {
			wire = append(wire, chat.WireMessage{Role: chat.RoleSystem, Content: im.System})
		}
		wire = append(wire, ToOpenAI(ptrs(im.Messages))...)
		first, err := chat.Marshal(wire)
		if err != nil {
			t.Fatal(err)
		}
		_, second := roundTrip(t, string(first))
		if second != string(first) {
			t.Fatalf("second round trip differs:\nfirst  %s\nsecond %s", first, second)
		}
	})
}

func TestFromOpenAIFindsReminders(t *testing.T) {
	in := `[{"role":"user","content":[{"type":"text","text":"hi<system-reminder>Stay concise.</system-reminder> and <system-reminder>x</system-reminder>"},{"type":"text","text":"<system-reminder>Be safe.</system-reminder><system-reminder>open"}]},{"role":"assistant","content":"<system-reminder>not a user's</system-reminder>"}]`
	im, got := roundTrip(t, in)
	if got != in {
		t.Errorf("round trip:\ngot  %s\nwant %s", got, in)
	}
	spans, _ := chat.Marshal(im.Messages[0].Reminders)
	want := `[{"id":"","part_index":0,"start":2,"end":50,"mode":"inline"},{"id":"","part_index":0,"start":55,"end":91,"mode":"inline"},{"id":"","part_index":1,"start":0,"end":43,"mode":"part"}]`
	if string(spans) != want {
		t.Errorf("got spans %s, want %s", spans, want)
	}
	if n := len(im.Messages[1].Reminders); n != 0 {
		t.Errorf("got %d spans in the assistant message, want 0", n)
	}
	if got, want := UserText(&im.Messages[0]), "hi and \n\n<system-reminder>open"; got != want {
		t.Errorf("UserText: got %q, want %q", got, want)
	}
}
