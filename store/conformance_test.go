package store_test

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/enginetest"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

var _ engine.Store = (*store.DB)(nil)

// TestStoreContract runs the engine's store conformance suite on the database, in memory
// and in a file: it is the reference engine.MemStore is held to.
func TestStoreContract(t *testing.T) {
	for _, tt := range []struct {
		name string
		open func(testing.TB) *store.DB
	}{
		{"memory", storetest.MustOpenMemory},
		{"file", storetest.MustOpen},
	} {
		t.Run(tt.name, func(t *testing.T) {
			enginetest.TestStore(t, func(t *testing.T) engine.Store { return tt.open(t) })
		})
	}
}

// TestMemStoreOverDatabase runs the suite on a MemStore over a database holding the chat,
// as a dry run of a script over a saved chat does: reads go through, writes stay in
// memory.
func TestMemStoreOverDatabase(t *testing.T) {
	enginetest.TestOverlay(t, func(t *testing.T) engine.Store { return storetest.MustOpenMemory(t) },
		func(base engine.Store) engine.Store { return engine.NewMemStore(base) })
}
