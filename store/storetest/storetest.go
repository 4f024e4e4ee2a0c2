// Package storetest helps the tests of other packages use a store: a fresh database per
// test, closed when the test ends, and a deterministic clock.
package storetest

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/store"
)

// MustOpen opens a fresh database file in tb.TempDir(), with a Clock starting at
// 2026-01-01T00:00:00Z and stepping one second, and closes it when the test ends. It fails
// the test on error.
func MustOpen(tb testing.TB) *store.DB {
	tb.Helper()
	return open(tb, filepath.Join(tb.TempDir(), "ctxlab.db"))
}

// MustOpenMemory is MustOpen with a private in-memory database.
func MustOpenMemory(tb testing.TB) *store.DB {
	tb.Helper()
	return open(tb, store.Memory)
}

func open(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(path)
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	db.Now = Clock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Second)
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("close test database: %v", err)
		}
	})
	return db
}

// Clock returns a clock for DB.Now that gives start, then start+step, start+2*step, … It
// is safe for concurrent use.
func Clock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	next := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := next
		next = next.Add(step)
		return t
	}
}
