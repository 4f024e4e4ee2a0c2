//go:build unix

package config

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, which a cancel (the timeout) kills
// whole: the shell and whatever it started.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills cmd's process group: what is left of it once the command ended, or the
// whole command at its timeout.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
