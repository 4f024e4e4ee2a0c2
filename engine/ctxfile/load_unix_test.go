//go:build unix

package ctxfile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// TestLoadNotAFile: a directory or a named pipe given as the context file is invalid
// input, said as such, and refused before it is opened (a pipe with no writer would
// block the open for ever).
func TestLoadNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.ctx.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	for path, want := range map[string]string{dir: ": a directory, not a file", fifo: ": a named pipe (FIFO), not a file"} {
		done := make(chan error, 1)
		go func() { _, err := Load(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !diag.IsInvalidInput(err) {
				t.Errorf("%s: got %v, want an invalid input saying %q", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Load blocked", path)
		}
	}
}
