package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestErrorText(t *testing.T) {
	const srv = "http://127.0.0.1:4010/v1"
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Server: srv, Kind: KindStatus, Status: 401, StatusText: "Unauthorized", Message: "invalid api key"}, "401 Unauthorized from " + srv + ": invalid api key"},
		{&Error{Server: srv, Kind: KindStatus, Status: 503, StatusText: "Service Unavailable"}, "503 Service Unavailable from " + srv},
		{&Error{Server: srv, Kind: KindFirstToken, Timeout: 30 * time.Second}, "no first token after 30s from " + srv},
		{&Error{Server: srv, Kind: KindIdle, Timeout: time.Minute}, "stream stalled: no data for 1m0s from " + srv},
		{&Error{Server: srv, Kind: KindResponseTimeout, Timeout: time.Second}, "no response after 1s from " + srv},
		{&Error{Server: srv, Kind: KindConnect, Timeout: 10 * time.Second}, "no connection after 10s to " + srv},
		{&Error{Server: srv, Kind: KindConnect, Err: errors.New("connection refused")}, "cannot connect to " + srv + ": connection refused"},
		{&Error{Server: srv, Kind: KindInBand, Message: "overloaded"}, "stream error from " + srv + ": overloaded"},
		{&Error{Server: srv, Kind: KindCut, Err: io.ErrUnexpectedEOF}, "stream cut short from " + srv + ": unexpected EOF"},
		{&Error{Server: srv, Kind: KindMalformed, Err: errors.New("bad json")}, "malformed stream from " + srv + ": bad json"},
		{&Error{Server: srv, Kind: KindRequest, Err: errors.New("no MaxTokens")}, "invalid request for " + srv + ": no MaxTokens"},
		{&Error{Server: srv, Kind: KindTransport, Err: errors.New("tls: bad certificate")}, "request to " + srv + " failed: tls: bad certificate"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestRedactor(t *testing.T) {
	r := redactor("sk-secret-1")
	inner := errors.New("dial: sk-secret-1 refused")
	e := r.fix(&Error{Server: "s", Kind: KindTransport, Message: "key sk-secret-1 bad", Err: inner})
	if strings.Contains(e.Error(), "sk-secret-1") || e.Message != "key [redacted] bad" {
		t.Errorf("got %q (message %q), want the key redacted", e, e.Message)
	}
	if !errors.Is(e, inner) {
		t.Errorf("redacted error no longer wraps the original")
	}
	if got := redactor("").str("abc"); got != "abc" {
		t.Errorf("got %q, want an empty key to redact nothing", got)
	}
}

func TestBodyMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"invalid api key","type":"invalid_request_error"}}`, "invalid api key"},
		{`{"error":"model 'llama3' not found"}`, "model 'llama3' not found"},
		{`{"error":{"message":["a","b"]}}`, "a, b"},
		{`{"message":"Bad Request"}`, "Bad Request"},
		{`{"detail":"Not authenticated"}`, "Not authenticated"},
		{`{"detail":[{"loc":["body","stream_options"],"msg":"extra fields not permitted"}]}`, `[{"loc":["body","stream_options"],"msg":"extra fields not permitted"}]`},
		{"<html>\n<body>502 Bad Gateway</body></html>", ""},
		{"<!DOCTYPE html>\n<HTML><HEAD><TITLE>\n  Origin  &amp; proxy\n unreachable </TITLE></HEAD><body>…</body></HTML>", "Origin & proxy unreachable"},
		{"<html><title>unterminated", ""},
		{"  upstream timed out  \n", "upstream timed out"},
		{"", ""},
		{strings.Repeat("é", 400), strings.Repeat("é", 150) + "…"},
	}
	for _, tt := range tests {
		if got := bodyMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("bodyMessage(%.40q): got %q, want %q", tt.body, got, tt.want)
		}
	}
}

// TestStatusErrorText checks that a status error says the status and the server's own
// message, never go-openai's wording of it, for streams and for Models.
func TestStatusErrorText(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        string // after "STATUS from URL"
	}{
		{"empty body", 404, "", "", ""},
		{"HTML page", 502, "text/html", "<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center></body></html>", ""},
		{"HTML page with its own title", 503, "text/html", "<html><head><title>Upstream is restarting</title></head></html>", ": Upstream is restarting"},
		{"HTML page without a title", 502, "text/html", "<html><body>bad gateway</body></html>", ""},
		{"OpenAI error with an empty message", 400, "application/json", `{"error":{"message":"","type":"invalid_request_error"}}`, ""},
		{"OpenAI error", 404, "application/json", `{"error":{"message":"The model does not exist","type":"invalid_request_error"}}`, ": The model does not exist"},
		{"plain text", 500, "text/plain", "upstream connect error\nreset reason: overflow", ": upstream connect error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				if tt.contentType != "" {
					w.Header().Set("Content-Type", tt.contentType)
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			})
			c, _ := newTestClient(srv.URL, func(o *Options) { o.MaxRetries = -1 })
			want := fmt.Sprintf("%d %s from %s/v1%s", tt.status, http.StatusText(tt.status), srv.URL, tt.want)
			_, err := c.Stream(context.Background(), hello(), nil)
			if e := asError(t, err); e.Kind != KindStatus || err.Error() != want {
				t.Errorf("Stream: got %q (kind %v), want %q", err, e.Kind, want)
			}
			_, err = c.Models(context.Background())
			if e := asError(t, err); e.Kind != KindStatus || err.Error() != want {
				t.Errorf("Models: got %q (kind %v), want %q", err, e.Kind, want)
			}
		})
	}
}

func FuzzBodyMessage(f *testing.F) {
	for _, s := range []string{`{"error":{"message":"x"}}`, `{"error":"x"}`, `{"detail":[1]}`, "plain", "", "{"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := bodyMessage(body)
		if utf8.Valid(body) && !utf8.ValidString(got) {
			t.Errorf("bodyMessage(%q) = %q: invalid UTF-8 from valid input", body, got)
		}
		if strings.Contains(got, "\n") && !strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
			t.Errorf("bodyMessage(%q) = %q: more than one line", body, got)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)
	tests := []struct {
		name, key, value string
		want             time.Duration
		ok               bool
	}{
		{"seconds", "Retry-After", "2", 2 * time.Second, true},
		{"fractional", "Retry-After", "0.5", 500 * time.Millisecond, true},
		{"date", "Retry-After", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"past date", "Retry-After", now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"milliseconds", "Retry-After-Ms", "120", 120 * time.Millisecond, true},
		{"negative", "Retry-After", "-3", 0, false},
		{"garbage", "Retry-After", "soon", 0, false},
		{"absent", "X-Other", "1", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			h.Set(tt.key, tt.value)
			got, ok := retryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %v %v, want %v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "1.5", "Fri, 27 Mar 2026 14:31:00 GMT", "-1", "NaN", "Inf", "1e300"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		for _, key := range []string{"Retry-After", "Retry-After-Ms"} {
			h := http.Header{}
			h.Set(key, v)
			if d, ok := retryAfter(h, now); ok && d < 0 {
				t.Errorf("%s: %q: got negative wait %v", key, v, d)
			}
		}
	})
}

func TestDefaultBackoff(t *testing.T) {
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	for i, w := range want {
		if got := defaultBackoff(i); got != w {
			t.Errorf("defaultBackoff(%d): got %v, want %v", i, got, w)
		}
	}
}
