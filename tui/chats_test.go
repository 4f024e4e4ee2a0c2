package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/store"
)

// library is the env's saved chats, exporting a line per chat.
func (v *env) library(dir string) *ctxapp.Library {
	return &ctxapp.Library{W: v.ws, Settings: v.s, File: v.file,
		Export: func(_ context.Context, w io.Writer, format, id string) error {
			_, err := fmt.Fprintf(w, "%s export of %s\n", format, id)
			return err
		}}
}

func ctrl(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// chatsModel is the workbench on the demo chat with the branching chat saved too.
func chatsModel(t *testing.T, w, h int) (*Model, *env, string, string) {
	t.Helper()
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	// A second chat, on the test clock (the branching script's branches take the wall
	// clock).
	other := v.ws.NewChat(v.s, v.e, nil)
	for _, text := range []string{"a question about branching", "and another"} {
		if _, err := other.SendScripted(context.Background(), text, "an answer", nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.ws.RenameChat(context.Background(), other.ID(), "Branching demo"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := newModel(t, v, v.chat(t, "demo-1", nil), w, h, Options{Library: v.library(dir), ExportDir: dir})
	return m, v, dir, other.ID()
}

func send(m *Model, msgs ...tea.KeyMsg) {
	for _, k := range msgs {
		_, cmd := m.Update(k)
		drive(m, cmd)
	}
}

// TestGoldenChats: the overlay filtered by title and by message text, and the delete
// confirmation.
func TestGoldenChats(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, _, _, otherID := chatsModel(t, sz.w, sz.h)
			send(m, ctrl(tea.KeyCtrlO))
			if !m.chats.open || len(m.chats.shown) != 2 {
				t.Fatalf("overlay open %v with %d chats, want 2", m.chats.open, len(m.chats.shown))
			}
			goldenFrame(t, fmt.Sprintf("chats_%dx%d", sz.w, sz.h), m.View())
			press(m, "type:branch")
			if len(m.chats.shown) != 1 || m.chats.selected().ID != otherID {
				t.Errorf("filter by title: got %d chats", len(m.chats.shown))
			}
			goldenFrame(t, fmt.Sprintf("chats_filtered_%dx%d", sz.w, sz.h), m.View())
			// A word only in a message (not in a title) finds its chat through the store.
			for range len("branch") {
				press(m, "backspace")
			}
			press(m, "type:tuning")
			if len(m.chats.shown) != 1 || m.chats.selected().ID != "demo-1" {
				t.Errorf("filter by message text: got %d chats", len(m.chats.shown))
			}
			send(m, ctrl(tea.KeyCtrlD))
			goldenFrame(t, fmt.Sprintf("chats_delete_%dx%d", sz.w, sz.h), m.View())
			press(m, "n")
			if m.chats.mode != chatsBrowse {
				t.Error("n did not cancel the delete")
			}
		})
	}
}

// TestChatsActions: open, new, rename, delete (asks) and export, through Update.
func TestChatsActions(t *testing.T) {
	m, v, dir, id := chatsModel(t, 120, 40)
	ctx := context.Background()
	send(m, ctrl(tea.KeyCtrlO))
	press(m, "type:branching", "enter")
	if m.chats.open || m.chatID != id {
		t.Fatalf("enter: open %v, chat %q, want the other opened", m.chats.open, m.chatID)
	}
	if !strings.Contains(m.View(), "Branching demo") {
		t.Error("the header does not show the opened chat")
	}

	// Rename the open chat: the header follows.
	send(m, ctrl(tea.KeyCtrlO))
	press(m, "type:branching")
	send(m, ctrl(tea.KeyCtrlE))
	for range len("Branching demo") {
		press(m, "backspace")
	}
	press(m, "type:Renamed chat", "enter")
	if c, err := v.ws.Store().Chat(ctx, id); err != nil || c.Title != "Renamed chat" {
		t.Errorf("rename: got %q, %v", c.Title, err)
	}
	if m.title != "Renamed chat" {
		t.Errorf("header title after rename: got %q", m.title)
	}

	// Export: a file named after the chat's title, never overwritten.
	name := ctxapp.ExportName("Renamed chat", id)
	if !strings.HasPrefix(name, "renamed-chat-") || strings.Contains(name, id) {
		t.Fatalf("export name %q, want the title's slug and a short suffix of the id", name)
	}
	for i, want := range []string{name + ".md", name + "-1.md"} {
		send(m, ctrl(tea.KeyCtrlS))
		press(m, "m")
		if !strings.HasSuffix(m.notice, want) {
			t.Errorf("export %d: notice %q, want it to name %s", i, m.notice, want)
		}
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("export %d: %v", i, err)
		}
	}

	// Delete the open chat after y: a new chat takes its place; the other is untouched.
	send(m, ctrl(tea.KeyCtrlD))
	press(m, "y")
	if _, err := v.ws.Store().Chat(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("delete: the chat is still there (%v)", err)
	}
	if m.chatID == id || len(m.chats.list) != 1 {
		t.Errorf("after deleting the open chat: chat %q, %d listed", m.chatID, len(m.chats.list))
	}
	if _, err := v.ws.Store().Chat(ctx, "demo-1"); err != nil {
		t.Errorf("the other chat: %v", err)
	}

	// The wheel moves through the list; nothing reaches the panes under the overlay.
	send(m, ctrl(tea.KeyCtrlO))
	m.Update(tea.MouseMsg{X: 5, Y: 5, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if m.chats.cursor != min(1, len(m.chats.shown)-1) {
		t.Errorf("wheel down: cursor %d", m.chats.cursor)
	}
	m.Update(tea.MouseMsg{X: 5, Y: 5, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if m.focus == areaTranscript {
		t.Error("a click went through the overlay")
	}
	press(m, "esc")

	// ctrl+n: a new chat, nothing saved; esc closes.
	press(m, "esc")
	send(m, ctrl(tea.KeyCtrlO), ctrl(tea.KeyCtrlN))
	if m.chats.open || m.title != "" || m.tr.Len() != 0 {
		t.Errorf("ctrl+n: open %v, title %q, %d turns", m.chats.open, m.title, m.tr.Len())
	}
	send(m, ctrl(tea.KeyCtrlO))
	press(m, "esc")
	if m.chats.open {
		t.Error("esc did not close the overlay")
	}
}

// TestChatsNoLibrary: without a database the overlay says so.
func TestChatsNoLibrary(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 120, 40, Options{})
	send(m, ctrl(tea.KeyCtrlO))
	if m.chats.open || m.lastErr == "" {
		t.Errorf("no library: open %v, error %q", m.chats.open, m.lastErr)
	}
}

// BenchmarkChatsFilter: one keystroke in the chats overlay over 10,000 saved chats, to the
// next frame (the filter is in memory; the message-text search is a Cmd, not run here).
// Target: under 16 ms.
func BenchmarkChatsFilter(b *testing.B) {
	v := newEnv(b)
	m := newModel(b, v, v.chat(b, "", nil), 120, 40, Options{Library: v.library(b.TempDir())})
	list := make([]ctxapp.ChatSummary, 10000)
	for i := range list {
		list[i].ID = fmt.Sprintf("chat-%05d", i)
		list[i].Title = fmt.Sprintf("Chat %d about topic%d and the slow query number %d", i, i%97, i%13)
		list[i].Turns, list[i].Branches = i%50, 1+i%3
	}
	m.chats.open = true
	m.chats.setChats(list)
	keys := []string{"t", "o", "p", "i", "c", "4", "2"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%len(keys) == 0 {
			m.chats.filter = ""
		}
		m.Update(keyMsg(keys[i%len(keys)]))
		m.View()
	}
}
