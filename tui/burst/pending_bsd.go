//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package burst

import (
	"os"

	"golang.org/x/sys/unix"
)

// fionread is the BSDs' FIONREAD, _IOR('f', 127, int), which x/sys does not name.
const fionread = 0x4004667f

// pendingBytes is how many bytes the terminal f holds unread (FIONREAD), 0 when it
// cannot tell.
func pendingBytes(f *os.File) int {
	n, err := unix.IoctlGetInt(int(f.Fd()), fionread)
	if err != nil {
		return 0
	}
	return n
}
