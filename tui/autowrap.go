package tui

import (
	"io"
	"os"
	"os/exec"
)

// The terminal's auto-wrap (DECAWM) is off while the workbench runs. The workbench lays
// every line out to the screen's width, measured as terminals draw graphemes (inert.Cells);
// a line a terminal still draws wider (a character its Unicode tables know otherwise) is
// then cut at the right edge, instead of wrapping onto the next row and scrolling the whole
// screen up, which would push the header off the top and leave stale rows behind. The
// program that runs the workbench turns auto-wrap off before the first frame and on again
// however the program ends (Options.AutoWrapOff); the workbench turns it on while $EDITOR
// runs.
const (
	// AutoWrapOff (DECRST 7) stops the terminal from wrapping text at the right margin.
	AutoWrapOff = "\x1b[?7l"
	// AutoWrapOn (DECSET 7) is the terminal's default: text wraps at the right margin.
	AutoWrapOn = "\x1b[?7h"
)

// terminalExec runs a program of the user's (an editor) on the terminal the way it
// expects it: reading the terminal itself, and with auto-wrap on when the workbench turned
// it off (autoWrapOff), turned off again after it. It is a tea.ExecCommand.
type terminalExec struct {
	cmd         *exec.Cmd
	out         io.Writer
	autoWrapOff bool
}

// fileReader is a reader of a file (tui/burst's Reader of the terminal).
type fileReader interface{ File() *os.File }

// SetStdin sets the program's standard input, unless it has one: the terminal, never a
// reader of it. (Given a reader that is not a file, os/exec pipes it to the program from
// a goroutine, which goes on reading after the program ends, until a key comes: the
// workbench would wait for it, in cooked mode, and that key would be lost.)
func (c *terminalExec) SetStdin(r io.Reader) {
	if c.cmd.Stdin != nil {
		return
	}
	if f, ok := r.(fileReader); ok {
		r = f.File()
	}
	c.cmd.Stdin = r
}

// SetStdout sets the program's standard output, unless it has one; the terminal's mode
// is written there.
func (c *terminalExec) SetStdout(w io.Writer) {
	c.out = w
	if c.cmd.Stdout == nil {
		c.cmd.Stdout = w
	}
}

// SetStderr sets the program's standard error, unless it has one.
func (c *terminalExec) SetStderr(w io.Writer) {
	if c.cmd.Stderr == nil {
		c.cmd.Stderr = w
	}
}

// Run runs the program, with auto-wrap on while it runs if the workbench had it off.
func (c *terminalExec) Run() error {
	wrap := c.autoWrapOff && c.out != nil
	if wrap {
		_, _ = io.WriteString(c.out, AutoWrapOn)
	}
	err := c.cmd.Run()
	if wrap {
		_, _ = io.WriteString(c.out, AutoWrapOff)
	}
	return err
}
