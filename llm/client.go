// Package llm is ctxlab's client for OpenAI-compatible chat servers (OpenAI, Ollama,
// llama.cpp's server, vLLM, LM Studio, OpenRouter), built on github.com/sashabaranov/go-openai:
// streamed chat completions with exact usage, cancellation that keeps the partial reply,
// bounded retries, timeouts and errors that name the server. A scripted reply needs no
// model: see engine.Scripted.
package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Defaults of Options.
const (
	DefaultBaseURL           = "https://api.openai.com/v1"
	DefaultConnectTimeout    = 10 * time.Second
	DefaultFirstTokenTimeout = 60 * time.Second
	DefaultIdleTimeout       = 30 * time.Second
	DefaultMaxRetries        = 2
	DefaultMaxRetryWait      = 60 * time.Second
)

// Options configures a Client. The zero value talks to OpenAI with the defaults above. For
// every duration and for MaxRetries, zero means the default and a negative value disables
// the timeout (or the retries).
type Options struct {
	// BaseURL is the API root, e.g. http://127.0.0.1:11434/v1 (default DefaultBaseURL).
	// One with a query or a fragment cannot be used: every request fails with a
	// KindRequest *Error, before anything is sent.
	BaseURL string
	// APIKey is sent as a bearer token when set. It is never logged nor put in an error.
	// It is sent over plain http only to this machine (a loopback address, localhost):
	// with a key, a base URL of plain http to another host makes every request fail with
	// a KindRequest *Error, before anything is sent, unless AllowHTTPKey is set.
	APIKey string
	// AllowHTTPKey lets the key go over plain http to another machine, where the network
	// between is trusted (a LAN server without TLS).
	AllowHTTPKey bool
	// HTTPClient sends the requests. The default has a dialer bounded by ConnectTimeout;
	// with your own client, ConnectTimeout is yours to set in its transport. A redirect
	// is followed only within the server's origin (scheme, host and port), and a POST
	// only through 307 and 308: a client without a CheckRedirect of its own is given
	// this policy.
	HTTPClient *http.Client
	// ConnectTimeout bounds dialling and the TLS handshake (default 10s).
	ConnectTimeout time.Duration
	// FirstTokenTimeout bounds the wait from sending the request to the first streamed
	// token, response headers included (default 60s).
	FirstTokenTimeout time.Duration
	// IdleTimeout bounds the silence between two chunks once the first token arrived
	// (default 30s).
	IdleTimeout time.Duration
	// MaxRetries bounds the retries of a request that failed before its first token with
	// 429, 5xx or a refused/reset connection (default 2).
	MaxRetries int
	// MaxRetryWait is the longest Retry-After the client waits for; a server asking for
	// more gets its error returned at once (default 60s).
	MaxRetryWait time.Duration
	// Backoff returns the wait before retry number attempt (0-based) when the server sent
	// no Retry-After (default 500ms doubling, at most 8s).
	Backoff func(attempt int) time.Duration
	// Sleep waits d or until ctx is done (default: a timer). Tests inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for TTFT, durations and Retry-After dates (default time.Now).
	Now func() time.Time
}

// pick resolves an option: zero means the default and a negative value disables the
// timeout (or the retries).
func pick[T int | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Client streams chat completions from one OpenAI-compatible server. It is safe for
// concurrent use.
type Client struct {
	api        *openai.Client
	server     string // base URL without credentials, for errors
	redact     redactor
	connect    time.Duration
	firstToken time.Duration
	idle       time.Duration
	maxRetries int
	maxWait    time.Duration
	backoff    func(int) time.Duration
	sleep      func(context.Context, time.Duration) error
	now        func() time.Time

	// noStreamOptions is set once the server rejected stream_options; a Client has one
	// base URL, so this is remembered per base URL for the life of the Client.
	noStreamOptions atomic.Bool
	// bad is why the client's settings cannot be used (checkBase): every request fails
	// with it, before anything is sent.
	bad error
}

// New returns a Client for o.BaseURL.
func New(o Options) *Client {
	base := strings.TrimRight(strings.TrimSpace(o.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	c := &Client{
		server:     displayURL(base),
		bad:        checkBase(base, o.APIKey != "" && !o.AllowHTTPKey),
		redact:     redactor(o.APIKey),
		connect:    pick(o.ConnectTimeout, DefaultConnectTimeout),
		firstToken: pick(o.FirstTokenTimeout, DefaultFirstTokenTimeout),
		idle:       pick(o.IdleTimeout, DefaultIdleTimeout),
		maxRetries: pick(o.MaxRetries, DefaultMaxRetries),
		maxWait:    pick(o.MaxRetryWait, DefaultMaxRetryWait),
		backoff:    o.Backoff,
		sleep:      o.Sleep,
		now:        o.Now,
	}
	if c.backoff == nil {
		c.backoff = defaultBackoff
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.now == nil {
		c.now = time.Now
	}
	hc := o.HTTPClient
	switch {
	case hc == nil:
		hc = defaultHTTPClient(c.connect)
	case hc.CheckRedirect == nil:
		own := *hc // Go's own redirect policy would take the key to another port
		own.CheckRedirect = checkRedirect
		hc = &own
	}
	cfg := openai.DefaultConfig(o.APIKey)
	cfg.BaseURL = base
	cfg.HTTPClient = doer{hc}
	// OpenRouter sends SSE comment lines while a request is queued, each followed by a
	// blank line; go-openai counts the blank lines (the comments never reach it: see
	// eventFilter) as empty messages and gives up past this limit.
	cfg.EmptyMessagesLimit = 1 << 16
	c.api = openai.NewClientWithConfig(cfg)
	return c
}

// Server returns the base URL the client talks to, without credentials.
func (c *Client) Server() string { return c.server }

// displayURL is a URL as errors show it: without its user information, and with a query
// or a fragment, which may hold a secret (`?api-key=…`), cut to "?…" or "#…". A string
// that is not a URL is cut at its first '?' or '#' too, and its user information left out.
func displayURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i+1] + "…"
		}
		if scheme, rest, ok := strings.Cut(s, "://"); ok {
			if i := strings.LastIndexByte(rest, '@'); i >= 0 {
				s = scheme + "://" + rest[i+1:]
			}
		}
		return s
	}
	query, fragment := u.RawQuery != "" || u.ForceQuery, u.Fragment != "" || strings.Contains(s, "#")
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	out := u.String()
	if query {
		out += "?…"
	}
	if fragment {
		out += "#…"
	}
	return out
}

// checkBase returns why a base URL cannot be used, or nil: one with a query or a fragment
// would have the request path appended after them (a query's value then sent in the path
// of every request, `/v1?api-key=…/chat/completions`), or dropped (`/v1#x` posts to /v1);
// with key set, one that would send the key in the clear over the network (KeyInClear).
func checkBase(base string, key bool) error {
	u, err := url.Parse(base)
	switch {
	case err != nil:
		return nil // the HTTP client says what is wrong with it
	case u.RawQuery != "" || u.ForceQuery:
		return errors.New("the base URL has a query (?…): a base URL cannot have one")
	case u.Fragment != "" || strings.Contains(base, "#"):
		return errors.New("the base URL has a fragment (#…): a base URL cannot have one")
	case key && KeyInClear(base):
		return errors.New("the API key would go over plain http to another machine: use https, or allow it (Options.AllowHTTPKey)")
	}
	return nil
}

// KeyInClear reports whether a request to baseURL would carry an API key unencrypted over
// the network: plain http to a host that is not this machine (a loopback address, or
// localhost).
func KeyInClear(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Scheme, "http") && !isLoopback(u.Hostname())
}

// isLoopback reports whether host names this machine: localhost, or a loopback address
// (127.0.0.0/8, ::1).
func isLoopback(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// refused is the error of every request of a client whose settings cannot be used (see
// checkBase), or nil.
func (c *Client) refused() *Error {
	if c.bad == nil {
		return nil
	}
	return &Error{Server: c.server, Kind: KindRequest, Err: c.bad}
}

var (
	transportOnce sync.Once
	baseTransport *http.Transport
)

func defaultHTTPClient(connect time.Duration) *http.Client {
	transportOnce.Do(func() {
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			baseTransport = t.Clone()
		} else {
			baseTransport = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, MaxIdleConns: 100, IdleConnTimeout: 90 * time.Second}
		}
	})
	t := baseTransport.Clone()
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	t.DialContext = d.DialContext
	t.TLSHandshakeTimeout = connect
	return &http.Client{Transport: t, CheckRedirect: checkRedirect}
}

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 10

// checkRedirect follows a redirect only within the origin of the request (its scheme,
// host and port): Go's own policy keeps the Authorization header for another port of the
// same host, so a 307 to another port took the API key there. A POST is followed only
// through 307 and 308, which keep its method and body: a 301, 302 or 303 would make it a
// GET without its body. A redirect not followed fails the request, saying where it led.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("the server redirected more than %d times", maxRedirects)
	}
	status := "a redirect"
	if req.Response != nil {
		status = req.Response.Status
	}
	to := displayURL(req.URL.String())
	switch first := via[0]; {
	case !sameOrigin(req.URL, first.URL):
		return fmt.Errorf("the server redirected to %s (%s), another origin: ctxlab follows a redirect only within the server's origin, "+
			"where the API key goes; set the base URL to the new address", to, status)
	case first.Method != req.Method:
		return fmt.Errorf("the server redirected to %s (%s): a %s is followed only through 307 and 308, which keep it whole; "+
			"set the base URL to the new address", to, status, first.Method)
	}
	return nil
}

// sameOrigin reports whether two URLs have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// attempt is the state of one HTTP exchange, carried in the request context so the
// transport wrapper can fill it in.
type attempt struct {
	body    []byte // the exact request body to send (nil: keep go-openai's)
	sent    bool   // the request reached the HTTP client
	status  int
	header  http.Header
	errBody string // the error body, when the server answered with one
	done    atomic.Bool
}

type attemptKey struct{}

func withAttempt(ctx context.Context, a *attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

// doer wraps the HTTP client given to go-openai: it sends the body ctxlab built (so the
// bytes on the wire are the request the trace shows), and records the status and headers
// (Retry-After) that go-openai's errors do not keep.
type doer struct{ next *http.Client }

// Do sends req.
func (d doer) Do(req *http.Request) (*http.Response, error) {
	a, _ := req.Context().Value(attemptKey{}).(*attempt)
	if a == nil {
		return d.next.Do(req)
	}
	a.sent = true
	if a.body != nil {
		body := a.body
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := d.next.Do(req)
	if resp != nil {
		a.status = resp.StatusCode
		a.header = resp.Header
		switch {
		case resp.StatusCode >= 400:
			// Kept whole, whichever error type go-openai makes of it: the server's message,
			// or the field it refused (stream_options), may be anywhere in it.
			body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			a.errBody = string(body)
		case resp.StatusCode < 300 && req.Method == http.MethodGet:
			// An answer read whole (the model list), not a stream: bound it all.
			resp.Body = &sizeLimiter{ReadCloser: resp.Body, left: MaxResponse}
		case resp.StatusCode < 300:
			resp.Body = &doneWatcher{ReadCloser: newEventFilter(&lineLimiter{ReadCloser: resp.Body, max: MaxStreamLine},
				resp.Header.Get("Content-Type")), a: a}
		}
	}
	return resp, err
}

// maxErrorBody bounds the error body read from a server.
const maxErrorBody = 1 << 20

// MaxStreamLine bounds one line of a server's event stream (or of any 2xx answer): 8 MiB,
// far more than any chunk of a reply. A longer line fails the stream with a
// KindMalformed *Error naming the server ("malformed stream from URL: a line of the stream
// is longer than 8 MiB"), in bounded memory, where reading it whole would need as much
// memory as the server cares to send.
const MaxStreamLine = 8 << 20

// ErrLineTooLong is the error (inside an *Error) for a stream line longer than
// MaxStreamLine.
var ErrLineTooLong = fmt.Errorf("a line of the stream is longer than %d MiB", MaxStreamLine>>20)

// MaxResponse bounds an answer that is read whole rather than streamed (the model list):
// 8 MiB, far more than any server's list. A longer one fails with a KindResponse *Error naming
// the server ("invalid response from URL: the answer is larger than 8 MiB").
const MaxResponse = 8 << 20

// ErrResponseTooLarge is the error (inside an *Error) for an answer longer than
// MaxResponse.
var ErrResponseTooLarge = fmt.Errorf("the answer is larger than %d MiB", MaxResponse>>20)

// sizeLimiter fails the read that would go past left bytes.
type sizeLimiter struct {
	io.ReadCloser
	left int
	over bool
}

func (l *sizeLimiter) Read(p []byte) (int, error) {
	if l.over {
		return 0, ErrResponseTooLarge
	}
	if len(p) > l.left+1 {
		p = p[:l.left+1] // one byte more tells a longer answer from one of exactly left bytes
	}
	n, err := l.ReadCloser.Read(p)
	if n > l.left {
		l.over = true
		return 0, ErrResponseTooLarge
	}
	l.left -= n
	return n, err
}

// lineLimiter fails the read that would take a line (the bytes since the last line
// break) past max bytes: the input is handed on up to the first byte too many, then every
// read returns ErrLineTooLong.
type lineLimiter struct {
	io.ReadCloser
	max  int
	run  int // bytes of the current line handed on
	over bool
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.over {
		return 0, ErrLineTooLong
	}
	n, err := l.ReadCloser.Read(p)
	for k := 0; k < n; {
		i := bytes.IndexByte(p[k:n], '\n')
		end := n // end of the current line's bytes in this read
		if i >= 0 {
			end = k + i
		}
		if l.run+end-k > l.max {
			l.over = true
			return k + l.max - l.run, nil // up to the first byte too many
		}
		if i < 0 {
			l.run += end - k
			break
		}
		l.run = 0
		k = end + 1
	}
	return n, err
}

// doneWatcher notes whether the stream's last bytes are the `data: [DONE]` terminator, so
// a stream closed cleanly without it can be told from a complete one.
type doneWatcher struct {
	io.ReadCloser
	a    *attempt
	tail [24]byte
	n    int
}

var doneMark = []byte("[DONE]")

func (w *doneWatcher) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if n > 0 {
		if n >= len(w.tail) {
			w.n = copy(w.tail[:], p[n-len(w.tail):n])
		} else {
			keep := min(w.n, len(w.tail)-n)
			copy(w.tail[:], w.tail[w.n-keep:w.n])
			w.n = keep + copy(w.tail[keep:], p[:n])
		}
		if bytes.Contains(w.tail[:w.n], doneMark) {
			w.a.done.Store(true)
		}
	}
	return n, err
}
