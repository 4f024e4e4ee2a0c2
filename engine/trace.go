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
	// Responses is the response side of each request the turn sent (see
	// ResponseTrace); nil when nothing was sent (a plan, a turn with no reply), and for
	// a turn saved before ctxlab kept them that sent several requests.
	Responses []ResponseTrace `json:"responses,omitempty"`
	Error     string          `json:"error,omitempty"`
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
	// Sent says the request went to a model (a live turn, one cut short included), so
	// that a viewer can show it as the client put it on the wire; false for a scripted
	// reply, a message saved unanswered, a turn the chat has no record of, a plan. It is
	// not part of the JSON: the trace's request is the same either way.
	Sent bool `json:"-"`
	// ContextDigest is the digest of the context file the turn was sent with, as its
	// record keeps it (chat.Turn.ContextDigest: nil when not known). Traces do not print
	// it: the turn record, its column and the JSON export do.
	ContextDigest *string `json:"-"`
}

// MarshalJSON writes the trace as spec/headless.md shows it, with <, > and & unescaped.
// Traces of long chats are large (each repeats the history it sent), so the request and
// decisions are appended by hand, reusing the history's cached JSON.
func (t Trace) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(nil)
}

// AppendJSON appends the trace's JSON to dst.
func (t *Trace) AppendJSON(dst []byte) ([]byte, error) {
	return t.appendJSON(dst, nil)
}

// RequestFormNew is the value of a trace's request_form when its request holds only
// what is new since the trace before (NewRequests).
const RequestFormNew = "new"

// NewRequests writes a sequence of traces (the lines of `run --json` or `replay --json`)
// with `--request new`: each trace's request holds only what is new since the request of
// the trace before it, so the output grows with the chat, not with its square. Each
// trace it writes has "request_form": "new" and, but for the first (whose request is
// whole), "request_since": {"line", "turn", "branch"}, the trace before (line counted
// from 1); in its request's messages, each run of messages the request before sent too is
// one element {"previous": [FROM, TO]} standing for that request's messages FROM to TO-1
// (chat.Request.AppendJSONSince). Replacing each such element by those messages, from the
// first trace on, gives every request whole, byte for byte as the default form writes it.
//
// The zero value is ready to use; it is not safe for concurrent use. It keeps the
// request of the last trace written (which shares its history with the session's).
type NewRequests struct {
	prev   chat.Request
	line   int // the number of traces written
	turn   int
	branch string
}

// AppendJSON appends the JSON of t, the next trace of the sequence, to dst.
func (w *NewRequests) AppendJSON(dst []byte, t *Trace) ([]byte, error) {
	var prev *chat.Request
	if w.line > 0 {
		prev = &w.prev
	}
	dst, err := t.appendJSON(dst, &since{prev: prev, line: w.line, turn: w.turn, branch: w.branch})
	if err != nil {
		return nil, err
	}
	w.prev, w.turn, w.branch = t.Request, t.Turn, t.Branch
	w.line++
	return dst, nil
}

// since is where a trace written by NewRequests stands: the trace before it (prev nil for
// the first).
type since struct {
	prev   *chat.Request
	line   int // the line before's number, from 1
	turn   int
	branch string
}

// appendJSON appends the trace's JSON to dst, its request whole, or, with s, in the form
// NewRequests writes.
func (t *Trace) appendJSON(dst []byte, s *since) ([]byte, error) {
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
	var err error
	if s != nil {
		str("request_form", RequestFormNew)
		if s.prev != nil {
			dst = chat.AppendJSONField(dst, "request_since")
			dst = append(dst, '{')
			dst = chat.AppendJSONField(dst, "line")
			dst = strconv.AppendInt(dst, int64(s.line), 10)
			dst = chat.AppendJSONField(dst, "turn")
			dst = strconv.AppendInt(dst, int64(s.turn), 10)
			str("branch", s.branch)
			dst = append(dst, '}')
		}
		dst = chat.AppendJSONField(dst, "request")
		dst, err = t.Request.AppendJSONSince(dst, s.prev)
	} else {
		dst = chat.AppendJSONField(dst, "request")
		dst, err = t.Request.AppendJSON(dst)
	}
	if err != nil {
		return nil, err
	}
	dst = chat.AppendJSONField(dst, "decisions")
	dst = dec.AppendList(dst, t.Decisions)
	type tail struct {
		Assistant *AssistantTrace `json:"assistant,omitempty"`
		Usage     UsageTrace      `json:"usage"`
		Latency   LatencyTrace    `json:"latency_ms"`
		Responses []ResponseTrace `json:"responses,omitempty"`
		Error     string          `json:"error,omitempty"`
		NotRec    bool            `json:"not_recorded,omitempty"`
		Removed   []Removed       `json:"removed,omitempty"`
		PlannedOn string          `json:"planned_on,omitempty"`
	}
	rest, err := chat.Marshal(tail{Assistant: t.Assistant, Usage: t.Usage, Latency: t.Latency, Responses: t.Responses,
		Error: t.Error, NotRec: t.NotRecorded, Removed: t.Removed, PlannedOn: t.PlannedOn})
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

// ResponseTrace is the response side of one request of a turn (chat.Response): how the
// reply to it ended, the usage the server reported for it (nil when none), ctxlab's
// estimate of its prompt and its timing in milliseconds.
type ResponseTrace struct {
	FinishReason          string       `json:"finish_reason"`
	Usage                 *chat.Usage  `json:"usage"`
	EstimatedPromptTokens int          `json:"estimated_prompt_tokens"`
	Latency               LatencyTrace `json:"latency_ms"`
}

// TraceResponse returns the trace of a response (an EventResponse's, or a turn record's).
func TraceResponse(r chat.Response) ResponseTrace {
	return ResponseTrace{FinishReason: r.FinishReason, Usage: r.Usage, EstimatedPromptTokens: r.EstimatedPrompt,
		Latency: LatencyTrace{TTFT: r.TTFT.Milliseconds(), Total: r.Latency.Milliseconds()}}
}

// responseTraces returns the traces of a turn's responses (nil for none).
func responseTraces(rs []chat.Response) []ResponseTrace {
	if len(rs) == 0 {
		return nil
	}
	out := make([]ResponseTrace, len(rs))
	for i, r := range rs {
		out[i] = TraceResponse(r)
	}
	return out
}

// RecordedResponses returns the responses of a recorded turn whose reply is asst (nil for
// none): those its record keeps, or, for a turn saved before ctxlab kept them that sent
// one request, that request's, which are the turn's own finish reason (tool_calls for
// tool_loop_limit), reported usage, estimated prompt and times. A turn of several requests saved before has none: what
// each of them got is not known.
func RecordedResponses(t *chat.Turn, asst *chat.Message) []chat.Response {
	if len(t.Responses) > 0 || asst == nil || len(LoopRounds(asst, t.FinishReason)) > 0 {
		return t.Responses
	}
	finish := t.FinishReason
	if finish == FinishToolLoopLimit { // the loop stopped after a reply that called tools
		finish = "tool_calls"
	}
	return []chat.Response{{FinishReason: finish, Usage: t.Reported, EstimatedPrompt: t.Estimated.PromptTokens,
		TTFT: t.TTFT, Latency: t.Latency}}
}

// LoopRounds returns, for each request a live tool loop sent after the turn's first, how
// many parts of the reply it sent back: the request is TurnRequest.LoopRequest of
// reply.Parts[:n]. Each round of tool calls (Part.Round 1, 2, …) that was answered was
// sent back, unless the loop stopped there (finish is FinishToolLoopLimit); a round cut
// short was not. A scripted reply's tool calls (round 0) were never sent: it has none.
func LoopRounds(reply *chat.Message, finish string) []int {
	var out []int
	parts := reply.Parts
	for i := 0; i < len(parts); {
		round := parts[i].Round
		if parts[i].Type != chat.PartTool || round < 1 {
			i++
			continue
		}
		j, answered := i, true
		for ; j < len(parts) && parts[j].Type == chat.PartTool && parts[j].Round == round; j++ {
			if st := parts[j].State; st != chat.ToolOutputAvailable && st != chat.ToolOutputError {
				answered = false // cut short: never sent back
			}
		}
		if !answered || (j == len(parts) && finish == FinishToolLoopLimit) {
			break
		}
		out = append(out, j)
		i = j
	}
	return out
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
		Responses: responseTraces(r.Turn.Responses),
		Error:     r.Turn.Error,
		PlannedOn: r.PlannedOn,
		Sent:      !r.Turn.Request.Scripted,
	}
	t.ContextDigest = r.Turn.ContextDigest
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
