package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// wireCtx asks for a reasoning model (its limit goes as max_completion_tokens), a 0
// temperature, a system-placement reminder and a tool the model calls.
const wireCtx = `version: 1
model: {name: o3-mini, temperature: 0, max_tokens: 300}
system:
  - role: You are terse.
reminders:
  - id: sys-note
    text: Mind the tools.
    when: contentIncludes(['weather'])
    placement: system
tools:
  - name: get_temperature
    description: The temperature outside
    parameters: {type: object, properties: {city: {type: string}}}
    result: '{"kelvin": 293}'
`

// TestWireBodyOfRecordedTurns sends turns to a server through the real client, then
// reopens the chat and checks that WireBody of each request a viewer rebuilds from the
// record (the tool loop's included) is, byte for byte, the body the server received; and
// that the API key, sent as a header, is in none.
func TestWireBodyOfRecordedTurns(t *testing.T) {
	const key = "sk-wire-test-0123456789"
	ctx := context.Background()
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") || r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"o3-mini\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, finish)
		}
		if !bytes.Contains(b, []byte("weather")) || bytes.Contains(b, []byte(`"role":"tool"`)) { // answered with text
			chunk(`{"content":"Done."}`, "null")
			chunk(`{}`, `"stop"`)
		} else {
			chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_temperature","arguments":"{\"city\":\"Paris\"}"}}]}`, "null")
			chunk(`{}`, `"tool_calls"`)
		}
		fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"o3-mini\",\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":2,\"total_tokens\":22}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)

	w := open(t, Flags{BaseURL: srv.URL + "/v1", APIKeyEnv: "WIRE_TEST_KEY"})
	t.Setenv("WIRE_TEST_KEY", key)
	file, err := ctxfile.Parse("wire.ctx.yaml", []byte(wireCtx))
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.Settings(file, false)
	if err != nil {
		t.Fatal(err)
	}
	model, err := w.Model(ctx, &s)
	if err != nil || model == nil {
		t.Fatalf("got model %v, %v, want the server", model, err)
	}
	e, err := w.Engine(file, s)
	if err != nil {
		t.Fatal(err)
	}
	c := w.NewChat(s, e, model)
	for _, text := range []string{"hello", "what is the weather in Paris?"} {
		if _, err := c.Send(ctx, text, nil); err != nil {
			t.Fatalf("send %q: %v", text, err)
		}
	}
	// A scripted reply sends nothing.
	if _, err := c.SendScripted(ctx, "and tomorrow?", "Same.", nil); err != nil {
		t.Fatal(err)
	}

	reopened, err := w.OpenChat(ctx, s, e, model, c.ID())
	if err != nil {
		t.Fatal(err)
	}
	traces, err := reopened.LightTraces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(traces) != 3 || !traces[0].Sent || !traces[1].Sent || traces[2].Sent {
		t.Fatalf("got %d traces, want 3: two sent, then a scripted one", len(traces))
	}
	var shown [][]byte
	for i := range traces[:2] {
		d, err := reopened.TurnDetail(ctx, &traces[i])
		if err != nil {
			t.Fatal(err)
		}
		for j := range d.Requests {
			b, err := WireBody(&d.Requests[j])
			if err != nil {
				t.Fatal(err)
			}
			shown = append(shown, b)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) != 3 || len(bodies) != 3 {
		t.Fatalf("rebuilt %d requests, the server received %d; want 3 (the second turn's tool loop sent two)", len(shown), len(bodies))
	}
	for i := range bodies {
		if !bytes.Equal(shown[i], bodies[i]) {
			t.Errorf("request %d: WireBody of the recorded request\n%s\nthe server received\n%s", i+1, shown[i], bodies[i])
		}
		for _, want := range []string{`"max_completion_tokens":300`, `"temperature":0`, `"stream":true`, `"stream_options":{"include_usage":true}`} {
			if !bytes.Contains(bodies[i], []byte(want)) {
				t.Errorf("request %d: the body sent lacks %s: %s", i+1, want, bodies[i])
			}
		}
		if bytes.Contains(shown[i], []byte(key)) {
			t.Errorf("request %d: the API key is in the body %s", i+1, shown[i])
		}
	}
}
