package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
)

// sendScripted sends text with a scripted reply through the composer (focused).
func sendScripted(m *Model, text, reply string) {
	press(m, "type:"+text, "enter", "type:"+reply, "enter")
}

// clearComposer empties the composer with backspaces.
func clearComposer(m *Model) {
	for range len([]rune(m.comp.Value())) {
		press(m, "backspace")
	}
}

// selectTurn focuses the transcript and selects turn n (1-based) with home and down.
func selectTurn(m *Model, n int) {
	if m.focus != areaTranscript {
		m.setFocus(areaTranscript)
	}
	press(m, "home")
	for range n - 1 {
		press(m, "down")
	}
}

// scriptedChat is a workbench on a scripted chat of n turns (qK answered aK), at w x h.
func scriptedChat(t *testing.T, n, w, h int) (*Model, Chat) {
	t.Helper()
	v := newEnv(t)
	c := v.chat(t, "", nil)
	m := newModel(t, v, c, w, h, Options{})
	for i := 1; i <= n; i++ {
		sendScripted(m, fmt.Sprintf("q%d", i), fmt.Sprintf("a%d", i))
	}
	return m, c
}

// frameHas fails unless the frame holds every string.
func frameHas(t *testing.T, m *Model, what ...string) {
	t.Helper()
	f := m.View()
	for _, w := range what {
		if !strings.Contains(f, w) {
			t.Errorf("the frame lacks %q:\n%s", w, f)
			return
		}
	}
}

// agreeWithReplay checks that what the workbench shows is what `ctxlab replay --json`
// gives for the chat: the turns of the active branch, their messages and texts.
func agreeWithReplay(t *testing.T, m *Model, c Chat) {
	t.Helper()
	rc, ok := c.(interface {
		Traces(context.Context) ([]engine.Trace, error)
	})
	if !ok {
		t.Fatalf("the chat %T gives no traces as replay does", c)
	}
	traces, err := rc.Traces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.tr.Len() != len(traces) {
		t.Fatalf("the transcript shows %d turns, replay gives %d", m.tr.Len(), len(traces))
	}
	if m.branch != c.Session().Branch() {
		t.Errorf("the header says branch %s, the chat is on %s", m.branch, c.Session().Branch())
	}
	for i, tr := range traces {
		it := m.tr.Item(i)
		if it.num != tr.Turn || it.user == nil || it.user.ID != tr.UserMessageID {
			t.Errorf("turn %d: the transcript shows turn %d (user %v), replay turn %d user %s", i+1, it.num, it.user, tr.Turn, tr.UserMessageID)
			continue
		}
		if it.reply == nil || tr.Assistant == nil || it.reply.ID != tr.AssistantMessageID || it.reply.PlainText() != tr.Assistant.Text {
			t.Errorf("turn %d: the reply shown differs from replay's %+v", tr.Turn, tr.Assistant)
		}
	}
}

func TestBranchingEditScripted(t *testing.T) {
	m, c := scriptedChat(t, 3, 120, 40)
	selectTurn(m, 2)
	press(m, "e")
	if m.focus != areaComposer || m.comp.Value() != "q2" || !strings.Contains(m.comp.banner, "editing turn 2: sending makes a new branch") {
		t.Fatalf("after e: focus %v, composer %q, banner %q", m.focus, m.comp.Value(), m.comp.banner)
	}
	goldenFrame(t, "branching_edit_120x40", m.View())
	press(m, "type: edited", "enter")
	if m.comp.mode != composeReply {
		t.Fatalf("a scripted edit asks for the reply: mode %v", m.comp.mode)
	}
	press(m, "type:a2 again", "enter")
	if m.branch != "main-v2" || m.tr.Len() != 2 || len(m.branches) != 2 {
		t.Fatalf("after the edit: branch %s, %d turns, %d branches", m.branch, m.tr.Len(), len(m.branches))
	}
	if want := "edited turn 2 on new branch main-v2 (2 branches)"; m.notice != want {
		t.Errorf("got notice %q, want %q", m.notice, want)
	}
	frameHas(t, m, "branch main-v2 (2 branches)", "q2 edited", "‹2/2›")
	agreeWithReplay(t, m, c)
	// The original is one step left.
	selectTurn(m, 2)
	press(m, "left")
	if m.branch != "main" || m.tr.Len() != 3 {
		t.Fatalf("after left: branch %s with %d turns, want main with 3", m.branch, m.tr.Len())
	}
	frameHas(t, m, "branch main (2 branches)", "‹1/2›")
	agreeWithReplay(t, m, c)
	press(m, "left")
	if !strings.Contains(m.notice, "version 1/2 is the first") {
		t.Errorf("left on the first version: notice %q", m.notice)
	}
	press(m, "right")
	if m.branch != "main-v2" {
		t.Errorf("after right: branch %s, want main-v2", m.branch)
	}
}

func TestBranchingEscCancels(t *testing.T) {
	m, c := scriptedChat(t, 2, 120, 40)
	press(m, "type:draft")
	selectTurn(m, 1)
	press(m, "e", "type: more", "esc")
	if m.comp.Value() != "draft" || m.comp.banner != "" || m.br.op != opNone {
		t.Errorf("after esc: composer %q, banner %q, op %v; want the draft back", m.comp.Value(), m.comp.banner, m.br.op)
	}
	if m.branch != "main" || len(m.branches) != 1 {
		t.Errorf("esc made a branch: %s of %d", m.branch, len(m.branches))
	}
	agreeWithReplay(t, m, c)
}

func TestBranchingSequence(t *testing.T) {
	m, c := scriptedChat(t, 3, 120, 40)
	steps := []struct {
		name   string
		do     func()
		branch string
		turns  int
		notice string
	}{
		{"regenerate turn 2", func() { selectTurn(m, 2); press(m, "r", "type:a2 regenerated", "enter") },
			"main-v2", 2, "regenerated turn 2 on new branch main-v2 (2 branches)"},
		{"correct turn 1", func() { selectTurn(m, 1); press(m, "R"); clearComposer(m); press(m, "type:a1 corrected", "enter") },
			"main-v2-v2", 1, "corrected the reply of turn 1 on new branch main-v2-v2 (3 branches)"},
		{"left on turn 1", func() { selectTurn(m, 1); press(m, "[") },
			"main", 3, "turn 1: version 1/2, on branch main"},
		{"rewind to turn 2", func() { selectTurn(m, 2); press(m, "w") },
			"main-v3", 2, "rewound to turn 2 on new branch main-v3 (4 branches)"},
		{"checkpoint turn 1", func() { selectTurn(m, 1); press(m, "x", "type:start", "enter") },
			"main-v3", 2, "checkpoint start at turn 1 (the Branches tab restores it)"},
		{"restore it", func() { m.setFocus(areaInspector); press(m, "4", "end", "enter") },
			"main-v3-v2", 1, "restored checkpoint start on new branch main-v3-v2 (5 branches)"},
	}
	for _, st := range steps {
		st.do()
		if m.branch != st.branch || m.tr.Len() != st.turns || m.notice != st.notice || m.lastErr != "" {
			t.Fatalf("%s: got branch %s, %d turns, notice %q, error %q; want %s, %d turns, %q", st.name, m.branch, m.tr.Len(),
				m.notice, m.lastErr, st.branch, st.turns, st.notice)
		}
		frameHas(t, m, fmt.Sprintf("branch %s (%d branches)", st.branch, len(m.branches)))
		agreeWithReplay(t, m, c)
	}
	frameHas(t, m, "1 checkpoint", "start")
}

func TestBranchingLiveRegenerate(t *testing.T) {
	v := newEnv(t)
	model := &streamModel{turns: [][]step{{textStep("first")}, {textStep("second")}, {textStep("again")}}}
	c := v.chat(t, "", model)
	m := newModel(t, v, c, 120, 40, Options{})
	press(m, "type:one", "enter", "type:two", "enter")
	selectTurn(m, 1)
	press(m, "r")
	if m.branch != "main-v2" || m.tr.Len() != 1 || m.tr.Item(0).reply.PlainText() != "again" {
		t.Fatalf("after r: branch %s, %d turns", m.branch, m.tr.Len())
	}
	frameHas(t, m, "‹2/2›", "again")
	agreeWithReplay(t, m, c)
	selectTurn(m, 1)
	press(m, "e")
	clearComposer(m)
	press(m, "type:uno", "enter")
	if m.branch != "main-v2-v2" || !strings.HasPrefix(m.tr.Item(0).user.PlainText(), "uno") {
		t.Fatalf("after the live edit: branch %s, message %q", m.branch, m.tr.Item(0).user.PlainText())
	}
	frameHas(t, m, "‹3/3›")
	agreeWithReplay(t, m, c)
}

func TestBranchingNeedsASavedTurn(t *testing.T) {
	m, _ := scriptedChat(t, 0, 120, 40)
	m.setFocus(areaTranscript)
	for _, k := range []string{"e", "r", "R", "left", "]", "w", "x"} {
		m.lastErr = ""
		press(m, k)
		if !strings.Contains(m.lastErr, "select a saved turn first") || m.br.op != opNone || m.focus != areaTranscript {
			t.Errorf("%s with no turn: error %q, op %v, focus %v", k, m.lastErr, m.br.op, m.focus)
		}
	}
}

func TestBranchingWaitsForTheReply(t *testing.T) {
	m, _ := scriptedChat(t, 0, 120, 40)
	press(m, "type:q1", "enter") // the composer now asks for the reply: turn 1 is not saved
	m.setFocus(areaTranscript)
	press(m, "home")
	for _, k := range []string{"e", "r", "w", "x"} {
		m.lastErr = ""
		press(m, k)
		if !strings.Contains(m.lastErr, "turn 1 is not saved yet") || m.br.op != opNone {
			t.Errorf("%s on a turn waiting for its reply: error %q, op %v", k, m.lastErr, m.br.op)
		}
	}
}

func TestGoldenVersions(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m, _ := scriptedChat(t, 2, size[0], size[1])
			for _, r := range []string{"a2 second", "a2 third"} {
				selectTurn(m, 2)
				press(m, "r", "type:"+r, "enter")
			}
			selectTurn(m, 2)
			press(m, "left")
			frameHas(t, m, "‹2/3›")
			goldenFrame(t, fmt.Sprintf("branching_versions_%dx%d", size[0], size[1]), m.View())
		})
	}
}

func TestBranchingComposerStates(t *testing.T) {
	m, _ := scriptedChat(t, 2, 120, 40)
	press(m, "type:my draft")
	// Typing the edit previews nothing: the inspector stays on the selected turn.
	selectTurn(m, 1)
	press(m, "e", "type: more")
	if m.comp.Value() != "q1 more" || m.preview != nil || m.previewInFlight || !m.tr.Explicit() {
		t.Errorf("typing an edit: composer %q, preview %v (in flight %v), explicit %v", m.comp.Value(), m.preview != nil,
			m.previewInFlight, m.tr.Explicit())
	}
	// Another action while one is under way replaces it; the draft stays aside.
	selectTurn(m, 2)
	press(m, "x")
	if m.br.op != opCheckpoint || m.br.turn != 2 || m.comp.Value() != "" {
		t.Errorf("x during an edit: op %v turn %d composer %q", m.br.op, m.br.turn, m.comp.Value())
	}
	press(m, "type:bad\x01", "esc")
	if m.comp.Value() != "my draft" {
		t.Errorf("after esc: composer %q, want the draft", m.comp.Value())
	}
	// The scripted reply step of a plain send is finished first.
	press(m, "enter")
	if m.comp.mode != composeReply {
		t.Fatal("no scripted reply step")
	}
	selectTurn(m, 1)
	press(m, "e")
	if m.br.op != opNone || !strings.Contains(m.lastErr, "finish the scripted reply first") {
		t.Errorf("e during the reply step: op %v, error %q", m.br.op, m.lastErr)
	}
}

func TestBranchingCheckpointName(t *testing.T) {
	m, _ := scriptedChat(t, 1, 120, 40)
	selectTurn(m, 1)
	press(m, "x", "enter")
	if m.br.op != opCheckpoint || !strings.Contains(m.lastErr, "empty checkpoint name") {
		t.Errorf("an empty name: op %v, error %q", m.br.op, m.lastErr)
	}
	press(m, "type:before the fix", "enter")
	if m.br.op != opNone || len(m.br.checkpoints) != 1 || m.br.checkpoints[0].Name != "before the fix" {
		t.Fatalf("checkpoint: op %v, checkpoints %+v, error %q", m.br.op, m.br.checkpoints, m.lastErr)
	}
	m.insp.SetTab(tabBranches)
	frameHas(t, m, "1 checkpoint", "◆ before the fix")
}

func TestGoldenEditState(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m, _ := scriptedChat(t, 2, size[0], size[1])
			selectTurn(m, 1)
			press(m, "e", "type: (edited)")
			frameHas(t, m, "editing turn 1")
			goldenFrame(t, fmt.Sprintf("branching_edit_state_%dx%d", size[0], size[1]), m.View())
		})
	}
}

func TestGoldenCheckpoints(t *testing.T) {
	m, _ := scriptedChat(t, 2, 120, 40)
	selectTurn(m, 1)
	press(m, "x", "type:first turn", "enter")
	selectTurn(m, 1)
	press(m, "w")
	m.setFocus(areaInspector)
	press(m, "4")
	frameHas(t, m, "2 branches", "◆ first turn")
	goldenFrame(t, "branching_checkpoints_120x40", m.View())
}
