package llm

import (
	"context"
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
