package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/llm/aimocktest"
)

// hostileMarkdown is a reply that glamour, given it whole, lays out in minutes or
// gigabytes (issue 22): what aimock answers the user message ask with, in pieces of chunk
// bytes (0: aimock's default).
type hostileMarkdown struct {
	ask, reply string
	chunk      int
	// want is on screen once the reply is shown.
	want string
	// live says what to do while the reply streams in: type into the composer ("type"),
	// or cancel it with esc ("esc"). A reply cancelled comes from holdingServer, which
	// keeps the stream open after it, instead of aimock.
	live string
}

// shows reports whether a screen shows the reply laid out.
func (r hostileMarkdown) shows(screen string) bool {
	return strings.Contains(collapsed(screen), r.want)
}

// tokenPiece is on every line of hostileToken wrapped at 94 columns or more.
const tokenPiece = "SktMTU5P"

// hostileToken is an unbroken token of n characters, like base64 or minified code.
func hostileToken(n int) string {
	const alphabet = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw"
	return strings.Repeat(alphabet, n/len(alphabet)+1)[:n]
}

// hugeMarkdown is about n bytes of ordinary Markdown: paragraphs, lists, code blocks.
func hugeMarkdown(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nThe **query** plan of step %d shows a sequential scan over `orders`; an index on customer_id helps.\n\n- one\n- two\n\n```sql\nselect count(*) from t%d;\n```\n\n", i, i, i)
	}
	return b.String()
}

func hostileMarkdownReplies() []hostileMarkdown {
	const long = "shown as plain text: more than 1024 bytes without a space"
	return []hostileMarkdown{
		// 100 nested blockquotes, 201 bytes.
		{ask: "nested quotes", reply: strings.Repeat("> ", 100) + "x", want: "shown as plain text: nested deeper than 16 levels"},
		// A 200 KB unbroken token.
		{ask: "long token", reply: hostileToken(200_000), chunk: 4096, want: long},
		// A list nested 400 levels deep.
		{ask: "nested list", reply: strings.Repeat("- ", 400) + "x", want: "shown as plain text: nested deeper than 16 levels"},
		// The same token streamed in 200,000 one-character deltas, typing meanwhile.
		{ask: "stream token", reply: hostileToken(200_000), chunk: 1, want: long, live: "type"},
		// The same from a server that then keeps the stream open, cancelled with esc: what
		// arrived is saved, marked interrupted.
		{ask: "cancel token", reply: hostileToken(200_000), want: "⚠ interrupted", live: "esc"},
		// A 2 MiB reply of ordinary Markdown.
		{ask: "huge reply", reply: hugeMarkdown(2 << 20), chunk: 65536, want: "only the first 1 MiB of this 2.0 MiB reply is shown"},
	}
}

// hostileWait bounds how long a hostile reply may take to show, and a saved chat holding
// one to open: well above what it takes (under a second), far below what it took (from
// 44 s to more than 5 minutes).
const hostileWait = 10 * time.Second

// hostilePeakRSS is the most memory (peak resident set) a workbench given one hostile
// reply may take (the README's Limits section; measured: under 80 MB).
const hostilePeakRSS = 150 << 20

// TestWorkbenchTmuxHostileMarkdown runs the real binary in tmux against aimock, one
// workbench for each reply of issue 22 that froze it (100 nested blockquotes, a 200 KB
// unbroken token, a list nested 400 levels deep, a live reply of 200,000 one-character
// deltas, a 2 MiB reply): each reply shows within seconds, past the Markdown bounds as
// plain text with a line that says why; esc cancels the live reply at once; keys, SIGHUP
// and SIGTERM are answered after it; the process's peak memory stays under the documented
// limit; and the chat saved with the reply opens again, at 80x24, as promptly.
func TestWorkbenchTmuxHostileMarkdown(t *testing.T) {
	tmux := needTmux(t)
	replies := hostileMarkdownReplies()
	var fixtures []map[string]any
	for _, r := range replies {
		f := map[string]any{"match": map[string]any{"userMessage": r.ask}, "response": map[string]any{"content": r.reply}}
		if r.chunk > 0 {
			f["chunkSize"] = r.chunk
		}
		fixtures = append(fixtures, f)
	}
	raw, err := json.Marshal(map[string]any{"fixtures": fixtures})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "hostile.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := aimocktest.Start(t, aimocktest.Options{Fixtures: file, APIKeys: []string{liveKey}})
	bin := buildCtxlab(t)
	liveEnv(t)
	// The dark theme: glamour's heaviest style (mono's draws fewer margins).
	env := []string{e2eKeyEnv + "=" + liveKey, "OPENAI_API_KEY="}

	for _, r := range replies {
		t.Run(strings.ReplaceAll(r.ask, " ", "-"), func(t *testing.T) {
			s := &e2eSetup{tmux: tmux, bin: bin, db: filepath.Join(t.TempDir(), "w.db"), srv: srv, env: env}
			args := append(s.args(), "--theme", "dark")
			var allSent <-chan struct{}
			if r.live == "esc" {
				var url string
				url, allSent = holdingServer(t, r.reply)
				args = append(args, "--base-url", url)
			}
			p := startPane(t, tmux, bin, 160, 45, env, args...)
			waitFor(t, p, "ctxlab · new chat", e2eTimeout)
			sent := time.Now()
			send(t, p, "please send "+r.ask)
			if r.live != "" {
				waitUntil(t, p, "the live reply on screen", hostileWait, func(s string) bool {
					return strings.Contains(s, "streaming: esc") && strings.Contains(s, tokenPiece)
				})
			}
			switch r.live {
			case "type": // keys are answered while the reply streams in
				typed := time.Now()
				p.typeText("typed while it streams")
				waitFor(t, p, "typed while it streams", hostileWait)
				if d := time.Since(typed); d > 2*time.Second {
					t.Errorf("text typed while the reply streamed in showed after %v, want at once", d)
				}
				p.keys("C-u") // the draft away
			case "esc": // esc cancels the live reply at once, all of it arrived
				select {
				case <-allSent:
				case <-time.After(hostileWait):
					t.Fatalf("the server did not send the whole reply within %v", hostileWait)
				}
				p.keys("Escape")
				pressed := time.Now()
				waitUntil(t, p, "the stream ended by esc", hostileWait, func(s string) bool {
					return !strings.Contains(s, "streaming: esc")
				})
				if d := time.Since(pressed); d > 2*time.Second {
					t.Errorf("esc ended the live reply after %v, want at once", d)
				} else {
					t.Logf("esc ended the live reply after %v", d.Round(time.Millisecond))
				}
			}
			waitUntil(t, p, fmt.Sprintf("%q on screen", r.want), hostileWait, r.shows)
			shown := time.Since(sent)
			waitIdle(t, p)
			p.typeText("still answering keys")
			waitFor(t, p, "still answering keys", hostileWait)
			peak := peakRSS(t, p)
			// Signals are answered too: SIGHUP (a closed terminal) ends it at once.
			p.signal(syscall.SIGHUP)
			waitFor(t, p, "ctxlab exited:", 5*time.Second)

			start := time.Now()
			again := startPane(t, tmux, bin, 80, 24, env, append(args, "--continue")...)
			waitUntil(t, again, fmt.Sprintf("%q on screen again", r.want), hostileWait, r.shows)
			opened := time.Since(start)
			again.typeText("still here")
			waitFor(t, again, "still here", hostileWait)
			peakAgain := peakRSS(t, again)
			again.signal(syscall.SIGTERM)
			waitFor(t, again, "ctxlab exited:", 5*time.Second)

			t.Logf("%s: shown %v after sending (peak RSS %d MB); opened again in %v (peak RSS %d MB)",
				r.ask, shown.Round(time.Millisecond), peak>>20, opened.Round(time.Millisecond), peakAgain>>20)
			for _, m := range []struct {
				what string
				rss  int64
			}{{"given the reply", peak}, {"opening the chat", peakAgain}} {
				if m.rss > hostilePeakRSS {
					t.Errorf("%s: peak RSS %d MB %s, want at most %d MB", r.ask, m.rss>>20, m.what, hostilePeakRSS>>20)
				}
			}
		})
	}
}

// holdingServer is an OpenAI-compatible server, on 127.0.0.1, that answers every chat
// completion with reply streamed in one-character deltas and then keeps the stream open,
// sending nothing more, until the client goes; it returns the base URL, and a channel
// that is closed once the whole reply is sent.
func holdingServer(t *testing.T, reply string) (string, <-chan struct{}) {
	t.Helper()
	sent := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		bw := bufio.NewWriterSize(w, 64<<10)
		for _, c := range reply {
			delta, _ := json.Marshal(string(c))
			fmt.Fprintf(bw, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":%s}}]}`+"\n\n", delta)
		}
		if bw.Flush() != nil {
			return
		}
		w.(http.Flusher).Flush()
		once.Do(func() { close(sent) })
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", sent
}

// peakRSS is the peak resident set (VmHWM) of the workbench a pane runs, in bytes.
func peakRSS(t *testing.T, p *pane) int64 {
	t.Helper()
	shell := strings.TrimSpace(p.run("display", "-p", "-t", "s", "#{pane_pid}"))
	children, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil {
		t.Skipf("the workbench's process id: %v", err)
	}
	status, err := os.ReadFile("/proc/" + strings.TrimSpace(string(children)) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in the workbench's status:\n%s", status)
	return 0
}
