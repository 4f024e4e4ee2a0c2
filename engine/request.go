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
