package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestChatsMouse: in the chats overlay, a click selects the chat under the pointer, a
// click on the selected chat opens it, the wheel moves through the list, and a click
// while the overlay asks something (delete?) changes nothing.
func TestChatsMouse(t *testing.T) {
	m, _, _, otherID := chatsModel(t, 120, 40)
	send(m, ctrl(tea.KeyCtrlO))
	frame := strings.Split(m.View(), "\n")
	rowOf := func(title string) int {
		for y, l := range frame {
			if strings.Contains(l, title) && (strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "> ")) {
				return y
			}
		}
		t.Fatalf("no row of %q in the overlay:\n%s", title, strings.Join(frame, "\n"))
		return -1
	}
	click := func(y int) tea.Cmd {
		_, cmd := m.Update(tea.MouseMsg{X: 10, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		return cmd
	}
	// The list starts on the branching chat (the last updated): click the other one.
	if m.chats.selected().ID != otherID || m.chats.cursor != 0 {
		t.Fatal("the branching chat is not selected first")
	}
	demo := &m.chats.list[m.chats.shown[1]]
	other := rowOf(demo.Title)
	if cmd := click(other); cmd != nil || m.chats.selected().ID != demo.ID || !m.chats.open {
		t.Fatalf("a click on the row of %q: selected %s, a command %v", demo.Title, m.chats.selected().ID, cmd != nil)
	}
	// The wheel moves the selection; a click above the rows or below them does nothing.
	for _, tt := range []struct {
		msg  tea.MouseMsg
		want int
	}{
		{tea.MouseMsg{Y: other, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress}, 0},
		{tea.MouseMsg{Y: other, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress}, 1},
		{tea.MouseMsg{Y: other, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress}, 1},
		{tea.MouseMsg{Y: 2, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}, 1},
		{tea.MouseMsg{Y: 30, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}, 1},
		{tea.MouseMsg{Y: other, Button: tea.MouseButtonLeft, Action: tea.MouseActionRelease}, 1},
	} {
		m.Update(tt.msg)
		if m.chats.cursor != tt.want {
			t.Errorf("after %+v: cursor %d, want %d", tt.msg, m.chats.cursor, tt.want)
		}
	}
	// While the overlay asks to confirm a delete, a click does not change the chat asked about.
	m.View()
	send(m, ctrl(tea.KeyCtrlD))
	sel := m.chats.selected().ID
	click(rowOf("Branching demo"))
	if m.chats.selected().ID != sel || m.chats.mode != chatsConfirm {
		t.Errorf("a click during the delete question moved the selection")
	}
	press(m, "n")
	// A click on the selected chat opens it.
	m.View()
	if m.chats.selected().ID != otherID {
		click(rowOf("Branching demo"))
	}
	cmd := click(rowOf("Branching demo"))
	if cmd == nil {
		t.Fatal("a click on the selected chat does not open it")
	}
	drive(m, cmd)
	if m.chats.open || m.chatID != otherID {
		t.Errorf("after the click: overlay open %v, chat %s; want %s open", m.chats.open, m.chatID, otherID)
	}
}
