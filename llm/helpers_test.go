package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

const testKey = "sk-test-0123456789"

// recorder is a fake server: it keeps each request's body and answers with handle.
type recorder struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
}

func newRecorder(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int, body map[string]any)) *recorder {
	t.Helper()
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, body)
		rec.auth = append(rec.auth, r.Header.Get("Authorization"))
		n := len(rec.bodies)
		rec.mu.Unlock()
		handle(w, r, n, body)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) body(i int) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies[i]
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bodies)
}

// sleeps records the waits a client asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newTestClient returns a client of srv's /v1 with short timeouts and recorded sleeps.
func newTestClient(baseURL string, mod func(*Options)) (*Client, *sleeps) {
	s := &sleeps{}
	o := Options{
		BaseURL:           baseURL + "/v1",
		APIKey:            testKey,
		FirstTokenTimeout: 2 * time.Second,
		IdleTimeout:       2 * time.Second,
		Sleep:             s.sleep,
	}
	if mod != nil {
		mod(&o)
	}
	return New(o), s
}

func sse(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
}

func send(w http.ResponseWriter, lines ...string) {
	for _, l := range lines {
		fmt.Fprint(w, l)
	}
	w.(http.Flusher).Flush()
}

// textChunk is a chunk carrying a piece of text.
func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + string(b) + `},"finish_reason":null}]}` + "\n\n"
}

const roleChunk = `data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"

func finishChunk(reason string) string {
	return `data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}` + "\n\n"
}

func usageChunk(p, c int) string {
	return fmt.Sprintf(`data: {"id":"c1","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", p, c, p+c)
}

const done = "data: [DONE]\n\n"

// hello is a small request.
func hello() chat.Request {
	return chat.Request{Model: "test-model", Messages: []chat.WireMessage{
		{Role: chat.RoleSystem, Content: "Be brief."},
		{Role: chat.RoleUser, Content: "hello"},
	}}
}

// collect returns a callback that appends deltas to *ds.
func collect(ds *[]Delta) func(Delta) {
	return func(d Delta) { *ds = append(*ds, d) }
}

func texts(ds []Delta) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Text)
	}
	return b.String()
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("got error %T %v, want *llm.Error", err, err)
	}
	return e
}
