//go:build unix

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNotAFileIsRefused gives every command that reads a file a named pipe with no
// writer (which blocks an open for ever) and a device where a file is wanted: each is
// refused at once, saying what the path is, in a real process.
func TestNotAFileIsRefused(t *testing.T) {
	bin := buildCtxlab(t) // before isolateCtxlabEnv, which moves HOME and with it the build cache
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	db := filepath.Join(dir, "ok.db")
	pipe := "a named pipe (FIFO), not a"
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"prompt", "--context", fifo}, 2, pipe},
		{[]string{"ask", "hello", "--context", fifo, "--db", db}, 2, pipe},
		{[]string{"run", fifo, "--db", db}, 2, pipe},
		// A database that cannot be opened is a failure (exit 1), as a directory is.
		{[]string{"run", "testdata/demo/support.script.yaml", "--db", fifo}, 1, pipe},
		{[]string{"replay", "x", "--db", fifo}, 1, pipe},
		{[]string{"chats", "--db", fifo}, 1, pipe},
		{[]string{"chats", "--db", "/dev/zero"}, 1, "a device, not a database file"},
		{[]string{"import", fifo, "--db", db}, 2, pipe},
		{[]string{"config", "--config", fifo}, 2, pipe},
		{[]string{"prompt", "--context", "/dev/zero"}, 2, "a device, not a file"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bin, tt.args...)
		out, _ := cmd.CombinedOutput()
		late := ctx.Err() != nil
		cancel()
		if late {
			t.Errorf("%q: still running after 10 s", tt.args)
			continue
		}
		if code := cmd.ProcessState.ExitCode(); code != tt.code || !strings.Contains(string(out), tt.want) {
			t.Errorf("%q: exit %d, output %q; want %d and %q", tt.args, code, out, tt.code, tt.want)
		}
	}
}
