package predicates

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// The tool predicates read the tool parts (chat.PartTool) of LastAssistantMessage, except
// toolFailedStreak, which reads LastAssistantReplies. A part counts as a completed call in
// the states input-available, output-available and output-error.

type toolFind struct {
	name   Matcher
	failed bool // only output-error parts
	expr   string
}

// ToolCalled fires when the last assistant message has a completed call of a tool whose
// name matches name.
func ToolCalled(name Matcher) Predicate {
	return &toolFind{name: name, expr: "toolCalled(" + name.String() + ")"}
}

// ToolFailed fires when the last assistant message has a call of a tool whose name matches
// name that ended in error (state output-error).
func ToolFailed(name Matcher) Predicate {
	return &toolFind{name: name, failed: true, expr: "toolFailed(" + name.String() + ")"}
}

func (p *toolFind) String() string { return p.expr }

func (p *toolFind) Eval(c *WhenContext) Result {
	if c == nil || c.LastAssistantMessage == nil {
		return leaf(p.expr, false, "no assistant message")
	}
	tools := 0
	for i := range c.LastAssistantMessage.Parts {
		part := &c.LastAssistantMessage.Parts[i]
		if part.Type != chat.PartTool {
			continue
		}
		tools++
		if !part.State.Completed() || (p.failed && part.State != chat.ToolOutputError) || !p.name.Match(part.ToolName) {
			continue
		}
		if p.failed {
			return leaf(p.expr, true, strconv.Quote(part.ToolName)+" failed: "+dquote(part.ErrorText, 40))
		}
		return leaf(p.expr, true, "found "+strconv.Quote(part.ToolName)+" ("+string(part.State)+")")
	}
	what := "no completed call of "
	if p.failed {
		what = "no failed call of "
	}
	return leaf(p.expr, false, what+p.name.String()+" among "+plural(tools, "tool part"))
}

// plural formats n and a noun, adding an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

type anyToolCalled struct{}

// AnyToolCalled fires when the last assistant message has any completed tool call.
func AnyToolCalled() Predicate { return anyToolCalled{} }

func (anyToolCalled) String() string { return "anyToolCalled()" }

func (anyToolCalled) Eval(c *WhenContext) Result {
	const expr = "anyToolCalled()"
	if c == nil || c.LastAssistantMessage == nil {
		return leaf(expr, false, "no assistant message")
	}
	n := 0
	for i := range c.LastAssistantMessage.Parts {
		part := &c.LastAssistantMessage.Parts[i]
		if part.Type == chat.PartTool && part.State.Completed() {
			n++
		}
	}
	if n == 0 {
		return leaf(expr, false, "no completed tool call")
	}
	return leaf(expr, true, plural(n, "completed tool call"))
}

// ToolCallSpec lists the matchers of ToolCall; nil matchers are absent. Without State only
// completed parts count. Input is matched against the compact JSON text of the call's
// arguments (an exact string that is valid JSON is compacted too, so spacing does not
// matter, but key order does); Output, only on output-available parts, against the text
// returned to the model; ErrorText, only on output-error parts, against the error text.
type ToolCallSpec struct {
	Name      *Matcher
	State     chat.ToolState
	Input     *Matcher
	Output    *Matcher
	ErrorText *Matcher
}

// String returns the named arguments, e.g. "name='bash', state='output-error'".
func (s ToolCallSpec) String() string {
	var parts []string
	add := func(k string, m *Matcher) {
		if m != nil {
			parts = append(parts, k+"="+m.String())
		}
	}
	add("name", s.Name)
	if s.State != "" {
		parts = append(parts, "state="+quote(string(s.State)))
	}
	add("input", s.Input)
	add("output", s.Output)
	add("errorText", s.ErrorText)
	return strings.Join(parts, ", ")
}

// validState reports whether s names a tool state.
func validState(s chat.ToolState) bool {
	switch s {
	case chat.ToolInputStreaming, chat.ToolInputAvailable, chat.ToolOutputAvailable, chat.ToolOutputError:
		return true
	}
	return false
}

type toolCall struct {
	spec  ToolCallSpec
	input *Matcher // Input with an exact JSON string compacted
	expr  string
}

// ToolCall fires when some tool part of the last assistant message matches every matcher of
// spec. State, when set, must be one of the four tool states.
func ToolCall(spec ToolCallSpec) Predicate {
	expr := "toolCall(" + spec.String() + ")"
	if spec.State != "" && !validState(spec.State) {
		return newInvalid(expr, "toolCall: unknown state "+strconv.Quote(string(spec.State)))
	}
	p := &toolCall{spec: spec, input: spec.Input, expr: expr}
	if m := spec.Input; m != nil && m.re == nil && json.Valid([]byte(m.exact)) {
		var b bytes.Buffer
		_ = json.Compact(&b, []byte(m.exact))
		p.input = &Matcher{exact: b.String()}
	}
	return p
}

func (p *toolCall) String() string { return p.expr }

// jsonText returns the compact JSON text of raw, or raw itself when it is not valid JSON.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func (p *toolCall) match(part *chat.Part) bool {
	s := p.spec
	if s.State != "" {
		if part.State != s.State {
			return false
		}
	} else if !part.State.Completed() {
		return false
	}
	if s.Name != nil && !s.Name.Match(part.ToolName) {
		return false
	}
	if p.input != nil && !p.input.Match(jsonText(part.Input)) {
		return false
	}
	if s.Output != nil && (part.State != chat.ToolOutputAvailable || !s.Output.Match(part.Output)) {
		return false
	}
	if s.ErrorText != nil && (part.State != chat.ToolOutputError || !s.ErrorText.Match(part.ErrorText)) {
		return false
	}
	return true
}

func (p *toolCall) Eval(c *WhenContext) Result {
	if c == nil || c.LastAssistantMessage == nil {
		return leaf(p.expr, false, "no assistant message")
	}
	n := 0
	for i := range c.LastAssistantMessage.Parts {
		part := &c.LastAssistantMessage.Parts[i]
		if part.Type != chat.PartTool {
			continue
		}
		n++
		if p.match(part) {
			return leaf(p.expr, true, "tool part "+strconv.Itoa(n)+" "+strconv.Quote(part.ToolName)+" ("+string(part.State)+") matched")
		}
	}
	return leaf(p.expr, false, "none of "+plural(n, "tool part")+" matched")
}

type toolCount struct {
	name   Matcher
	spec   CountSpec
	streak bool
	expr   string
}

// ToolCallCount fires when the number of completed calls of the tool name in the last
// assistant message matches spec. A spec without bounds means gte=1.
func ToolCallCount(name Matcher, spec CountSpec) Predicate {
	return newToolCount("toolCallCount", name, spec, false)
}

// ToolFailedStreak fires when the current failure streak of the tool name matches spec. The
// streak walks the saved assistant replies from the newest back, and the tool parts of each
// from the last back, looking only at completed calls of a matching tool: each output-error
// adds one, and the first other outcome (output-available or input-available) ends it. Parts
// of other tools, unfinished parts (input-streaming) and replies without a matching call
// neither add nor end. When LastAssistantReplies is empty, LastAssistantMessage is used alone.
// A spec without bounds means gte=1.
func ToolFailedStreak(name Matcher, spec CountSpec) Predicate {
	return newToolCount("toolFailedStreak", name, spec, true)
}

func newToolCount(fn string, name Matcher, spec CountSpec, streak bool) Predicate {
	if spec.empty() {
		spec = AtLeast(1)
	}
	expr := fn + "(" + name.String() + ", " + spec.String() + ")"
	if err := spec.Validate(); err != nil {
		return newInvalid(expr, fn+": "+err.Error())
	}
	return &toolCount{name: name, spec: spec.clone(), streak: streak, expr: expr}
}

func (p *toolCount) String() string { return p.expr }

func (p *toolCount) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	if p.streak {
		v, why := p.spec.check("streak", p.failStreak(c))
		return leaf(p.expr, v, why)
	}
	n := 0
	if m := c.LastAssistantMessage; m != nil {
		for i := range m.Parts {
			part := &m.Parts[i]
			if part.Type == chat.PartTool && part.State.Completed() && p.name.Match(part.ToolName) {
				n++
			}
		}
	}
	v, why := p.spec.check("count", n)
	return leaf(p.expr, v, why)
}

func (p *toolCount) failStreak(c *WhenContext) int {
	replies := c.LastAssistantReplies
	if len(replies) == 0 {
		if c.LastAssistantMessage == nil {
			return 0
		}
		return p.streakOver([]*chat.Message{c.LastAssistantMessage}, 0)
	}
	if c.Memo == nil {
		return p.streakOver(replies, 0)
	}
	st := c.Memo.streak(p, replies)
	n := p.streakOver(replies[st.n:], st.streak)
	c.Memo.setStreak(p, replies, n)
	return n
}

// streakOver continues a failure streak of n over replies, oldest first: each failed call
// of the tool adds one, each other outcome (output-available, input-available) starts it
// again from 0. Read forwards, this is the streak ToolFailedStreak reads backwards.
func (p *toolCount) streakOver(replies []*chat.Message, n int) int {
	exact := p.name.re == nil
	for _, m := range replies {
		if m == nil {
			continue
		}
		for i := range m.Parts {
			part := &m.Parts[i]
			if part.Type != chat.PartTool {
				continue
			}
			if exact {
				if part.ToolName != p.name.exact {
					continue
				}
			} else if !p.name.re.re.MatchString(part.ToolName) {
				continue
			}
			switch part.State {
			case chat.ToolOutputError:
				n++
			case chat.ToolOutputAvailable, chat.ToolInputAvailable:
				n = 0
			}
		}
	}
	return n
}
