package chat

import (
	"encoding/json"
	"testing"
)

func TestWire(t *testing.T) {
	tool := func(id string, round int, state ToolState, out string) Part {
		p := Part{Type: PartTool, ToolCallID: id, ToolName: "run_sql", Input: json.RawMessage(`{"q":1}`), State: state, Round: round}
		if state == ToolOutputError {
			p.ErrorText = out
		} else {
			p.Output = out
		}
		return p
	}
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"user string", Message{Role: RoleUser, Parts: []Part{TextPart("hi")}},
			`[{"role":"user","content":"hi"}]`},
		{"user parts", Message{Role: RoleUser, Parts: []Part{TextPart("hi"), TextPart("<r>x</r>")}},
			`[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"<r>x</r>"}]}]`},
		{"assistant text", Message{Role: RoleAssistant, Parts: []Part{TextPart("ok")}},
			`[{"role":"assistant","content":"ok"}]`},
		{"scripted tools then text", Message{Role: RoleAssistant, Parts: []Part{
			tool("a", 0, ToolOutputError, "denied"), tool("b", 0, ToolOutputAvailable, "2"), TextPart("done")}},
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"run_sql","arguments":"{\"q\":1}"}},{"id":"b","type":"function","function":{"name":"run_sql","arguments":"{\"q\":1}"}}]},` +
				`{"role":"tool","content":"denied","tool_call_id":"a"},{"role":"tool","content":"2","tool_call_id":"b"},{"role":"assistant","content":"done"}]`},
		{"two live rounds stay two messages", Message{Role: RoleAssistant, Parts: []Part{
			TextPart("checking"), tool("a", 1, ToolOutputAvailable, "1"), tool("b", 2, ToolOutputAvailable, "2"), TextPart("done")}},
			`[{"role":"assistant","content":"checking","tool_calls":[{"id":"a","type":"function","function":{"name":"run_sql","arguments":"{\"q\":1}"}}]},{"role":"tool","content":"1","tool_call_id":"a"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function","function":{"name":"run_sql","arguments":"{\"q\":1}"}}]},{"role":"tool","content":"2","tool_call_id":"b"},{"role":"assistant","content":"done"}]`},
		{"a call without outcome is not sent", Message{Role: RoleAssistant, Parts: []Part{
			{Type: PartTool, ToolCallID: "a", ToolName: "x", State: ToolInputAvailable}, TextPart("cut")}},
			`[{"role":"assistant","content":"cut"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.msg.Wire())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
