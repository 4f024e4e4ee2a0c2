package llm

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestBaseURLWithQueryOrFragment is issue 22 item 8: a base URL with a query sent it in the
// path of every request (`/v1?api-key=SECRET/chat/completions`) and showed it in every
// error; one with a fragment silently posted to the URL without it. A client of such a URL
// refuses every request, before sending anything, and never shows the query.
func TestBaseURLWithQueryOrFragment(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		http.Error(w, "no request should come", http.StatusTeapot)
	})
	for _, tc := range []struct{ base, server, why string }{
		{srv.URL + "/v1?api-key=SECRET", srv.URL + "/v1?…", "the base URL has a query (?…): a base URL cannot have one"},
		{srv.URL + "/v1?", srv.URL + "/v1?…", "the base URL has a query (?…): a base URL cannot have one"},
		{srv.URL + "/v1#SECRET", srv.URL + "/v1#…", "the base URL has a fragment (#…): a base URL cannot have one"},
		{"http://user:SECRET@" + strings.TrimPrefix(srv.URL, "http://") + "/v1?k=SECRET", srv.URL + "/v1?…", "the base URL has a query (?…): a base URL cannot have one"},
	} {
		t.Run(tc.base, func(t *testing.T) {
			c := New(Options{BaseURL: tc.base, APIKey: testKey})
			if c.Server() != tc.server {
				t.Errorf("Server() = %q, want %q", c.Server(), tc.server)
			}
			want := "invalid request for " + tc.server + ": " + tc.why
			r, err := c.Stream(context.Background(), hello(), nil)
			if e := asError(t, err); e.Kind != KindRequest || err.Error() != want || r == nil || r.Attempts != 0 {
				t.Errorf("Stream: got %v (kind %d), want %q before any attempt", err, e.Kind, want)
			}
			if _, err := c.Models(context.Background()); err == nil || err.Error() != want {
				t.Errorf("Models: got %v, want %q", err, want)
			}
			if n := srv.count(); n != 0 {
				t.Errorf("the server received %d requests, want none", n)
			}
		})
	}
}

func TestDisplayURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/v1":          "http://127.0.0.1:8080/v1",
		"https://user:SECRET@host/v1":       "https://host/v1",
		"http://h/v1?api-key=SECRET":        "http://h/v1?…",
		"http://h/v1#SECRET":                "http://h/v1#…",
		"http://h/v1?a=SECRET#SECRET":       "http://h/v1?…#…",
		"http://user:SECRET@h:-1/v1?SECRET": "http://h:-1/v1?…",
		"http://h:-1/v1#SECRET":             "http://h:-1/v1#…",
		"https://api.openai.com/v1":         "https://api.openai.com/v1",
		"http://[::1]:11434/v1":             "http://[::1]:11434/v1",
		"http://%zz/v1?key=SECRET":          "http://%zz/v1?…",
	} {
		if got := displayURL(in); got != want || strings.Contains(got, "SECRET") {
			t.Errorf("displayURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// dialTo is an HTTP client whose every connection goes to addr, whatever host a URL names.
func dialTo(addr string) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

// TestKeyOverPlainHTTP is issue 22 item 8: the API key was sent to any base URL, plain
// http to another host included. A client with a key refuses to send a request over plain
// http to another machine, before connecting, unless AllowHTTPKey is set; to this machine,
// or over https, or without a key, it sends.
func TestKeyOverPlainHTTP(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, textChunk("ok"), finishChunk("stop"), done)
	})
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	for _, tc := range []struct {
		name, base, key string
		allow           bool
		wantErr         string
	}{
		{"another machine", "http://model.example:" + port + "/v1", testKey, false,
			"invalid request for http://model.example:" + port + "/v1: the API key would go over plain http to another machine: use https, or allow it (Options.AllowHTTPKey)"},
		{"another machine, allowed", "http://model.example:" + port + "/v1", testKey, true, ""},
		{"another machine, no key", "http://model.example:" + port + "/v1", "", false, ""},
		{"this machine", srv.URL + "/v1", testKey, false, ""},
		{"localhost", "http://localhost:" + port + "/v1", testKey, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.count()
			c := New(Options{BaseURL: tc.base, APIKey: tc.key, AllowHTTPKey: tc.allow, HTTPClient: dialTo(strings.TrimPrefix(srv.URL, "http://"))})
			r, err := c.Stream(context.Background(), hello(), nil)
			if tc.wantErr != "" {
				if e := asError(t, err); e.Kind != KindRequest || err.Error() != tc.wantErr || srv.count() != before {
					t.Fatalf("got %v (kind %d), %d requests; want %q and none sent", err, e.Kind, srv.count()-before, tc.wantErr)
				}
				return
			}
			if err != nil || r.Text != "ok" {
				t.Fatalf("got %q, %v; want the reply", r.Text, err)
			}
			srv.mu.Lock()
			auth := srv.auth[len(srv.auth)-1]
			srv.mu.Unlock()
			if want := map[bool]string{true: "Bearer " + tc.key, false: ""}[tc.key != ""]; auth != want {
				t.Errorf("Authorization %q, want %q", auth, want)
			}
		})
	}
}
