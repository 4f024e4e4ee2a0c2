package llm

import (
	"bytes"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// toOpenAI converts a request to go-openai's type, field by field: string or multi-part
// content, assistant tool calls, tool_call_id, tools, sampling parameters and stops.
// go-openai validates it (model-specific limits) and builds the HTTP request from it.
//
// go-openai cannot express everything chat.Request can: its Temperature and TopP are
// float32 with omitempty, so an explicit 0 would be dropped (and the server default,
// often 1.0, applied); empty content strings are dropped, and an assistant message with
// only tool calls has no "content" instead of null. So the body actually sent is
// wireBody's: the request's own JSON (the bytes the trace shows), plus the stream fields.
func toOpenAI(r chat.Request) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{
		Model:    r.Model,
		Messages: make([]openai.ChatCompletionMessage, 0, r.Len()),
		Stop:     r.Stop,
		Stream:   true,
	}
	if chat.UsesMaxCompletionTokens(r.Model) {
		out.MaxCompletionTokens = r.MaxTokens
	} else {
		//lint:ignore SA1019 max_tokens is what every compatible server reads
		out.MaxTokens = r.MaxTokens
	}
	if r.Temperature != nil {
		out.Temperature = float32(*r.Temperature)
	}
	if r.TopP != nil {
		out.TopP = float32(*r.TopP)
	}
	if r.Seed != nil {
		seed := *r.Seed
		out.Seed = &seed
	}
	for _, m := range r.All() {
		om := openai.ChatCompletionMessage{Role: string(m.Role), ToolCallID: m.ToolCallID}
		if m.Parts != nil {
			om.MultiContent = make([]openai.ChatMessagePart, len(m.Parts))
			for i, p := range m.Parts {
				om.MultiContent[i] = openai.ChatMessagePart{Type: openai.ChatMessagePartType(p.Type), Text: p.Text}
			}
		} else {
			om.Content = m.Content
		}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     toolType(tc.Type),
				Function: openai.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
			})
		}
		out.Messages = append(out.Messages, om)
	}
	for _, t := range r.Tools {
		fd := &openai.FunctionDefinition{Name: t.Function.Name, Description: t.Function.Description}
		if len(t.Function.Parameters) > 0 {
			fd.Parameters = t.Function.Parameters
		}
		out.Tools = append(out.Tools, openai.Tool{Type: toolType(t.Type), Function: fd})
	}
	return out
}

func toolType(s string) openai.ToolType {
	if s == "" {
		return openai.ToolTypeFunction
	}
	return openai.ToolType(s)
}

// WireBody returns the JSON body Client.Stream sends for req, byte for byte, without
// sending anything: what a viewer shows as the request on the wire. It is the body of
// wireBody with the stream_options that ask for the usage chunk, which every request
// carries but those to a server that refused them (Stream then sends the same body without
// that field). The API key is never in it: it travels in the Authorization header.
func WireBody(req *chat.Request) ([]byte, error) {
	return wireBody(*req, true)
}

// wireBody returns the JSON body of a streamed request: the request's own JSON, the bytes
// the trace shows (temperature and top_p whenever set, 0 included; the limit in the field
// the model reads; <, > and & not escaped), without an empty "tools" array (OpenAI rejects
// `"tools": []`), plus "stream" and, when includeUsage is set, the stream_options that ask
// for the usage chunk.
func wireBody(r chat.Request, includeUsage bool) ([]byte, error) {
	b, err := r.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	if len(r.Tools) == 0 {
		// The first "tools" key is the request's own: inside a message's strings quotes
		// are escaped, and messages have no tools key.
		b = bytes.Replace(b, []byte(`,"tools":[]`), nil, 1)
	}
	b = append(b[:len(b)-1], `,"stream":true`...)
	if includeUsage {
		b = append(b, `,"stream_options":{"include_usage":true}`...)
	}
	return append(b, '}'), nil
}

// maxReportedTokens bounds a believable token count. A server reporting a negative count
// or a larger one reports nothing usable: saved, it would make nonsense of the chat's
// totals (or overflow them).
const maxReportedTokens = 1e12

// usageOf converts a usage object; the cached and reasoning counts come from the details.
// Usage with a count out of range is nil, as if none was reported.
func usageOf(u *openai.Usage) *chat.Usage {
	out := &chat.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	for _, n := range []int{out.PromptTokens, out.CompletionTokens, out.TotalTokens, out.CachedTokens, out.ReasoningTokens} {
		if n < 0 || n > maxReportedTokens {
			return nil
		}
	}
	return out
}
