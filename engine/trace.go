package engine

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	dec "github.com/ctxlab/ctxlab/engine/decision"
)

// Trace is the record of one turn as `ctxlab run --json` prints it (spec/headless.md).
type Trace struct {
	ChatID             string          `json:"chat_id"`
	Turn               int             `json:"turn"`
	Branch             string          `json:"branch"`
	At                 string          `json:"at"`
	UserMessageID      string          `json:"user_message_id"`
	AssistantMessageID string          `json:"assistant_message_id"`
	SystemPrompt       string          `json:"system_prompt"`
	Request            chat.Request    `json:"request"`
	Decisions          []Decision      `json:"decisions"`
	Assistant          *AssistantTrace `json:"assistant,omitempty"`
	Usage              UsageTrace      `json:"usage"`
	Latency            LatencyTrace    `json:"latency_ms"`
	Error              string          `json:"error,omitempty"`
	// NotRecorded marks a replayed turn the chat holds no record of (an imported chat):
	// its request is rebuilt from the messages, without decisions.
	NotRecorded bool `json:"not_recorded,omitempty"`
	// Removed lists, under replay --context, the recorded decisions the new file no
	// longer has.
	Removed []Removed `json:"removed,omitempty"`
	// PlannedOn names the branch a turn was planned on when another writer wrote to it
	// before the turn was saved: the turn is on Branch, a new branch made at the same
	// place (see TurnResult.PlannedOn).
	PlannedOn string `json:"planned_on,omitempty"`
}

// MarshalJSON writes the trace as spec/headless.md shows it, with <, > and & unescaped.
// Traces of long chats are large (each repeats the history it sent), so the request and
// decisions are appended by hand, reusing the history's cached JSON.
func (t Trace) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(nil)
}

// AppendJSON appends the trace's JSON to dst.
func (t *Trace) AppendJSON(dst []byte) ([]byte, error) {
	str := func(key, v string) {
		dst = chat.AppendJSONField(dst, key)
		dst = chat.AppendJSONString(dst, v)
	}
	dst = append(dst, '{')
	str("chat_id", t.ChatID)
	dst = chat.AppendJSONField(dst, "turn")
	dst = strconv.AppendInt(dst, int64(t.Turn), 10)
	str("branch", t.Branch)
	str("at", t.At)
	str("user_message_id", t.UserMessageID)
	str("assistant_message_id", t.AssistantMessageID)
	str("system_prompt", t.SystemPrompt)
	dst = chat.AppendJSONField(dst, "request")
	var err error
	if dst, err = t.Request.AppendJSON(dst); err != nil {
		return nil, err
	}
	dst = chat.AppendJSONField(dst, "decisions")
	dst = dec.AppendList(dst, t.Decisions)
	type tail struct {
		Assistant *AssistantTrace `json:"assistant,omitempty"`
		Usage     UsageTrace      `json:"usage"`
		Latency   LatencyTrace    `json:"latency_ms"`
		Error     string          `json:"error,omitempty"`
		NotRec    bool            `json:"not_recorded,omitempty"`
		Removed   []Removed       `json:"removed,omitempty"`
		PlannedOn string          `json:"planned_on,omitempty"`
	}
	rest, err := chat.Marshal(tail{Assistant: t.Assistant, Usage: t.Usage, Latency: t.Latency, Error: t.Error,
		NotRec: t.NotRecorded, Removed: t.Removed, PlannedOn: t.PlannedOn})
	if err != nil {
		return nil, err
	}
	dst = append(dst, ',')
	return append(dst, rest[1:]...), nil
}

// AssistantTrace is the reply of a turn.
type AssistantTrace struct {
	Text         string      `json:"text"`
	Tools        []ToolTrace `json:"tools"`
	FinishReason string      `json:"finish_reason"`
	Interrupted  bool        `json:"interrupted,omitempty"`
}

// ToolTrace is one tool call of a reply and its outcome.
type ToolTrace struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Output string          `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
	State  chat.ToolState  `json:"state"`
}

// UsageTrace puts reported and estimated usage side by side.
type UsageTrace struct {
	Reported  *chat.Usage    `json:"reported"`
	Estimated EstimatedUsage `json:"estimated"`
	// Difference is reported minus estimated prompt tokens (absent without a report).
	Difference *int `json:"difference,omitempty"`
	// CostUSD prices the turn (reported usage, else the estimate); absent when the
	// model's price is not known, and for a scripted reply without reported usage, which
	// was never sent (chat.Turn.Priced).
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// EstimatedUsage is the local estimate of a turn's usage, with the prompt by source.
type EstimatedUsage struct {
	PromptTokens     int       `json:"prompt_tokens"`
	CompletionTokens int       `json:"completion_tokens"`
	BySource         *Estimate `json:"by_source,omitempty"`
}

// LatencyTrace is the time to first token and the total time of a turn, in milliseconds.
type LatencyTrace struct {
	TTFT  int64 `json:"ttft"`
	Total int64 `json:"total"`
}

// FormatTime writes a trace time: RFC 3339 in UTC.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Trace returns the trace of a sent turn.
func (r *TurnResult) Trace(chatID string) Trace {
	t := r.trace(chatID)
	t.Usage.CostUSD = r.cost
	return t
}

func (r *TurnResult) trace(chatID string) Trace {
	p := r.Plan
	t := Trace{
		ChatID: chatID, Turn: p.Turn, Branch: r.Turn.Branch, At: FormatTime(p.At),
		UserMessageID: p.User.ID, AssistantMessageID: r.Assistant.ID,
		SystemPrompt: p.SystemPrompt, Request: p.Request, Decisions: p.Decisions,
		Usage:     usageTrace(&r.Turn, p.bySource()),
		Latency:   LatencyTrace{TTFT: r.Turn.TTFT.Milliseconds(), Total: r.Turn.Latency.Milliseconds()},
		Error:     r.Turn.Error,
		PlannedOn: r.PlannedOn,
	}
	if r.Assistant.ID != "" { // none for a turn saved without a reply
		t.Assistant = assistantTrace(&r.Assistant, r.Turn.FinishReason)
	}
	return t
}

// bySource is the plan's estimate by source, or nil when only the total is known.
func (p *Plan) bySource() *Estimate {
	if p.totalOnly {
		return nil
	}
	return &p.Estimate
}

// PlanTrace returns the trace of a planned turn that was not sent (ctxlab prompt).
func PlanTrace(chatID string, p *Plan) Trace {
	return Trace{ChatID: chatID, Turn: p.Turn, Branch: p.Branch, At: FormatTime(p.At), UserMessageID: p.User.ID,
		SystemPrompt: p.SystemPrompt, Request: p.Request, Decisions: p.Decisions,
		Usage: UsageTrace{Estimated: EstimatedUsage{PromptTokens: p.Estimate.Total, BySource: &p.Estimate}}}
}

func assistantTrace(m *chat.Message, finish string) *AssistantTrace {
	a := &AssistantTrace{Text: m.PlainText(), Tools: []ToolTrace{}, FinishReason: finish, Interrupted: m.Interrupted}
	for _, p := range m.ToolParts() {
		a.Tools = append(a.Tools, ToolTrace{ID: p.ToolCallID, Name: p.ToolName, Input: p.Input,
			Output: p.Output, Error: p.ErrorText, State: p.State})
	}
	return a
}

func usageTrace(t *chat.Turn, est *Estimate) UsageTrace {
	u := UsageTrace{Reported: t.Reported, Estimated: EstimatedUsage{PromptTokens: t.Estimated.PromptTokens,
		CompletionTokens: t.Estimated.CompletionTokens, BySource: est}}
	if t.Reported != nil {
		d := t.Reported.PromptTokens - t.Estimated.PromptTokens
		u.Difference = &d
	}
	return u
}

// recordedEstimate is the estimate by source a turn's record keeps: a copy of the plan's,
// or nil when the plan has only the total.
func (p *Plan) recordedEstimate() *chat.PromptEstimate {
	est := p.bySource()
	if est == nil {
		return nil
	}
	c := *est
	return &c
}

// usageWithCost is the usage of a recorded turn, priced, with the estimate by source its
// record keeps.
func (e *Engine) usageWithCost(t *chat.Turn) UsageTrace {
	u := usageTrace(t, t.Request.Estimate)
	u.CostUSD = e.priced(t)
	return u
}
