package store

import (
	"path/filepath"
	"testing"
)

// openTemp opens a fresh database file in tb.TempDir(), closed when the test ends: what
// storetest.MustOpen is to the tests outside the package, which storetest cannot serve
// from inside it (it imports store).
func openTemp(tb testing.TB) *DB {
	tb.Helper()
	d, err := Open(filepath.Join(tb.TempDir(), "test.db"))
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	tb.Cleanup(func() {
		if err := d.Close(); err != nil {
			tb.Errorf("close test database: %v", err)
		}
	})
	return d
}
