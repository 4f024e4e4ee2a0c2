package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/llm"
	"github.com/ctxlab/ctxlab/llm/tokens"
)

// Line is one resolved setting as `ctxlab config` prints it.
type Line struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source,omitempty"`
}

const unset = "(not set)"

// Lines returns the resolved settings, the key and a password in the base URL masked, each
// with its source.
func (s Settings) Lines() []Line {
	var out []Line
	add := func(key, value, source string) { out = append(out, Line{key, value, source}) }

	switch {
	case s.Model.IsSet():
		add("model", s.Model.Value, s.Model.Source)
	case s.Configured():
		add("model", unset, "a live turn uses the server's model if it offers exactly one")
	default:
		add("model", ScriptedModel, "default (nothing names a model)")
	}
	switch {
	case s.BaseURL.IsSet():
		add("base_url", s.Server(), s.BaseURL.Source)
	case s.Endpoint() != "":
		add("base_url", s.Server(), "default")
	default:
		add("base_url", unset, "")
	}
	switch {
	case s.keyPending:
		add("api_key", "(from api_key_cmd, not run)", s.APIKey.Source)
	case s.APIKey.IsSet():
		add("api_key", s.APIKey.Value.String(), s.APIKey.Source)
	default:
		add("api_key", unset, "")
	}
	add("temperature", floatValue(s.Temperature.Value), s.Temperature.Source)
	add("top_p", floatValue(s.TopP.Value), s.TopP.Source)
	maxTokens := unset
	if s.MaxTokens.IsSet() {
		maxTokens = strconv.Itoa(s.MaxTokens.Value)
	}
	add("max_tokens", maxTokens, s.MaxTokens.Source)
	seed := unset
	if s.Seed.Value != nil {
		seed = strconv.Itoa(*s.Seed.Value)
	}
	add("seed", seed, s.Seed.Source)
	add("tokenizer", string(s.Tokenizer.Value), s.Tokenizer.Source)
	for _, t := range []struct {
		key     string
		setting Setting[time.Duration]
		def     time.Duration
	}{
		{"connect_timeout", s.ConnectTimeout, llm.DefaultConnectTimeout},
		{"first_token_timeout", s.FirstTokenTimeout, llm.DefaultFirstTokenTimeout},
		{"idle_timeout", s.IdleTimeout, llm.DefaultIdleTimeout},
	} {
		if t.setting.IsSet() {
			add(t.key, durationValue(t.setting.Value), t.setting.Source)
		} else {
			add(t.key, durationValue(t.def), "default")
		}
	}

	if s.AllowHTTPKey.Value {
		add("allow_http_key", "yes: the key may go over plain http to another machine", s.AllowHTTPKey.Source)
	}
	model := s.ModelName()
	if p := s.PriceOverride(model); p != nil {
		add("price", priceValue(*p), s.Prices.Source)
	} else if p, ok := tokens.LookupPrice(model, nil); ok {
		add("price", priceValue(p), "built-in table")
	} else {
		add("price", "(unknown)", "")
	}
	switch {
	case s.Profile.IsSet():
		add("profile", s.Profile.Value, s.Profile.Source)
	case s.ConfigFile != "":
		add("profile", "(none)", "config "+s.configShown+": no --profile, no default_profile")
	default:
		add("profile", "(none)", "no config file")
	}
	if s.Configured() {
		add("configured", "yes", "")
	} else {
		add("configured", "no: turns need scripted replies (set a base URL or an API key)", "")
	}
	return out
}

// Describe returns Lines as aligned text, one setting per line: what `ctxlab config`
// prints.
func (s Settings) Describe() string { return DescribeLines(s.Lines()) }

// DescribeLines returns lines as aligned text, one a line, as Describe prints them.
func DescribeLines(lines []Line) string {
	kw, vw := 0, 0
	for _, l := range lines {
		kw = max(kw, len(l.Key))
		if l.Source != "" {
			vw = max(vw, len([]rune(l.Value)))
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if l.Source == "" {
			fmt.Fprintf(&b, "%-*s  %s\n", kw, l.Key, l.Value)
			continue
		}
		pad := vw - len([]rune(l.Value))
		fmt.Fprintf(&b, "%-*s  %s%s  %s\n", kw, l.Key, l.Value, strings.Repeat(" ", max(pad, 0)), l.Source)
	}
	return b.String()
}

// durationValue formats a duration without zero units: 90s is "1m30s", 60s "1m", an hour "1h".
func durationValue(d time.Duration) string {
	s := d.String()
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

func floatValue(p *float64) string {
	if p == nil {
		return unset
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// priceValue formats a price: "$2.50 in, $1.25 cached, $10.00 out per 1M tokens".
func priceValue(p tokens.Price) string {
	if p == (tokens.Price{}) {
		return "free"
	}
	s := usd(p.Input) + " in, "
	if p.CachedInput != 0 {
		s += usd(p.CachedInput) + " cached, "
	}
	return s + usd(p.Output) + " out per 1M tokens"
}

func usd(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i == 2 {
		s += "0"
	}
	return "$" + s
}
