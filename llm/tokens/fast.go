package tokens

import (
	"strings"
	"sync"
)

// The encoder splits a text into pieces with a regular expression (its pre-tokenizer),
// then encodes each piece with byte-pair merges. The expression runs in a backtracking
// engine that allocates for every piece: most of the time of a count. fastCount splits
// the common case itself, plain ASCII text whose only white space is single spaces and
// line breaks apart from them (what chat messages and reminders mostly are), exactly as the expression of each
// encoding does there, and counts each piece once: a piece's count is kept (pieces are
// words, and repeat). Other text goes to the encoder whole. FuzzFastCountExact checks
// that both agree.
//
// In such text the alternatives of the expressions reduce to (O is a character other
// than a letter, a digit or white space; L+ a run of letters, U upper case, l lower case;
// ' a contraction: 's, 't, 're, 've, 'm, 'll or 'd in either case):
//
//	o200k_base: [O or space]? U* l+ '?  |  [O or space]? U+ '?  |  digit{1,3}  |  space? O+ [break or /]*  |  break+  |  space
//	cl100k_base: '  |  [O or space]? L+  |  digit{1,3}  |  space? O+ break*  |  break+  |  space

// pieceCounts keeps the count of each piece by encoding, up to pieceLimit bytes of pieces
// (emptied when full).
type pieceCounts struct {
	mu    sync.Mutex
	m     map[string]int
	bytes int
}

const pieceLimit = 4 << 20

var pieces [2]pieceCounts // cl100k_base, o200k_base

// fastCount counts s by splitting it itself, or returns false for text it does not
// split (not ASCII, white space other than single spaces).
func (c *Counter) fastCount(s string) (int, bool) {
	if !simpleASCII(s) {
		return 0, false
	}
	o200k := c.Encoding() == O200k
	pc := &pieces[0]
	if o200k {
		pc = &pieces[1]
	}
	n := 0
	var missing []string
	pc.mu.Lock()
	for i := 0; i < len(s); {
		var end int
		if o200k {
			end = pieceO200k(s, i)
		} else {
			end = pieceCl100k(s, i)
		}
		p := s[i:end]
		if k, ok := pc.m[p]; ok {
			n += k
		} else {
			missing = append(missing, p)
		}
		i = end
	}
	pc.mu.Unlock()
	if len(missing) == 0 {
		return n, true
	}
	counts := make([]int, len(missing))
	for j, p := range missing {
		counts[j] = c.countDirectSlow(p)
		n += counts[j]
	}
	pc.mu.Lock()
	if pc.m == nil || pc.bytes > pieceLimit {
		pc.m, pc.bytes = make(map[string]int), 0
	}
	for j, p := range missing {
		if _, ok := pc.m[p]; !ok {
			pc.m[strings.Clone(p)] = counts[j] // a key must not keep its text alive
			pc.bytes += len(p)
		}
	}
	pc.mu.Unlock()
	return n, true
}

// simpleASCII reports whether s is ASCII below DEL whose only white space is single
// spaces and runs of line breaks (\n, \r), neither next to the other.
func simpleASCII(s string) bool {
	var prev byte // the previous byte when it is white space, else 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b >= 0x7f, b == '\t', b == '\v', b == '\f':
			// DEL too: the encoder's expression, as compiled, matches no piece there
			// and skips it.
			return false
		case b == ' ':
			if prev != 0 {
				return false
			}
			prev = b
		case b == '\n' || b == '\r':
			if prev == ' ' {
				return false
			}
			prev = b
		default:
			prev = 0
		}
	}
	return true
}

func isBreak(b byte) bool { return b == '\n' || b == '\r' }

// breaks returns the end of the run of line breaks at s[i:] (i when there is none).
func breaks(s string, i int) int {
	for i < len(s) && isBreak(s[i]) {
		i++
	}
	return i
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
func isLower(b byte) bool { return 'a' <= b && b <= 'z' }
func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// isOther reports whether b (ASCII, not \t\v\f) is neither a letter, a digit, a space
// nor a line break.
func isOther(b byte) bool { return b != ' ' && !isBreak(b) && !isLetter(b) && !isDigit(b) }

// contraction returns the length of the contraction at s[i:] ('s, 't, 're, 've, 'm, 'll,
// 'd, in either case), or 0.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return 3
		}
	}
	return 0
}

// pieceO200k returns the end of the o200k_base piece that starts at i.
func pieceO200k(s string, i int) int {
	if isBreak(s[i]) {
		return breaks(s, i)
	}
	j := i
	if !isLetter(s[i]) && !isDigit(s[i]) { // an optional prefix: O or space
		j++
	}
	k := j
	for k < len(s) && isUpper(s[k]) {
		k++
	}
	l := k
	for l < len(s) && isLower(s[l]) {
		l++
	}
	if l > k || k > j { // U* l+, or U+ (then no l: alternative 2)
		return l + contraction(s, l)
	}
	e, other := digitsOrOther(s, i)
	if !other {
		return e
	}
	for e < len(s) && (isBreak(s[e]) || s[e] == '/') {
		e++
	}
	return e
}

// pieceCl100k returns the end of the cl100k_base piece that starts at i.
func pieceCl100k(s string, i int) int {
	if n := contraction(s, i); n > 0 {
		return i + n
	}
	if isBreak(s[i]) {
		return breaks(s, i)
	}
	j := i
	if !isLetter(s[i]) && !isDigit(s[i]) {
		j++
	}
	k := j
	for k < len(s) && isLetter(s[k]) {
		k++
	}
	if k > j {
		return k
	}
	e, other := digitsOrOther(s, i)
	if !other {
		return e
	}
	return breaks(s, e)
}

// digitsOrOther returns the end of a piece at i that is not a word, as both encodings cut
// it: up to three digits, a lone space (before a digit, or at the end), or else an
// optional space and a run of other characters (other is true), which the encodings
// extend differently.
func digitsOrOther(s string, i int) (e int, other bool) {
	switch b := s[i]; {
	case isDigit(b):
		e = i + 1
		for e < len(s) && e < i+3 && isDigit(s[e]) {
			e++
		}
		return e, false
	case b == ' ' && (i+1 >= len(s) || !isOther(s[i+1])):
		return i + 1, false
	}
	e = i
	if s[e] == ' ' {
		e++
	}
	for e < len(s) && isOther(s[e]) {
		e++
	}
	return e, true
}
