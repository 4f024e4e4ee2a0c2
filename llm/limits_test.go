package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func TestLineLimiter(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		max     int
		want    string
		wantErr bool
	}{
		{"short lines", "ab\ncd\n", 3, "ab\ncd\n", false},
		{"a line at the limit", "abc\nabc", 3, "abc\nabc", false},
		{"a line past the limit", "ab\nabcd\nef\n", 3, "ab\nabc", true},
		{"the last line past the limit", "ab\nabcd", 3, "ab\nabc", true},
		{"no line break at all", strings.Repeat("x", 100), 10, strings.Repeat("x", 10), true},
		{"a line past the limit after long ones", "abc\nabc\nabcdef\n", 3, "abc\nabc\nabc", true},
		{"empty", "", 3, "", false},
	} {
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"whole":    func(r io.Reader) io.Reader { return r },
			"one byte": iotest.OneByteReader,
			"half":     iotest.HalfReader,
		} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				l := &lineLimiter{ReadCloser: io.NopCloser(wrap(strings.NewReader(tc.in))), max: tc.max}
				got, err := io.ReadAll(l)
				if string(got) != tc.want || errors.Is(err, ErrLineTooLong) != tc.wantErr || (err != nil && !tc.wantErr) {
					t.Fatalf("got %q, %v; want %q, line too long %v", got, err, tc.want, tc.wantErr)
				}
			})
		}
	}
}

// hugeLine writes `data: ` and then n bytes without a line break, until n are sent or the
// client stops reading.
func hugeLine(w http.ResponseWriter, n int) {
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	if _, err := io.WriteString(w, "data: "); err != nil {
		return
	}
	for sent := 0; sent < n; sent += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// TestStreamLineTooLong is the probe of issue 12: a server sending one line of 1 GB
// without a line break drove the process to 4 GB. The stream fails after MaxStreamLine
// bytes of the line, naming the server, with the text that arrived before kept.
func TestStreamLineTooLong(t *testing.T) {
	for _, tc := range []struct {
		name     string
		before   []string
		wantText string
	}{
		{"after the first token", []string{roleChunk, textChunk("Hi")}, "Hi"},
		{"before any chunk", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				sse(w)
				send(w, tc.before...)
				hugeLine(w, 200<<20)
			})
			c, _ := newTestClient(srv.URL, nil)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := c.Stream(context.Background(), hello(), nil)
			runtime.ReadMemStats(&after)
			e := asError(t, err)
			want := "malformed stream from " + srv.URL + "/v1: a line of the stream is longer than 8 MiB"
			if e.Kind != KindMalformed || err.Error() != want {
				t.Fatalf("got %v (kind %d), want %q", err, e.Kind, want)
			}
			// The server answered 200: the reply began, and is kept as interrupted.
			if r.Text != tc.wantText || !r.Interrupted || r.Attempts != 1 {
				t.Errorf("got text %q interrupted %v attempts %d, want %q true 1", r.Text, r.Interrupted, r.Attempts, tc.wantText)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MB for a 200 MB line, want under 64 MB", alloc>>20)
			}
		})
	}
}

// TestStreamLongLineUnderTheLimit checks that a line just under MaxStreamLine (a chunk
// of 4 MiB of text padded with a long id, then the rest of the reply) is read.
func TestStreamLongLineUnderTheLimit(t *testing.T) {
	text := strings.Repeat("x", chat.MaxReplySize-2)
	line := textChunk(text)
	pad := strings.Repeat("p", MaxStreamLine-len(line)+2) // the line ends in "\n\n"
	line = strings.Replace(line, `"id":"c1"`, `"id":"c1`+pad+`"`, 1)
	if n := strings.IndexByte(line, '\n'); n != MaxStreamLine {
		t.Fatalf("the line is %d bytes, want %d", n, MaxStreamLine)
	}
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		sse(w)
		send(w, roleChunk, line, textChunk("ok"), finishChunk("stop"), done)
	})
	c, _ := newTestClient(srv.URL, nil)
	r, err := c.Stream(context.Background(), hello(), nil)
	if err != nil || r.Text != text+"ok" {
		t.Fatalf("got %d bytes, %v; want the long line's text and ok", len(r.Text), err)
	}
}

func TestSizeLimiter(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		left    int
		wantErr bool
	}{
		{"under", "abc", 5, false},
		{"exactly", "abcde", 5, false},
		{"one byte over", "abcdef", 5, true},
		{"far over", strings.Repeat("x", 1000), 5, true},
		{"empty", "", 0, false},
	} {
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"whole":    func(r io.Reader) io.Reader { return r },
			"one byte": iotest.OneByteReader,
		} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				l := &sizeLimiter{ReadCloser: io.NopCloser(wrap(strings.NewReader(tc.in))), left: tc.left}
				got, err := io.ReadAll(l)
				if tc.wantErr {
					if !errors.Is(err, ErrResponseTooLarge) || len(got) > tc.left {
						t.Fatalf("got %d bytes, %v; want at most %d bytes and ErrResponseTooLarge", len(got), err, tc.left)
					}
					return
				}
				if err != nil || string(got) != tc.in {
					t.Fatalf("got %q, %v; want %q", got, err, tc.in)
				}
			})
		}
	}
}

// TestModelsTooLarge: a server answering the model list with 200 MB (in lines) fails
// after MaxResponse bytes, naming the server, in bounded memory.
func TestModelsTooLarge(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		if _, err := io.WriteString(w, `{"object":"list","data":[`+"\n"); err != nil {
			return
		}
		line := []byte(strings.Repeat(`{"id":"m","object":"model"},`+"\n", 2000))
		for sent := 0; sent < 200<<20; sent += len(line) {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	})
	c, _ := newTestClient(srv.URL, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.Models(context.Background())
	runtime.ReadMemStats(&after)
	e := asError(t, err)
	want := "invalid response from " + srv.URL + "/v1: the answer is larger than 8 MiB"
	if e.Kind != KindResponse || err.Error() != want {
		t.Fatalf("got %v (kind %d), want %q", err, e.Kind, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d MB for a 200 MB answer, want under 64 MB", alloc>>20)
	}
}

// toolCallChunk is a chunk opening tool call i, with its arguments whole.
func toolCallChunk(i int) string {
	return fmt.Sprintf(`data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"run_sql","arguments":"{}"}}]},"finish_reason":null}]}`+"\n\n", i, i)
}

// TestStreamTooManyToolCalls is the probe of issue 12 item 5: a model streaming 2,000
// tool calls in one reply. The stream is read up to the call past chat.MaxToolCalls and
// fails there, naming the server and the limit, with the calls that fit kept in the
// interrupted reply; a reply at the limit is whole.
func TestStreamTooManyToolCalls(t *testing.T) {
	for _, tc := range []struct {
		name      string
		calls     int
		wantCalls int
		wantErr   bool
	}{
		{"at the limit", chat.MaxToolCalls, chat.MaxToolCalls, false},
		{"one past the limit", chat.MaxToolCalls + 1, chat.MaxToolCalls, true},
		{"2,000 calls", 2000, chat.MaxToolCalls, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				sse(w)
				send(w, roleChunk, textChunk("Running them."))
				for i := range tc.calls {
					if _, err := io.WriteString(w, toolCallChunk(i)); err != nil {
						return
					}
				}
				send(w, finishChunk("tool_calls"), done)
			})
			c, _ := newTestClient(srv.URL, nil)
			var deltas []Delta
			r, err := c.Stream(context.Background(), hello(), collect(&deltas))
			if len(r.ToolCalls) != tc.wantCalls || r.Text != "Running them." {
				t.Fatalf("got %d calls, text %q; want %d and the text", len(r.ToolCalls), r.Text, tc.wantCalls)
			}
			if last := r.ToolCalls[len(r.ToolCalls)-1]; last.ID != fmt.Sprintf("call_%d", tc.wantCalls-1) || last.Function.Arguments != "{}" {
				t.Errorf("last call %+v, want call_%d with its arguments", last, tc.wantCalls-1)
			}
			if got := len(deltas); got != tc.wantCalls+1 {
				t.Errorf("got %d deltas, want %d (the text and the calls kept)", got, tc.wantCalls+1)
			}
			if !tc.wantErr {
				if err != nil || r.Interrupted || r.FinishReason != "tool_calls" {
					t.Fatalf("got %v, interrupted %v, finish %q; want a whole reply", err, r.Interrupted, r.FinishReason)
				}
				return
			}
			e := asError(t, err)
			want := "malformed stream from " + srv.URL + "/v1: a reply holds at most 256 tool calls"
			if e.Kind != KindMalformed || err.Error() != want || !errors.Is(err, ErrTooManyToolCalls) {
				t.Fatalf("got %v (kind %d), want %q", err, e.Kind, want)
			}
			if !r.Interrupted || r.Attempts != 1 {
				t.Errorf("got interrupted %v attempts %d, want true 1", r.Interrupted, r.Attempts)
			}
		})
	}
}

// toolArgsChunk is a chunk extending tool call i with a piece of its arguments, opening it
// (id and name) when open is set.
func toolArgsChunk(i int, open bool, args string) string {
	b, _ := json.Marshal(args)
	head := ""
	if open {
		head = fmt.Sprintf(`"id":"call_%d","type":"function",`, i)
	}
	name := ""
	if open {
		name = `"name":"run_sql",`
	}
	return fmt.Sprintf(`data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,%s"function":{%s"arguments":%s}}]},"finish_reason":null}]}`+"\n\n", i, head, name, b)
}

// TestStreamReplyTooLong is the probe of issue 22 item 1: a server streaming 1 MB content
// deltas without end took the process to 19 GB. The reply is read up to chat.MaxReplySize
// bytes of text and tool calls (a call's arguments up to chat.MaxToolArguments), never
// splitting a character; what fits is kept in the interrupted reply and delivered, and
// the error names the limit. The server's stream is not read further.
func TestStreamReplyTooLong(t *testing.T) {
	mb := strings.Repeat("x", 1<<20)
	for _, tc := range []struct {
		name string
		// stream writes the reply's chunks until the client stops reading.
		stream    func(w io.Writer) error
		wantText  string
		wantCalls []int // the length of each call's arguments
		wantErr   error
	}{
		{"endless text", func(w io.Writer) error {
			for {
				if _, err := io.WriteString(w, textChunk(mb)); err != nil {
					return err
				}
			}
		}, strings.Repeat("x", chat.MaxReplySize), nil, chat.ErrReplyTooLong},
		{"a character across the limit", func(w io.Writer) error {
			if _, err := io.WriteString(w, textChunk("a")); err != nil {
				return err
			}
			for {
				if _, err := io.WriteString(w, textChunk(strings.Repeat("é", 1<<19))); err != nil {
					return err
				}
			}
		}, "a" + strings.Repeat("é", chat.MaxReplySize/2-1), nil, chat.ErrReplyTooLong},
		{"text just under the limit", func(w io.Writer) error {
			_, err := io.WriteString(w, textChunk(strings.Repeat("y", chat.MaxReplySize))+finishChunk("stop")+done)
			return err
		}, strings.Repeat("y", chat.MaxReplySize), nil, nil},
		{"endless arguments", func(w io.Writer) error {
			if _, err := io.WriteString(w, textChunk("Running it.")+toolArgsChunk(0, true, `{"q":"`)); err != nil {
				return err
			}
			for {
				if _, err := io.WriteString(w, toolArgsChunk(0, false, mb)); err != nil {
					return err
				}
			}
		}, "Running it.", []int{chat.MaxToolArguments}, chat.ErrToolArgumentsTooLong},
		{"calls filling the reply", func(w io.Writer) error {
			if _, err := io.WriteString(w, textChunk("Running them.")); err != nil {
				return err
			}
			for i := 0; ; i++ {
				if _, err := io.WriteString(w, toolArgsChunk(i, true, mb[:900<<10])); err != nil {
					return err
				}
			}
		}, "Running them.", []int{900 << 10, 900 << 10, 900 << 10, 900 << 10, chat.MaxReplySize - 4*(900<<10) - len("Running them.") - 5*len("call_0run_sql")}, chat.ErrReplyTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				sse(w)
				send(w, roleChunk)
				// "Endless" stops at 48 MB, so that a client that reads on fails the test
				// rather than the machine.
				_ = tc.stream(&cappedWriter{w: w, left: 48 << 20})
			})
			c, _ := newTestClient(srv.URL, nil)
			var deltas []Delta
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			r, err := c.Stream(context.Background(), hello(), collect(&deltas))
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if r.Text != tc.wantText || texts(deltas) != tc.wantText {
				t.Errorf("got text of %d bytes (delivered %d), want %d", len(r.Text), len(texts(deltas)), len(tc.wantText))
			}
			var calls []int
			for _, c := range r.ToolCalls {
				calls = append(calls, len(c.Function.Arguments))
			}
			if fmt.Sprint(calls) != fmt.Sprint(tc.wantCalls) {
				t.Errorf("got calls with arguments of %v bytes, want %v", calls, tc.wantCalls)
			}
			if tc.wantErr == nil {
				if err != nil || r.Interrupted || r.FinishReason != "stop" {
					t.Fatalf("got %v, interrupted %v, finish %q; want the whole reply", err, r.Interrupted, r.FinishReason)
				}
				return
			}
			e := asError(t, err)
			want := "reply too long from " + srv.URL + "/v1: " + tc.wantErr.Error()
			if e.Kind != KindTooLong || err.Error() != want || !errors.Is(err, tc.wantErr) {
				t.Fatalf("got %v (kind %d), want %q", err, e.Kind, want)
			}
			if !r.Interrupted || r.Attempts != 1 {
				t.Errorf("got interrupted %v attempts %d, want true 1", r.Interrupted, r.Attempts)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 96<<20 {
				t.Errorf("allocated %d MB for a reply cut at 4 MiB, want under 96 MB", alloc>>20)
			}
			if took > 5*time.Second {
				t.Errorf("took %s, want the stream left at the limit", took)
			}
		})
	}
}

// cappedWriter fails the writes past left bytes.
type cappedWriter struct {
	w    io.Writer
	left int
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, errors.New("enough")
	}
	c.left -= len(p)
	return c.w.Write(p)
}

func TestEventFilter(t *testing.T) {
	big := strings.Repeat("x", MaxNonEvent)
	tooMany := ErrNonEventLines.Error()
	for _, tc := range []struct {
		name, in, want string
		wantErr        string // "" for none
	}{
		{"events", "data: a\n\ndata: b\n\n", "data: a\n\ndata: b\n\n", ""},
		{"comments and fields dropped", ": keep-alive\nevent: delta\nid: 7\nretry: 10\ndata: a\n\n  : indented\r\ndata: [DONE]\n\n",
			"data: a\n\ndata: [DONE]\n\n", ""},
		{"a stray line kept", "data: a\n{\"error\": {\"message\": \"quota\"}}\n", "data: a\n{\"error\": {\"message\": \"quota\"}}\n", ""},
		{"no line break at the end", "data: a\n\n: x", "data: a\n\n", ""},
		{"comments up to the limit", ": " + big[:MaxNonEvent-4] + "\n\n" + "data: a\n", "\ndata: a\n", ""},
		{"comments past the limit", ": " + big[:MaxNonEvent-3] + "\n\n" + "data: a\n", "", tooMany},
		{"many small comments past the limit", strings.Repeat(": ping\n", MaxNonEvent/7+1) + "data: a\n", "", tooMany},
		{"comments in a row reset by each event", strings.Repeat(": "+big[:MaxNonEvent/2]+"\ndata: a\n", 4), strings.Repeat("data: a\n", 4), ""},
		{"stray lines past the limit in all", strings.Repeat("data: a\njunk "+big[:MaxNonEvent/4]+"\n", 5),
			strings.Repeat("data: a\njunk "+big[:MaxNonEvent/4]+"\n", 3) + "data: a\njunk " + big[:MaxNonEvent/4] + "\ndata: a\n", tooMany},
		// Issue 22 item 10: answers that are not event streams.
		{"an answer with no event", "{\"error\": {\"message\": \"quota\"}}\n", "{\"error\": {\"message\": \"quota\"}}\n",
			`the server's answer (Content-Type CT) is not an event stream: "{\"error\": {\"message\": \"quota\"}}"`},
		{"an HTML page", "\n\uFEFF  <!DOCTYPE html>\n<html><head><title>\n  Sign in &amp; go\n</title>", "\n",
			`the server answered an HTML page (Content-Type CT), not an event stream: "Sign in & go"`},
		{"an HTML page without a title", "<p>Access denied\n\tby policy</p>", "",
			`the server answered an HTML page (Content-Type CT), not an event stream: "<p>Access denied by policy</p>"`},
		{"a long answer with no event", strings.Repeat("word ", MaxNonEvent/5+1) + "\n", strings.Repeat("word ", MaxNonEvent/5+1),
			`the server's answer (Content-Type CT) is not an event stream: "word word word word word word word word word word word word word word word word word word word word …"`},
	} {
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"whole":    func(r io.Reader) io.Reader { return r },
			"one byte": iotest.OneByteReader,
		} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				f := newEventFilter(io.NopCloser(wrap(strings.NewReader(tc.in))), "CT")
				got, err := io.ReadAll(f)
				if tc.wantErr != "" {
					if err == nil || err.Error() != tc.wantErr || !strings.HasPrefix(tc.want, string(got)) {
						t.Fatalf("got %d bytes, %v; want at most the %d bytes before the error, and %s", len(got), err, len(tc.want), tc.wantErr)
					}
					return
				}
				if err != nil || string(got) != tc.want {
					t.Fatalf("got %.200q, %v; want %.200q", got, err, tc.want)
				}
			})
		}
	}
}

// TestStreamNonEventLines is the probe of issue 22 item 2: go-openai kept every line that
// is not an event, and a server sending 4 MB comment lines grew the process by some
// 600 MB a second before the first token. Past MaxNonEvent of them the stream fails,
// naming the server, in bounded memory, with the text that arrived before kept; a server
// that sends a comment, or a field, with every event is read whole.
func TestStreamNonEventLines(t *testing.T) {
	comment := ": " + strings.Repeat("x", 4<<20) + "\n"
	stray := "garbage " + strings.Repeat("g", 1000) + "\n"
	for _, tc := range []struct {
		name     string
		lines    func(w io.Writer) error
		wantText string
		wantErr  bool
	}{
		{"4 MB comments before any token", func(w io.Writer) error {
			for {
				if _, err := io.WriteString(w, comment); err != nil {
					return err
				}
			}
		}, "", true},
		{"4 MB comments after a token", func(w io.Writer) error {
			if _, err := io.WriteString(w, textChunk("Hi")); err != nil {
				return err
			}
			for {
				if _, err := io.WriteString(w, comment); err != nil {
					return err
				}
			}
		}, "Hi", true},
		{"a stray line with every event", func(w io.Writer) error {
			for {
				if _, err := io.WriteString(w, stray+textChunk("a")); err != nil {
					return err
				}
			}
		}, strings.Repeat("a", MaxNonEvent/len(stray)), true},
		{"OpenRouter's comments while queued (hours of them)", func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Repeat(": OPENROUTER PROCESSING\n\n", 20_000)+textChunk("ok")+finishChunk("stop")+done)
			return err
		}, "ok", false},
		{"an event: and an id: line with each of 60,000 events", func(w io.Writer) error {
			var b strings.Builder
			for i := range 60_000 {
				fmt.Fprintf(&b, "event: completion.chunk\nid: %d\n%s", i, textChunk("a"))
			}
			b.WriteString(finishChunk("stop") + done)
			_, err := io.WriteString(w, b.String())
			return err
		}, strings.Repeat("a", 60_000), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				sse(w)
				send(w, roleChunk)
				_ = tc.lines(&cappedWriter{w: w, left: 64 << 20})
			})
			c, _ := newTestClient(srv.URL, nil)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := c.Stream(context.Background(), hello(), nil)
			runtime.ReadMemStats(&after)
			if !tc.wantErr {
				if err != nil || r.Text != tc.wantText || r.Interrupted {
					t.Fatalf("got %d bytes, %v, interrupted %v; want the whole reply", len(r.Text), err, r.Interrupted)
				}
				return
			}
			e := asError(t, err)
			want := "malformed stream from " + srv.URL + "/v1: the server sent more than 1 MiB of lines that are not events"
			if e.Kind != KindMalformed || err.Error() != want {
				t.Fatalf("got %v (kind %d), want %q", err, e.Kind, want)
			}
			if r.Text != tc.wantText || !r.Interrupted || r.Attempts != 1 {
				t.Errorf("got %d bytes of text, interrupted %v, attempts %d; want %d bytes, true, 1", len(r.Text), r.Interrupted, r.Attempts, len(tc.wantText))
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("allocated %d MB, want under 32 MB", alloc>>20)
			}
		})
	}
}

// TestStreamNotAnEventStream is the probe of issue 22 item 10: a 200 with an HTML body was
// retried three times and reported as "stream ended without finish_reason or [DONE]".
// The error says what the server answered, with its Content-Type and an inert excerpt
// (an HTML page's title), at once, and nothing is retried. An error object in a 200 stays
// the server's error, and a stream is read whatever Content-Type it comes with.
func TestStreamNotAnEventStream(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, body string
		wantKind          Kind
		wantErr, wantText string // wantErr "" for a reply read whole
	}{
		{"a login page", "text/html; charset=utf-8",
			"<!DOCTYPE html>\n<html><head><title>Sign in \u2013 Corp\u202e proxy</title></head>\n<body>" + strings.Repeat("<p>x</p>\n", 10000) + "</body></html>\n",
			KindResponse, `invalid response from URL: the server answered an HTML page (Content-Type text/html; charset=utf-8), not an event stream: "Sign in – Corp\u202e proxy"`, ""},
		{"a page without a Content-Type", "", "<html><body>Access denied</body></html>",
			KindResponse, `invalid response from URL: the server answered an HTML page (no Content-Type), not an event stream: "<html><body>Access denied</body></html>"`, ""},
		{"an answer that does not stream", "application/json",
			`{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`,
			KindResponse, `invalid response from URL: the server's answer (Content-Type application/json) is not an event stream: "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"c…"`, ""},
		{"an error object in a 200", "application/json", `{"error":{"message":"quota exceeded","type":"insufficient_quota"}}` + "\n",
			KindInBand, "stream error from URL: quota exceeded", ""},
		{"an error object in a 200, with no line break", "application/json", `{"error":{"message":"quota exceeded"}}`,
			KindResponse, `invalid response from URL: the server's answer (Content-Type application/json) is not an event stream: "{\"error\":{\"message\":\"quota exceeded\"}}"`, ""},
		{"a stream sent as text/html", "text/html", textChunk("ok") + finishChunk("stop") + done, 0, "", "ok"},
		{"a stream sent as text/plain", "text/plain", textChunk("ok") + finishChunk("stop") + done, 0, "", "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				w.Header()["Content-Type"] = nil // no sniffing
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				_, _ = io.WriteString(w, tc.body)
			})
			c, sleeps := newTestClient(srv.URL, nil)
			r, err := c.Stream(context.Background(), hello(), nil)
			if tc.wantErr == "" {
				if err != nil || r.Text != tc.wantText {
					t.Fatalf("got %q, %v; want %q", r.Text, err, tc.wantText)
				}
				return
			}
			e := asError(t, err)
			if want := strings.ReplaceAll(tc.wantErr, "URL", srv.URL+"/v1"); e.Kind != tc.wantKind || err.Error() != want {
				t.Fatalf("got %v (kind %d), want %s (kind %d)", err, e.Kind, want, tc.wantKind)
			}
			if (r.Interrupted && e.Kind == KindResponse) || r.Text != "" || r.Attempts != 1 || srv.count() != 1 || len(sleeps.got()) != 0 {
				t.Errorf("got interrupted %v, text %q, %d attempts, %d requests, waits %v; want one request and no reply", r.Interrupted, r.Text, r.Attempts, srv.count(), sleeps.got())
			}
		})
	}
}
