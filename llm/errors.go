package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"
)

// Kind says what went wrong in an *Error.
type Kind int

// The kinds of failure an *Error reports.
const (
	// KindStatus is an HTTP error status (4xx, 5xx) answered before any chunk.
	KindStatus Kind = iota
	// KindInBand is an error object sent inside a 200 stream (`data: {"error": …}`).
	KindInBand
	// KindConnect is a failure to open a connection (refused, unreachable, connect timeout).
	KindConnect
	// KindTransport is any other failure of the HTTP exchange before the stream began.
	KindTransport
	// KindFirstToken is a first-token timeout: nothing streamed within FirstTokenTimeout.
	KindFirstToken
	// KindIdle is an idle-stream timeout: no chunk within IdleTimeout after the first token.
	KindIdle
	// KindCut is a stream that ended early (connection dropped, no finish_reason nor [DONE]).
	KindCut
	// KindMalformed is a stream chunk that is not valid JSON.
	KindMalformed
	// KindRequest is a request refused before sending (invalid parameters for the model).
	KindRequest
	// KindResponse is an answer that could not be decoded: a model list, or a 2xx answer
	// to a streamed request that is not an event stream (an HTML page, a JSON answer).
	KindResponse
	// KindResponseTimeout is a non-stream request (Models) left unanswered.
	KindResponseTimeout
	// KindTooLong is a reply cut at ctxlab's limits on its size (chat.MaxReplySize,
	// chat.MaxToolArguments): Err is chat.ErrReplyTooLong or chat.ErrToolArgumentsTooLong.
	KindTooLong
)

// Error is a failed exchange with a model server. Its text names the server, the status
// and the server's own message, and never contains the API key.
type Error struct {
	Server     string        // the base URL, without credentials
	Status     int           // the HTTP status, 0 when none was received
	StatusText string        // "Unauthorized", "Too Many Requests", …
	Message    string        // the server's message, when it sent one
	Kind       Kind          // what failed
	Timeout    time.Duration // the limit that expired, for KindFirstToken, KindIdle and connect timeouts
	Err        error         // the underlying error, if any

	code string // the server's error code ("insufficient_quota", …)
}

// Error formats the failure, e.g. `401 Unauthorized from http://127.0.0.1:4010/v1: invalid
// api key` or `no first token after 30s from http://127.0.0.1:4010/v1`.
func (e *Error) Error() string {
	var s string
	switch e.Kind {
	case KindStatus:
		s = fmt.Sprintf("%d %s from %s", e.Status, e.StatusText, e.Server)
	case KindInBand:
		s = "stream error from " + e.Server
	case KindConnect:
		if e.Timeout > 0 {
			return fmt.Sprintf("no connection after %s to %s", e.Timeout, e.Server)
		}
		s = "cannot connect to " + e.Server
	case KindFirstToken:
		return fmt.Sprintf("no first token after %s from %s", e.Timeout, e.Server)
	case KindResponseTimeout:
		return fmt.Sprintf("no response after %s from %s", e.Timeout, e.Server)
	case KindIdle:
		return fmt.Sprintf("stream stalled: no data for %s from %s", e.Timeout, e.Server)
	case KindCut:
		s = "stream cut short from " + e.Server
	case KindMalformed:
		s = "malformed stream from " + e.Server
	case KindRequest:
		s = "invalid request for " + e.Server
	case KindResponse:
		s = "invalid response from " + e.Server
	case KindTooLong:
		s = "reply too long from " + e.Server
	default:
		s = "request to " + e.Server + " failed"
	}
	switch {
	case e.Message != "":
		s += ": " + e.Message
	case e.Err != nil && e.Kind != KindStatus: // a status says it all; Err is go-openai's wording
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// IsTimeout reports whether the failure is one of the client's timeouts.
func (e *Error) IsTimeout() bool {
	return e.Kind == KindFirstToken || e.Kind == KindIdle || e.Kind == KindResponseTimeout ||
		(e.Kind == KindConnect && e.Timeout > 0)
}

// statusText returns the reason phrase of an HTTP status line ("429 Too Many Requests"), or
// the standard text of the code.
func statusText(code int, status string) string {
	if _, rest, ok := strings.Cut(status, " "); ok && rest != "" {
		return rest
	}
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Status"
}

// bodyMessage extracts the server's message from an error body: the OpenAI shape
// {"error": {"message": …}}, {"error": "…"} (Ollama), {"message": …} or {"detail": …}; the
// <title> of an HTML page (a proxy's error page), or nothing when it has none; else the
// first line of the text, shortened.
func bodyMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		var obj struct {
			Message json.RawMessage `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case json.Unmarshal(v.Error, &obj) == nil && len(obj.Message) > 0:
			if json.Unmarshal(obj.Message, &s) == nil {
				return s
			}
			var list []string
			if json.Unmarshal(obj.Message, &list) == nil {
				return strings.Join(list, ", ")
			}
		case v.Message != "":
			return v.Message
		case v.Detail != nil:
			if d, ok := v.Detail.(string); ok {
				return d
			}
			b, _ := json.Marshal(v.Detail)
			return shorten(string(b))
		}
	}
	text := strings.TrimSpace(string(body))
	if strings.HasPrefix(text, "<") {
		return htmlTitle(text)
	}
	line, _, _ := strings.Cut(text, "\n")
	return shorten(strings.TrimSpace(line))
}

// htmlTitle returns the text of a page's <title> element on one line, or "" when it has
// none.
func htmlTitle(page string) string {
	lower := []byte(page) // ASCII-lowered, same offsets as page
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	_, rest, ok := bytes.Cut(lower, []byte("<title"))
	if !ok {
		return ""
	}
	gt := bytes.IndexByte(rest, '>')
	if gt < 0 {
		return ""
	}
	start := len(page) - len(rest) + gt + 1
	end := bytes.Index(lower[start:], []byte("</title"))
	if end < 0 {
		return ""
	}
	return shorten(strings.Join(strings.Fields(html.UnescapeString(page[start:start+end])), " "))
}

func shorten(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// redactor removes a secret from error texts.
type redactor string

const redacted = "[redacted]"

func (r redactor) str(s string) string {
	if len(r) < 4 {
		return s
	}
	return strings.ReplaceAll(s, string(r), redacted)
}

// err returns err, or an error with the secret removed from its text that still unwraps
// to err's chain.
func (r redactor) err(err error) error {
	if err == nil || len(r) < 4 || !strings.Contains(err.Error(), string(r)) {
		return err
	}
	return &redactedError{msg: r.str(err.Error()), err: err}
}

// fix removes the secret from every text of e.
func (r redactor) fix(e *Error) *Error {
	e.Message = r.str(e.Message)
	e.Err = r.err(e.Err)
	return e
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

// Unwrap lets errors.Is and errors.As see the original error.
func (e *redactedError) Unwrap() error { return e.err }

// errAs is errors.As returning the target.
func errAs[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}
