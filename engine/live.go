package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// Model streams a reply to a request. llm.Client satisfies it.
type Model interface {
	Stream(ctx context.Context, req chat.Request, onDelta func(chat.Delta)) (*chat.Reply, error)
}

// Live asks a model for the reply. Tool calls are answered with the context file's
// canned results (or errors) and sent back, until the model answers with text, or the
// engine's MaxToolSteps requests are spent, or another round could take the reply past
// chat.MaxParts (finish reason "tool_loop_limit"). A model's answer with more than
// chat.MaxToolCalls calls fails the turn: the calls that fit are kept, unanswered, in a
// reply marked interrupted. So does an answer the model cut at chat.MaxReplySize or
// chat.MaxToolArguments (its error wraps chat.ErrReplyTooLong or
// chat.ErrToolArgumentsTooLong), with the finish reason "reply_limit". It reports each request (EventRequest), its streamed pieces
// (EventText, EventToolCall), its usage (EventUsage), each tool call answered
// (EventToolAnswered) and, when the request ends, its response (EventResponse), which
// the turn record keeps (chat.Turn.Responses).
type Live struct {
	Model Model
}

// FinishToolLoopLimit is the finish reason of a turn whose model kept calling tools.
const FinishToolLoopLimit = "tool_loop_limit"

// FinishReplyLimit is the finish reason of a reply cut at ctxlab's limits on a reply's
// size (chat.MaxReplySize, chat.MaxToolArguments): the reply is saved as far as it fit,
// marked interrupted, and the turn fails with the limit's error.
const FinishReplyLimit = "reply_limit"

// Reply runs the turn's requests against the model.
func (l *Live) Reply(ctx context.Context, t *TurnRequest, emit func(Event)) (*Outcome, error) {
	p := t.Plan
	out := &Outcome{}
	var usage reportedUsage
	req, est := p.Request, p.Estimate.Total
	for step := 1; ; step++ {
		emit(EventRequest{Step: step, Request: req})
		rep, err := l.Model.Stream(ctx, req, func(d chat.Delta) {
			if d.ToolCallID != "" || d.ToolName != "" || d.Arguments != "" || d.ToolCallIndex != 0 {
				emit(EventToolCall{Step: step, Index: d.ToolCallIndex, ID: d.ToolCallID, Name: d.ToolName, Arguments: d.Arguments})
				return
			}
			emit(EventText{Step: step, Text: d.Text})
		})
		if rep != nil && len(rep.ToolCalls) > chat.MaxToolCalls && err == nil {
			// A model (an embedder's: llm.Client stops reading at the limit) that sent
			// more calls than a reply holds: keep the calls that fit, as a reply cut there.
			rep.ToolCalls = rep.ToolCalls[:chat.MaxToolCalls]
			err = errTooManyToolCalls
		}
		failed := "error"
		if errors.Is(err, chat.ErrReplyTooLong) || errors.Is(err, chat.ErrToolArgumentsTooLong) {
			failed = FinishReplyLimit
		}
		resp := chat.Response{FinishReason: failed, EstimatedPrompt: est}
		if rep != nil {
			if step == 1 {
				out.TTFT = rep.TTFT
			}
			out.Total += rep.Total
			usage.add(rep.Usage, err != nil)
			if rep.Usage != nil {
				emit(EventUsage{Step: step, Usage: *rep.Usage})
			}
			resp.Usage, resp.TTFT, resp.Latency = withTotal(rep.Usage), rep.TTFT, rep.Total
			if err == nil {
				resp.FinishReason = rep.FinishReason
			}
		}
		out.Responses = append(out.Responses, resp)
		emit(EventResponse{Step: step, Response: resp})
		if err != nil {
			if ctx.Err() == nil {
				err = fmt.Errorf("model: %w", err) // spec/headless.md: the message names what failed
			}
			if rep != nil {
				out.Parts = append(out.Parts, partialParts(rep, step)...)
			}
			out.Interrupted = len(out.Parts) > 0
			out.FinishReason = failed
			out.Err = err
			out.Reported = usage.total()
			return out, err
		}
		if len(rep.ToolCalls) == 0 {
			out.Parts = append(out.Parts, chat.TextPart(rep.Text))
			out.FinishReason = rep.FinishReason
			out.Interrupted = rep.Interrupted
			break
		}
		if rep.Text != "" {
			out.Parts = append(out.Parts, chat.TextPart(rep.Text))
		}
		for _, call := range rep.ToolCalls {
			part := answerTool(t.File, call)
			part.Round = step
			emit(EventToolAnswered{Step: step, Part: part})
			out.Parts = append(out.Parts, part)
		}
		if step >= t.MaxToolSteps || len(out.Parts)+chat.MaxToolCalls+1 > chat.MaxParts {
			// The next round could take the message past the parts a store accepts.
			out.FinishReason = FinishToolLoopLimit
			break
		}
		req = loopRequest(p, out.Parts)
		est = p.Estimate.Total + t.Tokens.Count(requestTail(req, p))
		out.ExtraPrompt += est
	}
	out.Reported = usage.total()
	return out, nil
}

// withTotal returns a copy of a reported usage with its total set (prompt plus
// completion when the server sent none), as a turn records it; nil for nil.
func withTotal(u *chat.Usage) *chat.Usage {
	if u == nil {
		return nil
	}
	c := *u
	c.TotalTokens = u.Total()
	return &c
}

// errTooManyToolCalls fails a reply with more than chat.MaxToolCalls tool calls.
var errTooManyToolCalls = fmt.Errorf("a reply holds at most %d tool calls", chat.MaxToolCalls)

// reportedUsage adds up the usage the requests of a turn reported.
type reportedUsage struct {
	sum      chat.Usage
	reported bool // some request reported its usage
	missing  bool // a request that completed reported none
}

// add counts one request's usage (nil when it reported none); failed says the request
// failed, which explains a missing report without voiding the others'.
func (r *reportedUsage) add(u *chat.Usage, failed bool) {
	switch {
	case u != nil:
		r.sum, r.reported = r.sum.Add(*u), true
	case !failed:
		r.missing = true
	}
}

// total is the turn's reported usage: the sum when every completed request reported its
// own, else nil (the turn is then counted by its estimate).
func (r *reportedUsage) total() *chat.Usage {
	if !r.reported || r.missing {
		return nil
	}
	u := r.sum
	return &u
}

// partialParts are the parts of a reply cut short in round step: the text that arrived,
// then the tool calls, which were never answered. A call whose arguments are complete JSON
// is input-available; one whose arguments were cut (or never came) is input-streaming,
// which the tool predicates do not count as a call.
func partialParts(rep *chat.Reply, step int) []chat.Part {
	var parts []chat.Part
	if rep.Text != "" {
		parts = append(parts, chat.TextPart(rep.Text))
	}
	for _, call := range rep.ToolCalls {
		input, complete := toolInput(call.Function.Arguments)
		state := chat.ToolInputAvailable
		if !complete || call.Function.Arguments == "" {
			state = chat.ToolInputStreaming
		}
		parts = append(parts, chat.Part{Type: chat.PartTool, ToolCallID: call.ID, ToolName: call.Function.Name,
			Input: input, State: state, Round: step})
	}
	return parts
}

// answerTool runs a tool call against the context file: its canned result, its canned
// error, or an error for a tool the file does not declare.
func answerTool(f *ctxfile.File, call chat.WireToolCall) chat.Part {
	input, _ := toolInput(call.Function.Arguments)
	part := chat.Part{Type: chat.PartTool, ToolCallID: call.ID, ToolName: call.Function.Name, Input: input}
	tool := f.Tool(call.Function.Name)
	switch {
	case tool == nil:
		part.State, part.ErrorText = chat.ToolOutputError, fmt.Sprintf("unknown tool %q", call.Function.Name)
	case tool.IsError:
		part.State, part.ErrorText = chat.ToolOutputError, tool.Error
	default:
		part.State, part.Output = chat.ToolOutputAvailable, tool.Result
	}
	return part
}

// toolInput is a tool call's arguments as a part's input: {} when there are none, and
// what the model sent, as a JSON string, when it is not JSON (valid is then false).
func toolInput(args string) (input json.RawMessage, valid bool) {
	switch {
	case args == "":
		return json.RawMessage("{}"), true
	case !json.Valid([]byte(args)):
		input, _ = json.Marshal(args)
		return input, false
	}
	return json.RawMessage(args), true
}

// loopRequest is the request after a tool round: the turn's first request with the
// assistant's tool calls and their results after the user message, and the system
// reminders after the last tool message.
func loopRequest(p *Plan, parts []chat.Part) chat.Request {
	req := p.Request
	first := p.Request.Messages
	n := len(first) - 1 // the user message
	if p.SystemInject != "" {
		n-- // the system reminders, which move after the tool results
	}
	asst := chat.Message{Role: chat.RoleAssistant, Parts: parts}
	wire := asst.Wire()
	msgs := make([]chat.WireMessage, 0, len(first)+len(wire)+1)
	msgs = append(msgs, first[:n]...)
	msgs = append(msgs, first[len(first)-1])
	msgs = append(msgs, wire...)
	if p.SystemInject != "" {
		msgs = append(msgs, chat.WireMessage{Role: chat.RoleSystem, Content: p.SystemInject})
	}
	req.Messages = msgs
	return req
}

// requestTail is the text a tool round adds to the prompt, for the estimate.
func requestTail(req chat.Request, p *Plan) string {
	var b []byte
	for _, m := range req.Messages[len(p.Request.Messages)-1:] {
		b = append(b, m.Text()...)
		for _, tc := range m.ToolCalls {
			b = append(b, tc.Function.Name...)
			b = append(b, tc.Function.Arguments...)
		}
	}
	return string(b)
}
