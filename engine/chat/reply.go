package chat

import "time"

// Delta is one streamed piece of a reply: text, or a piece of a tool call identified by
// its index in the reply.
type Delta struct {
	Text string `json:"text,omitempty"`
	// Tool-call pieces. ToolCallID and ToolName arrive with the first piece of a call;
	// Arguments is a fragment of its JSON arguments.
	ToolCallIndex int    `json:"tool_call_index,omitempty"`
	ToolCallID    string `json:"tool_call_id,omitempty"`
	ToolName      string `json:"tool_name,omitempty"`
	Arguments     string `json:"arguments,omitempty"`
}

// Reply is what a model answered to one request.
type Reply struct {
	Text         string
	ToolCalls    []WireToolCall // reassembled from the streamed pieces, by index
	FinishReason string
	// Usage is what the server reported; nil when it sent none.
	Usage *Usage
	// TTFT is the time to the first streamed token; Total the time to the end.
	TTFT, Total time.Duration
	// Interrupted is set when the reply was cut short (cancelled, stream broken); Text
	// and ToolCalls then hold what arrived.
	Interrupted bool
	// Attempts counts the HTTP requests made (retries included).
	Attempts int
}
