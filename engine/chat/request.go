package chat

import (
	"bytes"
	"encoding/json"
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Request is the body of a POST /v1/chat/completions, exactly as ctxlab sends it (or would
// send it). It never holds an API key.
//
// Its messages array is Head, then Shared, then Messages, sent (and encoded) as one array:
// read it with Len, At, All or Collect, not through one of the three alone. Shared is the
// part a request has in common with others (the saved history of a chat, which each turn
// sends again): it is shared, not copied, so it is never written, by the request's maker
// or by its readers. Head is what comes before it (the system message), Messages what
// follows it (an injected system message, the user message, a tool round's messages). A
// request built whole (decoded from JSON, or in a test) has all its messages in Messages.
type Request struct {
	Model       string        `json:"model"`
	Head        []WireMessage `json:"-"`
	Shared      []WireMessage `json:"-"`
	Messages    []WireMessage `json:"messages"`
	Tools       []WireTool    `json:"tools"`
	Temperature *float64      `json:"temperature,omitempty"`
	TopP        *float64      `json:"top_p,omitempty"`
	// MaxTokens bounds the reply. It is sent as max_tokens, or as max_completion_tokens to
	// the models that refuse max_tokens (UsesMaxCompletionTokens).
	MaxTokens int      `json:"max_tokens,omitempty"`
	Seed      *int     `json:"seed,omitempty"`
	Stop      []string `json:"stop,omitempty"`
}

// UsesMaxCompletionTokens reports whether a model takes the reply's limit as
// max_completion_tokens: OpenAI's reasoning models (o1, o3, o4, gpt-5, gpt-6 and their
// variants) refuse max_tokens, and go-openai refuses to send it to them. Other models and
// servers read max_tokens. As in go-openai, the name is matched as given: a provider prefix
// ("openai/o3", OpenRouter, which reads max_tokens) is no match.
func UsesMaxCompletionTokens(model string) bool {
	for _, family := range [...]string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, family) {
			return true
		}
	}
	return false
}

// WireMessage is one entry of a request's messages array.
type WireMessage struct {
	Role Role `json:"role"`
	// Content is the text of the message; Parts, when set, replaces it with an array of
	// text parts (a user message with several parts).
	Content    string         `json:"-"`
	Parts      []ContentPart  `json:"-"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`

	// raw caches the message's JSON (see Encoded): history messages are encoded once,
	// not once per turn that sends them again.
	raw []byte
}

// Encoded returns the message with its JSON computed and cached, for messages that are
// encoded many times (the history of a long chat). The message must not change after.
func (m WireMessage) Encoded() WireMessage {
	m.raw = nil
	m.raw = m.AppendJSON(nil)
	return m
}

// ContentPart is one element of an array-valued message content.
type ContentPart struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

// WireToolCall is a tool call made by the assistant, as sent back to the model.
type WireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as a JSON string.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// WireTool is a tool offered to the model.
type WireTool struct {
	Type     string       `json:"type"` // "function"
	Function FunctionDecl `json:"function"`
}

// FunctionDecl declares a function tool: its name, description and JSON-schema parameters.
type FunctionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type wireMessageJSON struct {
	Role       Role            `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []WireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// MarshalJSON writes content as a string, as an array of text parts when Parts is set, or
// as null for an assistant message that only carries tool calls.
func (m WireMessage) MarshalJSON() ([]byte, error) {
	return m.AppendJSON(nil), nil
}

// AppendJSON appends the message's JSON to dst, as MarshalJSON writes it, with <, > and &
// unescaped.
func (m *WireMessage) AppendJSON(dst []byte) []byte {
	if m.raw != nil {
		return append(dst, m.raw...)
	}
	dst = append(dst, '{')
	dst = AppendJSONField(dst, "role")
	dst = AppendJSONString(dst, string(m.Role))
	dst = AppendJSONField(dst, "content")
	switch {
	case m.Parts != nil:
		dst = append(dst, '[')
		for i, p := range m.Parts {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '{')
			dst = AppendJSONField(dst, "type")
			dst = AppendJSONString(dst, p.Type)
			dst = AppendJSONField(dst, "text")
			dst = AppendJSONString(dst, p.Text)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	case m.Content == "" && len(m.ToolCalls) > 0:
		dst = append(dst, "null"...)
	default:
		dst = AppendJSONString(dst, m.Content)
	}
	if len(m.ToolCalls) > 0 {
		dst = AppendJSONField(dst, "tool_calls")
		dst = append(dst, '[')
		for i, tc := range m.ToolCalls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '{')
			dst = AppendJSONField(dst, "id")
			dst = AppendJSONString(dst, tc.ID)
			dst = AppendJSONField(dst, "type")
			dst = AppendJSONString(dst, tc.Type)
			dst = AppendJSONField(dst, "function")
			dst = append(dst, '{')
			dst = AppendJSONField(dst, "name")
			dst = AppendJSONString(dst, tc.Function.Name)
			dst = AppendJSONField(dst, "arguments")
			dst = AppendJSONString(dst, tc.Function.Arguments)
			dst = append(dst, '}', '}')
		}
		dst = append(dst, ']')
	}
	if m.ToolCallID != "" {
		dst = AppendJSONField(dst, "tool_call_id")
		dst = AppendJSONString(dst, m.ToolCallID)
	}
	return append(dst, '}')
}

// UnmarshalJSON reads content given as a string, an array of parts, or null.
func (m *WireMessage) UnmarshalJSON(b []byte) error {
	var w wireMessageJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = WireMessage{Role: w.Role, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID}
	c := bytes.TrimSpace(w.Content)
	switch {
	case len(c) == 0 || bytes.Equal(c, []byte("null")):
	case c[0] == '[':
		return json.Unmarshal(c, &m.Parts)
	default:
		return json.Unmarshal(c, &m.Content)
	}
	return nil
}

// Text returns the message text: Content, or the text parts joined without separator.
func (m WireMessage) Text() string {
	if m.Parts == nil {
		return m.Content
	}
	var b bytes.Buffer
	for _, p := range m.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Marshal is json.Marshal without escaping <, > and &: prompts are full of tags, and
// traces should read as sent.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// MarshalJSON writes the request with <, > and & unescaped, so traces read as sent, and
// tools always as an array.
func (r Request) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(nil)
}

// AppendJSON appends the request's JSON to dst, as MarshalJSON writes it. Traces of long
// chats repeat the whole history on every turn, so this reuses the messages' cached JSON.
func (r *Request) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	dst = AppendJSONField(dst, "model")
	dst = AppendJSONString(dst, r.Model)
	dst = AppendJSONField(dst, "messages")
	dst = append(dst, '[')
	n := 0
	for _, part := range [...][]WireMessage{r.Head, r.Shared, r.Messages} {
		for i := range part {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = part[i].AppendJSON(dst)
			n++
		}
	}
	dst = append(dst, ']')
	return r.appendParams(dst)
}

// appendParams appends the fields of the request after its messages, and its closing
// brace.
func (r *Request) appendParams(dst []byte) ([]byte, error) {
	type params struct {
		Tools               []WireTool `json:"tools"`
		Temperature         *float64   `json:"temperature,omitempty"`
		TopP                *float64   `json:"top_p,omitempty"`
		MaxTokens           int        `json:"max_tokens,omitempty"`
		MaxCompletionTokens int        `json:"max_completion_tokens,omitempty"`
		Seed                *int       `json:"seed,omitempty"`
		Stop                []string   `json:"stop,omitempty"`
	}
	p := params{Tools: r.Tools, Temperature: r.Temperature, TopP: r.TopP, Seed: r.Seed, Stop: r.Stop}
	if UsesMaxCompletionTokens(r.Model) {
		p.MaxCompletionTokens = r.MaxTokens
	} else {
		p.MaxTokens = r.MaxTokens
	}
	if p.Tools == nil {
		p.Tools = []WireTool{}
	}
	rest, err := Marshal(p)
	if err != nil {
		return nil, err
	}
	dst = append(dst, ',')
	return append(dst, rest[1:]...), nil // the rest of the object, after its '{'
}

// AppendJSONSince appends the request's JSON to dst in the form `--request new` prints,
// where what prev (the request of the trace before) also sent is not written again: as
// AppendJSON writes it, but for each run of messages that are prev's messages FROM to
// TO-1, in order, which is the one element {"previous":[FROM,TO]} (positions in prev's
// messages array, counted from 0, TO excluded: a jq slice). Rebuilt, the messages are
// those of AppendJSON, byte for byte. With prev nil it writes what AppendJSON writes.
//
// A request sends its chat's history again (Shared): runs of it that prev sent too are
// found without reading them where both share the history's memory, so the work, like
// the output, grows with what is new rather than with the history. Any other message is
// compared with prev's at the same place (or the next: prev's injected system message
// is not history), so what is written is exact whatever the two requests hold.
func (r *Request) AppendJSONSince(dst []byte, prev *Request) ([]byte, error) {
	if prev == nil {
		return r.AppendJSON(dst)
	}
	dst = append(dst, '{')
	dst = AppendJSONField(dst, "model")
	dst = AppendJSONString(dst, r.Model)
	dst = AppendJSONField(dst, "messages")
	dst = append(dst, '[')
	n, m := r.Len(), prev.Len()
	from, to := -1, -1 // the run of prev's messages not yet written
	first := true
	elem := func() {
		if !first {
			dst = append(dst, ',')
		}
		first = false
	}
	flush := func() {
		if from < 0 {
			return
		}
		elem()
		dst = append(dst, `{"previous":[`...)
		dst = strconv.AppendInt(dst, int64(from), 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(to), 10)
		dst = append(dst, "]}"...)
		from, to = -1, -1
	}
	take := func(j, k int) { // prev's messages j to j+k-1 are the next ones
		if from >= 0 && to == j {
			to += k
			return
		}
		flush()
		from, to = j, j+k
	}
	for i, j := 0, 0; i < n; {
		if j < m {
			if k := sharedRun(r, prev, i, j); k > 0 {
				take(j, k)
				i, j = i+k, j+k
				continue
			}
			if r.ptr(i).same(prev.ptr(j)) {
				take(j, 1)
				i, j = i+1, j+1
				continue
			}
			if j+1 < m && r.ptr(i).same(prev.ptr(j+1)) { // prev's message j is not in r
				j++
				continue
			}
		}
		flush()
		elem()
		dst = r.ptr(i).AppendJSON(dst)
		i, j = i+1, j+1
	}
	flush()
	dst = append(dst, ']')
	return r.appendParams(dst)
}

// sharedRun returns how many messages from r's i and prev's j on are the same memory of
// both requests' Shared history (0 when they are not): a history is only appended to and
// never written, so they are the same messages.
func sharedRun(r, prev *Request, i, j int) int {
	i, j = i-len(r.Head), j-len(prev.Head)
	if i < 0 || j < 0 || i >= len(r.Shared) || j >= len(prev.Shared) || &r.Shared[i] != &prev.Shared[j] {
		return 0
	}
	return min(len(r.Shared)-i, len(prev.Shared)-j)
}

// ptr returns message i of the request (0 <= i < Len), in place.
func (r *Request) ptr(i int) *WireMessage {
	if i < len(r.Head) {
		return &r.Head[i]
	}
	i -= len(r.Head)
	if i < len(r.Shared) {
		return &r.Shared[i]
	}
	return &r.Messages[i-len(r.Shared)]
}

// same reports whether m and o are written as the same JSON.
func (m *WireMessage) same(o *WireMessage) bool {
	if m == o {
		return true
	}
	if m.raw != nil && o.raw != nil {
		return bytes.Equal(m.raw, o.raw) // both cached (history): often the same bytes
	}
	if m.Role != o.Role || m.Content != o.Content || m.ToolCallID != o.ToolCallID ||
		(m.Parts == nil) != (o.Parts == nil) || !slices.Equal(m.Parts, o.Parts) || !slices.Equal(m.ToolCalls, o.ToolCalls) {
		return false
	}
	return true
}

// Len returns the number of messages of the request.
func (r *Request) Len() int {
	return len(r.Head) + len(r.Shared) + len(r.Messages)
}

// At returns message i of the request (0 <= i < Len).
func (r *Request) At(i int) WireMessage {
	if i < len(r.Head) {
		return r.Head[i]
	}
	i -= len(r.Head)
	if i < len(r.Shared) {
		return r.Shared[i]
	}
	return r.Messages[i-len(r.Shared)]
}

// All yields the request's messages in order, with their positions.
func (r *Request) All() iter.Seq2[int, WireMessage] {
	return func(yield func(int, WireMessage) bool) {
		n := 0
		for _, part := range [...][]WireMessage{r.Head, r.Shared, r.Messages} {
			for i := range part {
				if !yield(n, part[i]) {
					return
				}
				n++
			}
		}
	}
}

// Collect returns the request's messages in order, in a new slice.
func (r *Request) Collect() []WireMessage {
	out := make([]WireMessage, 0, r.Len())
	out = append(out, r.Head...)
	out = append(out, r.Shared...)
	return append(out, r.Messages...)
}
