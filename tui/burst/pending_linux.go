package burst

import (
	"os"

	"golang.org/x/sys/unix"
)

// pendingBytes is how many bytes the terminal f holds unread (TIOCINQ), 0 when it
// cannot tell.
func pendingBytes(f *os.File) int {
	n, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
	if err != nil {
		return 0
	}
	return n
}
