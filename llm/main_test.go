package llm_test

import (
	"os"
	"testing"

	"github.com/ctxlab/ctxlab/llm/aimocktest"
)

// TestMain says once, without -v, when the aimock tests were skipped, and why.
func TestMain(m *testing.M) { os.Exit(aimocktest.Main(m)) }
