package engine

import (
	"github.com/ctxlab/ctxlab/engine/chat"
)

// wireTokens estimates a request message the way OpenAI counts chat messages: three tokens
// of framing per message plus its role, content and tool calls.
func wireTokens(count func(string) int, ws []chat.WireMessage) int {
	n := 0
	for _, w := range ws {
		n += 3 + 1 + count(w.Text())
		for _, tc := range w.ToolCalls {
			n += 3 + count(tc.Function.Name) + count(tc.Function.Arguments)
		}
	}
	return n
}

// toolTokens estimates the tools offered with a request.
func toolTokens(count func(string) int, tools []chat.WireTool) int {
	n := 0
	for _, t := range tools {
		n += count(t.Function.Name) + count(t.Function.Description) + count(string(t.Function.Parameters)) + 8
	}
	return n
}

// requestTokens estimates the prompt of a whole request: its messages, its tools, and the
// three tokens that prime the reply.
func requestTokens(count func(string) int, req *chat.Request) int {
	return wireTokens(count, req.Head) + wireTokens(count, req.Shared) + wireTokens(count, req.Messages) + toolTokens(count, req.Tools) + 3
}
