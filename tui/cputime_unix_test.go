//go:build unix

package tui

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: unlike the time on the
// clock, it does not grow when the machine is busy with other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
