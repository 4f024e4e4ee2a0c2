package engine

import (
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// wireOf converts a saved message into the messages of a request. A user message with
// several parts is sent as an array of text parts, otherwise as a string. An assistant
// message with tool parts becomes, as it happened live: an assistant message with the
// tool_calls (and any text said before them), one tool message per call with its output or
// error, then an assistant message with the text said after.
func wireOf(m *chat.Message) []chat.WireMessage {
	switch m.Role {
	case chat.RoleUser:
		return []chat.WireMessage{userWire(m)}
	case chat.RoleAssistant:
		return assistantWire(m)
	}
	return []chat.WireMessage{{Role: m.Role, Content: m.PlainText()}}
}

func userWire(m *chat.Message) chat.WireMessage {
	var texts []chat.ContentPart
	for _, p := range m.Parts {
		if p.Type == chat.PartText {
			texts = append(texts, chat.ContentPart{Type: "text", Text: p.Text})
		}
	}
	if len(texts) > 1 {
		return chat.WireMessage{Role: chat.RoleUser, Parts: texts}
	}
	w := chat.WireMessage{Role: chat.RoleUser}
	if len(texts) == 1 {
		w.Content = texts[0].Text
	}
	return w
}

func assistantWire(m *chat.Message) []chat.WireMessage {
	var out []chat.WireMessage
	var text strings.Builder
	parts := m.Parts
	for i := 0; i < len(parts); {
		p := parts[i]
		if p.Type == chat.PartText {
			text.WriteString(p.Text)
			i++
			continue
		}
		// A run of tool calls answered in one round.
		call := chat.WireMessage{Role: chat.RoleAssistant, Content: text.String()}
		text.Reset()
		var results []chat.WireMessage
		for ; i < len(parts) && parts[i].Type == chat.PartTool; i++ {
			tp := parts[i]
			if tp.State != chat.ToolOutputAvailable && tp.State != chat.ToolOutputError {
				continue // a call that never got its outcome is not sent back
			}
			args := string(tp.Input)
			if args == "" {
				args = "{}"
			}
			call.ToolCalls = append(call.ToolCalls, chat.WireToolCall{ID: tp.ToolCallID, Type: "function",
				Function: chat.FunctionCall{Name: tp.ToolName, Arguments: args}})
			content := tp.Output
			if tp.State == chat.ToolOutputError {
				content = tp.ErrorText
			}
			results = append(results, chat.WireMessage{Role: chat.RoleTool, Content: content, ToolCallID: tp.ToolCallID})
		}
		if len(call.ToolCalls) == 0 {
			text.WriteString(call.Content)
			continue
		}
		out = append(out, call)
		out = append(out, results...)
	}
	if text.Len() > 0 || len(out) == 0 {
		out = append(out, chat.WireMessage{Role: chat.RoleAssistant, Content: text.String()})
	}
	return out
}

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
