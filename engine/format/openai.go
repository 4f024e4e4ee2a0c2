package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/jsonpos"
)

// MetaSystemPrompt is the chat metadata key that keeps the leading system message of an
// imported OpenAI messages array (a chat's message graph holds no system message).
const MetaSystemPrompt = "system_prompt"

// MaxMessages is the most messages DecodeOpenAI accepts.
const MaxMessages = 1 << 21

// roleDeveloper is OpenAI's newer name for the system role: FromOpenAI reads a developer
// message as a system message.
const roleDeveloper chat.Role = "developer"

// ToOpenAI returns a branch as an OpenAI `messages` array: exactly the history the model was
// sent, baked reminders included, each message converted by chat.Message.Wire (an
// assistant message with tool calls becomes the call, one tool message per result, then
// the text said after). It holds no system message: see SystemMessage.
func ToOpenAI(path []*chat.Message) []chat.WireMessage {
	out := make([]chat.WireMessage, 0, len(path)+len(path)/4)
	for _, m := range path {
		if m != nil {
			out = append(out, m.Wire()...)
		}
	}
	return out
}

// SystemMessage returns the system message an import kept in a chat's metadata
// (MetaSystemPrompt), to put before OpenAI's array; false when there is none.
func SystemMessage(c chat.Chat) (chat.WireMessage, bool) {
	s, ok := c.Metadata[MetaSystemPrompt].(string)
	if !ok {
		return chat.WireMessage{}, false
	}
	return chat.WireMessage{Role: chat.RoleSystem, Content: s}, true
}

// WriteOpenAI writes a messages array as indented JSON, with <, > and & as they are, and a
// final newline.
func WriteOpenAI(w io.Writer, msgs []chat.WireMessage) error {
	if msgs == nil {
		msgs = []chat.WireMessage{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(msgs)
}

// OpenAIError is a problem with an OpenAI messages array: with one of its messages (Index >= 0)
// or with the whole. It wraps chat.ErrInvalid.
type OpenAIError struct {
	Index int // the message concerned, or -1
	// Field is where in that message the problem is (keys and indexes, as in
	// jsonpos.Path), nil for the whole message; Key says the problem is the field's key (a
	// field that is not supported), not its value.
	Field jsonpos.Path
	Key   bool
	// Offset is the byte offset in the JSON input where the problem is, or -1 when it is
	// not known (FromOpenAI knows no input; see Array.Offsets).
	Offset int64
	Msg    string
}

// Error returns "messages[INDEX]: message", or the message alone.
func (e *OpenAIError) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("messages[%d]: %s", e.Index, e.Msg)
	}
	return e.Msg
}

// Unwrap returns chat.ErrInvalid.
func (e *OpenAIError) Unwrap() error { return chat.ErrInvalid }

// errAt is a problem of message i, at field of it (nil for the whole message).
func errAt(i int, field jsonpos.Path, format string, args ...any) *OpenAIError {
	return &OpenAIError{Index: i, Field: field, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// Imported is an OpenAI messages array read by FromOpenAI.
type Imported struct {
	// System is the content of a leading system message, which a chat keeps in its
	// metadata (MetaSystemPrompt); HasSystem tells an empty one from none.
	System    string
	HasSystem bool
	// Messages is the conversation as a linear chain, root first: each message's parent is
	// the one before it.
	Messages []chat.Message
}

// FromOpenAI turns an OpenAI messages array into a linear chain of chat messages, with ids
// from newID and created at now:
//
//   - a leading system message (or developer message, OpenAI's newer name for it) becomes
//     Imported.System; one anywhere else is an error;
//   - a user message becomes a user message with one text part, or one per element of an
//     array of text parts; its <system-reminder> blocks are recorded as baked reminders
//     (without an id), so that a transcript marks them and the user's text is found
//     without them;
//   - an assistant message with tool_calls, and the tool messages that answer them, become
//     one assistant message with a tool part per call (state output-available, output the
//     tool message's content: tool messages carry no error flag); an assistant message that
//     follows the tool messages continues the same message (its text, and any further
//     round of calls), so that chat.Message.Wire gives the array back.
//
// Tool call arguments must be JSON; they are kept compacted, as a store keeps them. Every
// problem is an *OpenAIError naming the message: an unknown role, content that is not text, a
// tool message that answers no call, a call that no tool message answers, an assistant
// message first (after the system message) or right after another reply (not after its
// tool messages): ctxlab's chats start with a user message, and a reply answers one.
func FromOpenAI(msgs []chat.WireMessage, newID func() string, now time.Time) (Imported, error) {
	var im Imported
	im.Messages = make([]chat.Message, 0, len(msgs))
	var (
		cur        = -1            // index in im.Messages of the assistant message being built
		callsAt    = -1            // index in msgs of the assistant message whose calls are open
		pending    map[string]int  // open call ids -> part index in im.Messages[cur]
		answered   map[string]bool // call ids of the round already answered
		order      []string        // open call ids, in call order
		afterTools bool            // the last message answered the round's last call
		shape      *OpenAIError    // the first reply that answers no user message
	)
	add := func(m chat.Message) int {
		m.ID = newID()
		if n := len(im.Messages); n > 0 {
			m.ParentID = im.Messages[n-1].ID
		}
		m.CreatedAt = now
		im.Messages = append(im.Messages, m)
		return len(im.Messages) - 1
	}
	unanswered := func() error {
		for k, id := range order {
			if _, open := pending[id]; open {
				return errAt(callsAt, jsonpos.Path{"tool_calls", k, "id"}, "tool call %q has no tool message answering it", id)
			}
		}
		return nil
	}
	for i := range msgs {
		w := &msgs[i]
		switch w.Role {
		case chat.RoleSystem, roleDeveloper, chat.RoleUser, chat.RoleTool:
			if len(w.ToolCalls) > 0 {
				return im, errAt(i, jsonpos.Path{"tool_calls"}, "%s message has tool_calls (only an assistant message makes calls)", w.Role)
			}
		}
		switch w.Role {
		case chat.RoleSystem, roleDeveloper, chat.RoleUser, chat.RoleAssistant:
			if w.ToolCallID != "" {
				return im, errAt(i, jsonpos.Path{"tool_call_id"}, "%s message has a tool_call_id (only a tool message answers a call)", w.Role)
			}
		}
		switch w.Role {
		case chat.RoleSystem, roleDeveloper:
			if i != 0 {
				return im, errAt(i, jsonpos.Path{"role"}, "%s message after the start: only a leading system or developer message can be imported (it becomes the chat's %s)", w.Role, MetaSystemPrompt)
			}
			text, err := contentText(i, w)
			if err != nil {
				return im, err
			}
			im.System, im.HasSystem = text, true

		case chat.RoleUser:
			if err := unanswered(); err != nil {
				return im, err
			}
			m := chat.Message{Role: chat.RoleUser}
			if w.Parts != nil {
				for j, p := range w.Parts {
					if p.Type != "text" {
						return im, errAt(i, jsonpos.Path{"content", j, "type"}, "content[%d]: part type %q is not supported (only text parts can be imported)", j, p.Type)
					}
					m.Parts = append(m.Parts, chat.TextPart(p.Text))
				}
			}
			if len(m.Parts) == 0 {
				m.Parts = []chat.Part{chat.TextPart(w.Content)}
			}
			m.Reminders = findReminders(m.Parts)
			add(m)
			cur, afterTools, order, pending, answered = -1, false, nil, nil, nil

		case chat.RoleAssistant:
			if err := unanswered(); err != nil {
				return im, err
			}
			text, err := contentText(i, w)
			if err != nil {
				return im, err
			}
			calls, err := toolParts(i, w.ToolCalls)
			if err != nil {
				return im, err
			}
			merge := afterTools && cur >= 0 && (len(calls) > 0 || text != "")
			if !merge {
				// A chat starts with a user message, and a reply answers one: an array that
				// starts with a reply, or has two in a row, is not a chat ctxlab could
				// replay turn by turn.
				// Reported once every message is checked, as the shape of the whole.
				if n := len(im.Messages); shape == nil && n == 0 {
					shape = errAt(i, jsonpos.Path{"role"}, "the array starts with an assistant message: a chat starts with a user message")
				} else if shape == nil && im.Messages[n-1].Role == chat.RoleAssistant {
					shape = errAt(i, jsonpos.Path{"role"}, "assistant message after an assistant message: a reply answers a user message "+
						"(join the two, or put the user message between them)")
				}
				var parts []chat.Part
				if text != "" || len(calls) == 0 {
					parts = append(parts, chat.TextPart(text))
				}
				cur = add(chat.Message{Role: chat.RoleAssistant, Parts: parts})
			} else {
				// The text said after a round of calls, or before the next round: an empty
				// text part keeps two rounds apart.
				im.Messages[cur].Parts = append(im.Messages[cur].Parts, chat.TextPart(text))
			}
			afterTools = false
			order, pending, answered = nil, nil, nil
			if len(calls) == 0 {
				if merge {
					cur = -1 // the reply is complete: a further assistant message is a new one
				}
				continue
			}
			callsAt = i
			pending = make(map[string]int, len(calls))
			answered = make(map[string]bool, len(calls))
			for _, c := range calls {
				pending[c.ToolCallID] = len(im.Messages[cur].Parts)
				order = append(order, c.ToolCallID)
				im.Messages[cur].Parts = append(im.Messages[cur].Parts, c)
			}

		case chat.RoleTool:
			if w.ToolCallID == "" {
				return im, errAt(i, jsonpos.Path{"tool_call_id"}, "tool message has no tool_call_id")
			}
			at, open := pending[w.ToolCallID]
			if !open {
				if answered[w.ToolCallID] {
					return im, errAt(i, jsonpos.Path{"tool_call_id"}, "tool message with tool_call_id %q answers a call already answered", w.ToolCallID)
				}
				return im, errAt(i, jsonpos.Path{"tool_call_id"}, "tool message with tool_call_id %q answers no call", w.ToolCallID)
			}
			text, err := contentText(i, w)
			if err != nil {
				return im, err
			}
			p := &im.Messages[cur].Parts[at]
			p.State, p.Output = chat.ToolOutputAvailable, text
			delete(pending, w.ToolCallID)
			answered[w.ToolCallID] = true
			afterTools = len(pending) == 0

		case "":
			return im, errAt(i, jsonpos.Path{"role"}, "message has no role")
		default:
			return im, errAt(i, jsonpos.Path{"role"}, "unknown role %q (want system, developer, user, assistant or tool)", w.Role)
		}
	}
	if err := unanswered(); err != nil {
		return im, err
	}
	if shape != nil {
		return im, shape
	}
	return im, nil
}

// Reminder tags, as the engine bakes reminders into user messages.
const (
	openTag  = "<system-reminder>"
	closeTag = "</system-reminder>"
)

// findReminders returns the spans of the <system-reminder> blocks in the text parts of an
// imported user message (an array exported from ctxlab, or from a tool that injects them
// the same way), with no reminder id: a block that fills a part after the first from its
// start is in its own part (chat.SpanPart), any other inline.
func findReminders(parts []chat.Part) []chat.ReminderSpan {
	var out []chat.ReminderSpan
	for i, p := range parts {
		text := p.Text
		for at := 0; ; {
			j := strings.Index(text[at:], openTag)
			if j < 0 {
				break
			}
			start := at + j
			k := strings.Index(text[start+len(openTag):], closeTag)
			if k < 0 {
				break
			}
			end := start + len(openTag) + k + len(closeTag)
			mode := chat.SpanInline
			if start == 0 && i > 0 {
				mode = chat.SpanPart
			}
			out = append(out, chat.ReminderSpan{Part: i, Start: start, End: end, Mode: mode})
			at = end
		}
	}
	return out
}

// contentText returns the text of a message whose content is a string or text parts.
func contentText(i int, w *chat.WireMessage) (string, error) {
	for j, p := range w.Parts {
		if p.Type != "text" {
			return "", errAt(i, jsonpos.Path{"content", j, "type"}, "content[%d]: part type %q is not supported (only text parts can be imported)", j, p.Type)
		}
	}
	return w.Text(), nil
}

// toolParts checks the tool calls of an assistant message and returns them as tool parts
// waiting for their results.
func toolParts(i int, calls []chat.WireToolCall) ([]chat.Part, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	out := make([]chat.Part, 0, len(calls))
	seen := make(map[string]bool, len(calls))
	for j, c := range calls {
		switch {
		case c.ID == "":
			return nil, errAt(i, jsonpos.Path{"tool_calls", j, "id"}, "tool_calls[%d]: no id", j)
		case seen[c.ID]:
			return nil, errAt(i, jsonpos.Path{"tool_calls", j, "id"}, "tool_calls[%d]: id %q used twice", j, c.ID)
		case c.Type != "" && c.Type != "function":
			return nil, errAt(i, jsonpos.Path{"tool_calls", j, "type"}, "tool_calls[%d]: type %q is not supported (want \"function\")", j, c.Type)
		case c.Function.Name == "":
			return nil, errAt(i, jsonpos.Path{"tool_calls", j, "function", "name"}, "tool_calls[%d]: no function name", j)
		}
		seen[c.ID] = true
		p := chat.Part{Type: chat.PartTool, ToolCallID: c.ID, ToolName: c.Function.Name, State: chat.ToolInputAvailable}
		if args := c.Function.Arguments; strings.TrimSpace(args) != "" {
			var b bytes.Buffer
			if err := json.Compact(&b, []byte(args)); err != nil {
				return nil, errAt(i, jsonpos.Path{"tool_calls", j, "function", "arguments"}, "tool_calls[%d]: arguments are not JSON: %v", j, err)
			}
			p.Input = json.RawMessage(b.Bytes())
		}
		out = append(out, p)
	}
	return out, nil
}

// Array is an OpenAI messages array read by DecodeOpenAI.
type Array struct {
	Messages []chat.WireMessage
	// Offsets holds the byte offset in the input where each message starts.
	Offsets []int64
}

// DecodeOpenAI reads an OpenAI messages array from JSON: a bare array, or an object with a
// "messages" array (a chat completion request body; its other fields are ignored). Message
// content may be a string, an array of parts or null; tool call arguments a JSON string
// or, as some servers log them, a JSON value. Unknown message fields are ignored, but the
// legacy "function_call" is refused. Errors are *OpenAIError values with the byte offset of the
// problem (of the message, for a problem inside one).
func DecodeOpenAI(b []byte) (Array, error) {
	if a, ok := decodeInPlace(b); ok {
		return a, nil
	}
	return decodeStream(b) // a problem: a json.Decoder says what and where
}

// decodeStream is DecodeOpenAI with a json.Decoder, which reports every problem.
func decodeStream(b []byte) (Array, error) {
	var a Array
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return a, syntaxErr(b, dec, err)
	}
	switch tok {
	case json.Delim('['):
		if err := a.decodeElements(b, dec); err != nil {
			return a, err
		}
	case json.Delim('{'):
		seen := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return a, syntaxErr(b, dec, err)
			}
			if key != "messages" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return a, syntaxErr(b, dec, err)
				}
				continue
			}
			if seen {
				return a, &OpenAIError{Index: -1, Offset: dec.InputOffset(), Msg: `"messages" given twice`}
			}
			seen = true
			at := dec.InputOffset()
			tok, err := dec.Token()
			if err != nil {
				return a, syntaxErr(b, dec, err)
			}
			if tok != json.Delim('[') {
				return a, &OpenAIError{Index: -1, Offset: valueStart(b, at), Msg: `"messages" is not an array`}
			}
			if err := a.decodeElements(b, dec); err != nil {
				return a, err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return a, syntaxErr(b, dec, err)
		}
		if !seen {
			return a, &OpenAIError{Index: -1, Offset: 0, Msg: `the object has no "messages" array`}
		}
	default:
		return a, &OpenAIError{Index: -1, Offset: valueStart(b, 0), Msg: "want a JSON array of messages, or an object with a \"messages\" array"}
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return a, syntaxErr(b, dec, err)
		}
		return a, &OpenAIError{Index: -1, Offset: dec.InputOffset() - 1, Msg: "data after the end of the JSON value"}
	}
	return a, nil
}

// decodeInPlace is DecodeOpenAI of a file without a problem, which it reads in place: a
// json.Decoder copies each message into a buffer of its own and then again into the
// value it decodes (for a message of 100 MB, 350 MB more). It reports false at the first
// problem of any kind, for DecodeOpenAI to read the file again and say what it is.
func decodeInPlace(b []byte) (Array, bool) {
	var a Array
	i := skipSpace(b, 0)
	switch {
	case i < len(b) && b[i] == '[':
		var ok bool
		if i, ok = a.elementsInPlace(b, i); !ok {
			return a, false
		}
	case i < len(b) && b[i] == '{':
		seen := false
		i = skipSpace(b, i+1)
		for first := true; ; first = false {
			if i < len(b) && b[i] == '}' && first {
				break
			}
			end, valid, _ := chat.ScanJSONValue(b, i, nil)
			var key string
			if !valid || b[i] != '"' || json.Unmarshal(b[i:end], &key) != nil {
				return a, false
			}
			if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
				return a, false
			}
			i = skipSpace(b, i+1)
			if key == "messages" {
				if seen || i >= len(b) || b[i] != '[' {
					return a, false
				}
				seen = true
				var ok bool
				if i, ok = a.elementsInPlace(b, i); !ok {
					return a, false
				}
			} else {
				end, valid, _ := chat.ScanJSONValue(b, i, nil)
				if !valid {
					return a, false
				}
				i = end
			}
			if i = skipSpace(b, i); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i >= len(b) || b[i] != '}' {
				return a, false
			}
			break
		}
		if !seen {
			return a, false
		}
		i++
	default:
		return a, false
	}
	return a, skipSpace(b, i) == len(b)
}

// elementsInPlace reads, in place, the messages of the array at b[i] ('['), and returns
// the offset after its ']'.
func (a *Array) elementsInPlace(b []byte, i int) (int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		if len(a.Messages) >= MaxMessages {
			return 0, false
		}
		end, valid, _ := chat.ScanJSONValue(b, i, nil)
		if !valid {
			return 0, false
		}
		w, err := decodeMessage(b[i:end])
		if err != nil {
			return 0, false
		}
		a.Messages = append(a.Messages, w)
		a.Offsets = append(a.Offsets, int64(i))
		switch i = skipSpace(b, end); {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// skipSpace returns the offset of the first byte at or after i that is not JSON space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// decodeElements reads the elements of an array whose '[' was read, and its ']'.
func (a *Array) decodeElements(b []byte, dec *json.Decoder) error {
	for dec.More() {
		if len(a.Messages) >= MaxMessages {
			return &OpenAIError{Index: len(a.Messages), Offset: dec.InputOffset(), Msg: fmt.Sprintf("more than %d messages", MaxMessages)}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntaxErr(b, dec, err)
		}
		start := dec.InputOffset() - int64(len(raw))
		w, err := decodeMessage(raw)
		if err != nil {
			err.Index = len(a.Messages)
			if err.Offset < 0 {
				err.Offset = start
			} else {
				err.Offset += start
			}
			return err
		}
		a.Messages = append(a.Messages, w)
		a.Offsets = append(a.Offsets, start)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return syntaxErr(b, dec, err)
	}
	return nil
}

// messageJSON is the form of one message DecodeOpenAI reads.
type messageJSON struct {
	Role         *string        `json:"role"`
	Content      inPlace        `json:"content"`
	ToolCalls    []toolCallJSON `json:"tool_calls"`
	ToolCallID   *string        `json:"tool_call_id"`
	FunctionCall inPlace        `json:"function_call"`
}

// inPlace is a JSON value kept as the slice of the input it was read from, where
// json.RawMessage copies it: json.Unmarshal hands a value's own bytes of its input to
// UnmarshalJSON, and the input of decodeMessage outlives what it decodes.
type inPlace []byte

// UnmarshalJSON keeps b.
func (r *inPlace) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

type toolCallJSON struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type partJSON struct {
	Type string  `json:"type"`
	Text *string `json:"text"`
}

// decodeMessage reads one message; an error's Offset is relative to raw, or -1.
func decodeMessage(raw []byte) (chat.WireMessage, *OpenAIError) {
	var w chat.WireMessage
	if len(raw) == 0 || raw[0] != '{' {
		return w, &OpenAIError{Offset: -1, Msg: "a message must be a JSON object"}
	}
	var m messageJSON
	if err := json.Unmarshal(raw, &m); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return w, &OpenAIError{Offset: typ.Offset - 1, Msg: fmt.Sprintf("%s: want %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)}
		}
		return w, &OpenAIError{Offset: -1, Msg: err.Error()}
	}
	if isSet(m.FunctionCall) {
		return w, &OpenAIError{Offset: -1, Field: jsonpos.Path{"function_call"}, Key: true, Msg: `the legacy "function_call" is not supported; use "tool_calls"`}
	}
	if m.Role != nil {
		w.Role = chat.Role(*m.Role)
	}
	if m.ToolCallID != nil {
		w.ToolCallID = *m.ToolCallID
	}
	c := bytes.TrimSpace(m.Content)
	switch {
	case !isSet(c):
	case c[0] == '"':
		if err := json.Unmarshal(c, &w.Content); err != nil {
			return w, &OpenAIError{Offset: -1, Field: jsonpos.Path{"content"}, Msg: "content: " + err.Error()}
		}
	case c[0] == '[':
		var parts []partJSON
		if err := json.Unmarshal(c, &parts); err != nil {
			return w, &OpenAIError{Offset: -1, Field: jsonpos.Path{"content"}, Msg: "content: want an array of parts like {\"type\": \"text\", \"text\": \"…\"}"}
		}
		w.Parts = make([]chat.ContentPart, len(parts))
		for j, p := range parts {
			if p.Type == "text" && p.Text == nil {
				return w, &OpenAIError{Offset: -1, Field: jsonpos.Path{"content", j}, Msg: fmt.Sprintf("content[%d]: text part without \"text\"", j)}
			}
			w.Parts[j] = chat.ContentPart{Type: p.Type}
			if p.Text != nil {
				w.Parts[j].Text = *p.Text
			}
		}
	default:
		return w, &OpenAIError{Offset: -1, Field: jsonpos.Path{"content"}, Msg: fmt.Sprintf("content: want a string, an array of text parts or null, not %s", jsonpos.Kind(c))}
	}
	for j, tc := range m.ToolCalls {
		call := chat.WireToolCall{ID: tc.ID, Type: tc.Type, Function: chat.FunctionCall{Name: tc.Function.Name}}
		args := bytes.TrimSpace(tc.Function.Arguments)
		switch {
		case !isSet(args):
		case args[0] == '"':
			if err := json.Unmarshal(args, &call.Function.Arguments); err != nil {
				return w, &OpenAIError{Offset: -1, Field: jsonpos.Path{"tool_calls", j, "function", "arguments"}, Msg: fmt.Sprintf("tool_calls[%d]: arguments: %v", j, err)}
			}
		default:
			call.Function.Arguments = string(args) // a JSON value, as some servers log it
		}
		w.ToolCalls = append(w.ToolCalls, call)
	}
	return w, nil
}

func isSet(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// jsonKind names a Go kind as a JSON type.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a number"
}

// syntaxErr turns a decoding error into an *OpenAIError at its offset. A json.Decoder counts a
// syntax error's offset from the start of the value it was reading, so the whole input is
// scanned again for the absolute offset.
func syntaxErr(b []byte, dec *json.Decoder, err error) *OpenAIError {
	truncated := &OpenAIError{Index: -1, Offset: int64(len(b)), Msg: "unexpected end of the file (truncated?)"}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return truncated
	}
	var syn *json.SyntaxError
	var raw json.RawMessage
	if errors.As(json.Unmarshal(b, &raw), &syn) {
		if syn.Offset >= int64(len(b)) && strings.Contains(syn.Error(), "unexpected end") {
			return truncated
		}
		return &OpenAIError{Index: -1, Offset: min(max(syn.Offset-1, 0), int64(len(b))), Msg: strings.TrimPrefix(syn.Error(), "json: ")}
	}
	return &OpenAIError{Index: -1, Offset: min(dec.InputOffset(), int64(len(b))), Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

// valueStart returns the offset of the value that follows off: after JSON space, and a
// colon or a comma.
func valueStart(b []byte, off int64) int64 {
	for off < int64(len(b)) {
		switch b[off] {
		case ' ', '\t', '\n', '\r', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}
