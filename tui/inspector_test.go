package tui

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/predicates"
	"github.com/ctxlab/ctxlab/themes"
)

// The tests draw frames with the ASCII colour profile, and -update rewrites the golden
// files. Other test files of the package may set the profile and declare the flag too:
// it is registered here only when it is not yet, and read by name.
func init() {
	lipgloss.SetColorProfile(termenv.Ascii)
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

// updating reports whether -update was given.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// inspectorDemo is a demo script played into an in-memory store: each turn's trace as it was sent
// and as a replay gives it, the chat's branches and usage.
type inspectorDemo struct {
	eng      *engine.Engine
	store    *engine.MemStore
	sess     *engine.Session
	chatID   string
	sent     []engine.Trace  // as sent (with the estimate by source)
	replayed []*engine.Trace // replay of the active branch, as recorded
	branches []chat.BranchInfo
	usage    chat.Usage
}

// loadDemoContext loads a demo context file.
func loadDemoContext(t testing.TB, name string) *ctxfile.File {
	t.Helper()
	file, err := ctxfile.Load(filepath.Join("..", "testdata", "demo", name))
	if err != nil {
		t.Fatal(err)
	}
	return file
}

// newDemoEngine returns an engine on the demo context over st, with a fixed clock and ids.
func newDemoEngine(t testing.TB, file *ctxfile.File, st engine.Store) *engine.Engine {
	t.Helper()
	n := 0
	eng, err := engine.New(engine.Options{Context: file, Store: st,
		Now:   func() time.Time { return time.Date(2026, 3, 28, 10, 0, 0, 0, time.UTC) },
		NewID: func() string { n++; return fmt.Sprintf("id-%03d", n) }, Cost: demoPrice})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// demoPrice is gpt-4o-mini's price: $0.15 per million prompt tokens, $0.60 per million
// completion tokens.
func demoPrice(_ string, u chat.Usage) (float64, bool) {
	return (float64(u.PromptTokens)*0.15 + float64(u.CompletionTokens)*0.60) / 1e6, true
}

// playInspectorDemo plays a demo script (under testdata/demo) in memory.
func playInspectorDemo(t testing.TB, name string) *inspectorDemo {
	t.Helper()
	ctx := context.Background()
	sc, err := script.Load(filepath.Join("..", "testdata", "demo", name))
	if err != nil {
		t.Fatal(err)
	}
	st := engine.NewMemStore(nil)
	d := &inspectorDemo{eng: newDemoEngine(t, loadDemoContext(t, "support.ctx.yaml"), st), store: st, chatID: sc.Chat.ID}
	r := &script.Runner{Engine: d.eng, OnTurn: func(_ *script.Step, res *engine.TurnResult) {
		d.sent = append(d.sent, res.Trace(sc.Chat.ID))
	}}
	if d.sess, err = r.Run(ctx, sc); err != nil {
		t.Fatal(err)
	}
	if err := d.eng.Replay(ctx, d.chatID, false, func(tr *engine.Trace) error {
		d.replayed = append(d.replayed, tr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d.branches, err = d.sess.Branches(ctx); err != nil {
		t.Fatal(err)
	}
	if d.usage, err = st.ChatUsage(ctx, d.chatID); err != nil {
		t.Fatal(err)
	}
	return d
}

// reevaluated replays the chat under another context file (replay --context).
func (d *inspectorDemo) reevaluated(t testing.TB, name string) []*engine.Trace {
	t.Helper()
	var out []*engine.Trace
	eng := newDemoEngine(t, loadDemoContext(t, name), d.store)
	if err := eng.Replay(context.Background(), d.chatID, true, func(tr *engine.Trace) error {
		out = append(out, tr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func (d *inspectorDemo) chatView() chatView {
	cost, _ := demoPrice("", d.usage)
	return chatView{Branches: d.branches, Active: d.sess.Branch(), Totals: d.usage,
		CostUSD: cost, CostKnown: true, ContextWindow: 128000}
}

// inspectorGolden compares got with testdata/inspector/name.golden, or rewrites it with -update.
func inspectorGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "inspector", name+".golden")
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update to rewrite it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// checkInspectorFrame checks a frame is exactly height lines of at most width cells.
func checkInspectorFrame(t *testing.T, frame string, width, height int) {
	t.Helper()
	if msg := inspectorFrameProblem(frame, width, height); msg != "" {
		t.Fatal(msg)
	}
}

// inspectorFrameProblem says what is wrong with a frame that is not exactly height lines of at
// most width cells ("" for nothing).
func inspectorFrameProblem(frame string, width, height int) string {
	lines := strings.Split(frame, "\n")
	if len(lines) != height {
		return fmt.Sprintf("%dx%d: %d lines, want %d", width, height, len(lines), height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			return fmt.Sprintf("%dx%d: line %d is %d cells wide: %q", width, height, i, w, l)
		}
	}
	return ""
}

func inspectorKey(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// The sizes the inspector gets: beside the transcript at 120x40, full width at 80x24.
var inspectorSizes = []struct {
	name          string
	width, height int
}{{"48x38", 48, 38}, {"80x22", 80, 22}}

func TestInspectorGoldens(t *testing.T) {
	support := playInspectorDemo(t, "support.script.yaml")
	branching := playInspectorDemo(t, "branching.script.yaml")
	turn3 := support.replayed[2] // fired reminders, the tool failure of turn 2, a system reminder
	edited := support.reevaluated(t, "support-edited.ctx.yaml")
	preview := support.sess.Preview(engine.UserInput{Text: "the query failed again with an error", At: time.Date(2026, 3, 28, 9, 5, 0, 0, time.UTC)})
	previewTrace := engine.PlanTrace(support.chatID, preview)

	// Turn 2 under the edited file: concise fires now; and a reminder the edited file
	// no longer has (the demo's edit removes none).
	was := edited[1]
	was.Removed = []engine.Removed{{ID: "old-hint", Source: engine.SourceReminder, Fired: true, Reason: engine.ReasonFired}}
	// A turn as a model would have answered it: latency measured.
	timed := &support.sent[1]
	timed.Latency = engine.LatencyTrace{TTFT: 420, Total: 1380}

	// A turn recorded before ctxlab kept its estimate by source (or imported without one).
	unsized := *support.replayed[3]
	unsized.Usage.Estimated.BySource = nil

	// A live tool loop of two requests (the first request's estimate is the turn's by
	// source, the second sends 40 tokens more), the second cut by max_tokens; the same
	// loop with no usage reported for its second request; the same turn saved before
	// ctxlab kept each request's response; and a turn streaming its second request.
	loop := support.sent[2]
	loop.Sent = true // as a live model answered it
	first := loop.Usage.Estimated.BySource.Total
	loop.Responses = []engine.ResponseTrace{
		{FinishReason: "tool_calls", Usage: &chat.Usage{PromptTokens: 373, CompletionTokens: 12, TotalTokens: 385, CachedTokens: 128},
			EstimatedPromptTokens: first, Latency: engine.LatencyTrace{TTFT: 410, Total: 620}},
		{FinishReason: "length", Usage: &chat.Usage{PromptTokens: 377, CompletionTokens: 29, TotalTokens: 406},
			EstimatedPromptTokens: first + 40, Latency: engine.LatencyTrace{TTFT: 95, Total: 1730}},
	}
	loop.Usage.Reported = &chat.Usage{PromptTokens: 750, CompletionTokens: 41, TotalTokens: 791, CachedTokens: 128}
	loop.Usage.Estimated.PromptTokens = 2*first + 40
	diff := 750 - loop.Usage.Estimated.PromptTokens
	loop.Usage.Difference = &diff
	loop.Latency = engine.LatencyTrace{TTFT: 410, Total: 2350}
	cut := *loop.Assistant
	cut.FinishReason = "length"
	loop.Assistant = &cut
	loopReqs := &turnLoop{requests: []chat.Request{loop.Request, loop.Request}}
	unreported := loop
	unreported.Responses = []engine.ResponseTrace{loop.Responses[0], loop.Responses[1]}
	unreported.Responses[1].Usage = nil
	unreported.Usage.Reported, unreported.Usage.Difference = nil, nil
	unkept := loop
	unkept.Responses = nil
	plan := engine.PlanTrace(support.chatID, preview)
	live := &turnLoop{requests: []chat.Request{plan.Request, plan.Request}, responses: loop.Responses[:1]}
	tests := []struct {
		name string
		tab  inspectorTab
		view turnView
		chat chatView
		keys []string
		step int // the request of the tool loop shown
	}{
		{name: "why", tab: tabWhy, view: turnView{Trace: turn3}},
		{name: "why_tree", tab: tabWhy, view: turnView{Trace: turn3}, keys: []string{"down", "enter"}},
		{name: "why_preview", tab: tabWhy, view: turnView{Trace: &previewTrace, Preview: true}},
		{name: "why_was", tab: tabWhy, view: turnView{Trace: was}},
		{name: "prompt", tab: tabPrompt, view: turnView{Trace: &support.sent[3]}},
		{name: "prompt_recorded", tab: tabPrompt, view: turnView{Trace: support.replayed[3]}},
		{name: "request", tab: tabRequest, view: turnView{Trace: turn3, Prev: support.replayed[1]}},
		{name: "request_new", tab: tabRequest, view: turnView{Trace: turn3, Prev: support.replayed[1]}, keys: []string{"d"}},
		{name: "branches", tab: tabBranches, view: turnView{Trace: branching.replayed[len(branching.replayed)-1]}, chat: branching.chatView()},
		{name: "usage_reported", tab: tabUsage, view: turnView{Trace: &support.sent[2]}, chat: support.chatView()},
		{name: "usage_preview", tab: tabUsage, view: turnView{Trace: &previewTrace, Preview: true}, chat: support.chatView()},
		{name: "usage_timed", tab: tabUsage, view: turnView{Trace: timed}, chat: chatView{Totals: support.usage}},
		{name: "usage_not_reported", tab: tabUsage, view: turnView{Trace: support.replayed[3]}, chat: support.chatView()},
		{name: "prompt_unsized", tab: tabPrompt, view: turnView{Trace: &unsized}},
		{name: "usage_unsized", tab: tabUsage, view: turnView{Trace: &unsized}, chat: support.chatView()},
		{name: "request_loop1", tab: tabRequest, view: turnView{Trace: &loop, Loop: loopReqs}},
		{name: "request_loop2", tab: tabRequest, view: turnView{Trace: &loop, Loop: loopReqs}, step: 1},
		{name: "request_unkept", tab: tabRequest, view: turnView{Trace: &unkept, Loop: loopReqs}, step: 1},
		{name: "request_streaming1", tab: tabRequest, view: turnView{Trace: &plan, Loop: live, Streaming: true, Live: true}},
		{name: "request_streaming2", tab: tabRequest, view: turnView{Trace: &plan, Loop: live, Streaming: true, Live: true}, step: 1},
		// The end of the body: on the wire, the stream fields; as the trace records a
		// scripted turn, none; what the draft would put on the wire of a live chat.
		{name: "request_wire_end", tab: tabRequest, view: turnView{Trace: &loop, Loop: loopReqs}, keys: []string{"end"}},
		{name: "request_scripted_end", tab: tabRequest, view: turnView{Trace: turn3}, keys: []string{"end"}},
		{name: "request_would_send_end", tab: tabRequest, view: turnView{Trace: &previewTrace, Preview: true, Live: true}, keys: []string{"end"}},
		{name: "request_unreported2", tab: tabRequest, view: turnView{Trace: &unreported, Loop: loopReqs}, step: 1},
		{name: "usage_loop", tab: tabUsage, view: turnView{Trace: &loop, Loop: loopReqs}, chat: support.chatView()},
		{name: "usage_loop_unreported", tab: tabUsage, view: turnView{Trace: &unreported, Loop: loopReqs}, chat: support.chatView()},
		{name: "usage_unkept", tab: tabUsage, view: turnView{Trace: &unkept, Loop: loopReqs}, chat: support.chatView()},
		{name: "usage_streaming", tab: tabUsage, view: turnView{Trace: &plan, Loop: live, Streaming: true}, chat: support.chatView()},
	}
	for _, tt := range tests {
		for _, sz := range inspectorSizes {
			t.Run(tt.name+"_"+sz.name, func(t *testing.T) {
				in := newInspector(themes.Mono())
				in.SetTurn(tt.view)
				in.SetChat(tt.chat)
				in.SetTab(tt.tab)
				in.reqStep = tt.step
				in.Render(sz.width, sz.height, true)
				for _, k := range tt.keys {
					in.HandleKey(inspectorKey(k))
				}
				frame := in.Render(sz.width, sz.height, true)
				checkInspectorFrame(t, frame, sz.width, sz.height)
				inspectorGolden(t, tt.name+"_"+sz.name, frame)
			})
		}
	}
}

// renderAllTabs renders every tab of an inspector at a size.
func renderAllTabs(in *inspector, width, height int) []string {
	var out []string
	for tab := range numTabs {
		in.SetTab(tab)
		out = append(out, in.Render(width, height, tab%2 == 0))
	}
	return out
}

func TestInspectorFitsEverySize(t *testing.T) {
	support := playInspectorDemo(t, "support.script.yaml")
	branching := playInspectorDemo(t, "branching.script.yaml")
	hv, hc := hostileInspectorView()
	views := []struct {
		view turnView
		chat chatView
	}{
		{turnView{Trace: support.replayed[2], Prev: support.replayed[1]}, support.chatView()},
		{turnView{Trace: &support.sent[3], Preview: true}, branching.chatView()},
		{turnView{}, chatView{}},
		{hv, hc},
	}
	for vi, v := range views {
		in := newInspector(themes.Dark())
		in.SetTurn(v.view)
		in.SetChat(v.chat)
		in.SetTab(tabWhy)
		in.HandleKey(inspectorKey("enter")) // a tree open
		in.SetTab(tabRequest)
		in.HandleKey(inspectorKey("d"))
		for width := 20; width <= 160; width++ {
			for _, height := range []int{3, 9, 21, 39} {
				for ti, frame := range renderAllTabs(in, width, height) {
					if msg := inspectorFrameProblem(frame, width, height); msg != "" {
						t.Fatalf("view %d, %s tab: %s", vi, inspectorTab(ti), msg)
					}
				}
			}
		}
		for _, sz := range [][2]int{{1, 1}, {1, 5}, {5, 1}, {2, 2}, {0, 0}, {-3, -3}} {
			for ti, frame := range renderAllTabs(in, sz[0], sz[1]) {
				checkInspectorFrame(t, frame, max(sz[0], 1), max(sz[1], 1))
				_ = ti
			}
		}
	}
}

// hostileText is text that tries to drive the terminal.
const hostileText = "\x1b]0;PWNED\x07\x1b[2J"

// hostileInspectorView returns a turn and a chat whose every untrusted string holds hostile text,
// wide characters, tabs and a long word.
func hostileInspectorView() (turnView, chatView) {
	odd := hostileText + " 日本語\tx " + strings.Repeat("w", 70)
	pred := &predicates.Result{Expr: "contentIncludes('x')" + odd, Why: "why " + odd, Error: "err " + odd,
		Children: []predicates.Result{{Expr: "child" + odd, Why: odd}}}
	tr := &engine.Trace{Turn: 1, Branch: "main" + odd, At: "2026-03-27T14:30:00Z" + odd, Error: "model: " + odd,
		SystemPrompt: "<role>" + odd + "</role>",
		Decisions: []engine.Decision{
			{ID: "r" + odd, Source: engine.SourceReminder, Fired: true, Reason: engine.ReasonFired, Placement: "inline" + odd,
				Tier: "guidance", Text: "text " + odd, Tokens: 3, Trace: pred},
			{ID: "e" + odd, Source: engine.SourceReminder, Reason: engine.ReasonPredicateError, Detail: "detail " + odd, Trace: pred},
			{ID: "i" + odd, Source: engine.SourceInstruction, Fired: true, Reason: engine.ReasonFired, Kind: "must" + odd,
				Scope: "Always", Text: "do " + odd, When: []string{"when " + odd}},
		},
		Removed: []engine.Removed{{ID: "gone" + odd, Source: "reminder", Reason: "fired"}},
		Request: chat.Request{Model: "m" + odd, Messages: []chat.WireMessage{
			{Role: chat.RoleSystem, Content: "sys " + odd}, {Role: chat.RoleUser, Content: "hi \u009b2J " + odd}}},
	}
	c := chatView{Active: "main" + odd, Branches: []chat.BranchInfo{
		{Branch: chat.Branch{Name: "main" + odd}}, {Branch: chat.Branch{Name: "b" + odd, Parent: "main" + odd}}}}
	return turnView{Trace: tr}, c
}

// TestTurnHeader checks what the pinned header of every turn tab says of the turn.
func TestTurnHeader(t *testing.T) {
	tests := []struct {
		name string
		view turnView
		want []string
	}{
		{"sent", turnView{Trace: &engine.Trace{Turn: 3, Branch: "main", At: "2026-03-27T14:35:00Z"}},
			[]string{"turn 3 · main · 2026-03-27 14:35:00 UTC"}},
		{"preview", turnView{Trace: &engine.Trace{Turn: 4, Branch: "main"}, Preview: true},
			[]string{"PREVIEW turn 4 · main · nothing sent"}},
		{"imported", turnView{Trace: &engine.Trace{Turn: 1, Branch: "main", At: "t", NotRecorded: true}},
			[]string{"turn 1 · main · t", "no record (imported): rebuilt from the messages"}},
		{"another writer", turnView{Trace: &engine.Trace{Turn: 2, Branch: "main-v2", At: "t", PlannedOn: "main"}},
			[]string{"turn 2 · main-v2 · t", "planned on main, which another writer moved: saved on main-v2"}},
	}
	for _, tt := range tests {
		for _, tab := range []inspectorTab{tabWhy, tabPrompt, tabRequest, tabUsage} {
			in := newInspector(themes.Mono())
			in.SetTurn(tt.view)
			in.SetTab(tab)
			head := in.tabBody(100).head
			if len(head) < len(tt.want) || strings.Join(head[:len(tt.want)], "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("%s, %s tab: header %q, want it to start with %q", tt.name, tab, head, tt.want)
			}
		}
	}
}

func TestInspectorHostileText(t *testing.T) {
	view, c := hostileInspectorView()
	tr := view.Trace
	for _, view := range []turnView{{Trace: tr}, {Trace: tr, Preview: true}} {
		in := newInspector(themes.Dark())
		in.SetTurn(view)
		in.SetChat(c)
		in.HandleKey(inspectorKey("enter"))
		for _, width := range []int{30, 80} {
			for _, frame := range renderAllTabs(in, width, 60) {
				for _, bad := range []string{"PWNED\x07", "\x1b]", "\x1b[2J", "\x07", "\u009b"} {
					if strings.Contains(frame, bad) {
						t.Fatalf("%q reached the frame:\n%s", bad, frame)
					}
				}
			}
		}
	}
}

func TestInspectorKeys(t *testing.T) {
	support := playInspectorDemo(t, "support.script.yaml")
	branching := playInspectorDemo(t, "branching.script.yaml")
	in := newInspector(themes.Mono())
	in.SetTurn(turnView{Trace: support.replayed[2], Prev: support.replayed[1]})
	in.SetChat(branching.chatView())
	in.Render(48, 20, true)

	// Why: the cursor walks the decisions, enter opens and closes a tree.
	before := in.Render(48, 20, true)
	in.HandleKey(inspectorKey("down"))
	if in.cursor[tabWhy] != 1 {
		t.Fatalf("cursor %d after down, want 1", in.cursor[tabWhy])
	}
	if a := in.HandleKey(inspectorKey("enter")); a != nil {
		t.Errorf("enter on Why returned %#v, want nil", a)
	}
	if !strings.Contains(in.Render(48, 20, true), "predicate tree:") {
		t.Error("enter did not open the predicate tree")
	}
	in.HandleKey(inspectorKey("enter"))
	in.HandleKey(inspectorKey("up"))
	if got := in.Render(48, 20, true); got != before {
		t.Errorf("enter twice and up did not come back:\n%s\nwant\n%s", got, before)
	}
	in.HandleKey(inspectorKey("end"))
	if last := len(in.tabBody(48).first) - 1; in.cursor[tabWhy] != last {
		t.Errorf("end: cursor %d, want %d", in.cursor[tabWhy], last)
	}
	if !strings.Contains(in.Render(48, 20, true), "▸") {
		t.Error("the cursor is not in view after end")
	}

	// Request: scrolling and d.
	in.SetTab(tabRequest)
	top := in.Render(48, 20, true)
	in.HandleKey(inspectorKey("pgdown"))
	if in.Render(48, 20, true) == top || in.scroll[tabRequest] == 0 {
		t.Error("pgdown did not scroll the request")
	}
	in.HandleKey(inspectorKey("d"))
	if !strings.Contains(in.Render(48, 20, true), "only what is new") || in.scroll[tabRequest] != 0 {
		t.Error("d did not show only what is new from the top")
	}

	// Branches: enter and a click switch.
	in.SetTab(tabBranches)
	in.Render(48, 20, true)
	if last := len(branching.branches) - 1; in.cursor[tabBranches] != last {
		t.Errorf("branches cursor on %d, want %d (the active main-v3)", in.cursor[tabBranches], last)
	}
	in.HandleKey(inspectorKey("home"))
	in.HandleKey(inspectorKey("down"))
	if a, ok := in.HandleKey(inspectorKey("enter")).(switchBranchAction); !ok || a.Name != "main-v2" {
		t.Errorf("enter on the second branch: %#v, want switch to main-v2", a)
	}
	// Line 0 is the tab bar, 1 the header, 2 the rule under it, 3 the first branch: a
	// click selects it, a second click switches.
	if a := in.ClickAt(3); a != nil || in.cursor[tabBranches] != 0 {
		t.Errorf("click on the first branch: %#v and cursor %d, want nil and 0", a, in.cursor[tabBranches])
	}
	if a, ok := in.ClickAt(3).(switchBranchAction); !ok || a.Name != "main" {
		t.Errorf("second click on the first branch: %#v, want switch to main", a)
	}
	if a := in.ClickAt(6); a != nil || in.cursor[tabBranches] != 1 {
		t.Errorf("click on the second branch's detail line: %#v and cursor %d, want nil and 1", a, in.cursor[tabBranches])
	}
	if a := in.ClickAt(0); a != nil {
		t.Errorf("click on the tab bar: %#v, want nil", a)
	}

	// A new turn resets the cursor and scroll; a new trace of the same turn keeps them.
	in.SetTab(tabWhy)
	in.HandleKey(inspectorKey("home"))
	in.HandleKey(inspectorKey("down"))
	again := *support.replayed[2]
	in.SetTurn(turnView{Trace: &again, Prev: support.replayed[1]})
	if in.cursor[tabWhy] != 1 {
		t.Errorf("a new trace of the same turn moved the cursor to %d", in.cursor[tabWhy])
	}
	in.SetTurn(turnView{Trace: support.replayed[3]})
	if in.cursor[tabWhy] != 0 || in.scroll[tabRequest] != 0 {
		t.Errorf("another turn kept cursor %d, scroll %d", in.cursor[tabWhy], in.scroll[tabRequest])
	}

	// Keys name what each tab does (d is on: it offers the whole request back).
	for tab, want := range map[inspectorTab]string{tabWhy: "expand the predicate tree", tabBranches: "switch to the branch", tabRequest: "the whole request"} {
		in.SetTab(tab)
		found := false
		for _, k := range in.Keys() {
			found = found || k.Help().Desc == want
		}
		if !found {
			t.Errorf("%s: no key says %q", tab, want)
		}
	}
}

// BenchmarkInspectorRender scrolls a rendered Why tab at 64x50, as the mouse wheel does.
func BenchmarkInspectorRender(b *testing.B) {
	support := playInspectorDemo(b, "support.script.yaml")
	in := newInspector(themes.Dark())
	in.SetTurn(turnView{Trace: support.replayed[2]})
	for i := range support.replayed[2].Decisions { // every tree open: a long body
		in.expanded[i] = true
	}
	in.expandGen++
	in.Render(64, 50, true)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		in.ScrollBy(1 - 2*(i/20%2))
		in.Render(64, 50, true)
	}
}

// TestRequestHighlightsReminders checks, in colour, that every <system-reminder> block of
// the request (the part reminder baked into the user message, the system-placement
// message) is drawn in the reminder role, and the rest is not.
func TestRequestHighlightsReminders(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	support := playInspectorDemo(t, "support.script.yaml")
	th := themes.Dark()
	in := newInspector(th)
	in.SetTurn(turnView{Trace: support.replayed[2], Prev: support.replayed[1]})
	in.SetTab(tabRequest)
	for _, onlyNew := range []bool{false, true} {
		if onlyNew {
			in.HandleKey(inspectorKey("d"))
		}
		b := in.tabBody(200)
		all := strings.Join(b.lines, "\n")
		if !strings.Contains(all, "\x1b[") {
			t.Fatal("no styles at all: the colour profile did not take")
		}
		var wants []string
		for _, d := range support.replayed[2].Decisions {
			if d.Fired && (d.Placement == "system" || d.Placement == "part") {
				// As the JSON holds it: escaped, a line of the screen per line of the text.
				esc := string(chat.AppendJSONString(nil, "<system-reminder>"+d.Text+"</system-reminder>"))
				esc = esc[1 : len(esc)-1]
				for _, p := range escapedLines(esc) {
					wants = append(wants, strings.TrimRight(esc[p[0]:p[1]], " "))
				}
			}
		}
		if len(wants) < 2 {
			t.Fatalf("turn 3 fired %d lines of system and part reminders, want 2 or more", len(wants))
		}
		x := th.Render(themes.Reminder, "x")
		open := x[:strings.Index(x, "x")]
		for _, want := range wants {
			if !inReminderRole(b.lines, want, open) {
				t.Errorf("only new %v: the reminder line %q is not highlighted", onlyNew, want)
			}
		}
		if strings.Contains(all, th.Render(themes.Reminder, `"role"`)) {
			t.Errorf("only new %v: JSON outside the reminders is highlighted", onlyNew)
		}
	}
}

// inReminderRole reports whether text is on one of lines inside a run of the style that opens
// with open: the last sequence before it is open, and no reset inside it.
func inReminderRole(lines []string, text, open string) bool {
	for _, l := range lines {
		i := strings.Index(l, text)
		if i < 0 {
			continue
		}
		last := strings.LastIndex(l[:i], "\x1b[")
		if last >= 0 && strings.HasPrefix(l[last:], open) && !strings.Contains(l[i:i+len(text)], "\x1b[") {
			return true
		}
	}
	return false
}

// TestInspectorNumbersAreTheTrace checks the numbers the Why, Prompt and Usage tabs show
// for each turn of the demo against the turn's JSON trace (what run --json prints).
func TestInspectorNumbersAreTheTrace(t *testing.T) {
	support := playInspectorDemo(t, "support.script.yaml")
	for i := range support.sent {
		tr := &support.sent[i]
		raw, err := tr.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var j struct {
			Decisions []struct {
				ID     string `json:"id"`
				Fired  bool   `json:"fired"`
				Tokens int    `json:"tokens"`
			} `json:"decisions"`
			Usage struct {
				Reported *struct {
					Prompt     int `json:"prompt_tokens"`
					Completion int `json:"completion_tokens"`
				} `json:"reported"`
				Estimated struct {
					Prompt     int            `json:"prompt_tokens"`
					Completion int            `json:"completion_tokens"`
					BySource   map[string]any `json:"by_source"`
				} `json:"estimated"`
				Difference *int     `json:"difference"`
				CostUSD    *float64 `json:"cost_usd"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(raw, &j); err != nil {
			t.Fatal(err)
		}
		in := newInspector(themes.Mono())
		in.SetTurn(turnView{Trace: tr})
		in.SetChat(support.chatView())
		render := func(tab inspectorTab) string {
			in.SetTab(tab)
			return strings.Join(in.tabBody(120).head, "\n") + "\n" + strings.Join(in.tabBody(120).lines, "\n")
		}
		why, usage := render(tabWhy), render(tabUsage)
		for _, d := range j.Decisions {
			if d.Fired && d.Tokens > 0 && !strings.Contains(why, d.ID+"  ") {
				t.Errorf("turn %d: Why lacks %s", tr.Turn, d.ID)
			}
			if d.Fired && d.Tokens > 0 && !strings.Contains(why, fmt.Sprintf("· %d tok", d.Tokens)) {
				t.Errorf("turn %d: Why lacks %s's %d tokens", tr.Turn, d.ID, d.Tokens)
			}
		}
		u := j.Usage
		wants := []string{fmt.Sprintf("~%d", u.Estimated.Prompt), fmt.Sprintf("~%d", u.Estimated.Completion)}
		if u.Reported != nil {
			wants = append(wants, fmt.Sprintf(" %d ", u.Reported.Prompt), fmt.Sprintf(" %d ", u.Reported.Completion))
		}
		if u.Difference != nil {
			wants = append(wants, signedText(*u.Difference))
		}
		if u.CostUSD != nil {
			wants = append(wants, fmt.Sprintf("cost $%.6f", *u.CostUSD))
		}
		for _, w := range wants {
			if !strings.Contains(usage, w) {
				t.Errorf("turn %d: Usage lacks %q:\n%s", tr.Turn, w, usage)
			}
		}
		for _, src := range []string{"fragments", "instructions", "reminders", "history", "user", "tools", "framing"} {
			n := int(j.Usage.Estimated.BySource[src].(float64))
			if !regexp.MustCompile(`(?m)^` + src + ` +[█▏▎▍▌▋▊▉]* +` + strconv.Itoa(n) + `$`).MatchString(usage) {
				t.Errorf("turn %d: Usage's %s bar is not %d:\n%s", tr.Turn, src, n, usage)
			}
		}
	}
}

// TestInspectorCache checks that scrolling, moving the cursor and rendering again reuse
// the rendered body, and that what changes the body renders it again.
func TestInspectorCache(t *testing.T) {
	support := playInspectorDemo(t, "support.script.yaml")
	in := newInspector(themes.Mono())
	in.SetTurn(turnView{Trace: support.replayed[2], Prev: support.replayed[1]})
	in.Render(48, 20, true)
	steps := []struct {
		name    string
		do      func()
		rebuild bool
	}{
		{"render again", func() {}, false},
		{"scroll", func() { in.ScrollBy(3) }, false},
		{"cursor", func() { in.HandleKey(inspectorKey("down")) }, false},
		{"unfocused", func() { in.Render(48, 20, false) }, false},
		{"other height", func() { in.Render(48, 30, true) }, false},
		{"open a tree", func() { in.HandleKey(inspectorKey("enter")) }, true},
		{"other width", func() { in.Render(50, 20, true) }, true},
		{"back to the width", func() { in.Render(48, 20, true) }, false},
		{"theme", func() { in.SetTheme(themes.Dark()) }, true},
		{"new trace", func() { tr := *support.replayed[2]; in.SetTurn(turnView{Trace: &tr}) }, true},
		{"the same view again", func() { in.SetTurn(in.turn) }, false},
	}
	for _, s := range steps {
		before := in.builds
		s.do()
		in.Render(in.width, in.height, true)
		if got := in.builds > before; got != s.rebuild {
			t.Errorf("%s: rendered the body again = %v, want %v", s.name, got, s.rebuild)
		}
	}
}

// TestInspectorCursorStaysInView walks the Why tab's decisions down and up in a short
// pane, every tree open: the cursor is always on screen, and so is the whole decision
// when it fits.
func TestInspectorCursorStaysInView(t *testing.T) {
	support := playInspectorDemo(t, "support.script.yaml")
	in := newInspector(themes.Mono())
	in.SetTurn(turnView{Trace: support.replayed[2]})
	const w, h = 48, 12
	in.Render(w, h, true)
	n := len(in.tabBody(w).first)
	for i := 0; i < n; i++ {
		in.HandleKey(inspectorKey("enter"))
		in.HandleKey(inspectorKey("down"))
	}
	in.HandleKey(inspectorKey("home"))
	for _, dir := range []string{"down", "up"} {
		for i := 0; i < n; i++ {
			frame := in.Render(w, h, true)
			if !strings.Contains(frame, "▸") {
				t.Fatalf("%s %d: the cursor is off screen:\n%s", dir, i, frame)
			}
			b := in.tabBody(w)
			c := in.cursor[tabWhy]
			size := 0
			for _, it := range b.item {
				if it == c {
					size++
				}
			}
			shown := 0
			end := min(len(b.lines), in.scroll[tabWhy]+tabBodyHeight(b, h))
			if end < len(b.lines) { // the last row says how many more lines there are
				end--
			}
			for l := in.scroll[tabWhy]; l < end; l++ {
				if b.item[l] == c {
					shown++
				}
			}
			if size <= tabBodyHeight(b, h)-1 && shown != size {
				t.Fatalf("%s %d: %d of the decision's %d lines shown:\n%s", dir, i, shown, size, frame)
			}
			in.HandleKey(inspectorKey(dir))
		}
	}
}

// BenchmarkRequestBody renders the Request tab of a turn that sent 10,000 messages to a
// model (once per turn, tab and width; scrolling it then costs what
// BenchmarkInspectorRender does).
func BenchmarkRequestBody(b *testing.B) {
	tr := &engine.Trace{Turn: 5000, Branch: "main", Sent: true}
	for i := 0; i < 10000; i++ {
		tr.Request.Messages = append(tr.Request.Messages, chat.WireMessage{Role: chat.RoleUser, Content: strings.Repeat("word ", 40)})
	}
	for b.Loop() {
		in := newInspector(themes.Dark())
		in.SetTurn(turnView{Trace: tr})
		in.SetTab(tabRequest)
		in.Render(64, 50, true)
	}
}
