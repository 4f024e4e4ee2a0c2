package chat

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// Chat is a saved conversation: a message graph with named branches, one of them active.
type Chat struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Metadata     map[string]any `json:"metadata,omitempty"`
	ActiveBranch string         `json:"active_branch"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
}

// Branch is a named head in a chat's message graph. An empty Head is a branch with no
// message yet (an edit of the first user message starts from there).
type Branch struct {
	Name      string    `json:"name"`
	Head      string    `json:"head"`
	Parent    string    `json:"parent,omitempty"` // the branch it was made from
	CreatedAt time.Time `json:"created_at"`
}

// Checkpoint names a message of the graph.
type Checkpoint struct {
	Name      string    `json:"name"`
	MessageID string    `json:"message_id"`
	CreatedAt time.Time `json:"created_at"`
}

// Fired is a reminder injected during a turn, kept small so that counters (max_per_chat,
// min_turns_between) and once('id') latches can be derived from the branch cheaply. It is
// not a second decision record: decision.Fired derives a turn's list from its decisions
// (an instruction that sets latches is listed as "instruction:ID").
type Fired struct {
	ID      string   `json:"id"`
	Latches []string `json:"latches,omitempty"`
}

// SentRequest is what a turn sent, kept without copying the history: the request is
// rebuilt byte for byte from it and the branch path from the root to the turn's user
// message (message ids are stable and messages are never changed).
type SentRequest struct {
	Model        string     `json:"model"`
	SystemPrompt string     `json:"system_prompt"`           // content of the system message, run-start reminders included
	SystemInject string     `json:"system_inject,omitempty"` // the system-placement reminder message of this request
	Tools        []WireTool `json:"tools,omitempty"`
	Temperature  *float64   `json:"temperature,omitempty"`
	TopP         *float64   `json:"top_p,omitempty"`
	MaxTokens    int        `json:"max_tokens,omitempty"`
	Seed         *int       `json:"seed,omitempty"`
	// Scripted marks a turn whose reply was written in the script: the request was built,
	// not sent.
	Scripted bool `json:"scripted,omitempty"`
	// ChatUsage is the chat's accumulated usage the turn's decisions saw (usageExceeds),
	// kept so a replay re-evaluates them exactly.
	ChatUsage Usage `json:"chat_usage"`
	// Estimate is the request's estimated size by source, as the turn was planned; nil in
	// a record made before ctxlab kept it, and for a regenerated reply (its plan has only
	// the total).
	Estimate *PromptEstimate `json:"estimate,omitempty"`
}

// PromptEstimate is the estimated token count of a request, by source.
type PromptEstimate struct {
	Fragments    int `json:"fragments"`
	Instructions int `json:"instructions"`
	Reminders    int `json:"reminders"`
	History      int `json:"history"`
	User         int `json:"user"`
	Tools        int `json:"tools"`
	Framing      int `json:"framing"`
	Total        int `json:"total"`
	// EachFragment sizes each top-level fragment of the system prompt, rendered alone.
	EachFragment []FragmentTokens `json:"each_fragment,omitempty"`
}

// SourceSize is the estimated size of one source of a prompt, under its JSON name.
type SourceSize struct {
	Name   string
	Tokens int
}

// Sources returns the sizes by source, in order (fragments, instructions, reminders,
// history, user, tools, framing): they add up to Total.
func (e *PromptEstimate) Sources() [7]SourceSize {
	return [7]SourceSize{{"fragments", e.Fragments}, {"instructions", e.Instructions}, {"reminders", e.Reminders},
		{"history", e.History}, {"user", e.User}, {"tools", e.Tools}, {"framing", e.Framing}}
}

// FragmentTokens is the estimated size of one fragment of the system prompt.
type FragmentTokens struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// Turn records one user turn: what was sent and why, and what came back.
type Turn struct {
	ID                 string      `json:"id"`
	ChatID             string      `json:"chat_id"`
	Branch             string      `json:"branch"` // the branch the turn was made on
	Number             int         `json:"turn"`
	UserMessageID      string      `json:"user_message_id"`
	AssistantMessageID string      `json:"assistant_message_id"`
	At                 time.Time   `json:"at"`
	Request            SentRequest `json:"request"`
	Fired              []Fired     `json:"fired,omitempty"`
	// Decisions is the full decision list with predicate traces, as JSON. Stores may load it
	// lazily: it is only needed to show or replay a turn.
	Decisions    json.RawMessage `json:"decisions,omitempty"`
	Reported     *Usage          `json:"reported,omitempty"`
	Estimated    Usage           `json:"estimated"`
	TTFT         time.Duration   `json:"ttft"`
	Latency      time.Duration   `json:"latency"`
	FinishReason string          `json:"finish_reason,omitempty"`
	Error        string          `json:"error,omitempty"`
	// Responses is the response side of each request the turn sent, in order: one for
	// a turn without a tool loop or with a scripted reply, one per request of a live
	// tool loop. Empty for a turn saved before ctxlab kept them (and for one saved
	// without a reply).
	Responses []Response `json:"responses,omitempty"`
	// ContextDigest is the digest of the context file the turn was sent with
	// (ctxfile.File.Digest: ContextDigestLen lower-case hexadecimal digits), "" for a
	// turn sent with no context file (a plain chat); nil when it is not known (a turn
	// saved before ctxlab recorded it, or imported from an export without it). A
	// regenerated reply keeps the digest of the turn it regenerates, whose request it
	// sends again. Stores read it with DetailRequest; turns may share one copy, which is
	// never written through.
	ContextDigest *string `json:"context_digest,omitempty"`
}

// Response is the response side of one request of a turn: how the reply to it ended,
// the usage the server reported for it, the estimate of its prompt and its timing. The
// turn's own fields sum them up: Reported adds up the requests' usage, FinishReason is
// the last request's (or the turn's own, tool_loop_limit), TTFT is the first request's
// and Latency adds up their times.
type Response struct {
	// FinishReason is what the server said (stop, length, tool_calls, content_filter, …);
	// "error" for a request that failed or was cut short; a scripted reply's is the
	// script's (stop).
	FinishReason string `json:"finish_reason"`
	// Usage is the usage the server reported for this request, as it reported it; nil
	// when it reported none.
	Usage *Usage `json:"usage"`
	// EstimatedPrompt is ctxlab's estimate of the request's prompt tokens.
	EstimatedPrompt int `json:"estimated_prompt_tokens"`
	// TTFT is the time to the request's first token (0 when none came, and for a
	// scripted reply); Latency the time to its end.
	TTFT    time.Duration `json:"ttft"`
	Latency time.Duration `json:"latency"`
}

// AppendResponsesJSON appends rs as JSON to dst: what encoding/json writes of it (the
// store's form of a turn's responses), by hand, since every turn's commit writes it.
func AppendResponsesJSON(dst []byte, rs []Response) []byte {
	dst = append(dst, '[')
	for i := range rs {
		r := &rs[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(AppendJSONField(append(dst, '{'), "finish_reason"), r.FinishReason)
		dst = AppendJSONField(dst, "usage")
		if u := r.Usage; u == nil {
			dst = append(dst, "null"...)
		} else {
			dst = appendUsageJSON(dst, u)
		}
		dst = strconv.AppendInt(AppendJSONField(dst, "estimated_prompt_tokens"), int64(r.EstimatedPrompt), 10)
		dst = strconv.AppendInt(AppendJSONField(dst, "ttft"), int64(r.TTFT), 10)
		dst = strconv.AppendInt(AppendJSONField(dst, "latency"), int64(r.Latency), 10)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendUsageJSON appends u as encoding/json writes it.
func appendUsageJSON(dst []byte, u *Usage) []byte {
	num := func(key string, n int) { dst = strconv.AppendInt(AppendJSONField(dst, key), int64(n), 10) }
	dst = append(dst, '{')
	num("prompt_tokens", u.PromptTokens)
	num("completion_tokens", u.CompletionTokens)
	num("total_tokens", u.TotalTokens)
	if u.CachedTokens != 0 {
		num("cached_tokens", u.CachedTokens)
	}
	if u.ReasoningTokens != 0 {
		num("reasoning_tokens", u.ReasoningTokens)
	}
	return append(dst, '}')
}

// Counted returns the usage a turn adds to its chat: the reported usage, or the estimate
// when the server reported none.
func (t *Turn) Counted() Usage {
	if t.Reported != nil {
		return *t.Reported
	}
	return t.Estimated
}

// Priced returns the usage a turn costs: Counted, except that a scripted reply without
// reported usage was never sent to a model and has no cost (ok is false).
func (t *Turn) Priced() (u Usage, ok bool) {
	if t.Request.Scripted && t.Reported == nil {
		return Usage{}, false
	}
	return t.Counted(), true
}

// Commit is one atomic step written to a store: new messages, turn records and a branch
// head moved by compare-and-swap, all or nothing.
type Commit struct {
	ChatID string
	// Branch is the branch whose head moves from ExpectHead to NewHead. With NewBranch set,
	// the branch is created in the same step (ExpectHead is then ignored).
	Branch     string
	ExpectHead string
	NewHead    string
	NewBranch  *Branch
	Messages   []Message
	Turns      []Turn
	// Activate makes Branch the chat's active branch.
	Activate bool
	// NewChat, when set, creates the chat (ChatID) with its active branch in the same step:
	// a chat saved with its first turn.
	NewChat *Chat
}

// AppendJSON appends r as JSON to dst: what encoding/json writes of it with HTML escaping
// off (the store's form of a turn's request), by hand, since every turn's commit writes
// one. A request with tools or sampling floats, which encoding/json formats in its own
// way, is given to encoding/json.
func (r *SentRequest) AppendJSON(dst []byte) ([]byte, error) {
	if len(r.Tools) > 0 || r.Temperature != nil || r.TopP != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return dst, err
		}
		return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
	}
	num := func(key string, n int) {
		dst = AppendJSONField(dst, key)
		dst = strconv.AppendInt(dst, int64(n), 10)
	}
	str := func(key, s string) {
		dst = AppendJSONField(dst, key)
		dst = AppendJSONString(dst, s)
	}
	dst = append(dst, '{')
	str("model", r.Model)
	str("system_prompt", r.SystemPrompt)
	if r.SystemInject != "" {
		str("system_inject", r.SystemInject)
	}
	if r.MaxTokens != 0 {
		num("max_tokens", r.MaxTokens)
	}
	if r.Seed != nil {
		num("seed", *r.Seed)
	}
	if r.Scripted {
		dst = append(AppendJSONField(dst, "scripted"), "true"...)
	}
	dst = appendUsageJSON(AppendJSONField(dst, "chat_usage"), &r.ChatUsage)
	if e := r.Estimate; e != nil {
		dst = append(AppendJSONField(dst, "estimate"), '{')
		num("fragments", e.Fragments)
		num("instructions", e.Instructions)
		num("reminders", e.Reminders)
		num("history", e.History)
		num("user", e.User)
		num("tools", e.Tools)
		num("framing", e.Framing)
		num("total", e.Total)
		if len(e.EachFragment) > 0 {
			dst = append(AppendJSONField(dst, "each_fragment"), '[')
			for i, f := range e.EachFragment {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, '{')
				str("name", f.Name)
				num("tokens", f.Tokens)
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}
