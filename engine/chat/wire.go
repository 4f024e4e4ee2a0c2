package chat

import "strings"

// Wire converts a saved message into the messages of a request. A user message with
// several parts is sent as an array of text parts, otherwise as a string. An assistant
// message with tool parts becomes, as it happened live: an assistant message with the
// tool_calls (and any text said before them), one tool message per call with its output or
// error, then an assistant message with the text said after.
func (m *Message) Wire() []WireMessage {
	switch m.Role {
	case RoleUser:
		return []WireMessage{m.UserWire()}
	case RoleAssistant:
		return m.assistantWire()
	}
	return []WireMessage{{Role: m.Role, Content: m.PlainText()}}
}

// UserWire converts a user message: several text parts are sent as an array of text
// parts, one as a string.
func (m *Message) UserWire() WireMessage {
	var texts []ContentPart
	for _, p := range m.Parts {
		if p.Type == PartText {
			texts = append(texts, ContentPart{Type: "text", Text: p.Text})
		}
	}
	if len(texts) > 1 {
		return WireMessage{Role: RoleUser, Parts: texts}
	}
	w := WireMessage{Role: RoleUser}
	if len(texts) == 1 {
		w.Content = texts[0].Text
	}
	return w
}

func (m *Message) assistantWire() []WireMessage {
	var out []WireMessage
	var text strings.Builder
	parts := m.Parts
	for i := 0; i < len(parts); {
		p := parts[i]
		if p.Type == PartText {
			text.WriteString(p.Text)
			i++
			continue
		}
		// A run of tool calls answered in one round.
		call := WireMessage{Role: RoleAssistant, Content: text.String()}
		text.Reset()
		var results []WireMessage
		round := parts[i].Round
		for ; i < len(parts) && parts[i].Type == PartTool && parts[i].Round == round; i++ {
			tp := parts[i]
			if tp.State != ToolOutputAvailable && tp.State != ToolOutputError {
				continue // a call that never got its outcome is not sent back
			}
			args := string(tp.Input)
			if args == "" {
				args = "{}"
			}
			call.ToolCalls = append(call.ToolCalls, WireToolCall{ID: tp.ToolCallID, Type: "function",
				Function: FunctionCall{Name: tp.ToolName, Arguments: args}})
			content := tp.Output
			if tp.State == ToolOutputError {
				content = tp.ErrorText
			}
			results = append(results, WireMessage{Role: RoleTool, Content: content, ToolCallID: tp.ToolCallID})
		}
		if len(call.ToolCalls) == 0 {
			text.WriteString(call.Content)
			continue
		}
		out = append(out, call)
		out = append(out, results...)
	}
	if text.Len() > 0 || len(out) == 0 {
		out = append(out, WireMessage{Role: RoleAssistant, Content: text.String()})
	}
	return out
}
