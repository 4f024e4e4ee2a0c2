package config

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/llm/tokens"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const fullConfig = `default_profile: local
profiles:
  local:
    base_url: http://127.0.0.1:11434/v1
    model: llama3.1
    api_key_env: LOCAL_KEY
    temperature: 0.3
    top_p: 0.9
    max_tokens: 512
    seed: 7
    tokenizer: o200k
    prices:
      llama3.1: {input: 0.1, output: 0.2}
  other:
    model: gpt-4o-mini
    api_key_cmd: echo sk-other-0123456789wxyz
`

// env is a fake environment.
type env map[string]string

func (e env) lookup(k string) (string, bool) { v, ok := e[k]; return v, ok }

// setup returns Inputs reading a fake environment (HOME is a temporary directory) and,
// when config is not empty, a config file at its default place ~/.config/ctxlab/config.yaml.
func setup(t *testing.T, config string, e env) Inputs {
	t.Helper()
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config")
	if config != "" {
		if err := os.MkdirAll(filepath.Join(cfgDir, "ctxlab"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cfgDir, "ctxlab", "config.yaml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	all := env{"HOME": home}
	for k, v := range e {
		all[k] = v
	}
	return Inputs{
		LookupEnv:     all.lookup,
		UserConfigDir: func() (string, error) { return cfgDir, nil },
		KeyCmdTimeout: 2 * time.Second,
	}
}

func f64(v float64) *float64 { return &v }
func intp(v int) *int        { return &v }

// summary renders every setting as "value @ source" for comparison.
func summary(s Settings) map[string]string {
	fl := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	seed := "-"
	if s.Seed.Value != nil {
		seed = fmt.Sprint(*s.Seed.Value)
	}
	return map[string]string{
		"model":       s.ModelName() + " @ " + s.Model.Source,
		"base_url":    s.BaseURL.Value + " @ " + s.BaseURL.Source,
		"api_key":     s.APIKey.Value.Reveal() + " @ " + s.APIKey.Source,
		"temperature": fl(s.Temperature.Value) + " @ " + s.Temperature.Source,
		"top_p":       fl(s.TopP.Value) + " @ " + s.TopP.Source,
		"max_tokens":  fmt.Sprint(s.MaxTokens.Value) + " @ " + s.MaxTokens.Source,
		"seed":        seed + " @ " + s.Seed.Source,
		"tokenizer":   string(s.Tokenizer.Value) + " @ " + s.Tokenizer.Source,
		"profile":     s.Profile.Value + " @ " + s.Profile.Source,
		"configured":  fmt.Sprint(s.Configured()),
	}
}

func TestResolvePrecedence(t *testing.T) {
	const cfg = "config ~/.config/ctxlab/config.yaml profile local"
	ctxModel := ContextModel{Name: "gpt-4o", Temperature: f64(0.7), TopP: f64(0.5), MaxTokens: 99, Seed: intp(1)}
	allEnv := env{"OPENAI_API_KEY": "sk-env-000000000000aaaa", "OPENAI_BASE_URL": "https://env.example/v1", "OPENAI_MODEL": "gpt-env",
		"LOCAL_KEY": "sk-local-00000000000bbbb", "FLAG_KEY": "sk-flag-000000000000cccc"}
	allFlags := Flags{Model: "gpt-flag", BaseURL: "https://flag.example/v1", APIKeyEnv: "FLAG_KEY"}
	tests := []struct {
		name   string
		config string
		env    env
		flags  Flags
		ctx    ContextModel
		want   map[string]string // only the fields to check
	}{
		{
			name: "flags first", config: fullConfig, env: allEnv, flags: allFlags, ctx: ctxModel,
			want: map[string]string{
				"model":       "gpt-flag @ flag --model",
				"base_url":    "https://flag.example/v1 @ flag --base-url",
				"api_key":     "sk-flag-000000000000cccc @ flag --api-key-env FLAG_KEY",
				"temperature": "0.3 @ " + cfg,
				"top_p":       "0.9 @ " + cfg,
				"max_tokens":  "512 @ " + cfg,
				"seed":        "7 @ " + cfg,
				"tokenizer":   "o200k_base @ " + cfg,
				"profile":     "local @ config ~/.config/ctxlab/config.yaml default_profile",
				"configured":  "true",
			},
		},
		{
			name: "environment second", config: fullConfig, env: allEnv, ctx: ctxModel,
			want: map[string]string{
				"model":    "gpt-env @ env OPENAI_MODEL",
				"base_url": "https://env.example/v1 @ env OPENAI_BASE_URL",
				"api_key":  "sk-env-000000000000aaaa @ env OPENAI_API_KEY",
			},
		},
		{
			name: "config file third", config: fullConfig, env: env{"LOCAL_KEY": "sk-local-00000000000bbbb"}, ctx: ctxModel,
			want: map[string]string{
				"model":    "llama3.1 @ " + cfg,
				"base_url": "http://127.0.0.1:11434/v1 @ " + cfg,
				"api_key":  "sk-local-00000000000bbbb @ " + cfg + " api_key_env LOCAL_KEY",
			},
		},
		{
			name: "context file last", ctx: ctxModel,
			want: map[string]string{
				"model":       "gpt-4o @ context file support.ctx.yaml",
				"base_url":    " @ ",
				"api_key":     " @ ",
				"temperature": "0.7 @ context file support.ctx.yaml",
				"top_p":       "0.5 @ context file support.ctx.yaml",
				"max_tokens":  "99 @ context file support.ctx.yaml",
				"seed":        "1 @ context file support.ctx.yaml",
				"tokenizer":   "o200k_base @ default (by model name)",
				"profile":     " @ ",
				"configured":  "false",
			},
		},
		{
			name: "nothing",
			want: map[string]string{
				"model":       "scripted @ ",
				"temperature": "- @ ",
				"max_tokens":  "0 @ ",
				"tokenizer":   "cl100k_base @ default (by model name)",
				"configured":  "false",
			},
		},
		{
			name: "a model name alone is not configured", flags: Flags{Model: "gpt-4o"},
			want: map[string]string{"model": "gpt-4o @ flag --model", "configured": "false"},
		},
		{
			name: "a base URL alone is configured", env: env{"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"},
			want: map[string]string{"configured": "true", "model": "scripted @ "},
		},
		{
			name: "flag --profile over default_profile", config: fullConfig, flags: Flags{Profile: "other"}, ctx: ctxModel,
			want: map[string]string{
				"model":       "gpt-4o-mini @ config ~/.config/ctxlab/config.yaml profile other",
				"api_key":     "sk-other-0123456789wxyz @ config ~/.config/ctxlab/config.yaml profile other api_key_cmd",
				"temperature": "0.7 @ context file support.ctx.yaml",
				"tokenizer":   "o200k_base @ default (by model name)",
				"profile":     "other @ flag --profile",
			},
		},
		{
			name: "the only profile", config: "profiles: {solo: {model: qwen3, base_url: 'http://h:1/v1'}}",
			want: map[string]string{
				"model":   "qwen3 @ config ~/.config/ctxlab/config.yaml profile solo",
				"profile": "solo @ config ~/.config/ctxlab/config.yaml (its only profile)",
			},
		},
		{
			name: "several profiles and no default", config: "profiles: {a: {model: m1}, b: {model: m2}}", ctx: ctxModel,
			want: map[string]string{"model": "gpt-4o @ context file support.ctx.yaml", "profile": " @ "},
		},
		{
			name: "the profile's key goes with its base URL, not env OPENAI_API_KEY", config: fullConfig,
			env:  env{"OPENAI_API_KEY": "sk-env-000000000000aaaa", "LOCAL_KEY": "sk-local-00000000000bbbb"},
			want: map[string]string{"api_key": "sk-local-00000000000bbbb @ " + cfg + " api_key_env LOCAL_KEY"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := setup(t, tt.config, tt.env)
			in.Flags, in.Context, in.ContextFile = tt.flags, tt.ctx, "support.ctx.yaml"
			s, err := Resolve(in)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			got := summary(s)
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s = %q, want %q", k, got[k], want)
				}
			}
		})
	}
}

// TestResolveKeyWithBaseURL checks that the key goes with the base URL: a profile's server
// gets the key the profile names, or none, never $OPENAI_API_KEY, which is meant for
// another server; --api-key-env wins over both.
func TestResolveKeyWithBaseURL(t *testing.T) {
	const config = `profiles:
  router:
    base_url: https://openrouter.ai/api/v1
    api_key_env: ROUTER_KEY
  routercmd:
    base_url: https://openrouter.ai/api/v1
    api_key_cmd: echo sk-or-cmd-0123456789abcd
  local:
    base_url: http://127.0.0.1:11434/v1
  openai:
    api_key_env: OPENAI_API_KEY
    model: gpt-4o-mini
`
	const src = "config ~/.config/ctxlab/config.yaml profile "
	keys := env{"OPENAI_API_KEY": "sk-openai-0000000000aaaa", "ROUTER_KEY": "sk-or-000000000000bbbb", "MY_KEY": "sk-mine-00000000000cccc"}
	tests := []struct {
		name         string
		env          env
		flags        Flags
		key, baseURL string // "value @ source"
	}{
		{"the profile's server gets the profile's key", nil, Flags{Profile: "router"},
			"sk-or-000000000000bbbb @ " + src + "router api_key_env ROUTER_KEY", "https://openrouter.ai/api/v1 @ " + src + "router"},
		{"the profile's key command too", nil, Flags{Profile: "routercmd"},
			"sk-or-cmd-0123456789abcd @ " + src + "routercmd api_key_cmd", "https://openrouter.ai/api/v1 @ " + src + "routercmd"},
		{"flag --api-key-env over the profile's key", nil, Flags{Profile: "router", APIKeyEnv: "MY_KEY"},
			"sk-mine-00000000000cccc @ flag --api-key-env MY_KEY", "https://openrouter.ai/api/v1 @ " + src + "router"},
		{"a base URL from a flag takes the environment's key", nil, Flags{Profile: "router", BaseURL: "http://127.0.0.1:8080/v1"},
			"sk-openai-0000000000aaaa @ env OPENAI_API_KEY", "http://127.0.0.1:8080/v1 @ flag --base-url"},
		{"a base URL from the environment takes the environment's key", env{"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}, Flags{Profile: "router"},
			"sk-openai-0000000000aaaa @ env OPENAI_API_KEY", "http://127.0.0.1:8080/v1 @ env OPENAI_BASE_URL"},
		{"a profile's server that names no key gets none", nil, Flags{Profile: "local"},
			" @ ", "http://127.0.0.1:11434/v1 @ " + src + "local"},
		{"a profile without a base URL: the environment's key first", nil, Flags{Profile: "openai"},
			"sk-openai-0000000000aaaa @ env OPENAI_API_KEY", " @ "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env{}
			for _, m := range []env{keys, tt.env} {
				for k, v := range m {
					e[k] = v
				}
			}
			in := setup(t, config, e)
			in.Flags = tt.flags
			s, err := Resolve(in)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			got := summary(s)
			if got["api_key"] != tt.key || got["base_url"] != tt.baseURL {
				t.Errorf("got key %q, base URL %q; want %q, %q", got["api_key"], got["base_url"], tt.key, tt.baseURL)
			}
			var lines []string
			for _, l := range s.Lines() {
				lines = append(lines, l.Key+" "+l.Source)
			}
			if want := "api_key " + strings.SplitN(tt.key, " @ ", 2)[1]; !slices.Contains(lines, want) {
				t.Errorf("ctxlab config shows %q, want %q", lines, want)
			}
		})
	}
}

// TestResolveTimeouts checks the client's timeouts: flags, then the profile, then llm's
// defaults, each shown by ctxlab config with its source.
func TestResolveTimeouts(t *testing.T) {
	const config = "profiles:\n  other: {model: m}\n  slow:\n    base_url: http://127.0.0.1:8080/v1\n    connect_timeout: 3s\n    first_token_timeout: 5m\n    idle_timeout: 90s\n"
	const src = "config ~/.config/ctxlab/config.yaml profile slow"
	tests := []struct {
		name  string
		flags Flags
		want  map[string]string // key: "value @ source" as ctxlab config shows it
	}{
		{"defaults", Flags{BaseURL: "http://h/v1"}, map[string]string{
			"connect_timeout": "10s @ default", "first_token_timeout": "1m @ default", "idle_timeout": "30s @ default"}},
		{"the profile's", Flags{Profile: "slow"}, map[string]string{
			"connect_timeout": "3s @ " + src, "first_token_timeout": "5m @ " + src, "idle_timeout": "1m30s @ " + src}},
		{"flags over the profile", Flags{Profile: "slow", FirstTokenTimeout: 10 * time.Minute, IdleTimeout: 2 * time.Hour}, map[string]string{
			"connect_timeout": "3s @ " + src, "first_token_timeout": "10m @ flag --first-token-timeout", "idle_timeout": "2h @ flag --idle-timeout"}},
		{"a flag alone", Flags{ConnectTimeout: 1500 * time.Millisecond}, map[string]string{
			"connect_timeout": "1.5s @ flag --connect-timeout", "idle_timeout": "30s @ default"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := setup(t, config, nil)
			in.Flags = tt.flags
			s, err := Resolve(in)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			got := map[string]string{}
			for _, l := range s.Lines() {
				got[l.Key] = l.Value + " @ " + l.Source
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s = %q, want %q", k, got[k], want)
				}
			}
		})
	}
	in := setup(t, config, nil)
	in.Flags = Flags{IdleTimeout: -time.Second}
	_, err := Resolve(in)
	if _, ok := err.(*SettingError); !ok || err.Error() != "flag --idle-timeout must be a positive duration, found -1s" {
		t.Errorf("got %v, want a SettingError for the negative flag", err)
	}
}

// TestBaseURLPasswordMasked checks that ctxlab config never prints a password written in
// the base URL, wherever the URL came from.
func TestBaseURLPasswordMasked(t *testing.T) {
	tests := []struct {
		name   string
		config string
		env    env
		flags  Flags
		want   string
	}{
		{"flag", "", nil, Flags{BaseURL: "http://user:s3cret-pass@127.0.0.1:8080/v1"}, "http://user:xxxxx@127.0.0.1:8080/v1"},
		{"environment", "", env{"OPENAI_BASE_URL": "https://bob:s3cret-pass@proxy.example/v1"}, Flags{}, "https://bob:xxxxx@proxy.example/v1"},
		{"profile", "profiles: {p: {base_url: 'http://u:s3cret-pass@h:1/v1'}}", nil, Flags{}, "http://u:xxxxx@h:1/v1"},
		{"no password", "", nil, Flags{BaseURL: "http://user@127.0.0.1:8080/v1"}, "http://user@127.0.0.1:8080/v1"},
		{"no user information", "", nil, Flags{BaseURL: "http://127.0.0.1:8080/v1"}, "http://127.0.0.1:8080/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := setup(t, tt.config, tt.env)
			in.Flags = tt.flags
			s, err := Resolve(in)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			var got string
			for _, l := range s.Lines() {
				if l.Key == "base_url" {
					got = l.Value
				}
			}
			if got != tt.want {
				t.Errorf("base_url shown %q, want %q", got, tt.want)
			}
			if out := s.Describe(); strings.Contains(out, "s3cret") {
				t.Errorf("ctxlab config prints the password:\n%s", out)
			}
			if s.Endpoint() == tt.want && strings.Contains(tt.want, "xxxxx") {
				t.Errorf("Endpoint %q lost the password the client needs", s.Endpoint())
			}
		})
	}
	in := setup(t, "", nil)
	in.Flags = Flags{BaseURL: "ftp://user:s3cret-pass@h/v1"}
	if _, err := Resolve(in); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("got %v, want an error that does not print the password", err)
	}
}

func TestResolveConfigPath(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	os.WriteFile(a, []byte("profiles: {p: {model: from-a}}"), 0o600)
	os.WriteFile(b, []byte("profiles: {p: {model: from-b}}"), 0o600)
	tests := []struct {
		name  string
		env   env
		flag  string
		want  string
		isErr string
	}{
		{name: "CTXLAB_CONFIG", env: env{"CTXLAB_CONFIG": a}, want: "from-a"},
		{name: "--config over CTXLAB_CONFIG", env: env{"CTXLAB_CONFIG": a}, flag: b, want: "from-b"},
		{name: "missing default file is no config", want: "scripted"},
		{name: "missing named file", env: env{"CTXLAB_CONFIG": filepath.Join(dir, "nope.yaml")}, isErr: "env CTXLAB_CONFIG: config file: open "},
		{name: "missing --config file", flag: filepath.Join(dir, "nope.yaml"), isErr: "flag --config: config file: open "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := setup(t, "", tt.env)
			in.Flags.Config = tt.flag
			s, err := Resolve(in)
			if tt.isErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.isErr) {
					t.Fatalf("Resolve error = %v, want prefix %q", err, tt.isErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if s.ModelName() != tt.want {
				t.Errorf("model = %q, want %q", s.ModelName(), tt.want)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		env     env
		flags   Flags
		offline bool
		want    string // the error, with the temporary home replaced by ~
	}{
		{name: "unknown profile", config: fullConfig, flags: Flags{Profile: "locl"},
			want: `~/.config/ctxlab/config.yaml: flag --profile: no profile "locl"; did you mean local?`},
		{name: "profile without config", flags: Flags{Profile: "local"},
			want: "flag --profile local: there is no config file"},
		{name: "bad flag base URL", flags: Flags{BaseURL: "localhost:8080"},
			want: `flag --base-url: "localhost:8080" is not an http(s) URL`},
		{name: "bad env base URL", env: env{"OPENAI_BASE_URL": "ftp://x"},
			want: `env OPENAI_BASE_URL: "ftp://x" is not an http(s) URL`},
		{name: "flag key variable not set", flags: Flags{APIKeyEnv: "NOPE"},
			want: "flag --api-key-env: environment variable NOPE is not set"},
		{name: "profile key variable not set", config: fullConfig,
			want: "config ~/.config/ctxlab/config.yaml profile local: api_key_env: environment variable LOCAL_KEY is not set"},
		{name: "invalid config file", config: "profiles:\n  local:\n    modle: x\n",
			want: `~/.config/ctxlab/config.yaml:3:5: unknown key "modle" in profile local; did you mean model?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := setup(t, tt.config, tt.env)
			in.Flags, in.Offline = tt.flags, tt.offline
			_, err := Resolve(in)
			if err == nil {
				t.Fatalf("Resolve succeeded, want error %q", tt.want)
			}
			home, _ := in.LookupEnv("HOME")
			if got := strings.ReplaceAll(err.Error(), home, "~"); got != tt.want {
				t.Errorf("error = %q\nwant    %q", got, tt.want)
			}
		})
	}
	// Offline, a key variable that is not set is no error, and api_key_cmd does not run.
	in := setup(t, fullConfig, nil)
	in.Offline = true
	s, err := Resolve(in)
	if err != nil || s.APIKey.Value != "" {
		t.Errorf("offline Resolve = key %q, error %v; want no key, no error", s.APIKey.Value.Reveal(), err)
	}
	in = setup(t, "profiles: {p: {api_key_cmd: 'exit 3'}}", nil)
	in.Offline = true
	s, err = Resolve(in)
	if err != nil || !s.Configured() || s.APIKey.Value != "" {
		t.Errorf("offline api_key_cmd: configured %v, key %q, error %v; want configured, no key, no error", s.Configured(), s.APIKey.Value.Reveal(), err)
	}
}

func TestKeyCmd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	tests := []struct {
		name    string
		cmd     string
		want    string
		wantErr string
	}{
		{name: "success", cmd: "echo '  sk-cmd-0000000000001234  '", want: "sk-cmd-0000000000001234"},
		{name: "first line", cmd: "printf 'sk-first-line-00000000\\nlogin: me\\n'", want: "sk-first-line-00000000"},
		{name: "failure gives the exit status, not the command nor its output",
			cmd:     "echo sk-leaked-000000000000; echo 'gpg: sk-leaked-000000000000 decryption failed' >&2; exit 2",
			wantErr: `the command failed with exit status 2 (its output is not shown: it may hold the key)`},
		{name: "killed", cmd: "kill -9 $$", wantErr: `the command failed with signal: killed (its output is not shown: it may hold the key)`},
		{name: "no output", cmd: "true", wantErr: `the command printed no key`},
		{name: "timeout", cmd: "sleep 5", wantErr: `the command timed out after 300ms`},
		{name: "endless output", cmd: "yes sk-leaked-000000000000", wantErr: `the command printed more than 64 KiB; it must print the key only`},
		{name: "endless output without a line break", cmd: "cat /dev/zero", wantErr: `the command printed more than 64 KiB; it must print the key only`},
		{name: "output just under the cap", cmd: "printf 'sk-cap-000000000000\\n'; head -c 65000 /dev/zero", want: "sk-cap-000000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, err := runKeyCmd(t.Context(), tt.cmd, 300*time.Millisecond)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("runKeyCmd took %s, want it bounded by the timeout", d)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "sk-leaked") || strings.Contains(err.Error(), tt.cmd) {
					t.Errorf("error %q shows the command or its output", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("runKeyCmd = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// Through Resolve, the error names the profile.
	in := setup(t, "profiles: {p: {api_key_cmd: 'echo sk-leaked-000000000000 >&2; exit 1'}}", nil)
	_, err := Resolve(in)
	want := "config ~/.config/ctxlab/config.yaml profile p api_key_cmd: the command failed with exit status 1 (its output is not shown: it may hold the key)"
	if err == nil || err.Error() != want {
		t.Errorf("Resolve error = %v, want %q", err, want)
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ key, want string }{
		{"", ""},
		{"short", "***"},
		{"sk-proj-abcdefghijklmnop1234", "sk-…1234"},
		{"sk-abcdefghijklmnopqrstuvwxyzWXYZ", "sk-…WXYZ"},
		{"ghp_abcdefghijklmnop9876", "…9876"},
		{"abcdefghijk-lmnop", "…mnop"},
	}
	for _, tt := range tests {
		if got := Mask(tt.key); got != tt.want {
			t.Errorf("Mask(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// The key never shows, whatever prints the settings.
func TestSecretNeverPrinted(t *testing.T) {
	const key = "sk-secret-0123456789abcdefWXYZ"
	in := setup(t, "", env{"OPENAI_API_KEY": key})
	s, err := Resolve(in)
	if err != nil {
		t.Fatal(err)
	}
	if s.APIKey.Value.Reveal() != key {
		t.Fatalf("Reveal = %q, want the key", s.APIKey.Value.Reveal())
	}
	js, _ := json.Marshal(s)
	outputs := map[string]string{
		"%v": fmt.Sprintf("%v", s), "%+v": fmt.Sprintf("%+v", s), "%#v": fmt.Sprintf("%#v", s),
		"%s": fmt.Sprintf("%s", s.APIKey.Value), "%q": fmt.Sprintf("%q", s.APIKey.Value),
		"%x": fmt.Sprintf("%x", s.APIKey.Value), "%d": fmt.Sprintf("%d", s.APIKey.Value),
		"json": string(js), "Describe": s.Describe(),
	}
	for how, out := range outputs {
		if strings.Contains(out, "0123456789") || strings.Contains(out, fmt.Sprintf("%x", key)) {
			t.Errorf("%s shows the key: %s", how, out)
		}
		if how != "%x" && how != "%d" && !strings.Contains(out, "sk-…WXYZ") {
			t.Errorf("%s does not show the masked key: %s", how, out)
		}
	}
}

func TestDescribeGolden(t *testing.T) {
	var b strings.Builder
	cases := []struct {
		name   string
		config string
		env    env
		flags  Flags
		ctx    ContextModel
	}{
		{name: "openai key from the environment, context file model",
			env: env{"OPENAI_API_KEY": "sk-proj-abcdefghijklmnopqrstuv1234"},
			ctx: ContextModel{Name: "gpt-4o-mini", Temperature: f64(0.2), MaxTokens: 1024}},
		{name: "local profile", config: fullConfig, env: env{"LOCAL_KEY": "ollama-local-key-5678"},
			ctx: ContextModel{Name: "gpt-4o-mini", Temperature: f64(0.2), MaxTokens: 1024}},
		{name: "flags over a profile", config: fullConfig, env: env{"MY_KEY": "sk-flag-abcdefghijklmnop9999"},
			flags: Flags{Model: "o4-mini", BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "MY_KEY", Profile: "other"}},
		{name: "nothing configured"},
		{name: "a server without a model name", flags: Flags{BaseURL: "http://127.0.0.1:8080/v1"}},
		{name: "timeouts from a profile and a flag", config: "profiles:\n  slow:\n    base_url: http://127.0.0.1:8080/v1\n    first_token_timeout: 5m\n    idle_timeout: 90s\n",
			flags: Flags{IdleTimeout: 2 * time.Minute}},
	}
	for _, c := range cases {
		in := setup(t, c.config, c.env)
		in.Flags, in.Context, in.ContextFile = c.flags, c.ctx, "support.ctx.yaml"
		s, err := Resolve(in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fmt.Fprintf(&b, "## %s\n%s\n", c.name, s.Describe())
	}
	got := b.String()
	path := filepath.Join("testdata", "describe.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("Describe output differs from %s (go test -update to accept):\n%s", path, got)
	}
}

func TestSettingsHelpers(t *testing.T) {
	in := setup(t, fullConfig, env{"LOCAL_KEY": "sk-local-00000000000bbbb"})
	s, err := Resolve(in)
	if err != nil {
		t.Fatal(err)
	}
	var req chat.Request
	s.Apply(&req)
	if req.Model != "llama3.1" || req.Temperature == nil || *req.Temperature != 0.3 || req.MaxTokens != 512 || req.Seed == nil || *req.Seed != 7 {
		t.Errorf("Apply: request = %+v, want the profile's model and parameters", req)
	}
	u := chat.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000}
	if usd, known := s.Cost(u); !known || usd < 0.2999 || usd > 0.3001 {
		t.Errorf("Cost = %v, %v; want 0.30 from the profile's price", usd, known)
	}
	if p := s.PriceOverride("gpt-4o"); p != nil {
		t.Errorf("PriceOverride(gpt-4o) = %+v, want nil", p)
	}
	if got := s.Counter().Encoding(); got != tokens.O200k {
		t.Errorf("Counter encoding = %s, want o200k_base (the profile's tokenizer)", got)
	}
	if s.Endpoint() != "http://127.0.0.1:11434/v1" {
		t.Errorf("Endpoint = %q", s.Endpoint())
	}
	s2, _ := Resolve(setup(t, "", env{"OPENAI_API_KEY": "sk-env-000000000000aaaa"}))
	if s2.Endpoint() != DefaultBaseURL {
		t.Errorf("Endpoint with a key only = %q, want %q", s2.Endpoint(), DefaultBaseURL)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top key", "defaults: {}\n",
			`cfg.yaml:1:1: unknown key "defaults" in the config file; did you mean default_profile?`},
		{"unknown profile key", "profiles:\n  p:\n    temprature: 1\n",
			`cfg.yaml:3:5: unknown key "temprature" in profile p; did you mean temperature?`},
		{"api key in the file", "profiles:\n  p:\n    api_key: sk-123\n",
			`cfg.yaml:3:5: unknown key "api_key" in profile p: the key is never written in the config file; name its environment variable with api_key_env, or a command that prints it with api_key_cmd`},
		{"wrong type", "profiles:\n  p:\n    temperature: hot\n",
			`cfg.yaml:3:18: profile p: temperature must be a number, found a string`},
		{"out of range", "profiles:\n  p:\n    top_p: 1.5\n",
			`cfg.yaml:3:12: profile p: top_p must be between 0 and 1, found 1.5`},
		{"max_tokens", "profiles:\n  p:\n    max_tokens: 0\n",
			`cfg.yaml:3:17: profile p: max_tokens must be a positive integer, found 0`},
		{"seed float", "profiles:\n  p:\n    seed: 1.5\n",
			`cfg.yaml:3:11: profile p: seed must be an integer, found a number`},
		{"model list", "profiles:\n  p:\n    model: [a, b]\n",
			`cfg.yaml:3:12: profile p: model must be a string, found a list`},
		{"bad url", "profiles:\n  p:\n    base_url: localhost:11434\n",
			`cfg.yaml:3:15: profile p: base_url: "localhost:11434" is not an http(s) URL`},
		{"bad env name", "profiles:\n  p:\n    api_key_env: $OPENAI_KEY\n",
			`cfg.yaml:3:18: profile p: api_key_env: "$OPENAI_KEY" is not an environment variable name`},
		{"both key sources", "profiles:\n  p:\n    api_key_env: K\n    api_key_cmd: pass show k\n",
			`cfg.yaml:4:18: profile p: api_key_env and api_key_cmd are exclusive: keep one`},
		{"tokenizer", "profiles:\n  p:\n    tokenizer: p50k\n",
			`cfg.yaml:3:16: profile p: tokenizer: unknown tokenizer "p50k" (want o200k or cl100k)`},
		{"price type", "profiles:\n  p:\n    prices:\n      m: {input: cheap, output: 1}\n",
			`cfg.yaml:4:18: profile p: prices: m: input must be a number, found a string`},
		{"price missing output", "profiles:\n  p:\n    prices:\n      m: {input: 1}\n",
			`cfg.yaml:4:10: profile p: prices: m: output price is missing`},
		{"negative price", "profiles:\n  p:\n    prices:\n      m: {input: -1, output: 1}\n",
			`cfg.yaml:4:18: profile p: prices: m: input must not be negative, found -1`},
		{"unknown default", "default_profile: lcoal\nprofiles: {local: {}}\n",
			`cfg.yaml:1:18: default_profile "lcoal" names no profile; did you mean local?`},
		{"duplicate key", "profiles:\n  p: {}\n  p: {}\n",
			`cfg.yaml:3:3: profiles: duplicate key "p" (first at line 2)`},
		{"profiles not a mapping", "profiles: [a]\n",
			`cfg.yaml:1:11: profiles must be a mapping, found a list`},
		{"merge key", "profiles:\n  <<: {p: {}}\n",
			`cfg.yaml:2:3: profiles: keys must be plain names, found a !!merge value`},
		{"number as a string", "profiles: {p: {model: 4}}\n",
			`cfg.yaml:1:23: profile p: model must be a string, found an integer`},
		{"default and no profiles", "default_profile: x\n",
			`cfg.yaml:1:18: default_profile "x" names no profile (the file has no profiles)`},
		{"syntax", "profiles:\n  p: {model: x\n",
			"cfg.yaml:2:"},
		{"two documents", "profiles: {}\n---\nprofiles: {}\n",
			"cfg.yaml:2:1: expected one YAML document, found a second one"},
		{"timeout without a unit", "profiles:\n  p:\n    idle_timeout: 90\n",
			`cfg.yaml:3:19: profile p: idle_timeout must be a positive duration like 90s or 2m, found 90`},
		{"timeout not a duration", "profiles:\n  p:\n    first_token_timeout: ten minutes\n",
			`cfg.yaml:3:26: profile p: first_token_timeout must be a positive duration like 90s or 2m, found ten minutes`},
		{"zero timeout", "profiles:\n  p:\n    connect_timeout: 0s\n",
			`cfg.yaml:3:22: profile p: connect_timeout must be a positive duration like 90s or 2m, found 0s`},
		{"negative timeout", "profiles:\n  p:\n    connect_timeout: -5s\n",
			`cfg.yaml:3:22: profile p: connect_timeout must be a positive duration like 90s or 2m, found -5s`},
		{"timeout list", "profiles:\n  p:\n    idle_timeout: [1s]\n",
			`cfg.yaml:3:19: profile p: idle_timeout must be a positive duration like 90s or 2m, found a list`},
		{"several problems", "profiles:\n  p:\n    seed: x\n    top_p: 2\n",
			"cfg.yaml:3:11: profile p: seed must be an integer, found a string\ncfg.yaml:4:12: profile p: top_p must be between 0 and 1, found 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("cfg.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("Parse succeeded, want %q", tt.want)
			}
			if !diag.IsInvalidInput(err) {
				t.Errorf("error %v is not a positioned input error", err)
			}
			if got := err.Error(); got != tt.want && !(strings.HasSuffix(tt.want, ":") && strings.HasPrefix(got, tt.want)) {
				t.Errorf("error = %q\nwant    %q", got, tt.want)
			}
		})
	}
}

func TestParseValid(t *testing.T) {
	f, err := Parse("cfg.yaml", []byte(fullConfig))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Profiles["local"]
	if f.DefaultProfile != "local" || p == nil || p.Model != "llama3.1" || p.Tokenizer != tokens.O200k ||
		p.Prices["llama3.1"] != (tokens.Price{Input: 0.1, Output: 0.2}) || *p.Seed != 7 || *p.TopP != 0.9 {
		t.Errorf("Parse = %+v, local %+v", f, p)
	}
	if got := strings.Join(f.Names(), ","); got != "local,other" {
		t.Errorf("Names = %s, want local,other", got)
	}
	for _, empty := range []string{"", "# nothing\n", "~\n", "profiles:\n"} {
		f, err := Parse("cfg.yaml", []byte(empty))
		if err != nil || f == nil || len(f.Profiles) != 0 {
			t.Errorf("Parse(%q) = %+v, %v; want an empty file", empty, f, err)
		}
	}
	// Anchors and aliases are followed; null values are unset.
	f, err = Parse("cfg.yaml", []byte("profiles:\n  a: &base {model: m, temperature: 0.5}\n  b: *base\n  c: {model: ~}\n"))
	if err != nil || f.Profiles["b"].Model != "m" || f.Profiles["c"].Model != "" {
		t.Errorf("aliases: %+v, %v", f, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(fullConfig))
	f.Add([]byte("profiles: {a: &x {model: m}, b: *x}\ndefault_profile: a"))
	f.Add([]byte("profiles:\n  p:\n    prices: {m: {input: 1e400, output: .nan}}\n"))
	f.Add([]byte("default_profile: [1]\nprofiles: {? [a] : b}\n"))
	f.Add([]byte("<<: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !diag.IsInvalidInput(err) {
				t.Errorf("error %v is not a positioned input error", err)
			}
			return
		}
		if file == nil || file.Profiles == nil {
			t.Errorf("Parse returned no file and no error")
		}
	})
}
