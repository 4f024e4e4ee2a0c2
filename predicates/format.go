package predicates

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// quote returns s as a single-quoted string literal of the expression language. It works on
// bytes, so invalid UTF-8 survives a round trip through the parser.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	writeQuoted(&b, s)
	return b.String()
}

// writeQuoted writes s to b as quote returns it, copying the runs that need no escape whole.
func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('\'')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != 0x7f && c != '\'' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		start = i + 1
		switch c {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			const hex = "0123456789abcdef"
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	b.WriteString(s[start:])
	b.WriteByte('\'')
}

// dquote quotes s with Go syntax for why texts, cut to max runes.
func dquote(s string, max int) string {
	return strconv.Quote(clip(s, max))
}

// clip cuts s to at most max runes, marking the cut with an ellipsis.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// fmtNum formats a number as the shortest literal that parses back to it.
func fmtNum(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// fmtScore formats a BM25 score with two decimals (1.42), as the skills builtin shows it.
func fmtScore(f float64) string {
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// fmtDuration formats d, rounded to milliseconds, as a duration literal: 1d2h3m4s5ms, or 0.
func fmtDuration(d time.Duration) string {
	ms := d.Round(time.Millisecond).Milliseconds()
	if ms == 0 {
		return "0"
	}
	var b strings.Builder
	if ms < 0 {
		b.WriteByte('-')
		ms = -ms
	}
	units := [...]struct {
		ms   int64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}, {1, "ms"}}
	for _, u := range units {
		if n := ms / u.ms; n > 0 {
			b.WriteString(strconv.FormatInt(n, 10))
			b.WriteString(u.name)
			ms -= n * u.ms
		}
	}
	return b.String()
}

// joinExprs joins the canonical texts of ps with ", ".
func joinExprs(ps []Predicate) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// quoteList renders a list of strings as ['a', 'b'].
func quoteList(ss []string) string {
	n := 2
	for _, s := range ss {
		n += len(s) + 4
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		writeQuoted(&b, s)
	}
	b.WriteByte(']')
	return b.String()
}
