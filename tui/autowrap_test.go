package tui

import (
	"bytes"
	"os"
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
		c := &terminalExec{cmd: exec.Command(sh, "-c", tt.script), autoWrapOff: true}
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

// terminalReader is a reader of a terminal file, as tui/burst's.
type terminalReader struct{ f *os.File }

func (r terminalReader) Read(p []byte) (int, error) { return r.f.Read(p) }
func (r terminalReader) File() *os.File             { return r.f }

// TestExecReadsTheTerminal: a program run from the workbench reads the terminal file
// itself, not the workbench's reader of it (which os/exec would pipe from a goroutine
// that outlives the program and swallows the next key).
func TestExecReadsTheTerminal(t *testing.T) {
	c := &terminalExec{cmd: exec.Command("true")}
	c.SetStdin(terminalReader{os.Stdin})
	if c.cmd.Stdin != os.Stdin {
		t.Errorf("the program's stdin is %T, want the terminal file", c.cmd.Stdin)
	}
	var out bytes.Buffer
	c.SetStdout(&out)
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("auto-wrap was not off, yet the program's terminal got %q", out.String())
	}
}
