package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Secret is an API key. It prints masked with every fmt verb, as JSON, YAML or text:
// only Reveal gives the key itself, for the HTTP client.
type Secret string

// Reveal returns the key.
func (s Secret) Reveal() string { return string(s) }

// String returns the masked key.
func (s Secret) String() string { return Mask(string(s)) }

// Format writes the masked key whatever the verb (%v, %s, %q, %x, %#v, …).
func (s Secret) Format(f fmt.State, verb rune) {
	m := Mask(string(s))
	if verb == 'q' || (verb == 'v' && f.Flag('#')) {
		fmt.Fprintf(f, "%q", m)
		return
	}
	fmt.Fprint(f, m)
}

// MarshalText returns the masked key, so encoders never write the key.
func (s Secret) MarshalText() ([]byte, error) { return []byte(Mask(string(s))), nil }

// Mask shows a key as its short vendor prefix (up to the first '-' within the first 4
// characters, like "sk-") and its last 4 characters: "sk-…abcd". A key shorter than 12
// characters shows nothing of itself ("***"); an empty key is "".
func Mask(key string) string {
	r := []rune(key)
	switch {
	case len(r) == 0:
		return ""
	case len(r) < 12:
		return "***"
	}
	prefix := ""
	if i := strings.IndexByte(key, '-'); i > 0 && i < 4 {
		prefix = key[:i+1]
	}
	return prefix + "…" + string(r[len(r)-4:])
}

// MaxKeyCmdOutput caps what an api_key_cmd may print: 64 KiB, far more than any key. A
// command that prints more (a wrong command, `yes`) is stopped and refused.
const MaxKeyCmdOutput = 64 << 10

// errKeyCmdOutput stops the copy of a command's output past MaxKeyCmdOutput.
var errKeyCmdOutput = errors.New("output too long")

// cappedBuffer keeps up to max bytes and fails the write that goes past them, which closes
// the pipe: the command gets EPIPE (or SIGPIPE) and stops.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:room])
		c.over = true
		return room, errKeyCmdOutput
	}
	return c.buf.Write(p)
}

// runKeyCmd runs an api_key_cmd with sh -c (cmd /C on Windows) and returns the first line
// of its trimmed standard output, read up to MaxKeyCmdOutput. Its errors give the exit
// status, never the command line nor anything the command printed (its standard error is
// discarded): either may hold the key. The caller names the profile.
//
// On Unix the command runs in a process group of its own. At the timeout the whole group
// is killed, and the command fails even if it had printed a key. A command that printed
// its key and exited with status 0 succeeds, and what it left running in the background
// (`sleep 25 & echo KEY`, an agent it started) is killed with the group: a key command
// must not leave processes behind.
func runKeyCmd(ctx context.Context, command string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	shell, flag := "sh", "-c"
	if runtime.GOOS == "windows" {
		shell, flag = "cmd", "/C"
	}
	cmd := exec.CommandContext(ctx, shell, flag, command)
	ownGroup(cmd)
	stdout := &cappedBuffer{max: MaxKeyCmdOutput}
	cmd.Stdout = stdout // Stderr nil: discarded
	// A child that outlives the shell keeps the pipes open: stop waiting for it.
	cmd.WaitDelay = 200 * time.Millisecond
	err := cmd.Run()
	_ = killGroup(cmd) // what the command left running
	if errors.Is(err, exec.ErrWaitDelay) {
		// The shell exited with status 0 and a child still held its output: what it
		// printed before it exited is its answer.
		err = nil
	}
	var exit *exec.ExitError
	switch {
	case stdout.over:
		return "", fmt.Errorf("the command printed more than %d KiB; it must print the key only", MaxKeyCmdOutput>>10)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("the command timed out after %s", timeout)
	case errors.As(err, &exit):
		return "", fmt.Errorf("the command failed with %s (its output is not shown: it may hold the key)", exit.ProcessState)
	case err != nil:
		return "", fmt.Errorf("the command could not run: %w", err)
	}
	out := strings.TrimSpace(stdout.buf.String())
	if i := strings.IndexAny(out, "\r\n"); i >= 0 {
		out = strings.TrimSpace(out[:i])
	}
	if out == "" {
		return "", errors.New("the command printed no key")
	}
	return out, nil
}
