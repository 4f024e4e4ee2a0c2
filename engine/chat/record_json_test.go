package chat

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestSentRequestAppendJSON checks AppendJSON against encoding/json (HTML escaping off)
// on requests with every field set or not, and texts with what JSON escapes: quotes,
// backslashes, control characters, <>&, U+2028, invalid UTF-8.
func TestSentRequestAppendJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	texts := []string{"", "plain", "a \"quoted\" \\ text\n\twith <tags> & more", "\x00\x1f\x7f", "line\u2028sep\u2029", "bad \xff\xfe utf-8", "émoji 😀 日本"}
	pick := func() string { return texts[r.IntN(len(texts))] + texts[r.IntN(len(texts))] }
	maybe := func() bool { return r.IntN(2) == 0 }
	for i := range 3000 {
		req := SentRequest{Model: pick(), SystemPrompt: pick(), Scripted: maybe()}
		if maybe() {
			req.SystemInject = pick()
		}
		if maybe() {
			req.MaxTokens = r.IntN(5000) - 100
		}
		if maybe() {
			seed := r.IntN(1<<40) - 1<<39
			req.Seed = &seed
		}
		if i%7 == 0 {
			temp := r.Float64() * 2
			req.Temperature = &temp
		}
		if i%11 == 0 {
			top := 1e-7 * r.Float64()
			req.TopP = &top
		}
		if i%13 == 0 {
			req.Tools = []WireTool{{Type: "function", Function: FunctionDecl{Name: pick(), Parameters: json.RawMessage(`{"type": "object"}`)}}}
		}
		req.ChatUsage = Usage{PromptTokens: r.IntN(1e6), CompletionTokens: r.IntN(1e4), TotalTokens: r.IntN(1e6)}
		if maybe() {
			req.ChatUsage.CachedTokens, req.ChatUsage.ReasoningTokens = r.IntN(3), r.IntN(3)
		}
		if maybe() {
			e := &PromptEstimate{Fragments: r.IntN(100), Instructions: r.IntN(100), Reminders: r.IntN(100), History: r.IntN(1e5),
				User: r.IntN(100), Tools: r.IntN(100), Framing: r.IntN(10), Total: r.IntN(1e5)}
			for range r.IntN(4) {
				e.EachFragment = append(e.EachFragment, FragmentTokens{Name: pick(), Tokens: r.IntN(300)})
			}
			req.Estimate = e
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(req); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		got, err := req.AppendJSON([]byte("x"))
		if err != nil || string(got[1:]) != string(want) {
			t.Fatalf("request %d:\n got %s (%v)\nwant %s", i, got[1:], err, want)
		}
	}
}
