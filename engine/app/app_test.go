package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/store"
)

// isolate points every setting the application layer reads from the environment at an
// empty temporary home: no key, no server, an empty config file.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "empty-config.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OPENAI_MODEL": "", "CTXLAB_CONFIG": cfg, "CTXLAB_DB": "",
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_DATA_HOME": filepath.Join(home, "data"),
	} {
		t.Setenv(k, v)
	}
	return home
}

func TestDBPath(t *testing.T) {
	home := isolate(t)
	tests := []struct {
		name, flag, env, xdg string
		want                 string
	}{
		{name: "flag first", flag: "a.db", env: "b.db", want: "a.db"},
		{name: "then CTXLAB_DB", env: "b.db", want: "b.db"},
		{name: "then the data directory", xdg: filepath.Join(home, "data"), want: filepath.Join(home, "data", "ctxlab", "ctxlab.db")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CTXLAB_DB", tt.env)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			got, err := DBPath(tt.flag)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v, want %q", got, err, tt.want)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	home := isolate(t)
	ctx := context.Background()

	// A read-only open of a database that does not exist creates nothing.
	missing := filepath.Join(home, "missing.db")
	_, err := OpenSaved(ctx, Options{DB: missing})
	var none *NoDatabaseError
	if !errors.As(err, &none) || none.Path != missing ||
		err.Error() != "no database at "+missing+" (nothing saved there yet; check --db)" {
		t.Fatalf("got %v, want a NoDatabaseError naming %s", err, missing)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenSaved created %s", missing)
	}

	// The default path: the data directory is created.
	w, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, "data", "ctxlab", "ctxlab.db")
	if w.DBPath() != want {
		t.Errorf("got database %s, want %s", w.DBPath(), want)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w, err = OpenSaved(ctx, Options{})
	if err != nil {
		t.Fatalf("OpenSaved after Open: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

const testCtx = `version: 1
system:
  - role: You are terse.
reminders:
  - id: every
    text: Keep it short.
    max_per_chat: 2
`

func loadFile(t *testing.T) *ctxfile.File {
	t.Helper()
	f, err := ctxfile.Parse("test.ctx.yaml", []byte(testCtx))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// open opens a workspace on a database in a temporary directory, with a clock that moves
// one minute per call.
func open(t *testing.T, flags Flags) *Workspace {
	t.Helper()
	isolate(t)
	clock := time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)
	w, err := Open(context.Background(), Options{DB: filepath.Join(t.TempDir(), "ctxlab.db"), Flags: flags,
		Now: func() time.Time { clock = clock.Add(time.Minute); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// traceJSON is a trace as JSON without its estimate by source (a plan has it, a record
// does not).
func traceJSON(t *testing.T, tr engine.Trace) string {
	t.Helper()
	tr.Usage.Estimated.BySource = nil
	b, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestScriptedChat runs a chat with no model: the user writes the replies, or leaves a
// message unanswered.
func TestScriptedChat(t *testing.T) {
	ctx := context.Background()
	w := open(t, Flags{})
	file := loadFile(t)
	s, err := w.Settings(file, false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.Engine(file, s)
	if err != nil {
		t.Fatal(err)
	}
	model, err := w.Model(ctx, &s)
	if err != nil || model != nil {
		t.Fatalf("got model %v, %v, want none (no server configured)", model, err)
	}
	c := w.NewChat(s, e, model)
	if !c.Scripted() || c.ModelLabel() != "SCRIPTED" {
		t.Errorf("got scripted %v label %q, want a scripted chat", c.Scripted(), c.ModelLabel())
	}
	if _, err := c.Send(ctx, "hello", nil); !errors.Is(err, ErrNoServer) {
		t.Errorf("live send in a scripted chat: got %v, want ErrNoServer", err)
	}
	if traces, err := c.Traces(ctx); err != nil || len(traces) != 0 {
		t.Errorf("unsaved chat: got %d traces, %v, want none", len(traces), err)
	}
	if list, err := w.Chats(ctx, ""); err != nil || len(list) != 0 {
		t.Fatalf("got %d chats, %v, want none before the first turn", len(list), err)
	}

	// A preview moves nothing: the first send fires the same reminder.
	for range 2 {
		if p := c.Preview("hello", time.Time{}); p.Turn != 1 || !slices.ContainsFunc(p.Decisions, fired("every")) {
			t.Fatalf("preview: got turn %d, want turn 1 with every fired", p.Turn)
		}
	}
	var events []string
	emit := func(ev engine.Event) { events = append(events, fmt.Sprintf("%T", ev)) }
	res, err := c.SendScripted(ctx, "hello", "Hi.", emit)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"engine.EventPlanned", "engine.EventText", "engine.EventResponse", "engine.EventSaved"}; !slices.Equal(events, want) {
		t.Errorf("got events %v, want %v", events, want)
	}
	if err := c.SendUnanswered(ctx, "anyone?"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendScripted(ctx, "still there?", "Yes.", nil); err != nil {
		t.Fatal(err)
	}

	traces, err := c.Traces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(traces) != 3 {
		t.Fatalf("got %d traces, want 3", len(traces))
	}
	if got, want := traceJSON(t, traces[0]), traceJSON(t, res.Trace(c.ID())); got != want {
		t.Errorf("trace 1:\n got %s\nwant the sent turn's %s", got, want)
	}
	if tr := traces[1]; tr.Turn != 2 || tr.Assistant != nil || tr.Error != engine.Unanswered {
		t.Errorf("trace 2: got turn %d assistant %+v error %q, want turn 2 with no reply", tr.Turn, tr.Assistant, tr.Error)
	}
	if tr := traces[2]; tr.Turn != 3 || tr.Assistant == nil || tr.Assistant.Text != "Yes." ||
		!slices.ContainsFunc(tr.Decisions, fired("every")) {
		t.Errorf("trace 3: got turn %d assistant %+v, want turn 3 answered, every fired (the unanswered turn counts none)", tr.Turn, tr.Assistant)
	}

	// The chat list, the last chat, the branches, the cost.
	list, err := w.Chats(ctx, "")
	if err != nil || len(list) != 1 || list[0].ID != c.ID() || list[0].Turns != 3 || list[0].CostUSD != nil {
		t.Fatalf("got chats %+v, %v, want this chat with 3 turns and no cost (scripted)", list, err)
	}
	if found, err := w.Chats(ctx, "anyone"); err != nil || len(found) != 1 {
		t.Errorf("search: got %d chats, %v, want 1", len(found), err)
	}
	if last, err := w.LastChat(ctx); err != nil || last != c.ID() {
		t.Errorf("got last chat %q, %v, want %q", last, err, c.ID())
	}
	if usd, known, err := c.Cost(ctx); err != nil || known || usd != 0 {
		t.Errorf("got cost %v known %v, %v, want unknown (scripted replies are never sent)", usd, known, err)
	}
	branches, err := c.Branches(ctx)
	if err != nil || len(branches) != 1 || branches[0].Name != "main" {
		t.Fatalf("got branches %+v, %v, want main", branches, err)
	}
	if err := c.Switch(ctx, "nope"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("switch to a missing branch: got %v, want ErrNotFound", err)
	}

	// Edit and regenerate branch; a live one needs a model.
	if _, err := c.Regenerate(ctx, nil, nil); !errors.Is(err, ErrNoServer) {
		t.Errorf("live regenerate in a scripted chat: got %v, want ErrNoServer", err)
	}
	again := "Yes, still."
	if res, err := c.Regenerate(ctx, &again, nil); err != nil || res.Turn.Branch != "main-v2" || c.Session().Branch() != "main-v2" {
		t.Fatalf("regenerate: got %v, want a reply on main-v2, switched to", err)
	}
	if _, err := c.Edit(ctx, 1, "hi", &again, nil); err != nil || c.Session().Branch() != "main-v2-v2" || c.Session().TurnCount() != 1 {
		t.Fatalf("edit: got %v, branch %s with %d turns, want main-v2-v2 with 1", err, c.Session().Branch(), c.Session().TurnCount())
	}
	if err := c.Switch(ctx, "main"); err != nil || c.Session().TurnCount() != 3 {
		t.Fatalf("switch back to main: got %v, %d turns, want 3", err, c.Session().TurnCount())
	}

	// Reopened, the chat is the same.
	reopened, err := w.OpenChat(ctx, s, e, nil, c.ID())
	if err != nil {
		t.Fatal(err)
	}
	if reopened.Session().TurnCount() != 3 || reopened.Usage() != c.Usage() || len(reopened.Session().Messages()) != 5 {
		t.Errorf("reopened: got %d turns, %d messages, usage %+v, want 3, 5, %+v",
			reopened.Session().TurnCount(), len(reopened.Session().Messages()), reopened.Usage(), c.Usage())
	}
}

func fired(id string) func(engine.Decision) bool {
	return func(d engine.Decision) bool { return d.ID == id && d.Fired }
}

// fakeServer is an OpenAI-compatible server on 127.0.0.1 offering the given models and
// answering every chat request with reply, streamed word by word, and a usage report.
func fakeServer(t *testing.T, models []string, reply string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/models"):
			data := []map[string]string{}
			for _, m := range models {
				data = append(data, map[string]string{"id": m, "object": "model"})
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			w.Header().Set("Content-Type", "text/event-stream")
			for _, word := range strings.SplitAfter(reply, " ") {
				b, _ := json.Marshal(word)
				fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", b)
			}
			fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
			fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":2,\"total_tokens\":22}}\n\n")
			fmt.Fprint(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestLiveChat sends to a server that names its one model.
func TestLiveChat(t *testing.T) {
	ctx := context.Background()
	url := fakeServer(t, []string{"gpt-4o-mini"}, "Hello there.")
	w := open(t, Flags{BaseURL: url})
	file := loadFile(t)
	s, err := w.Settings(file, false)
	if err != nil {
		t.Fatal(err)
	}
	model, err := w.Model(ctx, &s)
	if err != nil || model == nil {
		t.Fatalf("got model %v, %v, want the server's", model, err)
	}
	if s.ModelName() != "gpt-4o-mini" {
		t.Errorf("got model name %q, want the server's only model", s.ModelName())
	}
	e, err := w.Engine(file, s)
	if err != nil {
		t.Fatal(err)
	}
	c := w.NewChat(s, e, model)
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/v1")
	if c.Scripted() || c.ModelLabel() != "gpt-4o-mini @ "+host {
		t.Errorf("got scripted %v label %q, want gpt-4o-mini @ %s", c.Scripted(), c.ModelLabel(), host)
	}
	var texts []string
	res, err := c.Send(ctx, "hello", func(ev engine.Event) {
		if t, ok := ev.(engine.EventText); ok {
			texts = append(texts, t.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Assistant.PlainText() != "Hello there." || !slices.Equal(texts, []string{"Hello ", "there."}) {
		t.Errorf("got reply %q streamed as %q", res.Assistant.PlainText(), texts)
	}
	usd, known, err := c.Cost(ctx)
	if want := (20*0.15 + 2*0.60) / 1e6; err != nil || !known || math.Abs(usd-want) > 1e-15 {
		t.Errorf("got cost %v known %v, %v, want %v", usd, known, err, want)
	}
	if window, ok := ContextWindow(s.ModelName()); !ok || window != 128000 {
		t.Errorf("got context window %d (%v), want 128000", window, ok)
	}
}

func TestNameServerModel(t *testing.T) {
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf("m%02d", i+1)
	}
	tests := []struct {
		name   string
		models []string
		want   string // the error, "" for none
	}{
		{"one model", []string{"tiny"}, ""},
		{"none", nil, "no model name is set and %s offers no model: set one with --model, OPENAI_MODEL, a config profile or the context file's model.name"},
		{"several", many, "no model name is set and %s offers 12 models (m01, m02, m03, m04, m05, m06, m07, m08, m09, m10, … 2 more): set one with --model, OPENAI_MODEL, a config profile or the context file's model.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := fakeServer(t, tt.models, "")
			isolate(t)
			s, err := ResolveSettings(Flags{BaseURL: url}, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			err = NameServerModel(context.Background(), &s)
			var usage *UsageError
			switch {
			case tt.want == "" && (err != nil || s.ModelName() != "tiny"):
				t.Errorf("got %v, model %q, want tiny", err, s.ModelName())
			case tt.want != "" && (!errors.As(err, &usage) || err.Error() != fmt.Sprintf(tt.want, url)):
				t.Errorf("got %v, want the usage error %q", err, fmt.Sprintf(tt.want, url))
			}
		})
	}
}

func TestMemoryWorkspace(t *testing.T) {
	isolate(t)
	w, err := OpenSaved(context.Background(), Options{DB: store.Memory})
	if err != nil {
		t.Fatalf("OpenSaved(:memory:): %v", err)
	}
	defer w.Close()
	if last, err := w.LastChat(context.Background()); err != nil || last != "" {
		t.Errorf("got last chat %q, %v, want none", last, err)
	}
}
