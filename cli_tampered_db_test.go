package main

import (
	"bytes"
	"database/sql"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestTamperedNumbersAreCorruption is issue 22 item 9: a message's depth set to
// 2,000,000,000 (or below 0) in the file made replay and export die out of memory (or
// panic), in a real process. They report the database as corrupt instead, exit 1.
func TestTamperedNumbersAreCorruption(t *testing.T) {
	bin := buildCtxlab(t)
	isolateCtxlabEnv(t)
	db := replayFixture(t)
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, depth := range []int64{2_000_000_000, -1} {
		if _, err := raw.Exec(`UPDATE messages SET depth = ? WHERE id = (SELECT b.head FROM branches b JOIN chats c
			ON c.id = b.chat_id AND c.active_branch = b.name WHERE c.id = 'demo-1')`, depth); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"replay", "demo-1"}, {"replay", "demo-1", "--json"},
			{"export", "demo-1", "--format", "markdown"}, {"export", "demo-1", "--format", "openai"}, // json exports records, not paths
		} {
			cmd := exec.Command(bin, append(args, "--db", db)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "the database is corrupt: ") ||
				!strings.Contains(stderr.String(), "has depth "+strconv.FormatInt(depth, 10)) {
				t.Errorf("depth %d, %s: exit %d, stderr %.300q; want 1 and the database corrupt", depth, strings.Join(args, " "), code, stderr.String())
			}
		}
	}
}
