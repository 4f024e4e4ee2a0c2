package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Delta is one piece of a streamed reply (chat.Delta), delivered in the order the server
// sent it: a piece of text, or a piece of a tool call. For a tool-call piece Text is
// empty; ToolCallIndex says which call it extends, ToolCallID and ToolName are set on the
// piece that opens the call (and wherever the server repeats them), and Arguments is the
// next piece of the call's JSON arguments. The text includes any refusal the model sent.
type Delta = chat.Delta

// Reply is a streamed reply (chat.Reply), complete or, with Interrupted, cut short:
// cancelled, or failed after the stream began. ToolCalls are in index order, each with
// its arguments reassembled from the pieces. Usage is the last usage the server reported,
// or nil when it sent none (the caller then estimates it and labels it estimated). TTFT
// runs from the call to the first delta, retries included; Total to the end of the
// stream. Attempts counts the HTTP requests, retries and the stream_options fallback
// included.
type Reply = chat.Reply

// Stream sends req as a streamed chat completion and calls onDelta (if not nil) with each
// piece of the reply, in order, on the calling goroutine (between two reads: time spent
// in it counts toward IdleTimeout). It always returns a non-nil Reply, holding whatever
// arrived:
//
//   - on success, the complete reply and a nil error;
//   - when ctx is done, the partial reply with Interrupted set, and ctx.Err();
//   - when the stream breaks after it began (dropped connection, malformed chunk, idle
//     timeout, in-band error), the partial reply with Interrupted set, and an *Error;
//   - when the reply runs past chat.MaxReplySize bytes of text and tool calls, or a
//     call's arguments past chat.MaxToolArguments, the reply as far as it fits (never
//     splitting a character) with Interrupted set, and a KindTooLong *Error wrapping
//     chat.ErrReplyTooLong or chat.ErrToolArgumentsTooLong: the stream is read no
//     further;
//   - otherwise an *Error (status, connection, first-token timeout).
//
// Failures before the first delta are retried (429, 5xx, refused or reset connections),
// at most MaxRetries times, waiting Retry-After or the backoff; nothing is retried once a
// delta was delivered, so no text is ever repeated. A server that answers 400 to
// stream_options is asked again without it, and never again with it by this Client.
func (c *Client) Stream(ctx context.Context, req chat.Request, onDelta func(Delta)) (*Reply, error) {
	start := c.now()
	r := &Reply{}
	if e := c.refused(); e != nil {
		return r, e
	}
	acc := &accumulator{onDelta: onDelta}
	oreq := toOpenAI(req)
	retries, dropped := 0, false
	for {
		withUsage := !c.noStreamOptions.Load()
		body, err := wireBody(req, withUsage)
		if err != nil {
			return r, &Error{Server: c.server, Kind: KindRequest, Err: err}
		}
		r.Attempts++
		a := &attempt{body: body}
		began, e := c.streamOnce(ctx, oreq, a, acc, r, start)
		if e == nil {
			acc.fill(r)
			r.Total = c.now().Sub(start)
			return r, nil
		}
		if ctx.Err() != nil {
			return c.interrupted(ctx, r, acc, start)
		}
		if !acc.delivered {
			if withUsage && !dropped && rejectsStreamOptions(e, a) {
				c.noStreamOptions.Store(true)
				dropped = true
				acc.reset()
				continue
			}
			if wait, ok := c.retryWait(e, a, retries); ok {
				if c.sleep(ctx, wait) != nil && ctx.Err() != nil {
					return c.interrupted(ctx, r, acc, start)
				}
				retries++
				acc.reset()
				continue
			}
		}
		acc.fill(r)
		r.Interrupted = began
		r.Total = c.now().Sub(start)
		return r, e
	}
}

func (c *Client) interrupted(ctx context.Context, r *Reply, acc *accumulator, start time.Time) (*Reply, error) {
	acc.fill(r)
	r.Interrupted = true
	r.Total = c.now().Sub(start)
	return r, ctx.Err()
}

// rejectsStreamOptions reports whether the server refused the request because of
// stream_options (a 400 or 422 before any chunk whose message names it).
func rejectsStreamOptions(e *Error, a *attempt) bool {
	if e.Kind != KindStatus || (e.Status != 400 && e.Status != 422) {
		return false
	}
	return strings.Contains(strings.ToLower(e.Message+" "+a.errBody), "stream_options")
}

// streamOnce makes one request and reads its stream into acc. began reports whether the
// server answered with a stream (status 2xx).
func (c *Client) streamOnce(ctx context.Context, oreq openai.ChatCompletionRequest, a *attempt,
	acc *accumulator, r *Reply, start time.Time) (began bool, _ *Error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := startWatchdog(cancel, c.firstToken, c.idle)
	defer w.stop()
	stream, err := c.api.CreateChatCompletionStream(withAttempt(actx, a), oreq)
	if err != nil {
		return false, c.requestError(err, actx, a)
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		if err != nil && usageUnreadable(err) {
			// The rest of the chunk is read: drop its usage, as an absurd one is dropped.
			chunk.Usage, err = nil, nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) && context.Cause(actx) == nil && (acc.finish != "" || a.done.Load()) {
				return true, nil
			}
			// An answer that is no stream never began one: there is no reply to keep.
			_, notStream := errAs[*notEventStream](err)
			return !notStream, c.streamError(err, actx)
		}
		w.chunk() // before the callbacks: the idle timer measures the server's silence
		first := !acc.delivered
		delivered, active := acc.add(&chunk)
		if delivered && first {
			r.TTFT = c.now().Sub(start)
		}
		if acc.tooMany {
			return true, c.redact.fix(&Error{Server: c.server, Kind: KindMalformed, Err: ErrTooManyToolCalls})
		}
		if acc.tooLong != nil {
			return true, &Error{Server: c.server, Kind: KindTooLong, Err: acc.tooLong}
		}
		if active && !w.streaming {
			w.firstToken()
		}
	}
}

// usageUnreadable reports whether err is a chunk's usage with a count that is not an
// integer Go can hold (1e30, 1.5, "12"): encoding/json reads the rest of the chunk, and
// the usage is as absurd as a count out of range, which usageOf drops.
func usageUnreadable(err error) bool {
	typ, ok := err.(*json.UnmarshalTypeError)
	return ok && (typ.Field == "usage" || strings.HasPrefix(typ.Field, "usage."))
}

// requestError classifies a failure of the request itself (before any chunk).
func (c *Client) requestError(err error, actx context.Context, a *attempt) *Error {
	e := &Error{Server: c.server, Kind: KindTransport, Err: err}
	if tc, ok := context.Cause(actx).(*timeoutCause); ok {
		e.Kind, e.Timeout, e.Err = tc.kind, tc.d, tc
		return e
	}
	if api, ok := errAs[*openai.APIError](err); ok && api.HTTPStatusCode > 0 {
		e.Kind, e.Status, e.StatusText, e.Message = KindStatus, api.HTTPStatusCode, statusText(api.HTTPStatusCode, api.HTTPStatus), api.Message
		e.code, _ = api.Code.(string)
		return c.redact.fix(e)
	}
	if re, ok := errAs[*openai.RequestError](err); ok && re.HTTPStatusCode > 0 {
		e.Kind, e.Status, e.StatusText = KindStatus, re.HTTPStatusCode, statusText(re.HTTPStatusCode, re.HTTPStatus)
		if msg := bodyMessage(re.Body); !strings.EqualFold(msg, e.StatusText) && !strings.EqualFold(msg, fmt.Sprintf("%d %s", e.Status, e.StatusText)) {
			e.Message = msg // not a page whose title only repeats the status
		}
		return c.redact.fix(e)
	}
	if !a.sent {
		e.Kind = KindRequest // refused by go-openai's own checks before sending
		return c.redact.fix(e)
	}
	if op, ok := errAs[*net.OpError](err); ok && op.Op == "dial" {
		e.Kind, e.Err = KindConnect, op
		if op.Timeout() {
			e.Timeout = c.connect
		}
		return c.redact.fix(e)
	}
	if ue, ok := errAs[*url.Error](err); ok {
		e.Err = ue.Err // drop `Post "URL":`: the server is named already
	}
	return c.redact.fix(e)
}

// streamError classifies a failure while reading the stream.
func (c *Client) streamError(err error, actx context.Context) *Error {
	e := &Error{Server: c.server, Kind: KindCut, Err: err}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch tc, ok := context.Cause(actx).(*timeoutCause); {
	case ok:
		e.Kind, e.Timeout, e.Err = tc.kind, tc.d, tc
	case errors.As(err, new(*openai.APIError)):
		api, _ := errAs[*openai.APIError](err)
		e.Kind, e.Message, e.Err = KindInBand, api.Message, api
		if api.Message == "" {
			e.Message = fmt.Sprint(api.Code)
		}
	case errors.As(err, &syntax), errors.As(err, &typ), errors.Is(err, openai.ErrTooManyEmptyStreamMessages),
		errors.Is(err, ErrLineTooLong), errors.Is(err, ErrNonEventLines):
		e.Kind = KindMalformed
	case errors.As(err, new(*notEventStream)):
		e.Kind = KindResponse
	case errors.Is(err, io.EOF):
		e.Err = errEnded
	}
	return c.redact.fix(e)
}

// ErrTooManyToolCalls is the error (inside a KindMalformed *Error) for a reply that opens
// more than chat.MaxToolCalls tool calls: the stream is read no further, and the calls
// that fit are kept in the interrupted reply.
var ErrTooManyToolCalls = fmt.Errorf("a reply holds at most %d tool calls", chat.MaxToolCalls)

var errEnded = fmt.Errorf("stream ended without finish_reason or [DONE]: %w", io.ErrUnexpectedEOF)

// timeoutCause is the cause given to the attempt's context when a timer expires.
type timeoutCause struct {
	kind Kind
	d    time.Duration
}

func (t *timeoutCause) Error() string {
	if t.kind == KindIdle {
		return fmt.Sprintf("idle timeout (%s)", t.d)
	}
	return fmt.Sprintf("first-token timeout (%s)", t.d)
}

// Is makes a timeout match context.DeadlineExceeded.
func (t *timeoutCause) Is(target error) bool { return target == context.DeadlineExceeded }

// watchdog cancels an attempt when the first token is late or the stream goes idle.
type watchdog struct {
	cancel    context.CancelCauseFunc
	idle      time.Duration
	t         *time.Timer
	streaming bool
}

func startWatchdog(cancel context.CancelCauseFunc, first, idle time.Duration) *watchdog {
	w := &watchdog{cancel: cancel, idle: idle}
	if first > 0 {
		cause := &timeoutCause{KindFirstToken, first}
		w.t = time.AfterFunc(first, func() { cancel(cause) })
	}
	return w
}

// firstToken switches from the first-token timer to the idle timer.
func (w *watchdog) firstToken() {
	w.stop()
	w.streaming = true
	if w.idle > 0 {
		cause := &timeoutCause{KindIdle, w.idle}
		w.t = time.AfterFunc(w.idle, func() { w.cancel(cause) })
	}
}

// chunk restarts the idle timer.
func (w *watchdog) chunk() {
	if w.streaming && w.t != nil {
		w.t.Reset(w.idle)
	}
}

func (w *watchdog) stop() {
	if w.t != nil {
		w.t.Stop()
		w.t = nil
	}
}

// accumulator builds the reply from the chunks and forwards the deltas.
type accumulator struct {
	onDelta   func(Delta)
	text      strings.Builder
	calls     []*toolCall
	finish    string
	usage     *chat.Usage
	delivered bool
	// tooMany says the reply opened more than chat.MaxToolCalls calls: the pieces of
	// the calls past the limit are dropped, and the stream is read no further.
	tooMany bool
	// size counts the bytes kept: the text and the calls' ids, names and arguments.
	size int
	// tooLong is chat.ErrReplyTooLong or chat.ErrToolArgumentsTooLong once a piece ran
	// past its limit: the piece is kept up to the limit, and the stream is read no
	// further.
	tooLong error
}

type toolCall struct {
	index int // the call's place in the reply: the server's index, unless taken
	key   int // the index the server gave the call, -1 for none
	call  chat.WireToolCall
	args  strings.Builder
}

func (a *accumulator) reset() {
	*a = accumulator{onDelta: a.onDelta}
}

func (a *accumulator) emit(d Delta) {
	a.delivered = true
	if a.onDelta != nil {
		a.onDelta(d)
	}
}

// add takes one chunk and reports whether it delivered a delta, and whether the model is
// producing tokens (a delta, or reasoning_content, which is not delivered but shows that
// a reasoning model is at work). Only choice 0 is read; the usage chunk (no choices) and
// usage sent with every chunk both land in usage, the last believable one winning.
func (a *accumulator) add(ch *openai.ChatCompletionStreamResponse) (delivered, active bool) {
	if ch.Usage != nil {
		if u := usageOf(ch.Usage); u != nil {
			a.usage = u
		}
	}
	got, thinking := false, false
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.Index != 0 {
			continue
		}
		for _, s := range [...]string{c.Delta.Content, c.Delta.Refusal} {
			if a.tooLong != nil {
				break
			}
			if s = a.fit(s, chat.MaxReplySize-a.size, chat.ErrReplyTooLong); s != "" {
				a.text.WriteString(s)
				a.size += len(s)
				a.emit(Delta{Text: s})
				got = true
			}
		}
		for j := range c.Delta.ToolCalls {
			if a.tooMany || a.tooLong != nil {
				break
			}
			if a.addToolCall(&c.Delta.ToolCalls[j]) {
				got = true
			}
		}
		if c.Delta.ReasoningContent != "" {
			thinking = true
		}
		if c.FinishReason != "" && c.FinishReason != openai.FinishReasonNull {
			a.finish = string(c.FinishReason)
		}
	}
	return got, got || thinking
}

// addToolCall merges a tool-call piece into the call it extends (see callFor).
func (a *accumulator) addToolCall(tc *openai.ToolCall) bool {
	t := a.callFor(tc)
	if t == nil {
		a.tooMany = true
		return false
	}
	// The id and the name are kept once, the arguments piece by piece: each within what
	// is left of the reply's size, and the arguments within the call's.
	id, name := tc.ID, tc.Function.Name
	if id != "" && t.call.ID == "" {
		id = a.fit(id, chat.MaxReplySize-a.size, chat.ErrReplyTooLong)
		t.call.ID = id
		a.size += len(id)
	}
	if name != "" && t.call.Function.Name == "" {
		name = a.fit(name, chat.MaxReplySize-a.size, chat.ErrReplyTooLong)
		t.call.Function.Name = name
		a.size += len(name)
	}
	if tc.Type != "" {
		t.call.Type = string(tc.Type)
	}
	args := a.fit(tc.Function.Arguments, chat.MaxReplySize-a.size, chat.ErrReplyTooLong)
	args = a.fit(args, chat.MaxToolArguments-t.args.Len(), chat.ErrToolArgumentsTooLong)
	d := Delta{ToolCallIndex: t.index, ToolCallID: id, ToolName: name, Arguments: args}
	t.args.WriteString(args)
	a.size += len(args)
	if d.ToolCallID == "" && d.ToolName == "" && d.Arguments == "" {
		return false
	}
	a.emit(d)
	return true
}

// fit returns s, or the longest prefix of s of at most room bytes that does not split a
// UTF-8 sequence, noting limit as the reason the reply is cut.
func (a *accumulator) fit(s string, room int, limit error) string {
	if len(s) <= room {
		return s
	}
	if a.tooLong == nil {
		a.tooLong = limit
	}
	cut := max(room, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// callFor returns the call a piece extends: the last call opened with the piece's index
// (or, for a piece without an index, as some servers send, the last call). A piece that
// carries an id other than that call's opens a new call: Ollama numbers every parallel
// call 0 (ollama/ollama#15457). A new call takes the server's index as its place in the
// reply, or the next free one. It returns nil for a new call past chat.MaxToolCalls.
func (a *accumulator) callFor(tc *openai.ToolCall) *toolCall {
	key := -1
	if tc.Index != nil {
		key = *tc.Index
	}
	var last *toolCall
	for _, t := range a.calls {
		if key < 0 || t.key == key {
			last = t
		}
	}
	if last != nil && (tc.ID == "" || last.call.ID == "" || tc.ID == last.call.ID) {
		return last
	}
	index, next := key, 0
	for _, t := range a.calls {
		if t.index == index {
			index = -1
		}
		next = max(next, t.index+1)
	}
	if index < 0 {
		index = next
	}
	if len(a.calls) >= chat.MaxToolCalls {
		return nil
	}
	t := &toolCall{index: index, key: key}
	a.calls = append(a.calls, t)
	return t
}

// fill copies the accumulated reply into r.
func (a *accumulator) fill(r *Reply) {
	r.Text = a.text.String()
	r.FinishReason = a.finish
	r.Usage = a.usage
	r.ToolCalls = nil
	calls := slices.Clone(a.calls) // in the order opened, which callFor reads
	slices.SortStableFunc(calls, func(x, y *toolCall) int { return x.index - y.index })
	for _, t := range calls {
		tc := t.call
		if tc.Type == "" {
			tc.Type = "function"
		}
		tc.Function.Arguments = t.args.String()
		r.ToolCalls = append(r.ToolCalls, tc)
	}
}
