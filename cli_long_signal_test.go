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

// TestLongCommandsAnswerSignals interrupts long commands in a real process, in the phases
// that did not look at the signal: `run` of a 20,000-turn script (checked by a dry run of
// every turn before the first is sent: 10 s and more) and `import` of a large OpenAI
// messages array (read and checked before anything is written: seconds). Each stops at
// once, exit 1, saying it was cancelled; the import writes nothing.
func TestLongCommandsAnswerSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 2 MB script and a 100 MB file")
	}
	bin := buildCtxlab(t) // before isolateCtxlabEnv, which moves HOME and with it the build cache
	isolateCtxlabEnv(t)
	dir := t.TempDir()

	const turns = 20000
	var sc strings.Builder
	sc.WriteString("chat: {id: long-1, title: Long}\nturns:\n")
	for i := range turns {
		fmt.Fprintf(&sc, "  - user: question %d about the customers table\n    assistant: answer %d\n", i, i)
	}
	script := filepath.Join(dir, "long.script.yaml")
	if err := os.WriteFile(script, []byte(sc.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	array := filepath.Join(dir, "messages.json")
	f, err := os.Create(array)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`[{"role":"system","content":"You are helpful."}`)
	for i := range 500000 { // a million messages, about 100 MB
		fmt.Fprintf(w, `,{"role":"user","content":"question %d about the customers table and the refund of invoice %d"}`, i, i)
		fmt.Fprintf(w, `,{"role":"assistant","content":"answer %d with the figures you asked for, and a short explanation"}`, i)
	}
	w.WriteString("]\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name string
		sig  syscall.Signal
		args []string
		db   string
	}{
		{"run, dry run", syscall.SIGINT, []string{"run", script, "--context", "testdata/demo/support.ctx.yaml"}, "run.db"},
		{"run, quiet json", syscall.SIGTERM, []string{"run", script, "--json", "--request", "new"}, "run-json.db"},
		{"import", syscall.SIGINT, []string{"import", array}, "import.db"},
		{"import, SIGTERM", syscall.SIGTERM, []string{"import", array}, "import2.db"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(dir, tt.db)
			cmd := exec.Command(bin, append(tt.args, "--db", db)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(700 * time.Millisecond) // into the command's work: parsing, checking
			start := time.Now()
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			took := time.Since(start)
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "context canceled") {
				t.Errorf("exit %d, stderr %q; want 1 and the cancellation", code, stderr.String())
			}
			if took > 2*time.Second {
				t.Errorf("it exited %v after the signal: it did not stop", took.Round(time.Millisecond))
			}
			if tt.args[0] == "import" {
				if _, err := os.Stat(db); err == nil {
					if out, _ := exec.Command(bin, "chats", "--db", db).CombinedOutput(); !strings.Contains(string(out), "no chats") {
						t.Errorf("the interrupted import saved a chat:\n%s", out)
					}
				}
			}
		})
	}
}
