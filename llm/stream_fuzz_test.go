package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// bodyTransport answers every request with status 200 and body, without a network.
type bodyTransport struct{ body []byte }

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(bytes.NewReader(b.body)),
		Request: r,
	}, nil
}

// FuzzStream: any bytes a server streams give a reply and either no error or an *Error
// naming the server, never a panic nor the API key; a reply without error is complete.
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		roleChunk + textChunk("Hel") + textChunk("lo") + finishChunk("stop") + usageChunk(3, 2) + done,
		textChunk("x") + done, textChunk("x"), "data: {\n\n", "data: [DONE]\n\n", ": comment\n\n" + done,
		`data: {"error":{"message":"overloaded","code":"server_error"}}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n" + done,
		`data: {"choices":[{"index":3,"delta":{"reasoning_content":"hm","content":null}}]}` + "\r\n\r\n" + done,
		"event: ping\ndata: \n\n", "data: " + strings.Repeat("x", 1000),
		": keep-alive\nid: 3\nretry: 5\n  \t\n" + textChunk("a") + "{\"error\":{\"message\":\"quota\"}}\n",
		"\uFEFF<html><title>Sign in</title>", `{"object":"chat.completion","choices":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := New(Options{
			BaseURL: "http://127.0.0.1:1/v1", APIKey: testKey, MaxRetries: -1,
			FirstTokenTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second,
			HTTPClient: &http.Client{Transport: bodyTransport{body}},
		})
		r, err := c.Stream(context.Background(), hello(), func(Delta) {})
		if r == nil {
			t.Fatal("nil reply")
		}
		if err == nil {
			if r.Interrupted {
				t.Fatal("a reply without error is interrupted")
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("got %T %v, want *Error", err, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "http://127.0.0.1:1/v1") || strings.Contains(msg, testKey) {
			t.Fatalf("error %q: want it to name the server and never hold the key", msg)
		}
	})
}
