package aimocktest

import (
	"strings"
	"testing"
)

// TestStartRecordsTheSkip checks that a test skipped for want of aimock leaves the reason
// for Main to print.
func TestStartRecordsTheSkip(t *testing.T) {
	t.Setenv("CTXLAB_AIMOCK", "/nonexistent/llmock")
	t.Setenv("CTXLAB_AIMOCK_REQUIRED", "")
	saved := skipped.Load()
	defer func() {
		if saved != nil {
			skipped.Store(saved)
		}
	}()
	t.Run("needs aimock", func(t *testing.T) {
		Start(t, Options{Fixtures: "."})
		t.Error("Start returned without aimock")
	})
	why, _ := skipped.Load().(string)
	if !strings.Contains(why, "CTXLAB_AIMOCK") || !strings.Contains(why, "/nonexistent/llmock") {
		t.Errorf("skip reason %q, want it to name CTXLAB_AIMOCK and the path", why)
	}
}
