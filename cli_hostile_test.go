//go:build unix

package main

// The hostile servers of issue 22 (items 1, 2, 8 and 10), run against the real binary:
// servers written here that flood, drip comments, answer HTML or redirect, and signals
// sent to the process mid-stream. The peak resident size of the process is read with GNU
// time: a process forked by the test starts from the size of the test process, which
// os/exec's vfork makes its own peak (see cli_limits_test.go).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// gnuTime is GNU time, which reports the peak resident size of the command it runs.
const gnuTime = "/usr/bin/time"

// measured is a ctxlab process run under GNU time when it is installed.
type measured struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	rssFile        string // where GNU time writes the peak resident size, in KB ("" without it)
	start          time.Time
	done           chan struct{} // closed when the process has ended, with err
	err            error
}

// startMeasured starts the binary with args in env, under GNU time when it is installed.
func startMeasured(t *testing.T, bin string, env []string, args ...string) *measured {
	t.Helper()
	m := &measured{}
	if _, err := os.Stat(gnuTime); err == nil {
		m.rssFile = filepath.Join(t.TempDir(), "rss")
		m.cmd = exec.Command(gnuTime, append([]string{"-f", "%M", "-o", m.rssFile, bin}, args...)...)
	} else {
		t.Logf("%s is not installed: the peak memory is not measured", gnuTime)
		m.cmd = exec.Command(bin, args...)
	}
	m.cmd.Env = env
	m.cmd.Stdout, m.cmd.Stderr = &m.stdout, &m.stderr
	m.start = time.Now()
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m.done = make(chan struct{})
	go func() {
		m.err = m.cmd.Wait()
		close(m.done)
	}()
	t.Cleanup(func() {
		select {
		case <-m.done:
		default:
			m.signal(syscall.SIGKILL)
			_ = m.cmd.Process.Kill()
			<-m.done
		}
	})
	return m
}

// ended reports whether the process has ended.
func (m *measured) ended() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// pid is the ctxlab process: GNU time's child, or the process started.
func (m *measured) pid() int {
	if m.rssFile == "" {
		return m.cmd.Process.Pid
	}
	p := m.cmd.Process.Pid
	for range 200 {
		if m.ended() {
			return 0
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", p, p))
		if f := strings.Fields(string(b)); len(f) > 0 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				return n
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// signal sends sig to the ctxlab process (GNU time ignores SIGINT and waits for it).
func (m *measured) signal(sig syscall.Signal) {
	if p := m.pid(); p > 0 {
		_ = syscall.Kill(p, sig)
	}
}

// wait waits for the process, at most limit, and returns its exit code, how long it ran
// and its peak resident size in MB (0 when not measured).
func (m *measured) wait(t *testing.T, limit time.Duration) (code int, took time.Duration, peakMB int) {
	t.Helper()
	select {
	case <-m.done:
		took = time.Since(m.start)
		code = exitCode(m.err)
	case <-time.After(limit):
		m.signal(syscall.SIGQUIT) // a goroutine dump, to see where it hangs
		<-m.done
		t.Fatalf("still running after %s; stderr:\n%.4000s", limit, m.stderr.String())
	}
	if m.rssFile != "" && !raceBuild() {
		b, err := os.ReadFile(m.rssFile)
		if err != nil {
			t.Fatalf("peak memory: %v", err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		kb, err := strconv.Atoi(lines[len(lines)-1]) // after "Command exited with non-zero status N"
		if err != nil {
			t.Fatalf("peak memory: %q: %v", b, err)
		}
		peakMB = kb >> 10
	}
	return code, took, peakMB
}

// raceBuild reports whether the test (and so the binary buildCtxlab builds) runs with the
// race detector, which multiplies the memory a process takes.
func raceBuild() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				return true
			}
		}
	}
	return false
}

// hostileEnv is the environment of a ctxlab process talking to a test server.
func hostileEnv(t *testing.T) []string {
	return append(ctxlabProcessEnv(t), "OPENAI_API_KEY="+liveKey)
}

// floodText writes 1 MB content deltas until the client stops reading, or 64 MB are sent
// (so that a client that keeps reading fails the test rather than the machine), and counts
// what it sent.
func floodText(w http.ResponseWriter, sent *atomic.Int64) {
	chunk := []byte("data: " + sseText(strings.Repeat("x", 1<<20), "") + "\n\n")
	for sent.Load() < 64<<20 {
		if _, err := w.Write(chunk); err != nil {
			return
		}
		sent.Add(int64(len(chunk)))
	}
}

// traceOf decodes the one trace a --json command printed.
func traceOf(t *testing.T, stdout string) engine.Trace {
	t.Helper()
	var tr engine.Trace
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &tr); err != nil {
		t.Fatalf("the trace: %v\n%.2000s", err, stdout)
	}
	return tr
}

// TestHostileReplyFlood is issue 22 item 1: a server streaming 1 MB content deltas
// without end took the process to 19 GB in 10 minutes. The reply is cut at
// chat.MaxReplySize, saved marked interrupted with the finish reason reply_limit, and
// the error names the limit; run and ask end within seconds under the README's memory
// figure.
func TestHostileReplyFlood(t *testing.T) {
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)
	var sent atomic.Int64
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
		sseStart(w)
		floodText(w, &sent)
	})
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "testdata/live/one-question.script.yaml"}},
		{"ask", []string{"ask", "How many orders?", "--model", "m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			m := startMeasured(t, bin, hostileEnv(t), append(tc.args, "--base-url", s.url, "--db", db, "--json")...)
			code, took, peak := m.wait(t, 60*time.Second)
			t.Logf("%s: %s, %d MB", tc.name, took.Round(time.Millisecond), peak)
			want := "model: reply too long from " + s.url + ": a reply holds at most 4 MiB of text and tool calls\n"
			if code != exitFailure || !strings.HasSuffix(m.stderr.String(), want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 ending %q", code, m.stderr.String(), want)
			}
			tr := traceOf(t, m.stdout.String())
			if a := tr.Assistant; a == nil || a.Text != strings.Repeat("x", chat.MaxReplySize) || !a.Interrupted || a.FinishReason != engine.FinishReplyLimit {
				t.Fatalf("trace assistant %.200v, want the first 4 MiB of the reply, interrupted, finish reason %s", a, engine.FinishReplyLimit)
			}
			saved := savedChat(t, db, tr.ChatID)
			if len(saved.Messages) != 2 || !saved.Messages[1].Interrupted || len(saved.Messages[1].PlainText()) != chat.MaxReplySize ||
				saved.Turns[0].FinishReason != engine.FinishReplyLimit {
				t.Errorf("saved %d messages (reply interrupted %v, %d bytes), finish %q; want the reply cut at the limit",
					len(saved.Messages), saved.Messages[len(saved.Messages)-1].Interrupted, len(saved.Messages[len(saved.Messages)-1].PlainText()), saved.Turns[0].FinishReason)
			}
			if took > 15*time.Second {
				t.Errorf("took %s, want a few seconds", took)
			}
			if peak > 160 {
				t.Errorf("peak resident size %d MB, want under 160 MB (the README's figure)", peak)
			}
		})
	}
}

// TestHostileFloodSignals is issue 22 item 1: a SIGINT 2.5 s into a flood took 98 s to
// exit and peaked at 4.3 GB. SIGINT and SIGTERM end the process within about a second
// whatever the stream is doing, with what arrived saved: in a text flood (the signal is
// sent once 24 MB are sent, unless the reply was cut at its limit and the process ended
// first), and in an endless reasoning stream of 1 MB chunks, which nothing keeps.
func TestHostileFloodSignals(t *testing.T) {
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		stream func(w http.ResponseWriter, sent *atomic.Int64)
		// wantErr is the end of stderr; wantText the start of the saved reply.
		wantErr, wantText string
	}{
		{"SIGINT in a text flood", syscall.SIGINT, floodText, "a reply holds at most 4 MiB of text and tool calls\n", "xxxx"},
		{"SIGTERM in a text flood", syscall.SIGTERM, floodText, "a reply holds at most 4 MiB of text and tool calls\n", "xxxx"},
		{"SIGINT in endless reasoning", syscall.SIGINT, floodReasoning, "context canceled\n", "Let me think."},
		{"SIGTERM in endless reasoning", syscall.SIGTERM, floodReasoning, "context canceled\n", "Let me think."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent atomic.Int64
			s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
				sseStart(w)
				tc.stream(w, &sent)
			})
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			m := startMeasured(t, bin, hostileEnv(t), "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--db", db)
			deadline := time.Now().Add(30 * time.Second)
			for sent.Load() < 24<<20 && !m.ended() && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			signalled, ended := time.Now(), m.ended()
			m.signal(tc.sig)
			code, _, peak := m.wait(t, 60*time.Second)
			exit := time.Since(signalled)
			t.Logf("%s: exit %d %s after the signal (ended before it: %v), %d MB after %d MB sent", tc.name, code, exit.Round(time.Millisecond), ended, peak, sent.Load()>>20)
			stderr := m.stderr.String()
			if code != exitFailure || !(strings.HasSuffix(stderr, tc.wantErr) || (!ended && strings.HasSuffix(stderr, "context canceled\n"))) {
				t.Fatalf("exit %d, stderr %q; want exit 1 ending %q", code, stderr, tc.wantErr)
			}
			if exit > 3*time.Second {
				t.Errorf("exited %s after the signal, want about a second", exit)
			}
			if peak > 160 {
				t.Errorf("peak resident size %d MB, want under 160 MB", peak)
			}
			saved := savedChat(t, db, "live-one")
			if len(saved.Messages) != 2 || !saved.Messages[1].Interrupted || !strings.HasPrefix(saved.Messages[1].PlainText(), tc.wantText) ||
				len(saved.Messages[1].PlainText()) > chat.MaxReplySize {
				t.Errorf("saved %d messages, want the reply (%d bytes) saved, interrupted, starting %q", len(saved.Messages), len(saved.Messages[len(saved.Messages)-1].PlainText()), tc.wantText)
			}
		})
	}
}

// floodReasoning writes a few words of text, then 1 MB reasoning_content deltas (which a
// reply does not keep) until the client stops reading or 256 MB are sent.
func floodReasoning(w http.ResponseWriter, sent *atomic.Int64) {
	sseLine(w, sseText("Let me think.", ""))
	b, _ := json.Marshal(strings.Repeat("hmm ", 1<<18))
	chunk := []byte(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":` + string(b) + `},"finish_reason":null}]}` + "\n\n")
	for sent.Load() < 256<<20 {
		if _, err := w.Write(chunk); err != nil {
			return
		}
		sent.Add(int64(len(chunk)))
	}
}

// TestHostileCommentDrip is issue 22 item 2: a server sending 4 MB SSE comment lines grew
// the process by some 600 MB a second before the first token (go-openai kept them all).
// The stream fails past llm.MaxNonEvent, at once and in bounded memory; a comment with
// each event is read as ever.
func TestHostileCommentDrip(t *testing.T) {
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)
	comment := []byte(": " + strings.Repeat("x", 4<<20) + "\n")
	for _, tc := range []struct {
		name   string
		stream func(w http.ResponseWriter)
		want   string // the end of stderr, "" for a reply read whole
	}{
		{"4 MB comments before any token", func(w http.ResponseWriter) {
			for sent := 0; sent < 256<<20; sent += len(comment) {
				if _, err := w.Write(comment); err != nil {
					return
				}
			}
		}, "model: malformed stream from URL: the server sent more than 1 MiB of lines that are not events\n"},
		{"a keep-alive comment with each event", func(w http.ResponseWriter) {
			for _, word := range strings.Fields("There are 42 orders.") {
				fmt.Fprint(w, ": keep-alive\n\n")
				sseLine(w, sseText(word+" ", ""))
			}
			sseLine(w, sseText("", "stop"))
			sseLine(w, "[DONE]")
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
				sseStart(w)
				tc.stream(w)
			})
			db := filepath.Join(t.TempDir(), "ctxlab.db")
			m := startMeasured(t, bin, hostileEnv(t), "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--db", db)
			code, took, peak := m.wait(t, 60*time.Second)
			t.Logf("%s: exit %d in %s, %d MB", tc.name, code, took.Round(time.Millisecond), peak)
			if tc.want == "" {
				if code != exitOK || !strings.Contains(m.stdout.String(), "There are 42 orders.") {
					t.Fatalf("exit %d, stdout %q, stderr %q; want the reply", code, m.stdout.String(), m.stderr.String())
				}
				return
			}
			want := strings.ReplaceAll(tc.want, "URL", s.url)
			if code != exitFailure || !strings.HasSuffix(m.stderr.String(), want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 ending %q", code, m.stderr.String(), want)
			}
			if took > 10*time.Second || peak > 100 {
				t.Errorf("took %s and %d MB, want a few seconds and under 100 MB", took, peak)
			}
			noChat(t, db, "live-one")
		})
	}
}

// TestHostileAbsurdUsage is issue 22 item 10: a usage chunk with prompt_tokens 1e30 (no
// integer holds it) marked a complete reply interrupted. The usage is dropped, as any
// absurd usage is, and the reply saved whole, counted by its estimate.
func TestHostileAbsurdUsage(t *testing.T) {
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
		sseStart(w)
		sseLine(w, sseText("There are 42 orders.", ""))
		sseLine(w, sseText("", "stop"))
		sseLine(w, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1e30,"completion_tokens":5,"total_tokens":1e30}}`)
		sseLine(w, "[DONE]")
	})
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	m := startMeasured(t, bin, hostileEnv(t), "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--db", db, "--json")
	if code, _, _ := m.wait(t, 60*time.Second); code != exitOK {
		t.Fatalf("exit %d, stderr %q; want the reply saved whole", code, m.stderr.String())
	}
	tr := traceOf(t, m.stdout.String())
	if a := tr.Assistant; a == nil || a.Text != "There are 42 orders." || a.Interrupted || a.FinishReason != "stop" || tr.Usage.Reported != nil {
		t.Errorf("trace assistant %+v, reported usage %+v; want the whole reply, finish stop, no reported usage", a, tr.Usage.Reported)
	}
	if saved := savedChat(t, db, "live-one"); len(saved.Messages) != 2 || saved.Messages[1].Interrupted {
		t.Errorf("saved %d messages, want the reply, not interrupted", len(saved.Messages))
	}
}

// TestHostileHTMLAnswer is issue 22 item 10: a 200 with an HTML body (a captive portal, a
// proxy's login page) was retried three times and reported as "stream ended without
// finish_reason or [DONE]". One request, and the error says what the server answered.
func TestHostileHTMLAnswer(t *testing.T) {
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html>\n<html><head><title>Wi-Fi login \x1b[31m</title></head><body>Accept the terms</body></html>\n")
	})
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	m := startMeasured(t, bin, hostileEnv(t), "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--db", db)
	code, took, _ := m.wait(t, 60*time.Second)
	want := "model: invalid response from " + s.url + `: the server answered an HTML page (Content-Type text/html; charset=utf-8), not an event stream: "Wi-Fi login \x1b[31m"` + "\n"
	if code != exitFailure || !strings.HasSuffix(m.stderr.String(), want) {
		t.Fatalf("exit %d, stderr %q; want exit 1 ending %q", code, m.stderr.String(), want)
	}
	if n := len(s.requests()); n != 1 || took > 10*time.Second {
		t.Errorf("%d requests in %s, want one, answered at once", n, took)
	}
	noChat(t, db, "live-one")
}

// TestHostileRedirect is issue 22 item 8: the Authorization header followed a 307 to another
// port of the same host. The redirect is not followed: the run fails saying where it led,
// and the other server never sees the request nor the key.
func TestHostileRedirect(t *testing.T) {
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)
	other := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
		sseStart(w)
		sseLine(w, sseText("got it", "stop"))
		sseLine(w, "[DONE]")
	})
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
		http.Redirect(w, r, other.url+"/chat/completions", http.StatusTemporaryRedirect)
	})
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	m := startMeasured(t, bin, hostileEnv(t), "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--db", db)
	code, _, _ := m.wait(t, 60*time.Second)
	want := "model: request to " + s.url + " failed: the server redirected to " + other.url + "/chat/completions (307 Temporary Redirect), another origin: " +
		"ctxlab follows a redirect only within the server's origin, where the API key goes; set the base URL to the new address\n"
	if code != exitFailure || !strings.HasSuffix(m.stderr.String(), want) {
		t.Fatalf("exit %d, stderr %q; want exit 1 ending %q", code, m.stderr.String(), want)
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("the other origin received %d requests, want none", n)
	}
}

// TestHostileArgumentsFlood is issue 22 item 1 for tool calls: a call whose arguments
// never end is cut at chat.MaxToolArguments, saved unanswered (input-streaming, its
// arguments cut) in a reply marked interrupted with the finish reason reply_limit.
func TestHostileArgumentsFlood(t *testing.T) {
	bin := buildCtxlab(t) // before liveEnv, which moves HOME and with it the build cache
	liveEnv(t)
	s := startHTTPModel(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ <-chan struct{}) {
		sseStart(w)
		sseLine(w, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"run_sql","arguments":"{\"query\":\""}}]},"finish_reason":null}]}`)
		piece := []byte(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + strings.Repeat("x", 1<<20) + `"}}]},"finish_reason":null}]}` + "\n\n")
		for sent := 0; sent < 64<<20; sent += len(piece) {
			if _, err := w.Write(piece); err != nil {
				return
			}
		}
	})
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	m := startMeasured(t, bin, hostileEnv(t), "run", "testdata/live/one-question.script.yaml", "--base-url", s.url, "--db", db, "--json")
	code, took, peak := m.wait(t, 60*time.Second)
	t.Logf("%s, %d MB", took.Round(time.Millisecond), peak)
	want := "model: reply too long from " + s.url + ": a tool call's arguments hold at most 1 MiB\n"
	if code != exitFailure || !strings.HasSuffix(m.stderr.String(), want) {
		t.Fatalf("exit %d, stderr %q; want exit 1 ending %q", code, m.stderr.String(), want)
	}
	saved := savedChat(t, db, "live-one")
	if len(saved.Messages) != 2 || saved.Turns[0].FinishReason != engine.FinishReplyLimit {
		t.Fatalf("saved %d messages, finish %q; want the reply, reply_limit", len(saved.Messages), saved.Turns[0].FinishReason)
	}
	reply := saved.Messages[1]
	tools := reply.ToolParts()
	if !reply.Interrupted || len(tools) != 1 || tools[0].State != chat.ToolInputStreaming || len(tools[0].Input) < chat.MaxToolArguments {
		t.Errorf("saved reply interrupted %v with %d tool parts, want one input-streaming call with its 1 MiB of arguments", reply.Interrupted, len(tools))
	}
	if took > 15*time.Second || peak > 160 {
		t.Errorf("took %s and %d MB, want a few seconds and under 160 MB", took, peak)
	}
}
