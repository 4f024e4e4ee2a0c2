package llm

import (
	"bytes"
	"encoding/json"

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
		Messages: make([]openai.ChatCompletionMessage, 0, len(r.Messages)),
		//lint:ignore SA1019 chat.Request sends max_tokens, which every compatible server reads
		MaxTokens: r.MaxTokens,
		Stop:      r.Stop,
		Stream:    true,
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
	for _, m := range r.Messages {
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

// wireRequest is chat.Request's wire form plus the stream fields, in the same field order,
// so that the body differs from the traced request only by "stream" and "stream_options"
// and by an empty "tools" array left out (OpenAI rejects `"tools": []`).
type wireRequest struct {
	Model         string                `json:"model"`
	Messages      []chat.WireMessage    `json:"messages"`
	Tools         []chat.WireTool       `json:"tools,omitempty"`
	Temperature   *float64              `json:"temperature,omitempty"`
	TopP          *float64              `json:"top_p,omitempty"`
	MaxTokens     int                   `json:"max_tokens,omitempty"`
	Seed          *int                  `json:"seed,omitempty"`
	Stop          []string              `json:"stop,omitempty"`
	Stream        bool                  `json:"stream"`
	StreamOptions *openai.StreamOptions `json:"stream_options,omitempty"`
}

// wireBody returns the JSON body of a streamed request: temperature and top_p are sent
// whenever set (0 included), <, > and & are not escaped, and stream_options asks for the
// usage chunk when includeUsage is set.
func wireBody(r chat.Request, includeUsage bool) ([]byte, error) {
	w := wireRequest{
		Model: r.Model, Messages: r.Messages, Tools: r.Tools,
		Temperature: r.Temperature, TopP: r.TopP, MaxTokens: r.MaxTokens, Seed: r.Seed, Stop: r.Stop,
		Stream: true,
	}
	if w.Messages == nil {
		w.Messages = []chat.WireMessage{}
	}
	if includeUsage {
		w.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// usageOf converts a usage object; the cached and reasoning counts come from the details.
func usageOf(u *openai.Usage) *chat.Usage {
	out := &chat.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}
