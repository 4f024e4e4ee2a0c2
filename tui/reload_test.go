package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/script"
)

// pkgDir is the package's directory (tests that change directory write golden files
// there).
var pkgDir, _ = os.Getwd()

// goldenAt is goldenFrame for a test that changed directory.
func goldenAt(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(pkgDir, "testdata", name+".golden")
	if updating() {
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
		t.Errorf("%s: frame differs from %s:\n--- got\n%s\n--- want\n%s", t.Name(), path, got, want)
	}
}

// copyDemo copies testdata/demo into a temporary directory and makes it the current
// directory, so the context file is "support.ctx.yaml" in errors and headers (stable
// golden frames) and the tests can edit it.
func copyDemo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/demo")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

// newEnvAt is newEnv on a context file at path.
func newEnvAt(tb testing.TB, path string) *env {
	tb.Helper()
	clock := newClock()
	ctx := context.Background()
	ws, err := ctxapp.Open(ctx, ctxapp.Options{DB: ":memory:", Now: clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	file, err := ctxfile.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := ws.Settings(file, true)
	if err != nil {
		tb.Fatal(err)
	}
	e, err := ws.Engine(file, s)
	if err != nil {
		tb.Fatal(err)
	}
	return &env{ws: ws, file: file, s: s, e: e, clock: clock}
}

// playAt plays a script of the current directory (a copied demo).
func (v *env) playAt(tb testing.TB, name string) {
	tb.Helper()
	sc, err := script.Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	r := script.Runner{Engine: v.e}
	if _, err := r.Run(context.Background(), sc); err != nil {
		tb.Fatal(err)
	}
}

// replace rewrites the file at path with the file at from.
func replace(t *testing.T, path, from string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

var ctrlR = tea.KeyMsg{Type: tea.KeyCtrlR}

// changedTurn returns the index of the first turn re-evaluated with a changed decision.
func changedTurn(t *testing.T, m *Model) int {
	t.Helper()
	for i := 0; i < m.tr.Len(); i++ {
		it := m.tr.Item(i)
		if it.user == nil {
			continue
		}
		if re := m.rl.reeval[it.user.ID]; re != nil {
			for _, d := range re.Decisions {
				if d.Was != nil {
					return i
				}
			}
		}
	}
	t.Fatal("no turn has a changed decision after the reload")
	return -1
}

// TestReloadWasNow: ctrl+r after an edit; the Why tab of a past turn shows was → now,
// and its decisions are those of `ctxlab replay --json --context NEW`.
func TestReloadWasNow(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			copyDemo(t)
			v := newEnvAt(t, "support.ctx.yaml")
			v.playAt(t, "support.script.yaml")
			c := v.chat(t, "demo-1", nil)
			m := newModel(t, v, c, sz.w, sz.h, Options{})
			replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
			_, cmd := m.Update(ctrlR)
			drive(m, cmd)
			if m.rl.reeval == nil {
				t.Fatalf("no re-evaluation after ctrl+r (error %q, overlay %q)", m.lastErr, m.rl.errs)
			}
			// The same decisions as replay --json --context support.ctx.yaml (edited).
			edited, err := ctxfile.Load("support.ctx.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var want []engine.Trace
			if err := v.ws.Replay(context.Background(), "demo-1", edited, func(tr *engine.Trace) error {
				want = append(want, *tr)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(want) != len(m.rl.reeval) {
				t.Fatalf("re-evaluated %d turns, replay has %d", len(m.rl.reeval), len(want))
			}
			changes, turns := 0, 0
			for i := range want {
				got := m.rl.reeval[want[i].UserMessageID]
				if got == nil {
					t.Fatalf("turn %d is not re-evaluated", want[i].Turn)
				}
				gj, _ := json.Marshal(got.Decisions)
				wj, _ := json.Marshal(want[i].Decisions)
				if string(gj) != string(wj) {
					t.Errorf("turn %d: decisions differ from replay --context:\n%s\nwant\n%s", want[i].Turn, gj, wj)
				}
				n := len(want[i].Removed)
				for _, d := range want[i].Decisions {
					if d.Was != nil {
						n++
					}
				}
				changes += n
				if n > 0 {
					turns++
				}
			}
			wantSum := fmt.Sprintf("reload: support.ctx.yaml · %s changed in %d of %d turns", countNoun(changes, "decision"), turns, len(want))
			if m.rl.summary != wantSum {
				t.Errorf("summary: got %q, want %q", m.rl.summary, wantSum)
			}
			// The Why tab of the first changed turn.
			press(m, "tab")
			m.tr.Select(changedTurn(t, m))
			if sz.w < 100 {
				press(m, "alt+i") // the inspector instead of the transcript
			}
			frame := m.View()
			if !strings.Contains(frame, "→ now") {
				t.Errorf("the Why tab shows no was → now:\n%s", frame)
			}
			if !strings.Contains(frame, "(changed)") && sz.w >= 120 {
				t.Errorf("the header does not mark the changed file:\n%s", frame)
			}
			goldenAt(t, fmt.Sprintf("reload_why_%dx%d", sz.w, sz.h), frame)

			// The inspector's turn is the re-evaluated one; n in Request toggles what it
			// would send.
			press(m, "alt+3")
			press(m, "tab")
			if m.focus != areaInspector {
				t.Fatalf("focus: got %v, want the inspector", m.focus)
			}
			m.View()
			if !strings.HasPrefix(m.insp.turn.Note, "AS RECORDED") {
				t.Errorf("Request note: got %q, want AS RECORDED", m.insp.turn.Note)
			}
			press(m, "n")
			goldenAt(t, fmt.Sprintf("reload_would_send_%dx%d", sz.w, sz.h), m.View())
			if raw, _ := m.insp.turn.Trace.Request.AppendJSON(nil); !strings.Contains(string(raw), "Stay concise.") {
				t.Errorf("the request the edited file would send lacks the reminder it fires now:\n%s", raw)
			}
			if !strings.HasPrefix(m.insp.turn.Note, "WOULD SEND") || m.insp.turn.Trace != m.rl.reeval[m.insp.turn.Trace.UserMessageID] {
				t.Errorf("after n: note %q, want WOULD SEND with the re-evaluated trace", m.insp.turn.Note)
			}

			// Sending goes back to the recorded traces; the next turn uses the new file.
			press(m, "esc", "type:one more question", "enter", "type:an answer", "enter")
			if m.rl.reeval != nil || m.rl.summary != "" {
				t.Errorf("after a send: the re-evaluation is still shown")
			}
			if r := c.(reloader); r.File().Path != "support.ctx.yaml" || r.File() == v.file {
				t.Errorf("the chat is not on the reloaded file")
			}
		})
	}
}

// TestReloadErrorOverlay: a file with errors opens an overlay of FILE:LINE:COL lines; esc
// closes it; the previous file stays in force.
func TestReloadErrorOverlay(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			copyDemo(t)
			v := newEnvAt(t, "support.ctx.yaml")
			v.playAt(t, "support.script.yaml")
			c := v.chat(t, "demo-1", nil)
			m := newModel(t, v, c, sz.w, sz.h, Options{})
			before := c.(reloader).File()
			replace(t, "support.ctx.yaml", "broken.ctx.yaml")
			// A hostile key in the file is shown inert. (Written with YAML escapes: a raw
			// control character is refused before the file is parsed.)
			f, _ := os.OpenFile("support.ctx.yaml", os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`"bogus\e]0;PWNED\a": 1` + "\n")
			f.Close()
			_, cmd := m.Update(ctrlR)
			drive(m, cmd)
			if len(m.rl.errs) == 0 {
				t.Fatal("no error overlay")
			}
			frame := m.View()
			if strings.ContainsRune(frame, 0x1b) || strings.ContainsRune(frame, 0x07) {
				t.Errorf("the overlay passes an escape sequence through")
			}
			if !strings.Contains(frame, "support.ctx.yaml:6:") {
				t.Errorf("the overlay does not name FILE:LINE:COL:\n%s", frame)
			}
			goldenAt(t, fmt.Sprintf("reload_errors_%dx%d", sz.w, sz.h), frame)
			if !strings.Contains(frame, "context file errors · esc close") {
				t.Errorf("the status line does not give the overlay's keys:\n%s", frame)
			}
			press(m, "enter", "tab") // keys that are not text do nothing here
			if m.rl.errs == nil || m.comp.Value() != "" {
				t.Fatalf("a key acted under the overlay: overlay open %v, composer %q", m.rl.errs != nil, m.comp.Value())
			}
			press(m, "esc")
			if m.rl.errs != nil {
				t.Error("esc did not close the overlay")
			}
			if !strings.Contains(m.lastErr, "support.ctx.yaml:6:5") || !strings.Contains(m.lastErr, "stays in force") {
				t.Errorf("closed, the overlay leaves no word of the errors: %q", m.lastErr)
			}
			// Typing under the overlay goes on in the composer: the overlay gives way,
			// nothing typed is lost.
			press(m, "tab") // the transcript has the focus under the overlay
			_, cmd = m.Update(ctrlR)
			drive(m, cmd)
			if len(m.rl.errs) == 0 || m.focus != areaTranscript {
				t.Fatalf("after tab and ctrl+r: overlay open %v, focus %d", m.rl.errs != nil, m.focus)
			}
			_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("hello there"), Paste: true})
			drive(m, cmd)
			if m.rl.errs != nil || m.comp.Value() != "hello there" || m.focus != areaComposer {
				t.Errorf("typing under the overlay: overlay open %v, composer %q, focus %d; want it closed and the text in the composer",
					m.rl.errs != nil, m.comp.Value(), m.focus)
			}
			if c.(reloader).File() != before {
				t.Error("the previous file is not in force")
			}
		})
	}
}

// TestWatchReloads: a change on disk reloads the file (through the watch's messages).
func TestWatchReloads(t *testing.T) {
	copyDemo(t)
	v := newEnvAt(t, "support.ctx.yaml")
	v.playAt(t, "support.script.yaml")
	c := v.chat(t, "demo-1", nil)
	m := newModel(t, v, c, 120, 40, Options{})
	m.opt.Watch = true
	msg := m.startWatch()()
	_, wait := m.Update(msg)
	if wait == nil {
		t.Fatalf("the watch did not start: %q", m.lastErr)
	}
	defer m.rl.stop()
	// A skill changes: a file the context file references.
	if err := os.WriteFile(filepath.Join("skills", "sql-tuning", "SKILL.md"),
		[]byte("---\nname: sql-tuning\ndescription: tune slow SQL queries, indexes and plans\n---\nEdited.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- wait() }()
	select {
	case ev := <-got:
		_, cmd := m.Update(ev)
		batch, ok := cmd().(tea.BatchMsg)
		if !ok || len(batch) == 0 {
			t.Fatalf("the change gave %T, want a reload", cmd)
		}
		drive(m, batch[0]) // the reload; batch[1] waits for the next change
	case <-time.After(5 * time.Second):
		t.Fatal("no change reported within 5s")
	}
	if m.rl.reeval == nil || m.rl.summary == "" {
		t.Errorf("no reload after the change on disk (error %q)", m.lastErr)
	}
}

// TestReloadWhileSending: the screen works while a reload runs; a send meanwhile means
// its re-evaluation (of the turns before the send) is not shown.
func TestReloadWhileSending(t *testing.T) {
	copyDemo(t)
	v := newEnvAt(t, "support.ctx.yaml")
	v.playAt(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{})
	replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
	_, reload := m.Update(ctrlR)
	if !strings.Contains(m.View(), "reloading support.ctx.yaml") {
		t.Error("the status line does not say a reload runs")
	}
	press(m, "type:a question meanwhile", "enter", "type:an answer", "enter")
	drive(m, reload)
	if m.rl.reeval != nil || m.rl.running {
		t.Errorf("after a send during the reload: re-evaluation shown %v, running %v", m.rl.reeval != nil, m.rl.running)
	}
	if got := m.chat.(reloader).File().Path; got != "support.ctx.yaml" || m.chat.(reloader).File() == v.file {
		t.Errorf("the chat is not on the reloaded file (%s)", got)
	}
	if n := m.chat.Session().TurnCount(); n != 5 {
		t.Errorf("turns: got %d, want 5", n)
	}
}

// TestReloadPreview: the draft's preview is computed again under the reloaded file.
func TestReloadPreview(t *testing.T) {
	copyDemo(t)
	v := newEnvAt(t, "support.ctx.yaml")
	v.playAt(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{})
	press(m, "type:a draft")
	detail := func() string {
		if m.preview == nil {
			t.Fatal("no preview of the draft")
		}
		for _, d := range m.preview.Decisions {
			if d.ID == "concise" && d.Trace != nil {
				return d.Trace.Expr
			}
		}
		t.Fatal("the preview has no predicate of concise")
		return ""
	}
	if got := detail(); !strings.Contains(got, "everyNTurns(3)") {
		t.Fatalf("preview before the reload: %q", got)
	}
	replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
	_, cmd := m.Update(ctrlR)
	drive(m, cmd)
	if got := detail(); !strings.Contains(got, "everyNTurns(2)") {
		t.Errorf("preview after the reload: %q, want it under the edited file", got)
	}
	if m.comp.Value() != "a draft" {
		t.Errorf("the draft changed: %q", m.comp.Value())
	}
}

// TestReloadUnchanged: ctrl+r on a file as it was marks no turn as sent before a change.
func TestReloadUnchanged(t *testing.T) {
	copyDemo(t)
	v := newEnvAt(t, "support.ctx.yaml")
	v.playAt(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{})
	_, cmd := m.Update(ctrlR)
	drive(m, cmd)
	if m.rl.summary == "" || strings.Contains(m.View(), "(changed)") {
		t.Errorf("reload of the same file: summary %q, header marks a change:\n%s", m.rl.summary, m.View())
	}
	replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
	_, cmd = m.Update(ctrlR)
	drive(m, cmd)
	if !strings.Contains(m.View(), "(changed)") {
		t.Errorf("reload of an edited file: no mark in the header")
	}
}
