package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
)

// saveChats plays a one-turn script for each id, in order (the last is the most recently
// updated), into the database opt names.
func saveChats(t *testing.T, opt Options, ids ...string) {
	t.Helper()
	for i, id := range ids {
		src := fmt.Sprintf("chat: {id: %s}\nturns:\n  - user: hello\n    at: 2026-02-01T10:%02d:00Z\n    assistant: Hi.\n", id, i)
		dir := writeFiles(t, map[string]string{"test.ctx.yaml": testCtx, "s.script.yaml": "context: ./test.ctx.yaml\n" + src})
		if _, err := RunScript(context.Background(), opt, ScriptRun{Path: filepath.Join(dir, "s.script.yaml")}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResolveChat(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	opt := Options{DB: filepath.Join(t.TempDir(), "ctxlab.db")}
	saveChats(t, opt, "alpha-1", "alpha-2", "ab", "a", "beta")
	w, err := OpenSaved(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tests := []struct {
		in, want   string
		candidates []string // an ambiguous prefix
		notFound   bool
	}{
		{in: "alpha-1", want: "alpha-1"},
		{in: "a", want: "a"}, // an exact id wins over the ids it starts
		{in: "b", want: "beta"},
		{in: "alpha-2", want: "alpha-2"},
		{in: "last", want: "beta"},
		{in: "alpha", candidates: []string{"alpha-1", "alpha-2"}},
		{in: "al", candidates: []string{"alpha-1", "alpha-2"}},
		{in: "gamma", notFound: true},
		{in: "", notFound: true},
	}
	for _, tt := range tests {
		got, err := w.ResolveChat(ctx, tt.in)
		var amb *AmbiguousChatError
		switch {
		case tt.candidates != nil:
			if !errors.As(err, &amb) || !slices.Equal(amb.Candidates, tt.candidates) ||
				!strings.Contains(err.Error(), strings.Join(tt.candidates, ", ")) {
				t.Errorf("ResolveChat(%q) = %q, %v; want ambiguous among %v", tt.in, got, err, tt.candidates)
			}
		case tt.notFound:
			if !errors.Is(err, chat.ErrNotFound) {
				t.Errorf("ResolveChat(%q) = %q, %v; want not found", tt.in, got, err)
			}
		case err != nil || got != tt.want:
			t.Errorf("ResolveChat(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestAsk(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	dir := writeFiles(t, map[string]string{"test.ctx.yaml": testCtx})
	opt := Options{DB: filepath.Join(dir, "ctxlab.db")}

	if _, err := Ask(ctx, opt, AskRequest{Text: "hello"}); !errors.Is(err, ErrAskNoModel) {
		t.Fatalf("Ask with no model: %v, want ErrAskNoModel", err)
	}
	if _, err := os.Stat(opt.DB); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Ask with no model opened the database: %v", err)
	}

	var sent []int // the number of messages of each request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sent = append(sent, strings.Count(string(body), `"role"`))
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi there.\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	opt.Flags = Flags{BaseURL: srv.URL + "/v1", Model: "m"}

	var texts []string
	res, err := Ask(ctx, opt, AskRequest{Text: "hello", OnEvent: func(id string, ev engine.Event) {
		if e, ok := ev.(engine.EventText); ok {
			texts = append(texts, e.Text)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn.Turn.Number != 1 || res.Branch != "main" || res.Turns != 1 || res.DBPath != opt.DB ||
		strings.Join(texts, "") != "Hi there." || len(res.Turn.Plan.Decisions) != 0 {
		t.Errorf("first ask: %+v, texts %q; want turn 1 of a new chat with no decisions", res, texts)
	}
	again, err := Ask(ctx, opt, AskRequest{Text: "more", Chat: "last", Context: filepath.Join(dir, "test.ctx.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if again.ChatID != res.ChatID || again.Turns != 2 || len(again.Turn.Plan.Decisions) != 1 {
		t.Errorf("ask --chat last: chat %s, %d turns, %d decisions; want %s, 2 turns, the file's reminder",
			again.ChatID, again.Turns, len(again.Turn.Plan.Decisions), res.ChatID)
	}
	if len(sent) != 2 || sent[1] <= sent[0] {
		t.Errorf("messages sent per request: %v; want the second to carry the first turn", sent)
	}
}
