//go:build unix

package store

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writable reports whether this process may write the file at path and its directory
// (access(2), as the process's effective user: root included, which an immutable file
// or a read-only file system still stops).
func writable(path string) bool {
	return unix.Access(path, unix.W_OK) == nil && unix.Access(filepath.Dir(path), unix.W_OK) == nil
}
