package predicates

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// FuzzQueryTerms checks that the terms of a query, gathered as the text is tokenized, are
// the distinct tokens that are not stop words, in order of first appearance.
func FuzzQueryTerms(f *testing.F) {
	for _, s := range []string{"", "the refund of the refund", "Déjà vu, DÉJÀ VU!", strings.Repeat("a b c d e f g h i j k l m n o p q r s t ", 3),
		"x1 2 ab3 über-straße", "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen one"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := queryTerms(s), uniqueTerms(Tokenize(s)); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("queryTerms(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestQueryTermsOfALongMessage takes the terms of an 8 MiB message: what is held is the
// few terms, not the million tokens (320 MB allocated for them).
func TestQueryTermsOfALongMessage(t *testing.T) {
	text := strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ", 8<<20/78)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	terms := queryTerms(text)
	runtime.ReadMemStats(&after)
	if want := []string{"lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "eiusmod", "tempor"}; !reflect.DeepEqual(terms, want) {
		t.Fatalf("terms %q, want %q", terms, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("the terms of an 8 MiB message allocated %d KB, want what the terms take", n>>10)
	}
}
