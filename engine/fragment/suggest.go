package fragment

import "strings"

// Messages: word lists and "did you mean" suggestions.

// joinWords joins words as "a", "a and b", "a, b and c".
func joinWords(words []string, conj string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + conj + words[len(words)-1]
}

// suggest returns "; did you mean X?" with the nearest names, or the full list of known names
// when none is near.
func suggest(got string, known []string, what string) string {
	near := nearest(got, known)
	if len(near) > 0 {
		return "; did you mean " + joinWords(near, " or ") + "?"
	}
	return " (" + what + ": " + strings.Join(known, ", ") + ")"
}

// nearest returns up to three names within a small edit distance of got (case-insensitive),
// closest first, then names that start like got.
func nearest(got string, known []string) []string {
	g := strings.ToLower(got)
	type cand struct {
		name string
		dist int
	}
	var cs []cand
	for _, k := range known {
		kl := strings.ToLower(k)
		dist := levenshtein(g, kl)
		limit := 2
		if n := len([]rune(g)) / 3; n > limit {
			limit = n
		}
		switch {
		case dist <= limit:
		case len(g) >= 3 && strings.HasPrefix(kl, g), commonPrefix(g, kl) >= 4:
			dist = limit + 1
		default:
			continue
		}
		cs = append(cs, cand{k, dist})
	}
	// insertion sort by distance, stable on the known order
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].dist < cs[j-1].dist; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	if len(cs) > 3 {
		cs = cs[:3]
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
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

// levenshtein is the edit distance between a and b, in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20
	}
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
