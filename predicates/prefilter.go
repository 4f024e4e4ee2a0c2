package predicates

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// need is a literal that every match of a regex contains: compared exactly, or, when
// fold is set, ASCII case-insensitively (the literal is then lower-cased ASCII).
type need struct {
	lit  string
	fold bool
}

// needsOf returns literals of which every match of the pattern contains at least one,
// or nil when there are none to find: a regex that cannot match a text without one of
// them need not run on it. A parse error gives nil.
func needsOf(expr string) []need {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	ns, ok := needs(re.Simplify())
	if !ok {
		return nil
	}
	return ns
}

// needs returns the literals one of which every match of re contains (ok false when
// there is no such set): a literal, any child's set for a concatenation (the one whose
// shortest literal is longest), the union of the children's sets for an alternation.
func needs(re *syntax.Regexp) ([]need, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		lit := string(re.Rune)
		for _, r := range re.Rune {
			// Unicode folding is not a lower-cased comparison; U+FFFD also matches a byte
			// that is not UTF-8.
			if (r >= utf8.RuneSelf && fold) || r == utf8.RuneError {
				return nil, false
			}
		}
		if fold {
			lit = strings.ToLower(lit)
		}
		return []need{{lit: lit, fold: fold}}, len(lit) > 0
	case syntax.OpCapture:
		return needs(re.Sub[0])
	case syntax.OpPlus:
		return needs(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needs(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []need
		bestLen := 0
		for _, sub := range re.Sub {
			ns, ok := needs(sub)
			if !ok {
				continue
			}
			if l := shortest(ns); l > bestLen {
				best, bestLen = ns, l
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []need
		for _, sub := range re.Sub {
			ns, ok := needs(sub)
			if !ok {
				return nil, false
			}
			all = append(all, ns...)
		}
		return all, len(all) > 0
	}
	return nil, false
}

// shortest returns the length of the shortest literal of ns.
func shortest(ns []need) int {
	n := -1
	for _, x := range ns {
		if n < 0 || len(x.lit) < n {
			n = len(x.lit)
		}
	}
	return n
}

// mayMatch reports whether the content holds one of the regex's needed literals, or
// whether that cannot be told without running it (no literals, or a case-insensitive one
// and content that is not ASCII, which Unicode folding could match: ſ is s, K is k).
func (r *Regex) mayMatch(c *WhenContext) bool {
	if r.needs == nil {
		return true
	}
	for _, n := range r.needs {
		switch {
		case !n.fold:
			if strings.Contains(c.Content, n.lit) {
				return true
			}
		case !c.ascii():
			return true
		case strings.Contains(c.lower(), n.lit):
			return true
		}
	}
	return false
}

// ascii reports whether the content is ASCII, computed once per WhenContext.
func (c *WhenContext) ascii() bool {
	if c.asciiContent == 0 {
		c.asciiContent = 1
		for i := 0; i < len(c.Content); i++ {
			if c.Content[i] >= utf8.RuneSelf {
				c.asciiContent = 2
				break
			}
		}
	}
	return c.asciiContent == 1
}
