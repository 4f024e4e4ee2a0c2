package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// fileTerminal reports whether w is a file that is a terminal, and its width (0 when the
// terminal does not tell).
func fileTerminal(w io.Writer) (width int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0, true
	}
	return width, true
}

// stdoutTerminal reports whether the command's standard output is a terminal, and its
// width (0: unknown, or not a terminal).
func (a *app) stdoutTerminal() (width int, ok bool) {
	if a.terminal == nil {
		return 0, false
	}
	return a.terminal(a.stdout)
}

// view is the layout of the turn blocks a command prints: wrapped to the terminal's
// width when standard output is one.
func (a *app) view(showMessages bool) turnView {
	width, _ := a.stdoutTerminal()
	return turnView{Width: width, ShowMessages: showMessages}
}
