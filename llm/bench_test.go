package llm

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// tokenServer streams n one-token chunks ("0 ", "1 ", …), flushing each, then the
// finish reason, the usage chunk and [DONE].
func tokenServer(tb testing.TB, n int) *httptest.Server {
	chunks := make([][]byte, n)
	for i := range chunks {
		chunks[i] = []byte(textChunk(strconv.Itoa(i) + " "))
	}
	tail := []byte(finishChunk("stop") + usageChunk(50, n) + done)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		sse(w)
		f := w.(http.Flusher)
		for _, c := range chunks {
			w.Write(c)
			f.Flush()
		}
		w.Write(tail)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// orderChecker fails when a delta is missing, repeated or out of order.
type orderChecker struct {
	want []string
	next int
	bad  string
}

func newOrderChecker(n int) *orderChecker {
	o := &orderChecker{want: make([]string, n)}
	for i := range o.want {
		o.want[i] = strconv.Itoa(i) + " "
	}
	return o
}

func (o *orderChecker) delta(d Delta) {
	if o.bad == "" && (o.next >= len(o.want) || d.Text != o.want[o.next]) {
		o.bad = "delta " + strconv.Itoa(o.next) + " is " + strconv.Quote(d.Text)
	}
	o.next++
}

func (o *orderChecker) check(tb testing.TB, r *Reply, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("Stream: %v", err)
	}
	if o.bad != "" || o.next != len(o.want) {
		tb.Fatalf("got %d deltas (%s), want %d in order", o.next, o.bad, len(o.want))
	}
	if r.Usage == nil || r.Usage.CompletionTokens != len(o.want) {
		tb.Fatalf("got usage %+v, want %d completion tokens", r.Usage, len(o.want))
	}
}

func TestStreamManyChunksInOrder(t *testing.T) {
	const n = 20000
	srv := tokenServer(t, n)
	c, _ := newTestClient(srv.URL, nil)
	o := newOrderChecker(n)
	r, err := c.Stream(context.Background(), hello(), o.delta)
	o.check(t, r, err)
	var want bytes.Buffer
	for _, s := range o.want {
		want.WriteString(s)
	}
	if r.Text != want.String() {
		t.Errorf("got %d bytes of text, want %d", len(r.Text), want.Len())
	}
}

// BenchmarkStreamThroughput streams 20,000 one-token chunks through Stream into a Delta
// callback that checks their order; tokens/s is the figure.
func BenchmarkStreamThroughput(b *testing.B) {
	const n = 20000
	srv := tokenServer(b, n)
	c, _ := newTestClient(srv.URL, nil)
	b.ResetTimer()
	for range b.N {
		o := newOrderChecker(n)
		r, err := c.Stream(context.Background(), hello(), o.delta)
		o.check(b, r, err)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkTTFT compares the time to the first token through Stream with a bare net/http
// request that reads the first SSE data line, against the same local server; ttft-µs is
// the figure, the difference is ctxlab's overhead.
func BenchmarkTTFT(b *testing.B) {
	srv := tokenServer(b, 3)
	req := hello()
	body, err := wireBody(req, true)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("bare", func(b *testing.B) {
		hc := defaultHTTPClient(DefaultConnectTimeout)
		var ttft time.Duration
		for range b.N {
			start := time.Now()
			hr, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", bytes.NewReader(body))
			hr.Header.Set("Content-Type", "application/json")
			hr.Header.Set("Accept", "text/event-stream")
			hr.Header.Set("Authorization", "Bearer "+testKey)
			resp, err := hc.Do(hr)
			if err != nil {
				b.Fatal(err)
			}
			br := bufio.NewReader(resp.Body)
			for {
				line, err := br.ReadBytes('\n')
				if err != nil {
					b.Fatal(err)
				}
				if bytes.HasPrefix(line, []byte("data:")) {
					break
				}
			}
			ttft += time.Since(start)
			io.Copy(io.Discard, br)
			resp.Body.Close()
		}
		b.ReportMetric(float64(ttft.Microseconds())/float64(b.N), "ttft-µs")
	})
	b.Run("client", func(b *testing.B) {
		c, _ := newTestClient(srv.URL, nil)
		var ttft time.Duration
		for range b.N {
			r, err := c.Stream(context.Background(), req, func(Delta) {})
			if err != nil {
				b.Fatal(err)
			}
			ttft += r.TTFT
		}
		b.ReportMetric(float64(ttft.Microseconds())/float64(b.N), "ttft-µs")
	})
}
