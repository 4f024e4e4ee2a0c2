package store

// SetShortPath sets the longest path whose turns are looked up by message id, for the
// tests of package store_test, and returns a function that restores it.
func SetShortPath(n int) func() {
	old := shortPath
	shortPath = n
	return func() { shortPath = old }
}
