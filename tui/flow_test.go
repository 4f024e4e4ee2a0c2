package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

const flowTimeout = 10 * time.Second

// startFlow runs the workbench on c in a test program at 120x40.
func startFlow(t *testing.T, v *env, c Chat) *teatest.TestModel {
	t.Helper()
	m := New(Options{Chat: c, Now: v.clock.Now, Location: time.UTC, ContextName: "support.ctx.yaml"})
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
}

func waitOutput(t *testing.T, tm *teatest.TestModel, what ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, w := range what {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(flowTimeout), teatest.WithCheckInterval(10*time.Millisecond))
}

// quit ends the program with ctrl+c (nothing streams) and returns its final model.
func quit(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	return tm.FinalModel(t, teatest.WithFinalTimeout(flowTimeout)).(*Model)
}

// TestFlowSendAndStream: the reply streams in from the model and is saved.
func TestFlowSendAndStream(t *testing.T) {
	v := newEnv(t)
	model := &streamModel{pause: 15 * time.Millisecond, turns: [][]step{{textStep("Alpha ", "beta ", "gamma ", "delta.")}}}
	c := v.chat(t, "", model)
	tm := startFlow(t, v, c)
	tm.Type("hello there")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Alpha beta gamma delta.", "700 tok")
	m := quit(t, tm)
	if m.stream != nil {
		t.Error("the stream is still open after the reply was saved")
	}
	msgs := c.Session().Messages()
	if len(msgs) != 2 || msgs[1].PlainText() != "Alpha beta gamma delta." || msgs[1].Interrupted {
		t.Fatalf("saved %d messages, reply %q", len(msgs), msgs[len(msgs)-1].PlainText())
	}
	// The inspector shows the turn as it was sent (TurnResult.Trace), estimate by source
	// included, also after the chat was loaded again.
	tr := m.traces[msgs[0].ID]
	if tr == nil || tr.Usage.Estimated.BySource == nil || tr.Usage.Reported == nil || tr.Usage.Reported.PromptTokens != 700 {
		t.Errorf("trace of the turn sent: %+v", tr)
	}
}

// TestFlowCancel: esc mid-stream cancels; the partial reply is saved, marked
// interrupted, and the chat can go on.
func TestFlowCancel(t *testing.T) {
	v := newEnv(t)
	pieces := make([]string, 200)
	for i := range pieces {
		pieces[i] = "word "
	}
	model := &streamModel{pause: 20 * time.Millisecond, started: make(chan struct{}, 1),
		turns: [][]step{{textStep(append([]string{"Partial "}, pieces...)...)}}}
	c := v.chat(t, "", model)
	tm := startFlow(t, v, c)
	tm.Type("tell me a long story")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	select {
	case <-model.started:
	case <-time.After(flowTimeout):
		t.Fatal("the model never started streaming")
	}
	waitOutput(t, tm, "Partial")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "interrupted")
	m := quit(t, tm)
	msgs := c.Session().Messages()
	if len(msgs) != 2 {
		t.Fatalf("saved %d messages, want the user message and the partial reply", len(msgs))
	}
	r := msgs[1]
	if !r.Interrupted || !strings.HasPrefix(r.PlainText(), "Partial ") || len(r.PlainText()) >= len("Partial ")+5*200 {
		t.Errorf("reply %q interrupted=%v, want a partial reply marked interrupted", r.PlainText(), r.Interrupted)
	}
	if !strings.Contains(m.lastErr, "cancelled") {
		t.Errorf("status error %q does not say the reply was cancelled", m.lastErr)
	}
}

// TestFlowScriptedReply: with no model the composer asks for the reply, which is saved
// as the model's.
func TestFlowScriptedReply(t *testing.T) {
	v := newEnv(t)
	c := v.chat(t, "", nil)
	tm := startFlow(t, v, c)
	tm.Type("what is the schema?")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "reply as the model")
	tm.Type("It has two tables.")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "It has two tables.", "[scripted]")
	quit(t, tm)
	msgs := c.Session().Messages()
	if len(msgs) != 2 || msgs[1].PlainText() != "It has two tables." {
		t.Fatalf("saved %d messages", len(msgs))
	}
}

// TestPreviewFollowsDraft: the Why tab's preview changes as the draft does, computed in
// a Cmd, and burns nothing: the turn sent afterwards decides the same.
func TestPreviewFollowsDraft(t *testing.T) {
	v := newEnv(t)
	c := v.chat(t, "", nil)
	m := newModel(t, v, c, 120, 40, Options{})
	fired := func(id string) bool {
		t.Helper()
		if m.preview == nil {
			t.Fatal("no preview")
		}
		for _, d := range m.preview.Decisions {
			if d.ID == id {
				return d.Fired
			}
		}
		t.Fatalf("no decision %s in the preview", id)
		return false
	}
	press(m, "type:hello")
	if m.previewText != "hello" || fired("sql-safety") {
		t.Fatalf("preview of %q: sql-safety fired=%v, want a preview of hello without it", m.previewText, fired("sql-safety"))
	}
	m.syncInspector()
	if !m.insp.turn.Preview {
		t.Error("the inspector does not show the preview")
	}
	press(m, "type: why did it fail with an error")
	if !fired("sql-safety") {
		t.Error("the preview did not follow the draft: sql-safety should fire on 'error'")
	}
	// A preview in flight holds the next one back until it returns.
	m.previewInFlight = true
	if cmd := m.startPreview(); cmd != nil {
		t.Error("a second preview started while one was in flight")
	}
	m.previewInFlight = false
	// Previews burned nothing: the turn sent decides as the last preview did.
	want := m.preview.Decisions
	press(m, "enter", "type:noted", "enter")
	tr := m.traces[c.Session().Messages()[0].ID]
	if tr == nil {
		t.Fatal("no trace for the turn sent")
	}
	if len(tr.Decisions) != len(want) {
		t.Fatalf("sent turn has %d decisions, preview had %d", len(tr.Decisions), len(want))
	}
	for i := range want {
		if tr.Decisions[i].ID != want[i].ID || tr.Decisions[i].Fired != want[i].Fired {
			t.Errorf("decision %s: sent fired=%v, preview fired=%v", want[i].ID, tr.Decisions[i].Fired, want[i].Fired)
		}
	}
}

// TestSwitchBranch: enter on a branch in the Branches tab switches the chat to it (in a
// Cmd), and the transcript and header follow.
func TestSwitchBranch(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "branching.script.yaml")
	c := v.chat(t, "branching-1", nil)
	m := newModel(t, v, c, 120, 40, Options{})
	if m.branch != "main-v3" || len(m.branches) != 5 {
		t.Fatalf("opened on %s with %d branches, want main-v3 of 5", m.branch, len(m.branches))
	}
	press(m, "alt+4", "tab", "tab", "home", "enter")
	if m.branch != "main" || c.Session().Branch() != "main" {
		t.Fatalf("after enter on the first branch: header %s, session %s; want main", m.branch, c.Session().Branch())
	}
	if m.tr.Len() != 3 {
		t.Errorf("the transcript shows %d turns of main, want 3", m.tr.Len())
	}
	if !strings.Contains(m.View(), "branch main (5 branches)") {
		t.Error("the header does not name the branch switched to")
	}
}

// TestCloseSavesInterrupted: a program that ends mid-stream (killed) leaves the partial
// reply saved, marked interrupted, once Close returns.
func TestCloseSavesInterrupted(t *testing.T) {
	v := newEnv(t)
	pieces := make([]string, 500)
	for i := range pieces {
		pieces[i] = "word "
	}
	model := &streamModel{pause: 10 * time.Millisecond, started: make(chan struct{}, 1), turns: [][]step{{textStep(pieces...)}}}
	c := v.chat(t, "", model)
	m := newModel(t, v, c, 120, 40, Options{})
	press(m, "type:go on")
	_, cmd := m.Update(keyMsg("enter"))
	batch, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("enter returned %T, want the send, the stream and the spinner", cmd())
	}
	go batch[0]() // the send, as the program would run it
	<-model.started
	m.Close()
	msgs := c.Session().Messages()
	if len(msgs) != 2 || !msgs[1].Interrupted || msgs[1].PlainText() == "" {
		t.Fatalf("after Close: %d messages; want the partial reply saved, interrupted", len(msgs))
	}
}

// TestSecondWriter: when another process wrote to the branch, the turn is saved on a
// new branch, and the workbench says so and follows it.
func TestSecondWriter(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{})
	other := v.chat(t, "demo-1", nil)
	if _, err := other.SendScripted(context.Background(), "written elsewhere", "ok", nil); err != nil {
		t.Fatal(err)
	}
	press(m, "type:and from here?", "enter", "type:a reply", "enter")
	if !strings.Contains(m.notice, "another writer changed branch main") || m.branch == "main" {
		t.Errorf("notice %q, branch %s: want the turn on a new branch, said so", m.notice, m.branch)
	}
	if !strings.Contains(m.View(), "another writer") {
		t.Error("the status line does not say it")
	}
}
