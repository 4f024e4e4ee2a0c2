package tui

import (
	"io"
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

// autoWrapExec runs a program of the user's (an editor) the way it expects the terminal:
// with auto-wrap on, and turns it off again after it. It is a tea.ExecCommand.
type autoWrapExec struct {
	cmd *exec.Cmd
	out io.Writer
}

// SetStdin sets the program's standard input, unless it has one.
func (c *autoWrapExec) SetStdin(r io.Reader) {
	if c.cmd.Stdin == nil {
		c.cmd.Stdin = r
	}
}

// SetStdout sets the program's standard output, unless it has one; the terminal's mode
// is written there.
func (c *autoWrapExec) SetStdout(w io.Writer) {
	c.out = w
	if c.cmd.Stdout == nil {
		c.cmd.Stdout = w
	}
}

// SetStderr sets the program's standard error, unless it has one.
func (c *autoWrapExec) SetStderr(w io.Writer) {
	if c.cmd.Stderr == nil {
		c.cmd.Stderr = w
	}
}

// Run runs the program with auto-wrap on, then turns it off again.
func (c *autoWrapExec) Run() error {
	if c.out != nil {
		_, _ = io.WriteString(c.out, AutoWrapOn)
	}
	err := c.cmd.Run()
	if c.out != nil {
		_, _ = io.WriteString(c.out, AutoWrapOff)
	}
	return err
}
