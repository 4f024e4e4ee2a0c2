package config

import (
	"strings"
	"testing"
)

// TestCheckURL is issue 12 item 8: a base URL with port 99999 was taken, and failed at
// connect time (exit 1, as if the server were down). A URL that cannot be connected to is
// invalid input.
func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" for accepted
	}{
		{"http://127.0.0.1:11434/v1", ""},
		{"https://api.openai.com/v1", ""},
		{"http://[::1]:8080/v1", ""},
		{"http://localhost:1", ""},
		{"http://localhost:65535/v1", ""},
		{"http://127.0.0.1:99999/v1", `"http://127.0.0.1:99999/v1": port 99999 is out of range (1 to 65535)`},
		{"http://127.0.0.1:65536", `"http://127.0.0.1:65536": port 65536 is out of range (1 to 65535)`},
		{"http://127.0.0.1:0/v1", `"http://127.0.0.1:0/v1": port 0 is out of range (1 to 65535)`},
		{"http://[::1]:99999/v1", `"http://[::1]:99999/v1": port 99999 is out of range (1 to 65535)`},
		{"http://localhost:/v1", `"http://localhost:/v1": the port after the colon is missing`},
		{"http://:8080/v1", `"http://:8080/v1" has no host name`},
		{"http://host:-1/v1", `"http://host:-1/v1" is not an http(s) URL`},
		{"localhost:8080", `"localhost:8080" is not an http(s) URL`},
		{"ftp://x", `"ftp://x" is not an http(s) URL`},
		// Issue 22 item 8: a query was taken, sent in the path of every request and shown
		// whole in every error; a fragment silently posted to the URL without it.
		{"http://127.0.0.1:8080/v1?api-key=SECRET", `"http://127.0.0.1:8080/v1?…" has a query: a base URL cannot have one (a key goes in api_key_env, api_key_cmd or OPENAI_API_KEY)`},
		{"http://127.0.0.1:8080/v1?", `"http://127.0.0.1:8080/v1?…" has a query: a base URL cannot have one (a key goes in api_key_env, api_key_cmd or OPENAI_API_KEY)`},
		{"https://user:SECRET@host/v1?k=SECRET#SECRET", `"https://user:xxxxx@host/v1?…#…" has a query: a base URL cannot have one (a key goes in api_key_env, api_key_cmd or OPENAI_API_KEY)`},
		{"http://127.0.0.1:8080/v1#SECRET", `"http://127.0.0.1:8080/v1#…" has a fragment: a base URL cannot have one (the requests would go to "http://127.0.0.1:8080/v1")`},
		{"http://127.0.0.1:8080/v1#", `"http://127.0.0.1:8080/v1#…" has a fragment: a base URL cannot have one (the requests would go to "http://127.0.0.1:8080/v1")`},
		{"http://127.0.0.1:99999/v1#SECRET?x", `"http://127.0.0.1:99999/v1#…" has a fragment: a base URL cannot have one (the requests would go to "http://127.0.0.1:99999/v1")`},
		{"http://host:-1/v1?key=SECRET", `"http://host:-1/v1?…" is not an http(s) URL`},
		{"http://user:SECRET@host:-1/v1", `"http://host:-1/v1" is not an http(s) URL`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			err := checkURL(tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want it accepted", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("got %v, want %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "SECRET"):
				t.Fatalf("the error %q shows a secret of the URL", err)
			}
		})
	}
}
