// Package diag holds the positioned error that every ctxlab loader reports:
// FILE:LINE:COL: message.
package diag

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Error is a problem found at a place in an input file. Line and Col are 1-based; Col counts
// Unicode code points. A zero Line means the whole file.
type Error struct {
	File string
	Line int
	Col  int
	Msg  string
}

// Error formats the problem as FILE:LINE:COL: message.
func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	default:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
}

// Errorf returns an *Error at file:line:col.
func Errorf(file string, line, col int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// List is several problems, reported in file order, one per line.
type List []*Error

// Error joins the problems, one per line.
func (l List) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Sort orders the problems by file, line and column.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns nil for an empty list, the single error for one, else the list.
func (l List) Err() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	l.Sort()
	return l
}

// IsInvalidInput reports whether err is, or wraps, a positioned input error (exit code 2).
func IsInvalidInput(err error) bool {
	var e *Error
	var l List
	return errors.As(err, &e) || errors.As(err, &l)
}
