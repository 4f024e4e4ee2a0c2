package predicates

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are the 143 English stop words of tiny-tfidf (NLTK's list without its
// one-letter words) plus "a" and "i": 145 words that carry no weight in BM25 but count
// toward document length.
var stopWords = func() map[string]struct{} {
	words := strings.Fields(`a i me my myself we our ours ourselves you your yours yourself
	yourselves he him his himself she her hers herself it its itself they them their theirs
	themselves what which who whom this that these those am is are was were be been being have
	has had having do does did doing an the and but if or because as until while of at by for
	with about against between into through during before after above below to from up down in
	out on off over under again further then once here there when where why how all any both
	each few more most other some such no nor not only own same so than too very can will just
	don could should would now ll re ve aren couldn didn doesn hadn hasn haven isn mustn needn
	shouldn wasn weren won wouldn`)
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// IsStopWord reports whether the lower-cased token w is one of the 145 English stop words.
func IsStopWord(w string) bool {
	_, ok := stopWords[w]
	return ok
}

// Tokenize splits s into BM25 tokens: runs of Unicode letters and digits (combining marks
// stay inside a run), lower-cased. One-letter tokens other than "a" and "i" and tokens
// without a letter (pure numbers) are dropped. Stop words are kept: they count toward
// document length.
func Tokenize(s string) []string {
	var out []string
	eachToken(s, func(tok string) { out = append(out, tok) })
	return out
}

// eachToken calls fn with each token of s, in order (see Tokenize).
func eachToken(s string, fn func(tok string)) {
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if !isWordRune(r) {
			i += size
			continue
		}
		start, n, letters, upper := i, 0, 0, false
		for i < len(s) {
			r, size = rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
				upper = true // let strings.ToLower decide
			}
			switch {
			case r < utf8.RuneSelf && ('a' <= r && r <= 'z'):
				letters++
				n++
			case r < utf8.RuneSelf && ('A' <= r && r <= 'Z'):
				letters++
				n++
				upper = true
			case r < utf8.RuneSelf && ('0' <= r && r <= '9'):
				n++
			case r >= utf8.RuneSelf && unicode.IsLetter(r):
				letters++
				n++
			case r >= utf8.RuneSelf && unicode.IsDigit(r):
				n++
			case r >= utf8.RuneSelf && unicode.Is(unicode.M, r):
			default:
				goto done
			}
			i += size
		}
	done:
		tok := s[start:i]
		if upper {
			tok = strings.ToLower(tok)
		}
		if letters == 0 || (n == 1 && tok != "a" && tok != "i") {
			continue
		}
		fn(tok)
	}
}

// isWordRune reports whether r starts a token.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// queryTerms returns the distinct tokens of s that are not stop words, in order of first
// appearance: the terms a BM25 query sums over.
// It keeps no more than the terms: a message of megabytes is not held as its tokens
// (for 8 MiB of text, 320 MB were allocated).
func queryTerms(s string) []string {
	var u termSet
	eachToken(s, u.add)
	return u.out
}

// termSet gathers distinct terms, stop words left out, in order of first appearance.
type termSet struct {
	out  []string
	seen map[string]struct{} // once there are more than a few terms
}

// add adds t unless it is a stop word or was added before.
func (u *termSet) add(t string) {
	if IsStopWord(t) {
		return
	}
	if u.seen != nil {
		if _, ok := u.seen[t]; !ok {
			u.seen[t] = struct{}{}
			u.out = append(u.out, t)
		}
		return
	}
	for _, v := range u.out {
		if v == t {
			return
		}
	}
	u.out = append(u.out, t)
	if len(u.out) > 16 {
		u.seen = make(map[string]struct{}, 64)
		for _, v := range u.out {
			u.seen[v] = struct{}{}
		}
	}
}

// uniqueTerms drops stop words and repeats from tokens, keeping the first appearance.
func uniqueTerms(tokens []string) []string {
	out := tokens[:0:0]
	if len(tokens) <= 16 {
	small:
		for _, t := range tokens {
			if IsStopWord(t) {
				continue
			}
			for _, u := range out {
				if u == t {
					continue small
				}
			}
			out = append(out, t)
		}
		return out
	}
	seen := make(map[string]struct{}, min(len(tokens), 1024)) // terms repeat: grown as needed
	for _, t := range tokens {
		if IsStopWord(t) {
			continue
		}
		if _, ok := seen[t]; ok {
			continue
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	return out
}
