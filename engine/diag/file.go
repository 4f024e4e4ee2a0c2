package diag

import (
	"io/fs"
	"os"
)

// CheckFile refuses a path that names something other than a regular file (a named pipe,
// a device, a socket, a directory) before it is opened: opening a named pipe blocks until
// another process writes to it, and a device may never end. It returns nil for a regular
// file, and for a path that does not exist or cannot be looked at (opening it then says
// why); else an *Error for the whole file: "a named pipe (FIFO), not a file: WHAT must be
// a file", where what names what the path was given for ("a context file").
func CheckFile(path, what string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil
	}
	return &Error{File: path, Msg: FileKind(fi.Mode()) + ", not a file: " + what + " must be a file"}
}

// FileKind names what a file mode that is not a regular file's is: "a directory", "a named
// pipe (FIFO)", "a device", "a socket"; "a special file" for anything else.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}
