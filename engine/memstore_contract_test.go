package engine_test

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/enginetest"
)

// TestMemStoreContract runs the store conformance suite on a MemStore: it must behave as
// the database does (store.TestStoreContract runs the same suite there). Over an empty
// base, every read also goes through to the base and finds nothing there.
func TestMemStoreContract(t *testing.T) {
	for _, tt := range []struct {
		name string
		open func() engine.Store
	}{
		{"alone", func() engine.Store { return engine.NewMemStore(nil) }},
		{"over an empty base", func() engine.Store { return engine.NewMemStore(engine.NewMemStore(nil)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			enginetest.TestStore(t, func(*testing.T) engine.Store { return tt.open() })
		})
	}
}

// TestMemStoreOverlayContract runs the suite on a MemStore over another holding the chat:
// every read goes through to the base, and the base is left as it was.
func TestMemStoreOverlayContract(t *testing.T) {
	enginetest.TestOverlay(t, func(*testing.T) engine.Store { return engine.NewMemStore(nil) },
		func(base engine.Store) engine.Store { return engine.NewMemStore(base) })
}
