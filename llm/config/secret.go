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

// runKeyCmd runs an api_key_cmd with sh -c (cmd /C on Windows) and returns the first line
// of its trimmed standard output. Its errors name the command and quote its standard
// error, never its standard output, which may hold the key.
func runKeyCmd(ctx context.Context, command string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	shell, flag := "sh", "-c"
	if runtime.GOOS == "windows" {
		shell, flag = "cmd", "/C"
	}
	cmd := exec.CommandContext(ctx, shell, flag, command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A child that outlives the shell keeps the pipes open: stop waiting for it.
	cmd.WaitDelay = 200 * time.Millisecond
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("command %q timed out after %s", command, timeout)
	case err != nil:
		msg := lastLine(stderr.String())
		if msg != "" {
			return "", fmt.Errorf("command %q failed: %w: %s", command, err, msg)
		}
		return "", fmt.Errorf("command %q failed: %w", command, err)
	}
	out := strings.TrimSpace(stdout.String())
	if i := strings.IndexAny(out, "\r\n"); i >= 0 {
		out = strings.TrimSpace(out[:i])
	}
	if out == "" {
		return "", fmt.Errorf("command %q printed no key", command)
	}
	return out, nil
}

// lastLine returns the last non-empty line of s, at most 200 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}
