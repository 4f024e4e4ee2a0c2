package chat

// EncodedList is a turn's decision list as ctxlab's encoder (decision.Encoder) wrote it:
// its JSON, valid and compact; where each of its elements ends in JSON; and the bounds of
// each JSON string of JSON at least EncodedListMinString bytes long, keys and values,
// quotes included, two ints a string, in order. The store packs its JSON without
// scanning it again (store.DB.PrepareList), trusting what it says: a list made otherwise
// is given as JSON (PrepareDecisions), which is checked. None of it may change.
type EncodedList struct {
	JSON    []byte
	Ends    []int
	Strings []int
	// Firsts[i] is the index in Strings of the first string of element i.
	Firsts []int
}

// EncodedListMinString is the length, quotes included, of the shortest string an
// EncodedList records: the store cuts lists at their strings of that length and more.
const EncodedListMinString = 12

// ElementStrings returns the bounds of the strings of element i, as in l.Strings.
func (l *EncodedList) ElementStrings(i int) []int {
	end := len(l.Strings)
	if i+1 < len(l.Firsts) {
		end = l.Firsts[i+1]
	}
	return l.Strings[l.Firsts[i]:end]
}
