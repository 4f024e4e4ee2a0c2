package diag

import (
	"sort"
	"strings"
	"unicode"
)

// Suggest returns the candidates nearest to name (edit distance, case-insensitive), at most
// three, closest first; none when nothing is close enough to be a plausible typo.
func Suggest(name string, candidates []string) []string {
	type scored struct {
		s string
		d int
	}
	lname := strings.ToLower(name)
	limit := max(1, len([]rune(name))/3)
	var near, prefixed []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(lname, lc)
		if len(lname) >= 3 && (strings.HasPrefix(lc, lname) || strings.HasPrefix(lname, lc)) {
			d = min(d, 1) // a prefix: "tool" -> toolCall, toolCalled…
		}
		switch {
		case d <= limit:
			near = append(near, scored{c, d})
		case commonPrefix(lname, lc) >= 4: // "childs" -> children, when nothing is closer
			prefixed = append(prefixed, scored{c, commonPrefix(lname, lc)})
		}
	}
	if len(near) == 0 {
		near = prefixed
		for i := range near {
			near[i].d = -near[i].d // the longest common prefix first
		}
	}
	sort.SliceStable(near, func(i, j int) bool {
		if near[i].d != near[j].d {
			return near[i].d < near[j].d
		}
		return near[i].s < near[j].s
	})
	out := make([]string, 0, 3)
	for i := 0; i < len(near) && i < 3; i++ {
		out = append(out, near[i].s)
	}
	return out
}

// DidYouMean returns "; did you mean X?" (or "X or Y") for the nearest candidates, or "".
func DidYouMean(name string, candidates []string) string {
	return didYouMean(Suggest(name, candidates))
}

// DidYouMeanNearest is DidYouMean with only the candidates at the nearest distance: for
// long names that share most of their text, where a second suggestion is noise (time
// zones: "Europe/Pari" is Europe/Paris, not Europe/Madrid).
func DidYouMeanNearest(name string, candidates []string) string {
	s := Suggest(name, candidates)
	if len(s) > 1 {
		lname := strings.ToLower(name)
		best := distance(lname, strings.ToLower(s[0]))
		kept := s[:1]
		for _, c := range s[1:] {
			if distance(lname, strings.ToLower(c)) == best {
				kept = append(kept, c)
			}
		}
		s = kept
	}
	return didYouMean(s)
}

func didYouMean(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(s, " or ") + "?"
}

// Nearest returns the n candidates most like name, however far they are: for messages
// that list a few known names when Suggest has none. Candidates are ranked by the words
// they share with name (camelCase and snake_case words, a plural's s ignored: "hasTool" is
// like toolCalled), then by the letter pairs they share, then by edit distance; ties keep
// the order of candidates.
func Nearest(name string, candidates []string, n int) []string {
	type scored struct {
		s           string
		words, dist int
		pairs       float64
	}
	lname := strings.ToLower(name)
	nwords, npairs := words(name), pairs(lname)
	all := make([]scored, len(candidates))
	for i, c := range candidates {
		lc := strings.ToLower(c)
		all[i] = scored{s: c, words: shared(nwords, words(c)), pairs: dice(npairs, pairs(lc)), dist: distance(lname, lc)}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.words != b.words {
			return a.words > b.words
		}
		if a.pairs != b.pairs {
			return a.pairs > b.pairs
		}
		return a.dist < b.dist
	})
	out := make([]string, 0, max(0, min(n, len(all))))
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].s)
	}
	return out
}

// words splits a name into its lower-case words (camelCase with acronyms kept whole,
// snake_case, kebab-case), a final s dropped from words longer than three letters.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := strings.ToLower(string(cur))
			if len(w) > 3 {
				w = strings.TrimSuffix(w, "s")
			}
			out = append(out, w)
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/':
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || // fooBar
			unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])): // HTTPServer, everyNTurns
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// shared counts the words of a that b has too.
func shared(a, b []string) int {
	n := 0
	for _, w := range a {
		for _, x := range b {
			if w == x {
				n++
				break
			}
		}
	}
	return n
}

// pairs returns the letter pairs of s, with repeats.
func pairs(s string) []string {
	r := []rune(s)
	out := make([]string, 0, max(0, len(r)-1))
	for i := 0; i+1 < len(r); i++ {
		out = append(out, string(r[i:i+2]))
	}
	return out
}

// dice is the Sørensen–Dice coefficient of two lists of letter pairs: 1 when they are the
// same, 0 when they share none.
func dice(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	left := map[string]int{}
	for _, p := range b {
		left[p]++
	}
	common := 0
	for _, p := range a {
		if left[p] > 0 {
			left[p]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// commonPrefix returns the length in bytes of the common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Hint is DidYouMean, or, when nothing is near, " (WHAT: every candidate)" in order.
func Hint(name string, candidates []string, what string) string {
	if s := DidYouMean(name, candidates); s != "" {
		return s
	}
	return " (" + what + ": " + strings.Join(candidates, ", ") + ")"
}

// distance is the edit distance between a and b in code points, counting a swap of two
// neighbours as one edit (optimal string alignment), so "nmae" is one edit from "name".
// Names longer than 64 code points are only ever equal or far apart.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
