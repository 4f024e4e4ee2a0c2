//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package burst

import "os"

// pendingBytes cannot tell here: each read then ends its own bursts.
func pendingBytes(*os.File) int { return 0 }
