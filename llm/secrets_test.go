package llm

import (
	"context"
	"io"
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

// TestRedirects is issue 22 item 8: the Authorization header followed a 307 to another
// port of the same host. A redirect is followed only within the server's origin, and a
// POST only through 307 and 308; any other fails the request, saying where it led, and
// the other server is never asked, nor given the key.
func TestRedirects(t *testing.T) {
	other := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, textChunk("stolen"), finishChunk("stop"), done)
	})
	var target string // where srv redirects to, by test case
	var code int
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if strings.HasPrefix(r.URL.Path, "/moved/") {
			if r.Method == http.MethodGet {
				_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"m1","object":"model"}]}`)
				return
			}
			sse(w)
			send(w, textChunk("ok"), finishChunk("stop"), done)
			return
		}
		http.Redirect(w, r, strings.ReplaceAll(target, "PATH", r.URL.Path), code)
	})
	for _, tc := range []struct {
		name, target string
		code         int
		wantErr      string // "" for followed; TARGET is the target
	}{
		{"307 within the origin", srv.URL + "/movedPATH", http.StatusTemporaryRedirect, ""},
		{"308 within the origin", srv.URL + "/movedPATH", http.StatusPermanentRedirect, ""},
		{"307 to another port", other.URL + "/movedPATH?token=SECRET", http.StatusTemporaryRedirect,
			"request to " + srv.URL + "/v1 failed: the server redirected to TARGET (307 Temporary Redirect), another origin: ctxlab follows a redirect only within the server's origin, where the API key goes; set the base URL to the new address"},
		{"302 within the origin", srv.URL + "/movedPATH", http.StatusFound,
			"request to " + srv.URL + "/v1 failed: the server redirected to TARGET (302 Found): a POST is followed only through 307 and 308, which keep it whole; set the base URL to the new address"},
		{"a loop", srv.URL + "PATH", http.StatusTemporaryRedirect,
			"request to " + srv.URL + "/v1 failed: the server redirected more than 10 times"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, code = tc.target, tc.code
			before := other.count()
			c := New(Options{BaseURL: srv.URL + "/v1", APIKey: testKey, MaxRetries: -1})
			r, err := c.Stream(context.Background(), hello(), nil)
			shown := strings.ReplaceAll(strings.Replace(tc.target, "PATH", "/v1/chat/completions", 1), "?token=SECRET", "?…")
			want := strings.ReplaceAll(tc.wantErr, "TARGET", shown)
			switch {
			case want == "" && (err != nil || r.Text != "ok"):
				t.Fatalf("got %q, %v; want the reply through the redirect", r.Text, err)
			case want != "" && (err == nil || err.Error() != want):
				t.Fatalf("got %v, want %q", err, want)
			case err != nil && strings.Contains(err.Error(), "SECRET"):
				t.Fatalf("the error %q shows the redirect's query", err)
			}
			if n := other.count() - before; n != 0 {
				t.Errorf("the other origin received %d requests, want none", n)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			for i, a := range srv.auth {
				if a != "Bearer "+testKey {
					t.Errorf("request %d within the origin: Authorization %q, want the key", i, a)
				}
			}
		})
	}
	// The model list (a GET) follows a 301 within the origin, not to another.
	target, code = srv.URL+"/movedPATH", http.StatusMovedPermanently
	if ids, err := New(Options{BaseURL: srv.URL + "/v1", APIKey: testKey}).Models(context.Background()); err != nil || len(ids) != 1 {
		t.Errorf("Models through a 301: got %v, %v; want [m1]", ids, err)
	}
	target = other.URL + "/movedPATH"
	before := other.count()
	if _, err := New(Options{BaseURL: srv.URL + "/v1", APIKey: testKey, MaxRetries: -1}).Models(context.Background()); err == nil || other.count() != before {
		t.Errorf("Models through a 301 to another origin: got %v, %d requests there; want an error and none", err, other.count()-before)
	}
}
