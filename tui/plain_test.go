package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// TestPlainChat: a chat with no context file. The header says `no context file` and the
// status line shows the hint while the chat is empty (not once it has a turn); a saved
// chat with no file recorded, opened from a chat on a file, is labelled `no context
// file` again; ctrl+r says how to start a file, and loads ./ctxlab.ctx.yaml once it is
// there.
func TestPlainChat(t *testing.T) {
	demo, err := filepath.Abs("../testdata/demo/support.ctx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	ctx := context.Background()
	clock := newClock()
	ws, err := ctxapp.Open(ctx, ctxapp.Options{DB: ":memory:", Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	plain := ctxapp.PlainContext()
	s, err := ws.Settings(plain, true)
	if err != nil {
		t.Fatal(err)
	}
	e, err := ws.Engine(plain, s)
	if err != nil {
		t.Fatal(err)
	}
	v := &env{ws: ws, file: plain, s: s, e: e, clock: clock}

	// Two saved chats: one on the demo's file (recorded on it), one plain.
	file, err := ctxfile.Load(demo)
	if err != nil {
		t.Fatal(err)
	}
	fe, err := ws.Engine(file, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*ctxapp.Chat{ws.NewChat(s, fe, nil), ws.NewChat(s, e, nil)} {
		text := "a chat on a file"
		if c.File() == plain {
			text = "a plain one"
		}
		if _, err := c.SendScripted(ctx, text, "ok", nil); err != nil {
			t.Fatal(err)
		}
	}

	const hint = "HINT: ctxlab init"
	m := newModel(t, v, v.chat(t, "", nil), 120, 40, Options{ContextName: ctxapp.NoContextLabel, Hint: hint,
		Library: &ctxapp.Library{W: ws, Settings: s, File: plain}})
	header := func() string { return strings.SplitN(m.View(), "\n", 2)[0] }
	if h := header(); !strings.Contains(h, "· no context file") || !strings.Contains(m.View(), hint) {
		t.Errorf("a new plain chat: header %q, hint shown %v; want `no context file` and the hint", h, strings.Contains(m.View(), hint))
	}
	send(m, ctrl(tea.KeyCtrlR))
	if !strings.Contains(m.lastErr, "reload: no context file: `ctxlab init` writes a starter ./ctxlab.ctx.yaml") {
		t.Errorf("ctrl+r with no file: error %q", m.lastErr)
	}

	// Open the chat on the file, then the plain one: the header follows.
	for _, tt := range []struct{ filter, label string }{{"on a file", "support.ctx.yaml"}, {"plain one", "no context file"}} {
		send(m, ctrl(tea.KeyCtrlO))
		press(m, "type:"+tt.filter, "enter")
		if h := header(); !strings.Contains(h, "· "+tt.label) || strings.Contains(m.View(), hint) {
			t.Errorf("opened %q: header %q (want %s), hint shown %v (want not: the chat has a turn)", tt.filter, h, tt.label, strings.Contains(m.View(), hint))
		}
	}

	// A new chat: empty, so the hint again, until it has a turn.
	send(m, ctrl(tea.KeyCtrlO), ctrl(tea.KeyCtrlN))
	if !strings.Contains(m.View(), hint) {
		t.Errorf("a new plain chat from the overlay: no hint:\n%s", m.View())
	}
	press(m, "type:hello", "enter", "type:hi there", "enter")
	if m.tr.Len() != 1 || strings.Contains(m.View(), hint) {
		t.Errorf("after a turn: %d turns, hint shown %v; want 1, not shown", m.tr.Len(), strings.Contains(m.View(), hint))
	}
	if v := m.View(); !strings.Contains(v, "no reminder or instruction was in force") || strings.Contains(v, "no decisions recorded") {
		t.Errorf("the Why tab of a plain chat's turn does not say why it has no decisions:\n%s", v)
	}

	// ./ctxlab.ctx.yaml written (ctxlab init): ctrl+r moves the chat onto it.
	if err := os.WriteFile(ctxapp.DefaultContextFile, []byte("version: 1\nsystem:\n  - role: You are new.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	send(m, ctrl(tea.KeyCtrlR))
	if h := header(); !strings.Contains(h, "· ctxlab.ctx.yaml") || m.lastErr != "" {
		t.Errorf("ctrl+r once ./ctxlab.ctx.yaml is there: header %q, error %q; want the file, no error", h, m.lastErr)
	}
	if f := m.rl.file; f == nil || f.Path != ctxapp.DefaultContextFile {
		t.Errorf("the chat is on %v, want ./ctxlab.ctx.yaml", f)
	}
}
