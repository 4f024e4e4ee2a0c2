package tui

import (
	"bytes"
	"os/exec"
	"testing"
)

// TestAutoWrapExec: a program run from the workbench ($EDITOR) finds the terminal's
// auto-wrap on, and it is off again after the program, even one that fails.
func TestAutoWrapExec(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no shell: %v", err)
	}
	for _, tt := range []struct {
		script  string
		failing bool
	}{{"printf edited", false}, {"printf edited; exit 3", true}} {
		var out bytes.Buffer
		c := &autoWrapExec{cmd: exec.Command(sh, "-c", tt.script)}
		c.SetStdin(nil)
		c.SetStdout(&out)
		c.SetStderr(&out)
		err := c.Run()
		if (err != nil) != tt.failing {
			t.Errorf("%s: error %v", tt.script, err)
		}
		if got, want := out.String(), AutoWrapOn+"edited"+AutoWrapOff; got != want {
			t.Errorf("%s: the terminal got %q, want %q", tt.script, got, want)
		}
	}
}
