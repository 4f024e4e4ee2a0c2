//go:build unix

package main

import (
	"bytes"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalsSaveThePartialReply sends SIGTERM (timeout, a container stop, CI
// cancellation), SIGHUP (the terminal closed) and SIGINT (Ctrl-C) to a real ctxlab process
// while the model streams: each ends the run as Ctrl-C does, with what arrived saved and
// marked interrupted (issue 12: only SIGINT used to save it).
func TestSignalsSaveThePartialReply(t *testing.T) {
	liveEnv(t)
	bin := buildCtxlab(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			streaming := make(chan struct{})
			s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, done <-chan struct{}) {
				sseStart(w)
				for i := 0; ; i++ {
					if i == 5 {
						close(streaming)
					}
					sseLine(w, sseText("more ", ""))
					select {
					case <-r.Context().Done():
						return
					case <-done:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			})
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			cmd := exec.Command(bin, "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--db", db)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-streaming:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("the model was never asked; stderr:\n%s", stderr.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "context canceled") {
				t.Fatalf("exit %d (%v), stderr %q; want 1 and the cancellation", code, err, stderr.String())
			}
			e := savedChat(t, db, "live-one")
			if len(e.Messages) != 2 || !e.Messages[1].Interrupted || !strings.HasPrefix(e.Messages[1].PlainText(), "more ") {
				t.Errorf("saved %s, want the partial reply marked interrupted", mustMarshal(t, e.Messages))
			}
		})
	}
}
