package predicates

import (
	"sort"
	"strings"
	"time"
)

// nearest returns up to three of names closest to name by edit distance (ignoring case),
// if close enough to be a likely typo.
func nearest(name string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	low := strings.ToLower(name)
	limit := max(2, len([]rune(name))/3)
	var cs []cand
	for _, n := range names {
		ln := strings.ToLower(n)
		d := editDistance(low, ln)
		if strings.HasPrefix(ln, low) && len(low) >= 3 {
			d = min(d, 1) // a prefix of a name: "tool" -> toolCall, toolCalled…
		}
		if d <= limit {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// msDuration converts whole milliseconds to a Duration.
func msDuration(ms float64) time.Duration {
	return time.Duration(ms) * time.Millisecond
}
