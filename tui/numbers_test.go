package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/script"
)

// numbersJSON is the part of a turn's JSON trace (what `ctxlab run --json` and
// `ctxlab replay --json` print) whose numbers the workbench shows.
type numbersJSON struct {
	Turn      int `json:"turn"`
	Decisions []struct {
		ID        string `json:"id"`
		Source    string `json:"source"`
		Fired     bool   `json:"fired"`
		Placement string `json:"placement"`
		Tokens    int    `json:"tokens"`
	} `json:"decisions"`
	Usage struct {
		Reported *struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		} `json:"reported"`
		Estimated struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
			BySource   *struct {
				Fragments    int `json:"fragments"`
				Instructions int `json:"instructions"`
			} `json:"by_source"`
		} `json:"estimated"`
		Difference *int     `json:"difference"`
		CostUSD    *float64 `json:"cost_usd"`
	} `json:"usage"`
	Latency struct {
		TTFT  int64 `json:"ttft"`
		Total int64 `json:"total"`
	} `json:"latency_ms"`
}

// numbersOfTrace encodes a trace as the headless commands print it and decodes the
// numbers back.
func numbersOfTrace(t *testing.T, tr *engine.Trace) numbersJSON {
	t.Helper()
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var j numbersJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// turnNumbers are the numbers the workbench shows for the selected turn, read off the
// screen (the transcript's header line of the turn and the Why, Prompt and Usage tabs).
type turnNumbers struct {
	turn                         int
	reminders                    int    // the transcript's "N reminders"
	headerTokens                 string // the transcript's "N tok" ("~N" when estimated)
	fired, instructions, notFire int    // Why's "F fired · I instructions · N not fired"
	firedTokens                  map[string]int
	promptTab                    int // Prompt's "system prompt ~N tokens" (-1: not shown)
	promptWhole                  int // Prompt's "whole request ~N tokens" when sizes are not recorded (-1: not shown)
	usage                        map[string]string
}

var (
	numHeaderRe     = regexp.MustCompile(`▌ turn (\d+) · [^·]+ · (\d+) reminders? · (~?\d+) tok`)
	numWhyCountsRe  = regexp.MustCompile(`(\d+) fired · (\d+) instructions? · (\d+) not fired`)
	numFiredRe      = regexp.MustCompile(`✓ (\S+)  \S+ · \S+ · (\d+) tok`)
	numTabTurnRe    = regexp.MustCompile(`(?m)^(?:PREVIEW )?turn (\d+) · `)
	numPromptTotRe  = regexp.MustCompile(`system prompt ~(\d+) tokens`)
	numPromptAllRe  = regexp.MustCompile(`whole request ~(\d+) tokens`)
	numPromptRowRe  = regexp.MustCompile(`(?m)^prompt +(\S+) +(~\d+) *(\S*)$`)
	numComplRowRe   = regexp.MustCompile(`(?m)^completion +(\S+) +(~\d+) *(\S*)$`)
	numCostRe       = regexp.MustCompile(`(?m)^cost (\$[0-9.]+)`)
	numLatencyRe    = regexp.MustCompile(`first token (\d+) ms · total (\d+) ms`)
	numChatTotalsRe = regexp.MustCompile(`prompt (\d+) · completion (\d+) · total (\d+)`)
)

// splitColumns returns the transcript and inspector columns of a frame.
func splitColumns(frame string) (left, right string) {
	var l, r []string
	for _, line := range strings.Split(frame, "\n") {
		a, b, _ := strings.Cut(line, "│")
		l, r = append(l, a), append(r, strings.TrimRight(b, " "))
	}
	return strings.Join(l, "\n"), strings.Join(r, "\n")
}

// readTurnNumbers opens the Why, Prompt and Usage tabs of the selected turn and reads their
// numbers.
func readTurnNumbers(t *testing.T, m *Model) turnNumbers {
	t.Helper()
	n := turnNumbers{firedTokens: map[string]int{}, usage: map[string]string{}, promptTab: -1, promptWhole: -1}
	atoi := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	press(m, "1")
	left, why := splitColumns(m.View())
	h := numHeaderRe.FindStringSubmatch(left)
	if h == nil {
		t.Fatalf("no selected turn's header in the transcript:\n%s", left)
	}
	n.turn, n.reminders, n.headerTokens = atoi(h[1]), atoi(h[2]), h[3]
	tabTurn := func(tab, text string) {
		t.Helper()
		if s := numTabTurnRe.FindStringSubmatch(text); s == nil || atoi(s[1]) != n.turn {
			t.Fatalf("%s tab does not show turn %d:\n%s", tab, n.turn, text)
		}
	}
	tabTurn("Why", why)
	c := numWhyCountsRe.FindStringSubmatch(why)
	if c == nil {
		t.Fatalf("turn %d: no counts in Why:\n%s", n.turn, why)
	}
	n.fired, n.instructions, n.notFire = atoi(c[1]), atoi(c[2]), atoi(c[3])
	for _, f := range numFiredRe.FindAllStringSubmatch(why, -1) {
		n.firedTokens[f[1]] = atoi(f[2])
	}

	press(m, "2")
	_, prompt := splitColumns(m.View())
	tabTurn("Prompt", prompt)
	if p := numPromptTotRe.FindStringSubmatch(prompt); p != nil {
		n.promptTab = atoi(p[1])
	}
	if p := numPromptAllRe.FindStringSubmatch(prompt); p != nil {
		n.promptWhole = atoi(p[1])
	}

	press(m, "5")
	_, usage := splitColumns(m.View())
	tabTurn("Usage", usage)
	usage, chatPart, _ := strings.Cut(usage, "CHAT (all branches)")
	for name, re := range map[string]*regexp.Regexp{"prompt": numPromptRowRe, "completion": numComplRowRe} {
		r := re.FindStringSubmatch(usage)
		if r == nil {
			t.Fatalf("turn %d: no %s row in Usage:\n%s", n.turn, name, usage)
		}
		n.usage[name+" reported"], n.usage[name+" estimated"], n.usage[name+" diff"] = r[1], r[2], r[3]
	}
	if r := numCostRe.FindStringSubmatch(usage); r != nil {
		n.usage["cost"] = r[1]
	}
	if r := numLatencyRe.FindStringSubmatch(usage); r != nil {
		n.usage["ttft"], n.usage["total"] = r[1], r[2]
	}
	if r := numChatTotalsRe.FindStringSubmatch(chatPart); r != nil {
		n.usage["chat"] = r[1] + "/" + r[2] + "/" + r[3]
	}
	return n
}

// traceNumbers returns the numbers the screen must show for a trace, from its JSON form.
func traceNumbers(j numbersJSON) turnNumbers {
	w := turnNumbers{turn: j.Turn, firedTokens: map[string]int{}, usage: map[string]string{}, promptTab: -1, promptWhole: -1}
	for _, d := range j.Decisions {
		switch {
		case d.Fired && d.Source == engine.SourceInstruction:
			w.instructions++
		case d.Fired:
			w.fired++
			w.firedTokens[d.ID] = d.Tokens
		default:
			w.notFire++
		}
	}
	w.reminders = w.fired
	u := j.Usage
	w.headerTokens = "~" + strconv.Itoa(u.Estimated.Prompt)
	w.usage["prompt reported"], w.usage["completion reported"] = "—", "—"
	w.usage["prompt estimated"] = "~" + strconv.Itoa(u.Estimated.Prompt)
	w.usage["completion estimated"] = "~" + strconv.Itoa(u.Estimated.Completion)
	w.usage["prompt diff"], w.usage["completion diff"] = "", ""
	if r := u.Reported; r != nil {
		w.headerTokens = strconv.Itoa(r.Prompt)
		w.usage["prompt reported"], w.usage["completion reported"] = strconv.Itoa(r.Prompt), strconv.Itoa(r.Completion)
		w.usage["prompt diff"] = "n/a"
		if u.Difference != nil {
			w.usage["prompt diff"] = signedText(*u.Difference)
		}
		w.usage["completion diff"] = signedText(r.Completion - u.Estimated.Completion)
	}
	if u.CostUSD != nil {
		w.usage["cost"] = costText(*u.CostUSD)
	}
	if j.Latency.TTFT > 0 || j.Latency.Total > 0 {
		w.usage["ttft"], w.usage["total"] = strconv.FormatInt(j.Latency.TTFT, 10), strconv.FormatInt(j.Latency.Total, 10)
	}
	if b := u.Estimated.BySource; b != nil {
		// The system prompt: fragments, instructions and the run-start reminders.
		w.promptTab = b.Fragments + b.Instructions
		for _, d := range j.Decisions {
			if d.Fired && d.Placement == "run-start" {
				w.promptTab += d.Tokens
			}
		}
	} else {
		w.promptWhole = u.Estimated.Prompt
	}
	return w
}

// TestScreenNumbersAreTheTraces drives the workbench through Update over the demo chat
// (saved in a database, plus one turn sent live to a model that reports usage and
// timing) and checks that every number it shows for each turn (the transcript's reminder
// count and prompt tokens, Why's counts and reminder tokens, Prompt's total, Usage's
// reported and estimated tokens, difference, cost, first token and total time) equals
// the number in that turn's JSON trace, both as `ctxlab run --json` printed it when the
// turn was sent and as `ctxlab replay --json` prints it from the database.
func TestScreenNumbersAreTheTraces(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	sc, err := script.Load(filepath.Join("../testdata/demo", "support.script.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var run []engine.Trace // what run --json printed, turn by turn
	r := script.Runner{Engine: v.e, OnTurn: func(_ *script.Step, res *engine.TurnResult) {
		run = append(run, res.Trace(sc.Chat.ID))
	}}
	if _, err := r.Run(ctx, sc); err != nil {
		t.Fatal(err)
	}

	model := &streamModel{turns: [][]step{{textStep("The plan ", "uses the index.")}}}
	m := newModel(t, v, v.chat(t, sc.Chat.ID, model), 160, 200, Options{})
	press(m, "type:how fast is the index now?", "enter")
	if len(m.traces) != len(run)+1 {
		t.Fatalf("the workbench has %d traces after the live turn, want %d", len(m.traces), len(run)+1)
	}
	var live *engine.Trace
	for _, tr := range m.traces {
		if tr.Turn == len(run)+1 {
			live = tr
		}
	}
	if live == nil || live.Usage.Reported == nil || live.Usage.CostUSD == nil || live.Latency.Total == 0 {
		t.Fatalf("the live turn's trace %+v: want reported usage, a cost and a measured time to check", live)
	}
	// The live turn's trace as sent is what run --json prints for a model's turn; the
	// workbench's load re-reads it as replay does.
	run = append(run, *live)

	var replayed []engine.Trace
	if err := v.e.Replay(ctx, sc.Chat.ID, false, func(tr *engine.Trace) error {
		replayed = append(replayed, *tr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(replayed) != len(run) {
		t.Fatalf("replay has %d turns, run %d", len(replayed), len(run))
	}

	press(m, "tab", "home")
	for i := range replayed {
		if i > 0 {
			press(m, "down")
		}
		got := readTurnNumbers(t, m)
		t.Logf("turn %d on screen: %+v", i+1, got)
		for _, src := range []struct {
			name string
			tr   *engine.Trace
		}{{"replay --json", &replayed[i]}, {"run --json", &run[i]}} {
			want := traceNumbers(numbersOfTrace(t, src.tr))
			if got.turn != want.turn || got.reminders != want.reminders || got.headerTokens != want.headerTokens ||
				got.fired != want.fired || got.instructions != want.instructions || got.notFire != want.notFire {
				t.Errorf("turn %d: the screen shows turn %d, %d reminders, %s tok, %d fired · %d instructions · %d not fired; "+
					"%s has turn %d, %d reminders, %s tok, %d · %d · %d",
					i+1, got.turn, got.reminders, got.headerTokens, got.fired, got.instructions, got.notFire,
					src.name, want.turn, want.reminders, want.headerTokens, want.fired, want.instructions, want.notFire)
			}
			if fmt.Sprint(got.firedTokens) != fmt.Sprint(want.firedTokens) {
				t.Errorf("turn %d: Why shows fired reminders' tokens %v, %s has %v", i+1, got.firedTokens, src.name, want.firedTokens)
			}
			for k, w := range want.usage {
				if got.usage[k] != w {
					t.Errorf("turn %d: Usage shows %s %q, %s has %q", i+1, k, got.usage[k], src.name, w)
				}
			}
			for k, g := range got.usage {
				if _, ok := want.usage[k]; !ok && k != "chat" {
					t.Errorf("turn %d: Usage shows %s %q, %s has none", i+1, k, g, src.name)
				}
			}
		}
		// The Prompt tab shows the sizes of the trace it has: a turn sent in this session
		// keeps its sizes by source (as run --json has them), a turn read back from the
		// database only its whole estimate (as replay --json has it).
		wr, wu := traceNumbers(numbersOfTrace(t, &run[i])), traceNumbers(numbersOfTrace(t, &replayed[i]))
		switch {
		case got.promptTab >= 0 && got.promptTab != wr.promptTab && got.promptTab != wu.promptTab:
			t.Errorf("turn %d: Prompt shows a system prompt of ~%d tokens, run --json has %d, replay --json %d", i+1, got.promptTab, wr.promptTab, wu.promptTab)
		case got.promptTab < 0 && (got.promptWhole < 0 || got.promptWhole != wu.promptWhole):
			t.Errorf("turn %d: Prompt shows no system prompt size and a whole request of ~%d tokens, replay --json has %d", i+1, got.promptWhole, wu.promptWhole)
		}
		// The chat's totals are the sum of what each turn counted (reported, else
		// estimated) over the chat.
		var p, c int
		for j := range replayed {
			u := replayed[j].Usage
			if r := u.Reported; r != nil {
				p, c = p+r.PromptTokens, c+r.CompletionTokens
			} else {
				p, c = p+u.Estimated.PromptTokens, c+u.Estimated.CompletionTokens
			}
		}
		if want := fmt.Sprintf("%d/%d/%d", p, c, p+c); got.usage["chat"] != want {
			t.Errorf("turn %d: Usage's chat totals %s, the turns' sum %s", i+1, got.usage["chat"], want)
		}
	}
}
