package fragment

import (
	"strings"

	"github.com/ctxlab/ctxlab/engine/diag"
)

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
	return diag.Hint(got, known, what)
}
