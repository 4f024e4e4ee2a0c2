package predicates

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

type tokKind int

const (
	tokEOF tokKind = iota
	tokName
	tokString
	tokNumber
	tokDuration
	tokRegex
	tokLParen
	tokRParen
	tokLBrack
	tokRBrack
	tokComma
	tokEq
	tokIllegal
)

// token is one lexical element; off and end delimit its source text.
type token struct {
	kind     tokKind
	off, end int
	str      string // decoded string
	num      float64
	dur      time.Duration
	re       *Regex
}

// lexer cuts a predicate expression into tokens on demand.
type lexer struct {
	src string
	pos int
}

func (l *lexer) errf(off int, msg string) *ParseError { return &ParseError{Offset: off, Msg: msg} }

// next returns the next token, skipping whitespace.
func (l *lexer) next() (token, *ParseError) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			l.pos++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(l.src[l.pos:])
			if unicode.IsSpace(r) {
				l.pos += size
				continue
			}
		}
		break
	}
	start := l.pos
	if start >= len(l.src) {
		return token{kind: tokEOF, off: start, end: start}, nil
	}
	c := l.src[start]
	if k := punct(c); k != tokIllegal {
		l.pos++
		return token{kind: k, off: start, end: l.pos}, nil
	}
	switch {
	case c == '\'' || c == '"':
		return l.lexString(c)
	case c == '/':
		return l.lexRegex()
	case isDigit(c) || (c == '-' && start+1 < len(l.src) && isDigit(l.src[start+1])):
		return l.lexNumber()
	case isNameStart(c):
		for l.pos < len(l.src) && isNameByte(l.src[l.pos]) {
			l.pos++
		}
		return token{kind: tokName, off: start, end: l.pos, str: l.src[start:l.pos]}, nil
	}
	_, size := utf8.DecodeRuneInString(l.src[start:])
	l.pos += size
	return token{kind: tokIllegal, off: start, end: l.pos}, nil
}

// punct returns the kind of a one-byte token, or tokIllegal.
func punct(c byte) tokKind {
	switch c {
	case '(':
		return tokLParen
	case ')':
		return tokRParen
	case '[':
		return tokLBrack
	case ']':
		return tokRBrack
	case ',':
		return tokComma
	case '=':
		return tokEq
	}
	return tokIllegal
}

func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isLetter(c byte) bool    { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isNameStart(c byte) bool { return isLetter(c) || c == '_' }
func isNameByte(c byte) bool  { return isNameStart(c) || isDigit(c) }

// lexString reads a '…' or "…" literal with the escapes \\ \' \" \n \r \t and \uXXXX.
func (l *lexer) lexString(q byte) (token, *ParseError) {
	start := l.pos
	l.pos++
	// Without escapes the value is the source text itself.
	end := l.pos
	for end < len(l.src) && l.src[end] != q && l.src[end] != '\\' {
		end++
	}
	if end < len(l.src) && l.src[end] == q {
		l.pos = end + 1
		return token{kind: tokString, off: start, end: l.pos, str: l.src[start+1 : end]}, nil
	}
	var b strings.Builder
	for {
		if l.pos >= len(l.src) {
			return token{}, l.errf(start, "unterminated string")
		}
		c := l.src[l.pos]
		switch {
		case c == q:
			l.pos++
			return token{kind: tokString, off: start, end: l.pos, str: b.String()}, nil
		case c != '\\':
			b.WriteByte(c)
			l.pos++
			continue
		}
		if l.pos+1 >= len(l.src) {
			return token{}, l.errf(start, "unterminated string")
		}
		e := l.src[l.pos+1]
		switch e {
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			hex := l.src[l.pos+2 : min(l.pos+6, len(l.src))]
			v, err := strconv.ParseUint(hex, 16, 32)
			if len(hex) < 4 || err != nil || strings.ContainsAny(hex, "+-_xX") {
				return token{}, l.errf(l.pos, `invalid \u escape: expected 4 hex digits`)
			}
			r := rune(v)
			if utf8.RuneLen(r) < 0 {
				return token{}, l.errf(l.pos, `invalid \u escape: surrogate code point`)
			}
			b.WriteRune(r)
			l.pos += 4
		default:
			r, _ := utf8.DecodeRuneInString(l.src[l.pos+1:])
			return token{}, l.errf(l.pos, `unknown escape \`+string(r)+`; expected \\, \', \", \n, \r, \t or \uXXXX`)
		}
		l.pos += 2
	}
}

// lexRegex reads /pattern/flags; a backslash escapes the next character.
func (l *lexer) lexRegex() (token, *ParseError) {
	start := l.pos
	l.pos++
	for {
		if l.pos >= len(l.src) {
			return token{}, l.errf(start, "unterminated regex: expected a closing '/'")
		}
		c := l.src[l.pos]
		if c == '\\' {
			if l.pos+1 >= len(l.src) {
				return token{}, l.errf(start, "unterminated regex: expected a closing '/'")
			}
			l.pos += 2
			continue
		}
		if c == '/' {
			break
		}
		l.pos++
	}
	pattern := l.src[start+1 : l.pos]
	l.pos++
	fstart := l.pos
	for l.pos < len(l.src) && isLetter(l.src[l.pos]) {
		l.pos++
	}
	flags := l.src[fstart:l.pos]
	for i := 0; i < len(flags); i++ {
		if strings.IndexByte("ims", flags[i]) < 0 {
			return token{}, l.errf(fstart+i, "unknown regex flag '"+flags[i:i+1]+"'; expected i, m or s")
		}
		if strings.IndexByte(flags[:i], flags[i]) >= 0 {
			return token{}, l.errf(fstart+i, "duplicate regex flag '"+flags[i:i+1]+"'")
		}
	}
	re, err := CompileRegex(pattern, flags)
	if err != nil {
		return token{}, l.errf(start, err.Error())
	}
	return token{kind: tokRegex, off: start, end: l.pos, re: re}, nil
}

// scanNumber reads digits with an optional fraction at l.pos and returns its value.
func (l *lexer) scanNumber() (float64, *ParseError) {
	start := l.pos
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.pos++
	}
	if l.pos+1 < len(l.src) && l.src[l.pos] == '.' && isDigit(l.src[l.pos+1]) {
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	f, err := strconv.ParseFloat(l.src[start:l.pos], 64)
	if err != nil {
		return 0, l.errf(start, "number out of range")
	}
	return f, nil
}

var durationUnits = map[string]float64{"ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3, "d": 86400e3}

// maxDurationMs is the longest duration a time.Duration holds, in milliseconds.
const maxDurationMs = float64(math.MaxInt64 / int64(time.Millisecond))

// lexNumber reads a number, or a duration when a unit follows: 90s, 1h30m, -5m.
func (l *lexer) lexNumber() (token, *ParseError) {
	start := l.pos
	neg := l.src[l.pos] == '-'
	if neg {
		l.pos++
	}
	f, err := l.scanNumber()
	if err != nil {
		return token{}, err
	}
	if l.pos >= len(l.src) || !isLetter(l.src[l.pos]) {
		if neg {
			f = -f
		}
		return token{kind: tokNumber, off: start, end: l.pos, num: f}, nil
	}
	total := 0.0
	for {
		ustart := l.pos
		for l.pos < len(l.src) && isLetter(l.src[l.pos]) {
			l.pos++
		}
		unit := l.src[ustart:l.pos]
		mult, ok := durationUnits[unit]
		if !ok {
			if unit == "" {
				return token{}, l.errf(ustart, "expected a duration unit (ms, s, m, h or d)")
			}
			return token{}, l.errf(ustart, "unknown duration unit "+strconv.Quote(unit)+"; expected ms, s, m, h or d")
		}
		total += f * mult
		if total > maxDurationMs {
			return token{}, l.errf(start, "duration out of range")
		}
		if l.pos >= len(l.src) || !isDigit(l.src[l.pos]) {
			break
		}
		if f, err = l.scanNumber(); err != nil {
			return token{}, err
		}
	}
	d := time.Duration(math.Round(total)) * time.Millisecond
	if neg {
		d = -d
	}
	return token{kind: tokDuration, off: start, end: l.pos, dur: d}, nil
}
