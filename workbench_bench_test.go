package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// committedChat commits turns scripted turns (2*turns messages) through the engine into
// a new SQLite file under the demo context, as the workbench or `ctxlab run` would save
// them, and returns the file and the chat's id.
func committedChat(tb testing.TB, turns int) (path, id string) {
	tb.Helper()
	ctx := context.Background()
	path = filepath.Join(tb.TempDir(), "long.db")
	clock := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	ws, err := ctxapp.Open(ctx, ctxapp.Options{DB: path, Now: func() time.Time { return clock }})
	if err != nil {
		tb.Fatal(err)
	}
	defer ws.Close()
	file, err := ctxfile.Load("testdata/demo/support.ctx.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	s, err := ws.Settings(file, true)
	if err != nil {
		tb.Fatal(err)
	}
	e, err := ws.Engine(file, s)
	if err != nil {
		tb.Fatal(err)
	}
	c := ws.NewChat(s, e, nil)
	for i := range turns {
		reply := fmt.Sprintf("Reply %d: the table has %d rows.\n\n- first point\n- second point\n\n```sql\nselect count(*) from t%d;\n```", i, i*7, i)
		if _, err := c.SendScripted(ctx, fmt.Sprintf("question %d about the schema", i), reply, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return path, c.ID()
}

// paneProcess returns the /proc directory of the process the pane's shell runs (Linux
// only: ok is false elsewhere or when there is none).
func paneProcess(p *pane) (dir string, ok bool) {
	if runtime.GOOS != "linux" {
		return "", false
	}
	shell := strings.TrimSpace(p.run("display", "-p", "-t", "s", "#{pane_pid}"))
	kids, err := os.ReadFile(filepath.Join("/proc", shell, "task", shell, "children"))
	if err != nil || len(strings.Fields(string(kids))) == 0 {
		return "", false
	}
	return filepath.Join("/proc", strings.Fields(string(kids))[0]), true
}

// paneRSS returns the resident memory, in MB, of the process the pane's shell runs
// (Linux only: ok is false elsewhere or when it cannot be read).
func paneRSS(p *pane) (mb float64, ok bool) {
	dir, ok := paneProcess(p)
	if !ok {
		return 0, false
	}
	status, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, found := strings.CutPrefix(l, "VmRSS:"); found {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024, err == nil
		}
	}
	return 0, false
}

// paneCPU returns the time the process the pane's shell runs has spent on a CPU, all its
// threads together (/proc/PID/task/*/schedstat; Linux only: ok is false elsewhere or when
// it cannot be read). Unlike the time on the clock, it does not grow with what else the
// machine runs.
func paneCPU(p *pane) (d time.Duration, ok bool) {
	dir, ok := paneProcess(p)
	if !ok {
		return 0, false
	}
	tasks, err := os.ReadDir(filepath.Join(dir, "task"))
	if err != nil {
		return 0, false
	}
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, "task", t.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		d += time.Duration(ns)
	}
	return d, true
}

// startTimed starts bin in a pane as startPane does, through a wrapper script that writes
// the clock (date +%s%N) to a file just before it execs bin, and returns the pane and a
// function that reads that time: when the process started, within the exec.
func startTimed(tb testing.TB, tmux, bin string, w, h int, env []string, args ...string) (*pane, func() time.Time) {
	tb.Helper()
	dir := tb.TempDir()
	t0 := filepath.Join(dir, "t0")
	wrapper := filepath.Join(dir, "timed.sh")
	sh := "#!/bin/sh\ndate +%s%N >" + shellQuote(t0) + "\nexec " + shellQuote(bin) + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(sh), 0o700); err != nil {
		tb.Fatal(err)
	}
	p := startPane(tb, tmux, wrapper, w, h, env, args...)
	return p, func() time.Time {
		tb.Helper()
		b, err := os.ReadFile(t0)
		if err != nil {
			tb.Fatalf("the start time: %v", err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			tb.Fatalf("the start time %q: %v", b, err)
		}
		return time.Unix(0, ns)
	}
}

// timeScreen polls the pane's screen back to back until ok holds for it, and returns the
// screen and the time the capture that showed it returned: when the screen first showed it,
// late by at most one capture (each capture-pane is a tmux client process of its own, a
// few milliseconds). It fails the test after timeout.
func timeScreen(tb testing.TB, p *pane, timeout time.Duration, ok func(string) bool) (time.Time, string) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := p.capture()
		at := time.Now()
		if ok(s) {
			return at, s
		}
		if at.After(deadline) {
			tb.Fatalf("waited %v; the screen:\n%s\nstderr:\n%s", timeout, s, p.lastWords())
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkWorkbenchProcess10k times the whole process opening a saved 10,000-message
// chat (5,000 turns committed through the engine once), `ctxlab --db X --chat ID` (the
// context file the chat recorded), in tmux at 160x50, from the process's
// start (the clock a wrapper records just before it execs the binary, see startTimed; the
// tmux server is already up) to the first capture showing the header and the last turn
// (first-ms), and to the first showing the turns' recorded numbers, loaded after the first
// frame (full-ms); then the process's resident memory (rss-MB), and again after scrolling
// the transcript to the first turn and back to the last (rss-scrolled-MB). Captures are
// polled back to back, so the times are upper bounds by one capture (a few ms). On a busy
// machine the times on the clock grow with its load: first-cpu-ms is the CPU time the
// process had used when its first frame was seen (its threads together, the load of the
// turns' numbers, which runs beside the first frame, included). Skipped
// without tmux (failed with CTXLAB_TMUX_REQUIRED=1). Run it with
//
//	go test -run '^$' -bench BenchmarkWorkbenchProcess10k -benchtime 10x .
func BenchmarkWorkbenchProcess10k(b *testing.B) {
	tmux := needTmux(b)
	bin := buildCtxlab(b)
	db, id := committedChat(b, 5000)
	var env []string
	for k, v := range ctxlabTestEnv(b) {
		env = append(env, k+"="+v)
	}
	env = append(env, "NO_COLOR=1")
	var firsts, fulls []time.Duration
	var rss, rssScrolled []float64
	var cpus []time.Duration
	for b.Loop() {
		b.StopTimer() // the tmux server's start is not the process's
		p, started := startTimed(b, tmux, bin, 160, 50, env, "--db", db, "--chat", id, "--theme", "mono")
		b.StartTimer()
		first, _ := timeScreen(b, p, e2eTimeout, func(s string) bool {
			return strings.Contains(s, "ctxlab · question 0 about the schema") && strings.Contains(s, "turn 5000")
		})
		if d, ok := paneCPU(p); ok {
			cpus = append(cpus, d)
		}
		full, _ := timeScreen(b, p, e2eTimeout, func(s string) bool { return strings.Contains(s, "tok · [scripted]") })
		b.StopTimer()
		t0 := started()
		firsts, fulls = append(firsts, first.Sub(t0)), append(fulls, full.Sub(t0))
		if mb, ok := paneRSS(p); ok {
			rss = append(rss, mb)
		}
		p.keys("Tab") // the transcript
		p.keys("Home")
		waitUntil(b, p, "the first turn", e2eTimeout, func(s string) bool { return strings.Contains(s, "turn 1 · 2026") })
		p.keys("End")
		waitUntil(b, p, "the last turn", e2eTimeout, func(s string) bool { return strings.Contains(s, "turn 5000 · 2026") })
		if mb, ok := paneRSS(p); ok {
			rssScrolled = append(rssScrolled, mb)
		}
		p.keys("C-c")
		waitFor(b, p, "ctxlab exited: 0", e2eTimeout)
		_, _ = p.tmuxErr("kill-server")
		b.StartTimer()
	}
	slices.Sort(firsts)
	slices.Sort(fulls)
	b.ReportMetric(float64(firsts[len(firsts)/2].Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(fulls[len(fulls)/2].Microseconds())/1000, "full-ms")
	if len(cpus) > 0 {
		slices.Sort(cpus)
		b.ReportMetric(float64(cpus[len(cpus)/2].Microseconds())/1000, "first-cpu-ms")
	}
	if len(rss) > 0 {
		slices.Sort(rss)
		slices.Sort(rssScrolled)
		b.ReportMetric(rss[len(rss)/2], "rss-MB")
		b.ReportMetric(rssScrolled[len(rssScrolled)/2], "rss-scrolled-MB")
	}
}
