package diag

import (
	"sort"
	"strings"
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

// Nearest returns the n candidates nearest to name by edit distance (case-insensitive),
// closest first, ties in the order of candidates, however far they are: for messages that
// list a few known names when Suggest has none.
func Nearest(name string, candidates []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	lname := strings.ToLower(name)
	all := make([]scored, len(candidates))
	for i, c := range candidates {
		all[i] = scored{c, distance(lname, strings.ToLower(c))}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].d < all[j].d })
	out := make([]string, 0, max(0, min(n, len(all))))
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].s)
	}
	return out
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
