package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/llm"
)

// wireServer is an OpenAI-compatible server on 127.0.0.1 that keeps the raw body of each
// request: it answers the first request of a turn with a run_sql call, and a request that
// sends a tool's result back with text.
type wireServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newWireServer(t *testing.T) *wireServer {
	t.Helper()
	s := &wireServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, b)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, finish)
		}
		if bytes.Contains(b, []byte(`"role":"tool"`)) {
			chunk(`{"content":"Two tables."}`, "null")
			chunk(`{}`, `"stop"`)
		} else {
			chunk(`{"tool_calls":[{"index":0,"id":"call_w1","type":"function","function":{"name":"run_sql","arguments":"{\"query\":\"select 1\"}"}}]}`, "null")
			chunk(`{}`, `"tool_calls"`)
		}
		fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":2,\"total_tokens\":22}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *wireServer) body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// shownJSON is the JSON the Request tab draws, put together again from its lines: the tab
// is rendered wide enough that no line wraps, so the only breaks it adds are after a
// string's \n escapes, whose next line is indented under it.
func shownJSON(t *testing.T, m *Model) string {
	t.Helper()
	in := m.insp
	in.cache = map[tabBodyKey]*tabBody{}
	b := in.tabBody(1 << 20)
	var out strings.Builder
	cont, lead := false, 0
	for _, l := range b.lines {
		if cont {
			pad := strings.Repeat(" ", lead+2)
			if !strings.HasPrefix(l, pad) {
				t.Fatalf("a string's next line %q is not indented under its JSON line", l)
			}
			l = l[len(pad):]
		} else {
			if out.Len() > 0 {
				out.WriteByte('\n')
			}
			lead = len(l) - len(strings.TrimLeft(l, " "))
		}
		out.WriteString(l)
		cont = strings.HasSuffix(l, `\n`)
	}
	return out.String()
}

func indented(t *testing.T, raw []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		t.Fatalf("the server received invalid JSON %s: %v", raw, err)
	}
	return buf.String()
}

// TestRequestTabOnTheWire sends a turn through the real client to a server: its tool loop
// sent two requests. The Request tab shows each exactly as the server received it (the
// stream fields included), says so, and `y` copies the request the tab shows, byte for
// byte; the same once the chat is opened again from the database, with no model. The API
// key is in neither.
func TestRequestTabOnTheWire(t *testing.T) {
	const apiKey = "sk-tui-wire-0123456789"
	srv := newWireServer(t)
	v := newEnv(t)
	live := &engine.Live{Model: llm.New(llm.Options{BaseURL: srv.URL + "/v1", APIKey: apiKey})}
	c := v.chat(t, "", live)
	var clip bytes.Buffer
	m := newModel(t, v, c, 120, 40, Options{Clipboard: &clip})
	press(m, "type:how many tables are there?", "enter")
	if n := len(c.Session().Messages()); n != 2 {
		t.Fatalf("the chat holds %d messages, want the user message and the reply", n)
	}
	check := func(t *testing.T, m *Model, clip *bytes.Buffer) {
		t.Helper()
		m.clip.env = clipEnv{getenv: func(k string) string { return map[string]string{"TERM": "xterm-256color"}[k] },
			dir: t.TempDir(), wait: 300 * time.Millisecond}
		focusRequestTab(t, m)
		for k := range 2 {
			want := srv.body(k)
			tab := strings.Join(strings.Fields(requestBody(m)), " ")
			if !strings.Contains(tab, fmt.Sprintf("request %d/2", k+1)) || !strings.Contains(tab, "sent: the exact body on the wire") {
				t.Errorf("request %d: the tab does not say it shows it as sent:\n%s", k+1, tab)
			}
			if got := shownJSON(t, m); got != indented(t, want) {
				t.Errorf("request %d: the tab shows\n%s\nthe server received\n%s", k+1, got, indented(t, want))
			}
			clip.Reset()
			press(m, "shift+tab", "y") // the transcript copies the request the tab shows
			if got := copiedText(t, clip.String()); got != string(want) {
				t.Errorf("request %d: y copied\n%s\nthe server received\n%s", k+1, got, want)
			}
			if strings.Contains(clip.String(), apiKey) || bytes.Contains(want, []byte(apiKey)) {
				t.Errorf("request %d: the API key was sent in the body, or copied", k+1)
			}
			press(m, "tab", "t")
		}
	}
	t.Run("as sent", func(t *testing.T) { check(t, m, &clip) })
	t.Run("read back", func(t *testing.T) {
		var clip2 bytes.Buffer
		check(t, newModel(t, v, v.chat(t, c.Session().Chat().ID, nil), 120, 40, Options{Clipboard: &clip2}), &clip2)
	})
}

// TestRequestTabScripted: a scripted reply sent nothing; the tab says so and shows the
// request as the trace records it, and y copies that.
func TestRequestTabScripted(t *testing.T) {
	v := newEnv(t)
	var clip bytes.Buffer
	m := newModel(t, v, v.chat(t, "", nil), 120, 40, Options{Clipboard: &clip})
	m.clip.env = clipEnv{getenv: func(k string) string { return map[string]string{"TERM": "xterm-256color"}[k] },
		dir: t.TempDir(), wait: 300 * time.Millisecond}
	press(m, "type:hello", "enter", "type:Hi.", "enter")
	focusRequestTab(t, m)
	tab := strings.Join(strings.Fields(requestBody(m)), " ")
	if !strings.Contains(tab, "nothing sent (a scripted reply): the request as the trace records it") || strings.Contains(tab, `"stream"`) {
		t.Errorf("the tab does not say nothing was sent, or shows stream fields:\n%s", tab)
	}
	tr := m.insp.turn.Trace
	want, err := tr.Request.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := shownJSON(t, m); got != indented(t, want) {
		t.Errorf("the tab shows\n%s\nwant the trace's request\n%s", got, indented(t, want))
	}
	press(m, "shift+tab", "y")
	if got := copiedText(t, clip.String()); got != string(want) {
		t.Errorf("y copied\n%s\nwant the trace's request\n%s", got, want)
	}
}

// TestRequestTabWouldSendOnTheWire: in a chat with a model, after the context file was
// reloaded, n shows the request the edited file would send as it would go on the wire,
// and y copies it; n again shows the turn as sent.
func TestRequestTabWouldSendOnTheWire(t *testing.T) {
	copyDemo(t)
	v := newEnvAt(t, "support.ctx.yaml")
	c := v.chat(t, "", &streamModel{turns: [][]step{{textStep("Hello.")}}})
	var clip bytes.Buffer
	m := newModel(t, v, c, 120, 40, Options{Clipboard: &clip})
	m.clip.env = clipEnv{getenv: func(k string) string { return map[string]string{"TERM": "xterm-256color"}[k] },
		dir: t.TempDir(), wait: 300 * time.Millisecond}
	press(m, "type:hello", "enter")
	replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
	_, cmd := m.Update(ctrlR)
	drive(m, cmd)
	if m.rl.reeval == nil {
		t.Fatalf("no re-evaluation after ctrl+r (error %q)", m.lastErr)
	}
	focusRequestTab(t, m)
	press(m, "n")
	tab := strings.Join(strings.Fields(requestBody(m)), " ")
	if !strings.Contains(tab, "WOULD SEND") || !strings.Contains(tab, "would send: the exact body on the wire") {
		t.Fatalf("n: the tab does not show what the file would send, on the wire:\n%s", tab)
	}
	re := m.rl.reeval[m.insp.turn.Trace.UserMessageID]
	want, err := ctxapp.WireBody(&re.Request)
	if err != nil {
		t.Fatal(err)
	}
	if got := shownJSON(t, m); got != indented(t, want) || !strings.Contains(got, `"stream": true`) {
		t.Errorf("n: the tab shows\n%s\nwant what the file would send, on the wire\n%s", got, indented(t, want))
	}
	press(m, "shift+tab", "y")
	if got := copiedText(t, clip.String()); got != string(want) {
		t.Errorf("y copied\n%s\nwant what the file would send\n%s", got, want)
	}
	press(m, "tab", "n")
	if tab := strings.Join(strings.Fields(requestBody(m)), " "); !strings.Contains(tab, "AS RECORDED") || !strings.Contains(tab, "sent: the exact body on the wire") {
		t.Errorf("n again: the tab does not show the turn as sent:\n%s", tab)
	}
}
