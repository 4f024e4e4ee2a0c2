package predicates

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNeeds checks the literals found for patterns of the kinds context files use: a
// pattern gets a set only when every match must contain one of them.
func TestNeeds(t *testing.T) {
	for _, tt := range []struct {
		pattern, flags string
		want           string // the literals, "|"-joined, "~" before a folded one; "" for none
	}{
		{`\burgent(ly)?\b`, "", "urgent"},
		{`timing out|timed out`, "i", "~ing out|~ed out"},
		{`\w+@\w+\.com`, "", ".com"},
		{`\d+ (ms|seconds)`, "", "ms|seconds"},
		{`\b(deploy|release|ship)\b`, "i", "~deploy|~release|~ship"},
		{`^please\b`, "im", "~please"},
		{`\b[A-Z]{4,}\b`, "", ""},
		{`err(or)?s?\b`, "i", "~err"},
		{`(ab){2,}`, "", "ab"},
		{`(ab)*c?`, "", ""},
		{`a|`, "", ""},
		{`Straße`, "i", ""},
		{`Straße`, "", "Straße"},
		{`x(?i:Deploy)`, "", "~deploy"},
		{`\x{FFFD}abc`, "", ""},
		{`\x{FFFD}`, "", ""},
	} {
		re, err := CompileRegex(tt.pattern, tt.flags)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range re.needs {
			if n.fold {
				got = append(got, "~"+n.lit)
			} else {
				got = append(got, n.lit)
			}
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("/%s/%s: got needs %q, want %q", tt.pattern, tt.flags, g, tt.want)
		}
	}
}

// TestPatternPrefilter checks that contentPattern gives what the regex alone gives, on
// contents with and without the needed literals, in other cases, and with the Unicode
// letters that fold to ASCII ones (ſ is s, K is k).
func TestPatternPrefilter(t *testing.T) {
	patterns := []string{`/\burgent(ly)?\b/`, `/timing out|timed out/i`, `/\w+@\w+\.com/`, `/\d+ (ms|seconds)/`,
		`/\b(deploy|release|ship)\b/i`, `/^please\b/im`, `/\b[A-Z]{4,}\b/`, `/err(or)?s?\b/i`, `/sk/i`, `/kelvin/i`, `/\x{FFFD}x/`}
	words := []string{"urgent", "URGENTLY", "timing out", "TIMED OUT", "bob@acme.com", "12 ms", "40 seconds", "deploy",
		"Release", "SHIP", "please", "Please", "NASA", "errors", "ERR", "ſk", "SK", "Kelvin", "kelvin", "\xffx", "x", " ", "\n", "."}
	r := rand.New(rand.NewPCG(5, 8))
	var ps []Predicate
	for _, src := range patterns {
		ps = append(ps, mustParse(t, "contentPattern("+src+")"))
	}
	for range 3000 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString([]string{" ", "", "\n", ", "}[r.IntN(4)])
		}
		content := b.String()
		c := &WhenContext{Content: content}
		for i, p := range ps {
			cp := p.(*contentPattern)
			want := cp.re.re.FindStringIndex(content) != nil
			for range 2 { // the second reads the turn's cache
				if got := p.Eval(c); got.Value != want {
					t.Fatalf("%s on %q: got %v (%s), want %v", patterns[i], content, got.Value, got.Why, want)
				}
			}
		}
	}
}

// BenchmarkContentPatterns evaluates 40 content patterns, several of them repeated, as a
// generated context file has them, on a message that matches few.
func BenchmarkContentPatterns(b *testing.B) {
	srcs := []string{`/\bv\d+\.\d+\b/`, `/\burgent(ly)?\b/`, `/timing out|timed out/i`, `/\w+@\w+\.com/`,
		`/\d+ (ms|seconds)/`, `/\b(deploy|release|ship)\b/i`, `/\bupgrades?\b/`, `/\b[A-Z]{4,}\b/`,
		`/\b(refund|invoice|receipt)\b/i`, `/^please\b/im`, `/^(how|why|what)\b/i`, `/\bworkers?\b/`}
	var ps []Predicate
	for i := range 40 {
		ps = append(ps, mustParse(b, fmt.Sprintf("contentPattern(%s)", srcs[i%len(srcs)])))
	}
	content := "Is it safe to rotate the report while the deployment is duplicate? Ping Emeka when done."
	for b.Loop() {
		c := &WhenContext{Content: content}
		for _, p := range ps {
			p.Eval(c)
		}
	}
}
