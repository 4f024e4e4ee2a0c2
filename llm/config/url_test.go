package config

import (
	"errors"
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

// TestKeyOverPlainHTTP is issue 22 item 8: the API key was sent to any base URL, plain
// http to another host included. It goes over plain http only to this machine, unless
// --allow-http-key or the profile's allow_http_key allows it; a base URL of plain http
// to another host with a key is invalid input naming where both came from.
func TestKeyOverPlainHTTP(t *testing.T) {
	const refused = `flag --base-url: "http://192.168.1.10:11434/v1" is plain http to another machine: the API key (env OPENAI_API_KEY) would cross the network unencrypted; use https, or allow it with --allow-http-key (or allow_http_key: true in the config profile)`
	const profile = "profiles:\n  lan:\n    base_url: http://ollama.lan:11434/v1\n    api_key_env: LAN_KEY\n    allow_http_key: true\n  strict:\n    base_url: http://ollama.lan:11434/v1\n    api_key_env: LAN_KEY\n"
	key := env{"OPENAI_API_KEY": "sk-env-000000000000aaaa", "LAN_KEY": "sk-lan-000000000000bbbb"}
	for _, tc := range []struct {
		name    string
		config  string
		flags   Flags
		env     env
		offline bool
		want    string // the error, "" for none
		allowed string // the source of AllowHTTPKey, "" when not set
	}{
		{"loopback address", "", Flags{BaseURL: "http://127.0.0.1:11434/v1"}, key, false, "", ""},
		{"another loopback address", "", Flags{BaseURL: "http://127.1.2.3:8080/v1"}, key, false, "", ""},
		{"localhost", "", Flags{BaseURL: "http://LocalHost:8080/v1"}, key, false, "", ""},
		{"IPv6 loopback", "", Flags{BaseURL: "http://[::1]:8080/v1"}, key, false, "", ""},
		{"https to another host", "", Flags{BaseURL: "https://192.168.1.10:11434/v1"}, key, false, "", ""},
		{"plain http to another host without a key", "", Flags{BaseURL: "http://192.168.1.10:11434/v1"}, nil, false, "", ""},
		{"plain http to another host with a key", "", Flags{BaseURL: "http://192.168.1.10:11434/v1"}, key, false, refused, ""},
		{"a name that only resolves to this machine", "", Flags{BaseURL: "http://127.0.0.1.nip.io/v1"}, key, false,
			`flag --base-url: "http://127.0.0.1.nip.io/v1" is plain http to another machine: the API key (env OPENAI_API_KEY) would cross the network unencrypted; use https, or allow it with --allow-http-key (or allow_http_key: true in the config profile)`, ""},
		{"allowed by the flag", "", Flags{BaseURL: "http://192.168.1.10:11434/v1", AllowHTTPKey: true}, key, false, "", "flag --allow-http-key"},
		{"offline, nothing is sent", "", Flags{BaseURL: "http://192.168.1.10:11434/v1"}, key, true, "", ""},
		{"allowed by the profile", profile, Flags{Profile: "lan"}, key, false, "", "config ~/.config/ctxlab/config.yaml profile lan"},
		{"a profile that does not allow it", profile, Flags{Profile: "strict"}, key, false,
			`config ~/.config/ctxlab/config.yaml profile strict: "http://ollama.lan:11434/v1" is plain http to another machine: the API key (config ~/.config/ctxlab/config.yaml profile strict api_key_env LAN_KEY) would cross the network unencrypted; use https, or allow it with --allow-http-key (or allow_http_key: true in the config profile)`, ""},
		{"a profile's permission is not another server's", profile, Flags{Profile: "lan", BaseURL: "http://192.168.1.10:11434/v1"}, key, false, refused, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := setup(t, tc.config, tc.env)
			in.Flags, in.Offline = tc.flags, tc.offline
			s, err := Resolve(in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want it accepted", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("got %v, want %q", err, tc.want)
			case tc.want != "":
				var se *SettingError
				if !errors.As(err, &se) {
					t.Errorf("got %T, want a *SettingError (invalid input)", err)
				}
				return
			}
			if s.AllowHTTPKey.Source != tc.allowed || s.AllowHTTPKey.Value != (tc.allowed != "") {
				t.Errorf("AllowHTTPKey %v from %q, want from %q", s.AllowHTTPKey.Value, s.AllowHTTPKey.Source, tc.allowed)
			}
		})
	}
	_, err := Parse("cfg.yaml", []byte("profiles:\n  p:\n    allow_http_key: yes please\n"))
	if want := "cfg.yaml:3:21: profile p: allow_http_key must be true or false, found a string"; err == nil || err.Error() != want {
		t.Errorf("a non-boolean allow_http_key: got %v, want %q", err, want)
	}
}
