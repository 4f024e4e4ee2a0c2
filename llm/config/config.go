// Package config resolves the model settings of a ctxlab run: model name, base URL, API key,
// sampling parameters, tokenizer and prices, each with the place it came from.
//
// Each setting is taken, field by field, from the first of these that sets it:
//
//  1. flags: --model, --base-url, --api-key-env NAME (the key is read from $NAME),
//     --profile (which profile of the config file to use);
//  2. the environment: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL;
//  3. the config file (--config, else $CTXLAB_CONFIG, else os.UserConfigDir()/ctxlab/config.yaml),
//     one of its profiles: --profile, else default_profile, else its only profile;
//  4. the context file's model: block (name, temperature, top_p, max_tokens, seed).
//
// The client's timeouts come from flags (--connect-timeout, --first-token-timeout,
// --idle-timeout), else the profile, else llm's defaults.
//
// The API key goes over plain http only to this machine (llm.KeyInClear): a key with a
// base URL of plain http to another host is refused, unless --allow-http-key allows it,
// or the profile's allow_http_key: true when the base URL is the profile's.
//
// The API key goes with the base URL: when the base URL is a profile's, only the key the
// profile names (api_key_env, api_key_cmd) is sent, or none, never OPENAI_API_KEY;
// --api-key-env wins over both.
//
// A model counts as configured when a base URL or an API key is set; a model name alone is
// not enough. The API key is never written: Secret masks it wherever it is printed.
package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/yamlx"
	"github.com/ctxlab/ctxlab/llm"
	"github.com/ctxlab/ctxlab/llm/tokens"
	"github.com/ctxlab/ctxlab/tui/keybind"
)

// DefaultBaseURL is where an API key with no base URL is sent.
const DefaultBaseURL = "https://api.openai.com/v1"

// ScriptedModel is the model name when nothing names one.
const ScriptedModel = "scripted"

// DefaultKeyCmdTimeout bounds an api_key_cmd run.
const DefaultKeyCmdTimeout = 10 * time.Second

// Flags are the command-line flags that set the model; empty means not given.
type Flags struct {
	Model     string // --model
	BaseURL   string // --base-url
	APIKeyEnv string // --api-key-env: the name of the environment variable holding the key
	Profile   string // --profile
	Config    string // --config: the config file, overriding $CTXLAB_CONFIG and the default
	// The client's timeouts: --connect-timeout, --first-token-timeout, --idle-timeout.
	ConnectTimeout    time.Duration
	FirstTokenTimeout time.Duration
	IdleTimeout       time.Duration
	// AllowHTTPKey (--allow-http-key) lets the API key go over plain http to another
	// machine.
	AllowHTTPKey bool
}

// ContextModel is the context file's model: block. Its fields are those of
// ctxfile.ModelDefaults, in the same order, so one converts into the other:
// config.ContextModel(file.Model).
type ContextModel struct {
	Name        string
	Temperature *float64
	TopP        *float64
	MaxTokens   int
	Seed        *int
}

// Inputs is everything Resolve reads. Only Flags, Context and ContextFile are usually set;
// the functions are for tests and default to the real environment.
type Inputs struct {
	Flags       Flags
	Context     ContextModel
	ContextFile string // the context file's path as the user gave it, for sources

	// LookupEnv reads the environment (os.LookupEnv when nil).
	LookupEnv func(string) (string, bool)
	// UserConfigDir locates the default config file (os.UserConfigDir when nil).
	UserConfigDir func() (string, error)
	// KeyCmdTimeout bounds an api_key_cmd run (DefaultKeyCmdTimeout when zero).
	KeyCmdTimeout time.Duration
	// Offline is for commands that send nothing (prompt, replay): api_key_cmd is not run
	// (the key is reported as pending) and a key variable that is not set is no error.
	Offline bool
}

// Setting is one resolved value and where it came from; an empty Source means unset.
type Setting[T any] struct {
	Value  T
	Source string
}

// IsSet reports whether some layer set the value.
func (s Setting[T]) IsSet() bool { return s.Source != "" }

// Settings are the resolved model settings.
type Settings struct {
	Model       Setting[string]
	BaseURL     Setting[string]
	APIKey      Setting[Secret]
	Temperature Setting[*float64]
	TopP        Setting[*float64]
	MaxTokens   Setting[int]
	Seed        Setting[*int]
	// Tokenizer is always set: the profile's, or by model name (source "default").
	Tokenizer Setting[tokens.Encoding]
	// Prices are the profile's price overrides by model name (nil when none).
	Prices Setting[map[string]tokens.Price]
	// The client's timeouts; zero (unset) is llm's default.
	ConnectTimeout    Setting[time.Duration]
	FirstTokenTimeout Setting[time.Duration]
	IdleTimeout       Setting[time.Duration]
	// AllowHTTPKey lets the API key go over plain http to another machine (a flag, or the
	// profile's allow_http_key); else a key and such a base URL are refused together.
	AllowHTTPKey Setting[bool]
	// Keys are the config file's rebindings of the workbench's keys (checked), in file
	// order; nil when it has none.
	Keys []keybind.Binding
	// Profile is the config profile used, if any; ConfigFile the config file read, if any.
	Profile    Setting[string]
	ConfigFile string

	// keyPending is set when an api_key_cmd was not run (Inputs.Offline).
	keyPending bool
	// configShown is ConfigFile as printed (~/… under $HOME).
	configShown string
}

// Configured reports whether a model server is configured: a base URL or an API key is set.
func (s Settings) Configured() bool {
	return s.BaseURL.Value != "" || s.APIKey.Value != "" || s.keyPending
}

// UseServerModel names the model when no setting does: the one model a server offers.
// The tokenizer follows the name unless a setting chose it.
func (s *Settings) UseServerModel(name string) {
	s.Model = Setting[string]{name, "server " + s.Server() + " (its only model)"}
	if s.Tokenizer.Source == defaultTokenizerSource {
		s.Tokenizer.Value = tokens.EncodingFor(name)
	}
}

// ModelName returns the model name, or "scripted" when nothing names one.
func (s Settings) ModelName() string {
	if s.Model.Value == "" {
		return ScriptedModel
	}
	return s.Model.Value
}

// Endpoint returns the base URL requests go to: BaseURL, else DefaultBaseURL when an API
// key is set, else "".
func (s Settings) Endpoint() string {
	switch {
	case s.BaseURL.Value != "":
		return s.BaseURL.Value
	case s.APIKey.Value != "" || s.keyPending:
		return DefaultBaseURL
	}
	return ""
}

// Server returns Endpoint for messages: a password in the URL is masked
// ("http://user:xxxxx@host/v1").
func (s Settings) Server() string { return redactURL(s.Endpoint()) }

// redactURL is a URL as messages show it: the password of its user information masked,
// and a query or a fragment, which may hold a secret (`?api-key=…`), cut to "?…" or
// "#…". A string that is not a URL is cut at its first '?' or '#' too, and its user
// information left out.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i+1] + "…"
		}
		if scheme, rest, ok := strings.Cut(s, "://"); ok {
			if i := strings.LastIndexByte(rest, '@'); i >= 0 {
				s = scheme + "://" + rest[i+1:]
			}
		}
		return s
	}
	query, fragment := u.RawQuery != "" || u.ForceQuery, u.Fragment != "" || strings.Contains(s, "#")
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	out := u.Redacted()
	if query {
		out += "?…"
	}
	if fragment {
		out += "#…"
	}
	return out
}

// Counter returns a token counter with the resolved tokenizer.
func (s Settings) Counter() *tokens.Counter { return tokens.New(s.Tokenizer.Value) }

// PriceOverride returns the config's price for a model (exact or family prefix, as
// tokens.LookupPrice), or nil when the config has none: pass it to tokens.Cost.
func (s Settings) PriceOverride(model string) *tokens.Price {
	if len(s.Prices.Value) == 0 {
		return nil
	}
	if p, ok := tokens.LookupPrice(model, s.Prices.Value); ok {
		return &p
	}
	return nil
}

// Cost returns the USD cost of a usage of the resolved model; known is false when the
// model has no price in the config or the built-in table.
func (s Settings) Cost(u chat.Usage) (usd float64, known bool) {
	m := s.ModelName()
	return tokens.Cost(m, u, s.PriceOverride(m))
}

// Apply sets the model name and the sampling parameters of a request.
func (s Settings) Apply(req *chat.Request) {
	req.Model = s.ModelName()
	req.Temperature = s.Temperature.Value
	req.TopP = s.TopP.Value
	req.MaxTokens = s.MaxTokens.Value
	req.Seed = s.Seed.Value
}

// SettingError is a setting the user gave that cannot be used: a named config file that
// cannot be read, a profile of no config file, an invalid base URL, a key variable that is
// not set. It is invalid input (exit code 2), like a *diag.Error.
type SettingError struct{ Err error }

func (e *SettingError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *SettingError) Unwrap() error { return e.Err }

// defaultTokenizerSource is the source of a tokenizer chosen by model name.
const defaultTokenizerSource = "default (by model name)"

// Resolve resolves the settings from flags, environment, config file and context file.
// Errors: an invalid config file (a *diag.Error or diag.List: FILE:LINE:COL: message), a
// missing config file that was named explicitly, an unknown profile, an invalid base URL,
// a key variable that is not set, an api_key_cmd that fails.
func Resolve(in Inputs) (Settings, error) {
	lookup := in.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	env := func(name string) string {
		v, _ := lookup(name)
		return strings.TrimSpace(v)
	}
	var s Settings

	file, err := loadConfig(in, lookup)
	if err != nil {
		return s, err
	}
	prof, err := pickProfile(file, in.Flags.Profile, &s, lookup)
	if err != nil {
		return s, err
	}
	if prof == nil {
		prof = &Profile{}
	}
	cfgSrc := ""
	if file != nil {
		s.ConfigFile, s.configShown = file.Path, displayPath(file.Path, lookup)
		s.Keys = file.Keys
	}
	if s.Profile.IsSet() {
		cfgSrc = "config " + displayPath(file.Path, lookup) + " profile " + prof.Name
	}
	ctxSrc := "context file"
	if in.ContextFile != "" {
		ctxSrc += " " + in.ContextFile
	}
	c := in.Context

	s.Model = first(
		str(in.Flags.Model, "flag --model"),
		str(env("OPENAI_MODEL"), "env OPENAI_MODEL"),
		str(prof.Model, cfgSrc),
		str(c.Name, ctxSrc),
	)
	s.BaseURL = first(
		str(in.Flags.BaseURL, "flag --base-url"),
		str(env("OPENAI_BASE_URL"), "env OPENAI_BASE_URL"),
		str(prof.BaseURL, cfgSrc),
	)
	if s.BaseURL.IsSet() {
		if err := checkURL(s.BaseURL.Value); err != nil {
			return s, &SettingError{fmt.Errorf("%s: %w", s.BaseURL.Source, err)}
		}
	}
	s.Temperature = first(ptr(prof.Temperature, cfgSrc), ptr(c.Temperature, ctxSrc))
	s.TopP = first(ptr(prof.TopP, cfgSrc), ptr(c.TopP, ctxSrc))
	s.Seed = first(ptr(prof.Seed, cfgSrc), ptr(c.Seed, ctxSrc))
	s.MaxTokens = first(positive(prof.MaxTokens, cfgSrc), positive(c.MaxTokens, ctxSrc))
	if prof.Tokenizer != "" {
		s.Tokenizer = Setting[tokens.Encoding]{prof.Tokenizer, cfgSrc}
	} else {
		s.Tokenizer = Setting[tokens.Encoding]{tokens.EncodingFor(s.ModelName()), defaultTokenizerSource}
	}
	if len(prof.Prices) > 0 {
		s.Prices = Setting[map[string]tokens.Price]{prof.Prices, cfgSrc}
	}
	for _, t := range []struct {
		setting    *Setting[time.Duration]
		flag       string
		flagValue  time.Duration
		configured time.Duration
	}{
		{&s.ConnectTimeout, "--connect-timeout", in.Flags.ConnectTimeout, prof.ConnectTimeout},
		{&s.FirstTokenTimeout, "--first-token-timeout", in.Flags.FirstTokenTimeout, prof.FirstTokenTimeout},
		{&s.IdleTimeout, "--idle-timeout", in.Flags.IdleTimeout, prof.IdleTimeout},
	} {
		if t.flagValue < 0 {
			return s, &SettingError{fmt.Errorf("flag %s must be a positive duration, found %s", t.flag, t.flagValue)}
		}
		*t.setting = first(positive(t.flagValue, "flag "+t.flag), positive(t.configured, cfgSrc))
	}
	if err := resolveKey(&s, in, prof, cfgSrc, env); err != nil {
		return s, err
	}
	switch {
	case in.Flags.AllowHTTPKey:
		s.AllowHTTPKey = Setting[bool]{true, "flag --allow-http-key"}
	case prof.AllowHTTPKey && cfgSrc != "" && s.BaseURL.Source == cfgSrc:
		// Like the key, the permission goes with the profile's base URL.
		s.AllowHTTPKey = Setting[bool]{true, cfgSrc}
	}
	if !in.Offline && s.APIKey.Value != "" && !s.AllowHTTPKey.Value && llm.KeyInClear(s.Endpoint()) {
		return s, &SettingError{fmt.Errorf("%s: %q is plain http to another machine: the API key (%s) would cross the network unencrypted; "+
			"use https, or allow it with --allow-http-key (or allow_http_key: true in the config profile)", s.BaseURL.Source, s.Server(), s.APIKey.Source)}
	}
	return s, nil
}

// resolveKey sets the API key: --api-key-env, $OPENAI_API_KEY, the profile's api_key_env
// or api_key_cmd. The key goes with the base URL: when the base URL is the profile's, only
// the key the profile names is sent (none if it names none), never $OPENAI_API_KEY, which
// is meant for another server. The command only runs when no earlier layer has a key.
func resolveKey(s *Settings, in Inputs, prof *Profile, cfgSrc string, env func(string) string) error {
	if name := in.Flags.APIKeyEnv; name != "" {
		v := env(name)
		if v == "" {
			return &SettingError{fmt.Errorf("flag --api-key-env: environment variable %s is not set", name)}
		}
		s.APIKey = Setting[Secret]{Secret(v), "flag --api-key-env " + name}
		return nil
	}
	profileServer := prof.BaseURL != "" && s.BaseURL.Source == cfgSrc
	if v := env("OPENAI_API_KEY"); v != "" && !profileServer {
		s.APIKey = Setting[Secret]{Secret(v), "env OPENAI_API_KEY"}
		return nil
	}
	switch {
	case prof.APIKeyEnv != "":
		v := env(prof.APIKeyEnv)
		if v == "" {
			if in.Offline {
				return nil
			}
			return &SettingError{fmt.Errorf("%s: api_key_env: environment variable %s is not set", cfgSrc, prof.APIKeyEnv)}
		}
		s.APIKey = Setting[Secret]{Secret(v), cfgSrc + " api_key_env " + prof.APIKeyEnv}
	case prof.APIKeyCmd != "":
		src := cfgSrc + " api_key_cmd"
		if in.Offline {
			s.keyPending = true
			s.APIKey.Source = src + " (not run)"
			return nil
		}
		timeout := in.KeyCmdTimeout
		if timeout <= 0 {
			timeout = DefaultKeyCmdTimeout
		}
		key, err := runKeyCmd(context.Background(), prof.APIKeyCmd, timeout)
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		s.APIKey = Setting[Secret]{Secret(key), src}
	}
	return nil
}

// MaxFileSize caps the config file: 1 MiB, room for thousands of profiles; a longer file is
// refused ("too large: the config file holds at most 1 MiB").
const MaxFileSize = 1 << 20

// loadConfig reads the config file: Flags.Config, else $CTXLAB_CONFIG, else the default
// path. A missing default file is no config; a missing named file is an error.
func loadConfig(in Inputs, lookup func(string) (string, bool)) (*File, error) {
	path, named := in.Flags.Config, "flag --config"
	if path == "" {
		if v, _ := lookup("CTXLAB_CONFIG"); v != "" {
			path, named = v, "env CTXLAB_CONFIG"
		}
	}
	if path == "" {
		named = ""
		dir := in.UserConfigDir
		if dir == nil {
			dir = userConfigDir // a relative $XDG_CONFIG_HOME ignored
		}
		d, err := dir()
		if err != nil {
			return nil, nil // no config directory (no $HOME): no config file
		}
		path = filepath.Join(d, "ctxlab", "config.yaml")
	}
	data, err := yamlx.ReadFile(path, "the config file", MaxFileSize)
	var tooLarge *diag.Error
	switch {
	case err == nil:
		return Parse(path, data)
	case errors.As(err, &tooLarge):
		return nil, err
	case errors.Is(err, fs.ErrNotExist) && named == "":
		return nil, nil
	case named != "":
		return nil, &SettingError{fmt.Errorf("%s: config file: %w", named, err)}
	}
	return nil, fmt.Errorf("config file: %w", err)
}

// pickProfile chooses the profile: --profile, else default_profile, else the only one.
func pickProfile(f *File, flag string, s *Settings, lookup func(string) (string, bool)) (*Profile, error) {
	if flag != "" {
		if f == nil {
			return nil, &SettingError{fmt.Errorf("flag --profile %s: there is no config file", flag)}
		}
		p := f.Profiles[flag]
		if p == nil {
			return nil, &diag.Error{File: f.Path, Msg: fmt.Sprintf("flag --profile: no profile %q%s", flag, profilesHint(flag, f))}
		}
		s.Profile = Setting[string]{flag, "flag --profile"}
		return p, nil
	}
	if f == nil {
		return nil, nil
	}
	src := "config " + displayPath(f.Path, lookup)
	switch {
	case f.DefaultProfile != "":
		s.Profile = Setting[string]{f.DefaultProfile, src + " default_profile"}
		return f.Profiles[f.DefaultProfile], nil
	case len(f.Profiles) == 1:
		name := f.Names()[0]
		s.Profile = Setting[string]{name, src + " (its only profile)"}
		return f.Profiles[name], nil
	}
	return nil, nil
}

func profilesHint(name string, f *File) string {
	names := f.Names()
	if h := diag.DidYouMean(name, names); h != "" {
		return h
	}
	if len(names) == 0 {
		return " (the file has no profiles)"
	}
	return " (profiles: " + strings.Join(names, ", ") + ")"
}

// displayPath shortens a path under $HOME to ~/….
func displayPath(path string, lookup func(string) (string, bool)) string {
	home, _ := lookup("HOME")
	if home == "" {
		return path
	}
	rel, err := filepath.Rel(home, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return path
	}
	return "~" + string(filepath.Separator) + rel
}

func first[T any](candidates ...Setting[T]) Setting[T] {
	for _, c := range candidates {
		if c.IsSet() {
			return c
		}
	}
	var zero Setting[T]
	return zero
}

func str(v, src string) Setting[string] {
	if v == "" || src == "" {
		return Setting[string]{}
	}
	return Setting[string]{v, src}
}

func ptr[T any](v *T, src string) Setting[*T] {
	if v == nil || src == "" {
		return Setting[*T]{}
	}
	return Setting[*T]{v, src}
}

func positive[T int | time.Duration](v T, src string) Setting[T] {
	if v <= 0 || src == "" {
		return Setting[T]{}
	}
	return Setting[T]{v, src}
}
