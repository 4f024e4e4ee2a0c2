package tokens

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// The chat framing, as in OpenAI's cookbook "How to count tokens with tiktoken" (section 6,
// checked against the API for gpt-3.5-turbo, gpt-4, gpt-4o and gpt-4o-mini): every message
// costs 3 tokens (<|start|>, <|message|>, <|end|>) plus its role and content; a name costs 1
// more; every reply is primed with 3 (<|start|>assistant<|message|>).
const (
	perMessage = 3
	perName    = 1
	replyPrime = 3
	// perToolCall frames one tool call of an assistant message. OpenAI publishes no formula
	// for tool calls; 3 mirrors a message's framing.
	perToolCall = 3
)

// toolCosts are the constants of the cookbook's num_tokens_for_tools (section 7) for an
// encoding: funcInit per function (10 for cl100k models, 7 for o200k ones), propInit when a
// function has properties, propKey per property, enumInit per enum (negative) and enumItem
// per enum value, funcEnd once for the whole tools list.
type toolCosts struct {
	funcInit, propInit, propKey, enumInit, enumItem, funcEnd int
}

func (c *Counter) toolCosts() toolCosts {
	t := toolCosts{funcInit: 10, propInit: 3, propKey: 3, enumInit: -3, enumItem: 3, funcEnd: 12}
	if c.Encoding() == O200k {
		t.funcInit = 7
	}
	return t
}

// Breakdown is the estimated prompt tokens of a request, by source. Total is what the
// server would report as prompt_tokens; it is System + History + Tools + Framing.
type Breakdown struct {
	Encoding Encoding `json:"encoding"`
	// System is the content of the system messages (system prompt, system reminders).
	System int `json:"system"`
	// History is the content of the other messages: text, tool calls and tool results.
	History int `json:"history"`
	// Tools is the tool schemas offered to the model, their framing included.
	Tools int `json:"tools"`
	// Framing is the per-message overhead, the role names and the reply priming.
	Framing int `json:"framing"`
	// Messages is each message's tokens, framing and role included, in request order.
	Messages []int `json:"messages"`
	Total    int   `json:"total"`
}

// Usage returns the estimate as a usage with only prompt tokens.
func (b Breakdown) Usage() chat.Usage {
	return chat.Usage{PromptTokens: b.Total, TotalTokens: b.Total}
}

// Compare sets the estimate against the prompt tokens the server reported.
func (b Breakdown) Compare(reported chat.Usage) Delta {
	return Compare(b.Total, reported.PromptTokens)
}

// Delta is an estimate next to a reported count.
type Delta struct {
	Estimated int `json:"estimated"`
	Reported  int `json:"reported"`
	// Diff is Reported - Estimated: positive when the estimate is short.
	Diff int `json:"diff"`
	// Percent is Diff as a percentage of Reported, rounded to 0.1; 0 when Reported is 0.
	Percent float64 `json:"percent"`
}

// Compare returns the difference between an estimated and a reported count.
func Compare(estimated, reported int) Delta {
	d := Delta{Estimated: estimated, Reported: reported, Diff: reported - estimated}
	if reported != 0 {
		d.Percent = math.Round(float64(d.Diff)/float64(reported)*1000) / 10
	}
	return d
}

// CountRequest estimates the prompt tokens of req the way OpenAI counts chat messages:
//
//	total = Σ messages (3 + tokens(role) + tokens(content) + Σ tool calls (3 + tokens(name) + tokens(arguments)))
//	      + 3                       reply priming
//	      + CountTools(req.Tools)   when tools are offered
//
// The message formula matches OpenAI's reported usage exactly for plain messages on the
// gpt-3.5, gpt-4 and gpt-4o families (cookbook "How to count tokens with tiktoken"); tool
// calls and tool schemas are estimates (see CountTools). Other servers frame messages with
// their own templates and tokenizers: there the estimate is only indicative.
func (c *Counter) CountRequest(req chat.Request) Breakdown {
	b := Breakdown{Encoding: c.Encoding(), Messages: make([]int, req.Len())}
	for i, m := range req.All() {
		content := c.contentTokens(m)
		framing := perMessage + c.Count(string(m.Role))
		if m.Role == chat.RoleSystem || m.Role == "developer" {
			b.System += content
		} else {
			b.History += content
		}
		b.Framing += framing
		b.Messages[i] = framing + content
	}
	b.Framing += replyPrime
	b.Tools = c.CountTools(req.Tools)
	b.Total = b.System + b.History + b.Tools + b.Framing
	return b
}

// CountMessage estimates one message of a request: framing, role, content and tool calls.
func (c *Counter) CountMessage(m chat.WireMessage) int {
	return perMessage + c.Count(string(m.Role)) + c.contentTokens(m)
}

// CountMessages estimates a list of messages (the history of a request), framing included
// but not the reply priming.
func (c *Counter) CountMessages(msgs []chat.WireMessage) int {
	n := 0
	for _, m := range msgs {
		n += c.CountMessage(m)
	}
	return n
}

// CountReply estimates the completion tokens of an assistant reply: its text and its tool
// calls, without framing. Reasoning tokens, which servers bill but do not return, are not
// in it.
func (c *Counter) CountReply(m chat.WireMessage) int {
	return c.contentTokens(m)
}

// EstimateUsage estimates the usage of a request and its reply, for a server that reported
// none.
func (c *Counter) EstimateUsage(req chat.Request, reply chat.WireMessage) chat.Usage {
	u := chat.Usage{PromptTokens: c.CountRequest(req).Total, CompletionTokens: c.CountReply(reply)}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// contentTokens counts a message's content (each text part separately) and tool calls.
func (c *Counter) contentTokens(m chat.WireMessage) int {
	n := 0
	if m.Parts != nil {
		for _, p := range m.Parts {
			n += c.Count(p.Text)
		}
	} else {
		n += c.Count(m.Content)
	}
	for _, tc := range m.ToolCalls {
		n += perToolCall + c.Count(tc.Function.Name) + c.Count(tc.Function.Arguments)
	}
	return n
}

// countNamed is the cookbook's count of one message with an optional name, which
// chat.WireMessage does not carry; it anchors the formula in tests.
func (c *Counter) countNamed(role, name, content string) int {
	n := perMessage + c.Count(role) + c.Count(content)
	if name != "" {
		n += c.Count(name) + perName
	}
	return n
}

// CountTools estimates the tokens of the tool schemas of a request, with the cookbook's
// num_tokens_for_tools (which matched the API for gpt-3.5-turbo, gpt-4, gpt-4o and
// gpt-4o-mini):
//
//	funcEnd (12) once, and per function:
//	  funcInit (7 for o200k, 10 for cl100k) + tokens("name:description")
//	  + when it has properties: propInit (3) and, per top-level property,
//	      propKey (3) + tokens("key:type:description")
//	      + when it has an enum: enumInit (-3) + Σ (enumItem (3) + tokens(value))
//
// A trailing period of a description is dropped. The cookbook only covers flat schemas:
// any other keyword of a property (nested properties, items, formats, …) is counted as the
// tokens of its compact JSON, an approximation.
func (c *Counter) CountTools(tools []chat.WireTool) int {
	if len(tools) == 0 {
		return 0
	}
	k := c.toolCosts()
	n := k.funcEnd
	for _, t := range tools {
		f := t.Function
		n += k.funcInit + c.Count(f.Name+":"+strings.TrimSuffix(f.Description, "."))
		var schema struct {
			Properties map[string]map[string]json.RawMessage `json:"properties"`
		}
		if len(f.Parameters) == 0 || json.Unmarshal(f.Parameters, &schema) != nil || len(schema.Properties) == 0 {
			continue
		}
		n += k.propInit
		for _, key := range sortedKeys(schema.Properties) {
			prop := schema.Properties[key]
			n += k.propKey
			if raw, ok := prop["enum"]; ok {
				var items []json.RawMessage
				if json.Unmarshal(raw, &items) == nil {
					n += k.enumInit
					for _, it := range items {
						n += k.enumItem + c.Count(jsonText(it))
					}
				}
			}
			desc := strings.TrimSuffix(jsonText(prop["description"]), ".")
			n += c.Count(key + ":" + jsonText(prop["type"]) + ":" + desc)
			for _, extra := range sortedKeys(prop) {
				if extra == "type" || extra == "description" || extra == "enum" {
					continue
				}
				var buf bytes.Buffer
				if json.Compact(&buf, prop[extra]) == nil {
					n += c.Count(extra + ":" + buf.String())
				}
			}
		}
	}
	return n
}

// jsonText returns a JSON string's value, or the compact JSON of any other value ("" for
// none).
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
