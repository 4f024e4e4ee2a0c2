package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReplayAnswersSignals replays a long chat in a real process and interrupts it once
// the first turn is out: it stops at once, exit 1, without printing the rest.
func TestReplayAnswersSignals(t *testing.T) {
	bin := buildCtxlab(t) // before isolateCtxlabEnv, which moves HOME and with it the build cache
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	const turns = 3000
	var sc strings.Builder
	sc.WriteString("chat: {id: long-1, title: Long}\nturns:\n")
	for i := range turns {
		fmt.Fprintf(&sc, "  - user: question %d about the customers table\n    assistant: answer %d\n", i, i)
	}
	script, db := filepath.Join(dir, "long.script.yaml"), filepath.Join(dir, "long.db")
	if err := os.WriteFile(script, []byte(sc.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "run", script, "--db", db, "--context", "testdata/demo/support.ctx.yaml").CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%.2000s", err, out)
	}

	for _, tt := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"--json"}},
		{syscall.SIGTERM, nil},
		{syscall.SIGHUP, []string{"--context", "testdata/demo/support.ctx.yaml", "--json"}},
	} {
		cmd := exec.Command(bin, append([]string{"replay", "long-1", "--db", db}, tt.args...)...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(out)
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatalf("%v %v: no first line: %v", tt.sig, tt.args, err)
		}
		start := time.Now()
		if err := cmd.Process.Signal(tt.sig); err != nil {
			t.Fatal(err)
		}
		lines := 1
		for {
			if _, err := r.ReadString('\n'); err != nil {
				break
			}
			lines++
		}
		_ = cmd.Wait()
		took := time.Since(start)
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "context canceled") {
			t.Errorf("%v %v: exit %d, stderr %q; want 1 and the cancellation", tt.sig, tt.args, code, stderr.String())
		}
		if took > 2*time.Second || lines >= turns {
			t.Errorf("%v %v: %d lines printed, %v after the signal: it did not stop", tt.sig, tt.args, lines, took)
		}
	}
}
