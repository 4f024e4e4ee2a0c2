package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/store"
)

// BenchmarkWorkbenchProcess10k times the whole process opening a saved 10,000-message
// chat in tmux at 160x50: from starting it (tmux new-session, which starts a server of
// its own) to the first capture showing the header and the last turn (first-ms), and to
// the first showing the turns' recorded numbers, loaded after the first frame (full-ms).
// Captures are polled every few milliseconds, so the figures are upper bounds by about
// that much. Skipped without tmux (failed with CTXLAB_TMUX_REQUIRED=1).
func BenchmarkWorkbenchProcess10k(b *testing.B) {
	tmux := needTmux(b)
	bin := buildCtxlab(b)
	db := filepath.Join(b.TempDir(), "big.db")
	d, err := store.Open(db)
	if err != nil {
		b.Fatal(err)
	}
	if err := d.ImportChat(context.Background(), bigChatExport("big-1", 10_000, 9_000, 100)); err != nil {
		b.Fatal(err)
	}
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	var env []string
	for k, v := range ctxlabTestEnv(b) {
		env = append(env, k+"="+v)
	}
	env = append(env, "NO_COLOR=1")
	var firsts, fulls []time.Duration
	for b.Loop() {
		start := time.Now()
		p := startPane(b, tmux, bin, 160, 50, env, "--db", db, "--chat", "big-1", "--context", "testdata/demo/support.ctx.yaml", "--theme", "mono")
		waitUntil(b, p, "the first frame of the chat", e2eTimeout, func(s string) bool {
			return strings.Contains(s, "ctxlab · A long chat") && strings.Contains(s, "turn 5000")
		})
		firsts = append(firsts, time.Since(start))
		waitFor(b, p, "tok · ", e2eTimeout)
		fulls = append(fulls, time.Since(start))
		b.StopTimer()
		p.keys("C-c")
		waitFor(b, p, "ctxlab exited: 0", e2eTimeout)
		_, _ = p.tmuxErr("kill-server")
		b.StartTimer()
	}
	slices.Sort(firsts)
	slices.Sort(fulls)
	b.ReportMetric(float64(firsts[len(firsts)/2].Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(fulls[len(fulls)/2].Microseconds())/1000, "full-ms")
}
