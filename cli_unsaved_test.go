package main

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestAReplyThatCannotBeSavedIsShown asks a model (ask, and run with a script) in a real
// process while another holds the database's write lock past the busy timeout: the reply,
// paid for, is printed, said not to be saved, and the error follows (exit 1); nothing of
// the turn is in the database.
func TestAReplyThatCannotBeSavedIsShown(t *testing.T) {
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)
	db := filepath.Join(t.TempDir(), "locked.db")
	if out, err := exec.Command(bin, "run", "testdata/demo/support.script.yaml", "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	srv := startHTTPModel(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ <-chan struct{}) {
		sseStart(w)
		sseLine(w, sseText("the paid-for answer", "stop"))
		sseLine(w, "[DONE]")
	})

	// Another process's write transaction, held while ask runs.
	lock, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(100)")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	ctx := context.Background()
	conn, err := lock.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"ask", "a question"},
		{"run", "testdata/live/one-question.script.yaml"},
	} {
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append(args, "--db", db, "--base-url", srv.url, "--model", "m")...)
		cmd.Env = os.Environ()
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		_, _ = conn.ExecContext(ctx, "ROLLBACK")

		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("%s: exit %d, want 1", args[0], code)
		}
		if out := stdout.String(); !strings.Contains(out, "the paid-for answer") || !strings.Contains(out, "NOT SAVED") {
			t.Errorf("%s: stdout does not show the reply and that it is not saved:\n%s", args[0], out)
		}
		if e := stderr.String(); !strings.Contains(e, "save turn") || !strings.Contains(e, "database is busy") {
			t.Errorf("%s: stderr %q, want the save's error", args[0], e)
		}
	}
	conn.Close()
	if out := mustRunCtxlab(t, "chats", "--db", db); strings.Contains(out, "a question") || strings.Contains(out, "paid-for") {
		t.Errorf("an unsaved turn is in the database:\n%s", out)
	}
}
