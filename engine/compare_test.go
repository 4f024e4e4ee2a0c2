package engine

import (
	"reflect"
	"testing"
)

// TestCompareDecisions: a re-evaluated turn's decisions against the recorded ones, in the
// same order (compared pair by pair) or not (by source and id); both ways give the same.
func TestCompareDecisions(t *testing.T) {
	d := func(id string, fired bool, reason string) Decision {
		return Decision{ID: id, Source: "reminder", Fired: fired, Reason: reason}
	}
	r := func(id string, fired bool, reason string) Removed {
		return Removed{ID: id, Source: "reminder", Fired: fired, Reason: reason}
	}
	tests := []struct {
		name        string
		ds          []Decision
		recorded    []Removed
		was         []*Was
		removed     []Removed
		sameOrder   bool
		notRecorded bool
	}{
		{"same", []Decision{d("a", true, "fired"), d("b", false, "predicate_false")},
			[]Removed{r("a", true, "fired"), r("b", false, "predicate_false")}, []*Was{nil, nil}, nil, true, false},
		{"one changed", []Decision{d("a", true, "fired"), d("b", true, "fired")},
			[]Removed{r("a", true, "fired"), r("b", false, "predicate_false")},
			[]*Was{nil, {Fired: false, Reason: "predicate_false"}}, nil, true, false},
		{"not recorded", []Decision{d("a", true, "fired")}, []Removed{r("a", false, "cap_reached")}, []*Was{nil}, nil, true, true},
		{"reordered", []Decision{d("b", true, "fired"), d("a", true, "fired")},
			[]Removed{r("a", true, "fired"), r("b", false, "predicate_false")},
			[]*Was{{Fired: false, Reason: "predicate_false"}, nil}, nil, false, false},
		{"added and removed", []Decision{d("a", true, "fired"), d("c", true, "fired")},
			[]Removed{r("a", true, "fired"), r("b", true, "fired")},
			[]*Was{nil, {Fired: false, Reason: ReasonNotInFile}}, []Removed{r("b", true, "fired")}, false, false},
		{"same ids, another source", []Decision{{ID: "a", Source: "instruction", Fired: true, Reason: "fired"}},
			[]Removed{r("a", true, "fired")}, []*Was{{Fired: false, Reason: ReasonNotInFile}}, []Removed{r("a", true, "fired")}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameOrder(tt.ds, tt.recorded); got != tt.sameOrder {
				t.Errorf("sameOrder = %v, want %v", got, tt.sameOrder)
			}
			ds := append([]Decision(nil), tt.ds...)
			removed := compare(ds, tt.recorded, tt.notRecorded)
			if !reflect.DeepEqual(removed, tt.removed) {
				t.Errorf("removed %+v, want %+v", removed, tt.removed)
			}
			for i := range ds {
				if !reflect.DeepEqual(ds[i].Was, tt.was[i]) {
					t.Errorf("%s: was %+v, want %+v", ds[i].ID, ds[i].Was, tt.was[i])
				}
			}
			if tt.sameOrder { // pairs give the same
				pairs := append([]Decision(nil), tt.ds...)
				comparePairs(pairs, tt.recorded, tt.notRecorded)
				if !reflect.DeepEqual(pairs, ds) || removed != nil {
					t.Errorf("comparePairs gives %+v, compare %+v (removed %+v)", pairs, ds, removed)
				}
			}
		})
	}
}
