package predicates

import (
	"fmt"
	"regexp"
	"strings"
)

// Regex is a compiled /pattern/flags literal: RE2 syntax with the flags i (case-insensitive),
// m (multi-line) and s (dot matches newline).
type Regex struct {
	src   string // the pattern as written between the slashes ('/' escaped)
	flags string // a sorted subset of "ims"
	re    *regexp.Regexp
	// needs are literals one of which every match contains (nil: none known).
	needs []need
	// text is the literal, /pattern/flags.
	text string
}

// CompileRegex compiles pattern (RE2 syntax; a '/' needs no escape) with flags, a subset of
// "ims" in any order.
func CompileRegex(pattern, flags string) (*Regex, error) {
	fl, err := normFlags(flags)
	if err != nil {
		return nil, err
	}
	src := escapeSlashes(pattern)
	expr := src
	if fl != "" {
		expr = "(?" + fl + ")" + src
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid regex /%s/%s: %w", src, fl, err)
	}
	return &Regex{src: src, flags: fl, re: re, needs: needsOf(expr), text: "/" + src + "/" + fl}, nil
}

// normFlags validates regex flags and returns them sorted.
func normFlags(flags string) (string, error) {
	var seen [3]bool
	for _, r := range flags {
		i := strings.IndexRune("ims", r)
		if i < 0 {
			return "", fmt.Errorf("unknown regex flag %q; expected i, m or s", r)
		}
		if seen[i] {
			return "", fmt.Errorf("duplicate regex flag %q", r)
		}
		seen[i] = true
	}
	var b strings.Builder
	for i, ok := range seen {
		if ok {
			b.WriteByte("ims"[i])
		}
	}
	return b.String(), nil
}

// escapeSlashes escapes every '/' of pattern that is not already escaped.
func escapeSlashes(pattern string) string {
	if !strings.Contains(pattern, "/") {
		return pattern
	}
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			b.WriteByte(c)
			b.WriteByte(pattern[i+1])
			i++
		case c == '/':
			b.WriteString(`\/`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// String returns the literal, e.g. /deploy(ed)?/i.
func (r *Regex) String() string { return r.text }

// MatchString reports whether the regular expression matches somewhere in s.
func (r *Regex) MatchString(s string) bool { return r.re.MatchString(s) }

// Matcher matches a string exactly, or with a regular expression when built by MatchRegex.
// The zero Matcher matches the empty string.
type Matcher struct {
	exact string
	re    *Regex
}

// Exact returns a Matcher for the string s, compared exactly.
func Exact(s string) Matcher { return Matcher{exact: s} }

// MatchRegex returns a Matcher that searches with re; a nil re matches everything.
func MatchRegex(re *Regex) Matcher {
	if re == nil {
		re, _ = CompileRegex("", "")
	}
	return Matcher{re: re}
}

// Match reports whether s matches.
func (m Matcher) Match(s string) bool {
	if m.re != nil {
		return m.re.MatchString(s)
	}
	return s == m.exact
}

// String returns the literal: a quoted string or /pattern/flags.
func (m Matcher) String() string {
	if m.re != nil {
		return m.re.String()
	}
	return quote(m.exact)
}
