package diag

import (
	"reflect"
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	known := []string{"name", "if", "id", "text", "template", "placement", "everyNTurns", "firstN"}
	tests := []struct {
		name string
		want []string
	}{
		{"nmae", []string{"name"}},          // a swap is one edit
		{"nam", []string{"name"}},           // a prefix
		{"placment", []string{"placement"}}, // a missing letter
		{"everyNTurn", []string{"everyNTurns"}},
		{"EVERYNTURNS", []string{"everyNTurns"}}, // case-insensitive
		{"zz", nil},                              // two letters are not close to every two-letter name
		{"completely-else", nil},
	}
	for _, tt := range tests {
		got := Suggest(tt.name, known)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Suggest(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := DidYouMean("nmae", known); got != "; did you mean name?" {
		t.Errorf("DidYouMean = %q", got)
	}
}

func TestNearest(t *testing.T) {
	known := []string{"and", "not", "once", "or", "everyNTurns", "firstN", "toolCall", "toolCalled", "afterTurn",
		"contentIncludes", "contentMatches", "usageExceeds"}
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"bogus", 3, []string{"usageExceeds", "not", "once"}},                 // far from all: the most alike anyway
		{"ONC", 2, []string{"once", "contentIncludes"}},                       // case-insensitive letter pairs
		{"everyTurns", 1, []string{"everyNTurns"}},                            // shared words first
		{"hasTool", 2, []string{"toolCall", "toolCalled"}},                    // the word tool
		{"turnCount", 2, []string{"everyNTurns", "afterTurn"}},                // turn, turns: one word
		{"messageContains", 2, []string{"contentIncludes", "contentMatches"}}, // letter pairs
		{"x", 3, []string{"or", "and", "not"}},                                // nothing shared: edit distance
		{"tool_call", 1, []string{"toolCall"}},                                // snake_case words
		{"zzzz", 20, []string{"and", "not", "once", "or", "firstN", "toolCall", "afterTurn", "toolCalled", "everyNTurns", "usageExceeds", "contentMatches", "contentIncludes"}}, // n above the count
		{"x", 0, []string{}},
		{"x", -1, []string{}},
	}
	for _, tt := range tests {
		if got := Nearest(tt.name, known, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Nearest(%q, %d) = %v, want %v", tt.name, tt.n, got, tt.want)
		}
	}
}

func TestDidYouMeanNearest(t *testing.T) {
	zones := []string{"Asia/Tokyo", "Asia/Tomsk", "Europe/Madrid", "Europe/Paris", "Europe/Prague"}
	tests := []struct{ name, want string }{
		{"Europe/Pari", "; did you mean Europe/Paris?"},
		{"Asia/Tokio", "; did you mean Asia/Tokyo?"},
		{"asia/tokyo", "; did you mean Asia/Tokyo?"},
		{"Mars/Olympus", ""},
	}
	for _, tt := range tests {
		if got := DidYouMeanNearest(tt.name, zones); got != tt.want {
			t.Errorf("DidYouMeanNearest(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if all := DidYouMean(tt.name, zones); tt.want != "" && !strings.HasPrefix(all, strings.TrimSuffix(tt.want, "?")) {
			t.Errorf("DidYouMean(%q) = %q, want it to start with the nearest", tt.name, all)
		}
	}
}
