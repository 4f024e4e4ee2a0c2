package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/store"
)

// savedDemo plays a script of the demo (copied to a temporary directory, made the current
// one) into a database file under support.ctx.yaml as it is, and returns the file. With
// unrecorded, the database also holds a copy of each chat the script made, under id
// "old-" and its id, as a database made before ctxlab recorded the context file of each
// turn keeps it: the same turns, with no digest.
func savedDemo(t *testing.T, scriptName string, unrecorded bool) string {
	t.Helper()
	copyDemo(t)
	path := filepath.Join(t.TempDir(), "chats.db")
	v := openEnv(t, path)
	v.playAt(t, scriptName)
	v.ws.Close()
	if !unrecorded {
		return path
	}
	ctx := context.Background()
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sc, err := script.Load(scriptName)
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.ExportChat(ctx, sc.Chat.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Turns {
		a.Turns[i].ContextDigest = nil
	}
	if err := format.ImportChat(ctx, db, format.NewExport(a).WithChatID("old-"+sc.Chat.ID)); err != nil {
		t.Fatal(err)
	}
	return path
}

// openEnv is a workspace on the database file at path, with an engine on support.ctx.yaml
// of the current directory as it is on disk now.
func openEnv(tb testing.TB, path string) *env {
	tb.Helper()
	clock := newClock()
	ctx := context.Background()
	ws, err := ctxapp.Open(ctx, ctxapp.Options{DB: path, Now: clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	file, err := ctxfile.Load("support.ctx.yaml")
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

// marks returns the header's mark on each turn of the transcript, selecting each in turn.
func marks(m *Model) []string {
	var out []string
	for i := 0; i < m.tr.Len(); i++ {
		if it := m.tr.Item(i); it == nil || it.user == nil {
			continue
		}
		m.tr.Select(i)
		out = append(out, m.fileMark())
	}
	return out
}

// replayUnder is `ctxlab replay --json --context support.ctx.yaml` of chat id: each turn
// re-evaluated under the file as it is on disk now.
func replayUnder(t *testing.T, v *env, id string) []engine.Trace {
	t.Helper()
	file, err := ctxfile.Load("support.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []engine.Trace
	if err := v.ws.Replay(context.Background(), id, file, func(tr *engine.Trace) error {
		out = append(out, *tr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReopenedChatChanged: a chat opened after its context file was edited while the
// workbench was closed marks `(changed)` on the turns sent with the file as it was, and
// shows, without ctrl+r, the Why tab's was → now of `replay --context` and the status
// line's summary; ctrl+r keeps the marks. A file as it was marks nothing and re-evaluates
// nothing; turns saved before ctxlab recorded the file say that it is not known.
func TestReopenedChatChanged(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		edit   bool
		mark   string // on every turn, before and after ctrl+r
		reeval bool   // the turns are re-evaluated on opening
		status string // what the status line says after opening
	}{
		{"edited while closed", "demo-1", true, " (changed)", true, "support.ctx.yaml changed since 4 of 4 turns were sent · "},
		{"as it was", "demo-1", false, "", false, ""},
		{"turns saved before ctxlab recorded the file, edited", "old-demo-1", true, " (changed?)", false,
			"not known if support.ctx.yaml changed since 4 of 4 turns were sent (ctxlab did not record it then) · ctrl+r re-evaluates them"},
		{"turns saved before ctxlab recorded the file, as it was", "old-demo-1", false, " (changed?)", false,
			"not known if support.ctx.yaml changed since 4 of 4 turns were sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := savedDemo(t, "support.script.yaml", true)
			if tt.edit {
				replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
			}
			v := openEnv(t, path)
			m := newModel(t, v, v.chat(t, tt.id, nil), 160, 45, Options{})
			frame := m.View()
			if got := m.rl.reeval != nil; got != tt.reeval || m.rl.running {
				t.Fatalf("re-evaluated on opening: %v (running %v), want %v; status:\n%s", got, m.rl.running, tt.reeval, frame)
			}
			if tt.status != "" && !strings.Contains(frame, tt.status) {
				t.Errorf("the status line does not say %q:\n%s", tt.status, frame)
			}
			if tt.status == "" && (m.rl.summary != "" || strings.Contains(frame, "changed since")) {
				t.Errorf("the status line speaks of a change:\n%s", frame)
			}
			want := []string{tt.mark, tt.mark, tt.mark, tt.mark}
			if got := marks(m); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("marks: got %q, want %q", got, want)
			}
			if tt.mark != "" && !strings.Contains(m.View(), "support.ctx.yaml"+tt.mark) {
				t.Errorf("the header does not mark the file:\n%s", m.View())
			}
			if tt.reeval {
				// What replay --context support.ctx.yaml (edited) decides, turn by turn, and
				// the summary of it; the Why tab shows was → now.
				replay := replayUnder(t, v, tt.id)
				changes, turns := 0, 0
				for _, w := range replay {
					got := m.rl.reeval[w.UserMessageID]
					if got == nil {
						t.Fatalf("turn %d is not re-evaluated", w.Turn)
					}
					gj, _ := json.Marshal(got.Decisions)
					wj, _ := json.Marshal(w.Decisions)
					if string(gj) != string(wj) {
						t.Errorf("turn %d: decisions differ from replay --context:\n%s\nwant\n%s", w.Turn, gj, wj)
					}
					n := len(w.Removed)
					for _, d := range w.Decisions {
						if d.Was != nil {
							n++
						}
					}
					changes += n
					if n > 0 {
						turns++
					}
				}
				wantSum := fmt.Sprintf("support.ctx.yaml changed since 4 of 4 turns were sent · %s changed in %d of 4 turns", countNoun(changes, "decision"), turns)
				if m.rl.summary != wantSum || changes == 0 {
					t.Errorf("summary: got %q, want %q", m.rl.summary, wantSum)
				}
				press(m, "tab")
				m.tr.Select(changedTurn(t, m))
				if frame := m.View(); !strings.Contains(frame, "→ now") || !strings.Contains(frame, "re-evaluated under support.ctx.yaml") {
					t.Errorf("the Why tab shows no was → now:\n%s", frame)
				}
			}

			// ctrl+r: the marks still say what each turn recorded.
			_, cmd := m.Update(ctrlR)
			drive(m, cmd)
			if m.rl.reeval == nil {
				t.Fatalf("no re-evaluation after ctrl+r (error %q)", m.lastErr)
			}
			if got := marks(m); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("marks after ctrl+r: got %q, want %q", got, want)
			}

			// A turn sent now is sent with the file in force: no mark on it; the others keep
			// theirs, and nothing is re-evaluated until the next reload, chat or branch.
			press(m, "esc", "type:one more question", "enter", "type:an answer", "enter")
			if m.rl.reeval != nil || m.rl.running {
				t.Errorf("after a send: re-evaluation shown %v, running %v", m.rl.reeval != nil, m.rl.running)
			}
			if got := marks(m); fmt.Sprint(got) != fmt.Sprint(append(want, "")) {
				t.Errorf("marks after a send: got %q, want %q", got, append(want, ""))
			}
		})
	}
}

// TestReopenedChatChangedFrames are the Why tab of the first changed turn of a chat
// reopened after its file was edited, at each screen size.
func TestReopenedChatChangedFrames(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			path := savedDemo(t, "support.script.yaml", false)
			replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
			v := openEnv(t, path)
			m := newModel(t, v, v.chat(t, "demo-1", nil), sz.w, sz.h, Options{})
			press(m, "tab")
			m.tr.Select(changedTurn(t, m))
			if sz.w < 100 {
				press(m, "alt+i") // the inspector instead of the transcript
			}
			goldenAt(t, fmt.Sprintf("reopen_changed_why_%dx%d", sz.w, sz.h), m.View())
		})
	}
}

// TestSwitchComparesRecorded: a branch switched to, and a chat opened from the chats
// overlay, are compared with the file in force as a chat opened is.
func TestSwitchComparesRecorded(t *testing.T) {
	path := savedDemo(t, "branching.script.yaml", false)
	replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
	v := openEnv(t, path)
	c := v.chat(t, "branching-1", nil)
	m := newModel(t, v, c, 160, 45, Options{})
	if m.rl.reeval == nil || !strings.HasPrefix(m.rl.summary, "support.ctx.yaml changed since") {
		t.Fatalf("the chat opened is not re-evaluated: summary %q", m.rl.summary)
	}
	// Switch to main-v2, whose turns the branch opened does not have.
	before := m.rl.reeval
	drive(m, m.act(switchBranchAction{Name: "main-v2"}))
	if m.branch != "main-v2" {
		t.Fatalf("branch: got %q, want main-v2 (error %q)", m.branch, m.lastErr)
	}
	for _, tr := range m.traces {
		if m.rl.reeval[tr.UserMessageID] == nil {
			t.Errorf("turn %d of main-v2 is not re-evaluated after the switch", tr.Turn)
		}
		if _, old := before[tr.UserMessageID]; !old && m.fileChangeOf(tr.UserMessageID) != fileChanged {
			t.Errorf("turn %d of main-v2 is not marked changed", tr.Turn)
		}
	}

	// The chats overlay opens the demo chat, saved under the file as it was.
	other, _, err := v.library(t.TempDir()).Open(context.Background(), "branching-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	m.rl.reeval, m.rl.summary = nil, ""
	_, cmd := m.Update(chatOpenedMsg{chat: other})
	drive(m, cmd)
	if m.rl.reeval == nil || !strings.HasPrefix(m.rl.summary, "support.ctx.yaml changed since") {
		t.Errorf("the chat opened from the overlay is not re-evaluated: summary %q", m.rl.summary)
	}
}

// TestChatsOpenOnFileInForce: after the context file was edited and reloaded, a chat
// opened from the chats overlay that records the same file opens on it as it is in force
// (the reloaded version, which its next turn uses), not as the workbench first loaded it;
// its turns, sent with the file as it was, are marked and re-evaluated.
func TestChatsOpenOnFileInForce(t *testing.T) {
	path := savedDemo(t, "support.script.yaml", false)
	v := openEnv(t, path)
	ctx := context.Background()
	other := v.ws.NewChat(v.s, v.e, nil) // records the file it is sent with
	if _, err := other.SendScripted(ctx, "a question", "an answer", nil); err != nil {
		t.Fatal(err)
	}
	m := newModel(t, v, v.chat(t, "demo-1", nil), 160, 45, Options{Library: v.library(t.TempDir())})
	replace(t, "support.ctx.yaml", "support-edited.ctx.yaml")
	_, cmd := m.Update(ctrlR)
	drive(m, cmd)
	edited := m.rl.file.Digest()
	if edited == v.file.Digest() {
		t.Fatal("the reload did not take the edited file")
	}
	press(m, "ctrl+o", "type:a question", "enter")
	if m.chatID != other.ID() {
		t.Fatalf("open chat: got %q, want %q (error %q)", m.chatID, other.ID(), m.lastErr)
	}
	if got := m.chat.(reloader).File().Digest(); got != edited {
		t.Errorf("the chat opened is on the file as the workbench first loaded it, not the one in force")
	}
	if got := marks(m); fmt.Sprint(got) != fmt.Sprint([]string{" (changed)"}) || m.rl.reeval == nil {
		t.Errorf("marks %q, re-evaluated %v; want the turn marked and re-evaluated", got, m.rl.reeval != nil)
	}
}
