package yamlx

import (
	"fmt"
	"io"
	"os"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// MaxFileSize caps a context file or a script: 8 MiB, far more than any hand-written file,
// little enough that a wrong path (`--context /dev/zero`, a log file) fails at once, in
// bounded memory.
const MaxFileSize = 8 << 20

// ReadFile reads the file at path, reading no more than limit bytes: a longer file is a
// *diag.Error for the whole file, "too large: WHAT holds at most N MiB", where what names
// the file ("a context file"); so is a path that is not a regular file (a named pipe, a
// device: diag.CheckFile), refused before it is opened. Other errors are those of os.Open and
// Read, unwrapped, so callers can test them with errors.Is.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	if err := diag.CheckFile(path, what); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &diag.Error{File: path, Msg: fmt.Sprintf("too large: %s holds at most %s", what, Size(limit))}
	}
	return data, nil
}

// Size formats a byte count for messages: "8 MiB", "64 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
