// Package chat is the message model every ctxlab package shares: chats, messages made of
// typed parts, locales, token usage, turn records and the wire request sent to an
// OpenAI-compatible server. It is a leaf package: it imports nothing of ctxlab.
package chat

import (
	"encoding/json"
	"strings"
	"time"
)

// Role is who wrote a message.
type Role string

// The roles of a message.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// PartType is the kind of a message part.
type PartType string

// The kinds of a message part.
const (
	PartText PartType = "text"
	PartTool PartType = "tool"
)

// ToolState is the life-cycle state of a tool part, named as in the AI SDK.
type ToolState string

// The states of a tool part. A part is "completed" in every state but InputStreaming.
const (
	ToolInputStreaming  ToolState = "input-streaming"
	ToolInputAvailable  ToolState = "input-available"
	ToolOutputAvailable ToolState = "output-available"
	ToolOutputError     ToolState = "output-error"
)

// Completed reports whether a tool part in state s counts as a completed call.
func (s ToolState) Completed() bool {
	return s == ToolInputAvailable || s == ToolOutputAvailable || s == ToolOutputError
}

// Part is one piece of a message: a text, or a tool call with its outcome.
type Part struct {
	Type PartType `json:"type"`
	Text string   `json:"text,omitempty"`

	// Tool parts only.
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolName   string          `json:"tool_name,omitempty"`
	State      ToolState       `json:"state,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`      // the arguments, as JSON
	Output     string          `json:"output,omitempty"`     // the text returned to the model
	ErrorText  string          `json:"error_text,omitempty"` // set when State is ToolOutputError
	// Round numbers the model requests of a live tool loop (1, 2, …): the calls of one
	// round were one assistant message. Scripted calls are all one round (0).
	Round int `json:"round,omitempty"`
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Type: PartText, Text: s} }

// Locale is the language and time zone attached to a user message.
type Locale struct {
	Language string `json:"language,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// Placement modes of a reminder baked into a user message.
const (
	SpanInline = "inline"
	SpanPart   = "part"
)

// ReminderSpan records where a reminder was baked into a user message: the part index and
// the byte range [Start, End) of the `<system-reminder>…</system-reminder>` text in it.
type ReminderSpan struct {
	ID    string `json:"id"`
	Part  int    `json:"part_index"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Mode  string `json:"mode"` // SpanInline or SpanPart
}

// Message is one node of a chat's message graph.
type Message struct {
	ID        string         `json:"id"`
	ParentID  string         `json:"parent_id,omitempty"` // "" for a root message
	Role      Role           `json:"role"`
	Parts     []Part         `json:"parts"`
	Locale    *Locale        `json:"locale,omitempty"`
	Reminders []ReminderSpan `json:"reminders,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	// Interrupted marks an assistant reply cut short (cancelled or failed mid-stream).
	Interrupted bool `json:"interrupted,omitempty"`
}

// PlainText returns the text parts joined with one space.
func (m *Message) PlainText() string {
	if m == nil {
		return ""
	}
	n := 0
	for _, p := range m.Parts {
		if p.Type == PartText {
			n++
		}
	}
	if n == 1 {
		for _, p := range m.Parts {
			if p.Type == PartText {
				return p.Text
			}
		}
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type != PartText {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// ToolParts returns the tool parts of the message, in order.
func (m *Message) ToolParts() []Part {
	if m == nil {
		return nil
	}
	var out []Part
	for _, p := range m.Parts {
		if p.Type == PartTool {
			out = append(out, p)
		}
	}
	return out
}

// Usage is a count of tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
}

// Add returns u plus v; a zero TotalTokens is taken as prompt plus completion.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		TotalTokens:      u.Total() + v.Total(),
		CachedTokens:     u.CachedTokens + v.CachedTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
	}
}

// Total returns TotalTokens, or prompt plus completion when TotalTokens is not set.
func (u Usage) Total() int {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.PromptTokens + u.CompletionTokens
}

// Input, Output, Cached and Reasoning name the usage as spec/predicates.md does, for
// reminder templates ({{.Usage.Input}}, {{.Usage.Total}}, …).

// Input returns the prompt tokens.
func (u Usage) Input() int { return u.PromptTokens }

// Output returns the completion tokens.
func (u Usage) Output() int { return u.CompletionTokens }

// Cached returns the cached prompt tokens.
func (u Usage) Cached() int { return u.CachedTokens }

// Reasoning returns the reasoning tokens.
func (u Usage) Reasoning() int { return u.ReasoningTokens }
