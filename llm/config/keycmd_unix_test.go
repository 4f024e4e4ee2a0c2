//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reports whether process pid runs (a zombie, killed and not yet reaped, does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state …: the state follows the last ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestKeyCmdProcessGroup is issue 22 item 10: `sleep 25 & echo KEY` failed with "exec:
// WaitDelay expired" though it had printed the key, and the children of a command outlived
// its timeout. The command runs in a process group of its own: a key printed by a command
// that exited is used, and whatever it left running is killed, at its end or at the
// timeout.
func TestKeyCmdProcessGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to see the processes in")
	}
	for _, tc := range []struct {
		name, cmd string
		want      string // the key, or the error
		wantErr   bool
	}{
		{"a background child after the key", "sleep 25 & echo $! >PIDS; echo sk-bg-000000000000", "sk-bg-000000000000", false},
		{"a background child before the key, its output held", "(sleep 26; echo late) & echo $! >PIDS; echo sk-held-000000000000", "sk-held-000000000000", false},
		{"grandchildren at the timeout", "sleep 27 & echo $! >PIDS; sh -c 'sleep 28 & echo $! >>PIDS; sleep 29' & echo $! >>PIDS; echo sk-early-000000000000; wait",
			"the command timed out after 500ms", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			cmd := strings.ReplaceAll(tc.cmd, "PIDS", pids)
			start := time.Now()
			got, err := runKeyCmd(t.Context(), cmd, 500*time.Millisecond)
			took := time.Since(start)
			switch {
			case tc.wantErr && (err == nil || err.Error() != tc.want):
				t.Errorf("got %q, %v; want the error %q", got, err, tc.want)
			case !tc.wantErr && (err != nil || got != tc.want):
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
			if took > 2*time.Second {
				t.Errorf("took %s, want it bounded by the timeout", took)
			}
			b, err := os.ReadFile(pids)
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			deadline := time.Now().Add(2 * time.Second)
			for _, f := range strings.Fields(string(b)) {
				pid, _ := strconv.Atoi(f)
				for alive(pid) && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				if alive(pid) {
					left = append(left, f)
				}
			}
			if len(left) > 0 {
				t.Errorf("processes %v of the command still run", left)
			}
		})
	}
}
