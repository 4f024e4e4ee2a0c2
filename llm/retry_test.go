package llm

import (
	"context"
	"net"
	"net/http"
	"reflect"
	"testing"
	"time"
)

func TestStreamRetries(t *testing.T) {
	now := time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)
	status := func(code int, header ...string) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(code)
			w.Write([]byte(`{"error":{"message":"slow down","type":"x"}}`))
		}
	}
	ok := func(w http.ResponseWriter) { sse(w); send(w, textChunk("ok"), finishChunk("stop"), done) }
	tests := []struct {
		name     string
		answers  []func(w http.ResponseWriter)
		attempts int
		sleeps   []time.Duration
		status   int // of the returned error, 0 for success
	}{
		{"retry-after seconds then date", []func(http.ResponseWriter){
			status(429, "Retry-After", "3"),
			status(503, "Retry-After", now.Add(7*time.Second).Format(http.TimeFormat)),
			ok,
		}, 3, []time.Duration{3 * time.Second, 7 * time.Second}, 0},
		{"retry-after-ms wins", []func(http.ResponseWriter){status(429, "Retry-After-Ms", "250", "Retry-After", "1"), ok}, 2, []time.Duration{250 * time.Millisecond}, 0},
		{"backoff without retry-after", []func(http.ResponseWriter){status(500), status(502), ok}, 3, []time.Duration{time.Millisecond, 2 * time.Millisecond}, 0},
		{"bounded", []func(http.ResponseWriter){status(500), status(500), status(500), ok}, 3, []time.Duration{time.Millisecond, 2 * time.Millisecond}, 500},
		{"retry-after too long", []func(http.ResponseWriter){status(429, "Retry-After", "3600"), ok}, 1, nil, 429},
		{"no retry on 401", []func(http.ResponseWriter){status(401), ok}, 1, nil, 401},
		{"no retry on 501", []func(http.ResponseWriter){status(501), ok}, 1, nil, 501},
		{"no retry on exhausted quota", []func(http.ResponseWriter){func(w http.ResponseWriter) {
			w.WriteHeader(429)
			w.Write([]byte(`{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}}`))
		}, ok}, 1, nil, 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				tt.answers[n-1](w)
			})
			c, sl := newTestClient(srv.URL, func(o *Options) {
				o.Now = func() time.Time { return now }
				o.Backoff = func(i int) time.Duration { return time.Duration(i+1) * time.Millisecond }
			})
			r, err := c.Stream(context.Background(), hello(), nil)
			if r.Attempts != tt.attempts || srv.count() != tt.attempts {
				t.Errorf("got %d attempts (%d requests), want %d", r.Attempts, srv.count(), tt.attempts)
			}
			if got := sl.got(); !reflect.DeepEqual(got, tt.sleeps) {
				t.Errorf("got sleeps %v, want %v", got, tt.sleeps)
			}
			switch {
			case tt.status == 0 && err != nil:
				t.Errorf("got error %v, want success", err)
			case tt.status != 0 && asError(t, err).Status != tt.status:
				t.Errorf("got %v, want status %d", err, tt.status)
			}
		})
	}
}

func TestStreamNoRetryAfterFirstToken(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, textChunk("Hel"))
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // drop the connection mid-stream
		}
	})
	c, sl := newTestClient(srv.URL, nil)
	var ds []Delta
	r, err := c.Stream(context.Background(), hello(), collect(&ds))
	e := asError(t, err)
	if e.Kind != KindCut || r.Attempts != 1 || srv.count() != 1 || len(sl.got()) != 0 {
		t.Errorf("got kind %v attempts %d requests %d, want KindCut and no retry (%v)", e.Kind, r.Attempts, srv.count(), err)
	}
	if r.Text != "Hel" || texts(ds) != "Hel" || !r.Interrupted {
		t.Errorf("got %q (deltas %q) interrupted %v, want the partial text once", r.Text, texts(ds), r.Interrupted)
	}
}

func TestStreamRetryResetBeforeFirstToken(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if n == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // no response at all
			}
			return
		}
		sse(w)
		send(w, textChunk("ok"), finishChunk("stop"), done)
	})
	c, sl := newTestClient(srv.URL, nil)
	r, err := c.Stream(context.Background(), hello(), nil)
	if err != nil || r.Text != "ok" || r.Attempts != 2 || len(sl.got()) != 1 {
		t.Errorf("got %q attempts %d sleeps %v err %v, want ok after one retry", r.Text, r.Attempts, sl.got(), err)
	}
}

func TestStreamConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, sl := newTestClient("http://"+addr, nil)
	r, err := c.Stream(context.Background(), hello(), nil)
	e := asError(t, err)
	if e.Kind != KindConnect || r.Attempts != 3 || len(sl.got()) != 2 || r.Interrupted {
		t.Errorf("got kind %v attempts %d sleeps %v interrupted %v, want KindConnect after 2 retries", e.Kind, r.Attempts, sl.got(), r.Interrupted)
	}
	want := "cannot connect to http://" + addr + "/v1: dial tcp " + addr + ": connect: connection refused"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestStreamConnectTimeout(t *testing.T) {
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: timeoutErr{}}
		},
	}}
	c, sl := newTestClient("http://127.0.0.1:9", func(o *Options) {
		o.HTTPClient = hc
		o.ConnectTimeout = 3 * time.Second
	})
	_, err := c.Stream(context.Background(), hello(), nil)
	e := asError(t, err)
	if !e.IsTimeout() || len(sl.got()) != 0 {
		t.Errorf("got %v (sleeps %v), want a connect timeout, not retried", err, sl.got())
	}
	if got, want := err.Error(), "no connection after 3s to http://127.0.0.1:9/v1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
