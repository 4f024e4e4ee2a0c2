package predicates

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

func round4(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

func TestBM25Reference(t *testing.T) {
	// figures of spec/predicates.md, equal to @deepagents/context's BM25Classifier
	cl := NewClassifier([]ClassifierItem{{"alpha", "red apple"}, {"beta", "green apple pie"}})
	ms := cl.Rank("apple pie", 5, 0)
	if len(ms) != 2 || ms[0].Name != "beta" || ms[0].Index != 1 || round4(ms[0].Score) != "1.4038" ||
		ms[1].Name != "alpha" || round4(ms[1].Score) != "0.4367" {
		t.Errorf("classifier: got %+v, want beta 1.4038, alpha 0.4367", ms)
	}
	x := NewBM25([]string{"red apple", "green apple pie"})
	scores := x.Score(Tokenize("apple pie"))
	if got := round4(scores[1]); got != "1.3673" {
		t.Errorf("contentMatches corpus: got %s, want 1.3673", got)
	}
	if got := round4(scores[0]); got != "0.4505" {
		t.Errorf("contentMatches corpus, first topic: got %s, want 0.4505", got)
	}
	// repeats and stop words in the query change nothing
	again := x.Score(Tokenize("Apple the PIE apple pie of"))
	if !slices.Equal(again, scores) {
		t.Errorf("got %v for a query with repeats, want %v", again, scores)
	}
}

func TestBM25Formula(t *testing.T) {
	// stop words count toward length: "the cat" has length 2, "cat dog" has length 2
	x := NewBM25([]string{"the cat", "cat dog", "bird"})
	avgdl := 5.0 / 3
	idf := math.Log(4) - math.Log(2)
	want := idf * 3 / (2*(0.25+0.75*2/avgdl) + 1)
	got := x.Score([]string{"cat"})
	if math.Abs(got[0]-want) > 1e-12 || math.Abs(got[1]-want) > 1e-12 || got[2] != 0 {
		t.Errorf("got %v, want [%v %v 0]", got, want, want)
	}
	if got := x.Score([]string{"the"}); got[0] != 0 {
		t.Errorf("stop word: got %v, want 0", got[0])
	}
	// term frequency saturates
	y := NewBM25([]string{"go go go", "go rust java"})
	s := y.Score([]string{"go"})
	if !(s[0] > s[1]) {
		t.Errorf("got %v, want the repeated term to score higher", s)
	}
	if n := NewBM25(nil).Len(); n != 0 {
		t.Errorf("empty index: got Len %d, want 0", n)
	}
	if got := NewBM25([]string{"", ""}).Score([]string{"x"}); len(got) != 2 || got[0] != 0 {
		t.Errorf("empty docs: got %v, want zeros", got)
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Café naïve 東京 ß", []string{"café", "naïve", "東京"}},
		{"I have a b c 2026 apples", []string{"i", "have", "a", "apples"}},
		{"OAuth2 v2 2fa 3.14 x86_64", []string{"oauth2", "v2", "2fa", "x86"}},
		{"ÉCOLE Straße ΣΟΦΙΑ", []string{"école", "straße", "σοφια"}},
		{"cafe\u0301 e\u0301", []string{"cafe\u0301"}},
		{"don't won't", []string{"don", "won"}},
		{"٣٤ ١x", []string{"١x"}},
		{"", nil},
		{"--- !!! ...", nil},
	}
	for _, tc := range tests {
		got := Tokenize(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStopWords(t *testing.T) {
	if len(stopWords) != 145 {
		t.Errorf("got %d stop words, want 145", len(stopWords))
	}
	for _, w := range []string{"a", "i", "the", "wouldn", "ourselves"} {
		if !IsStopWord(w) {
			t.Errorf("IsStopWord(%q): got false, want true", w)
		}
	}
	if IsStopWord("apple") {
		t.Errorf("IsStopWord(apple): got true, want false")
	}
}

func TestClassifierRank(t *testing.T) {
	cl := NewClassifier([]ClassifierItem{
		{"one", "shared words here"},
		{"two", "shared words here"},
		{"three", "other"},
	})
	ms := cl.Rank("shared", 0, 0)
	if len(ms) != 2 || ms[0].Name != "one" || ms[1].Name != "two" || ms[0].Score != ms[1].Score {
		t.Errorf("ties: got %+v, want one then two with equal scores", ms)
	}
	if ms := cl.Rank("shared", 1, 0); len(ms) != 1 || ms[0].Name != "one" {
		t.Errorf("topN 1: got %+v, want [one]", ms)
	}
	if ms := cl.Rank("shared", 5, 100); len(ms) != 0 {
		t.Errorf("threshold: got %+v, want none", ms)
	}
	if ms := cl.Rank("shared", 5, -1); len(ms) != 2 {
		t.Errorf("negative threshold keeps only positive scores: got %+v", ms)
	}
	if ms := cl.RankTokens([]string{"three"}, 5, 0); len(ms) != 1 || ms[0].Index != 2 {
		t.Errorf("name indexed: got %+v, want [three]", ms)
	}
	if ms := cl.Rank("", 5, 0); ms != nil {
		t.Errorf("empty query: got %+v, want nil", ms)
	}
	if cl.Len() != 3 || len(cl.Items()) != 3 {
		t.Errorf("got Len %d, want 3", cl.Len())
	}
	// a large corpus (more documents than the stack buffer)
	items := make([]ClassifierItem, 100)
	for i := range items {
		items[i] = ClassifierItem{Name: "n" + strconv.Itoa(i), Description: "common"}
	}
	items[99].Description = "common rare"
	if ms := NewClassifier(items).Rank("rare", 5, 0); len(ms) != 1 || ms[0].Index != 99 {
		t.Errorf("large corpus: got %+v, want item 99", ms)
	}
}
