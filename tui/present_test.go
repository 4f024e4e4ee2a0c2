package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/themes"
)

// presentModel is the workbench in presentation mode at 120x40 on a chat of three
// turns: a short reply, then two long ones.
func presentModel(t *testing.T) *Model {
	t.Helper()
	v := newEnv(t)
	c := v.chat(t, "", nil)
	replies := []string{"Hi! Let me check the customers table.",
		"The customers table has **1,204** rows. Most of them were created in the last year, and a third have no orders yet.",
		"Use an index on `customer_id`: the plan shows a sequential scan over orders, which is what makes the query slow."}
	for i, r := range replies {
		if _, err := c.SendScripted(context.Background(), fmt.Sprintf("question %d about the customers", i+1), r, nil); err != nil {
			t.Fatal(err)
		}
	}
	return newModel(t, v, c, 120, 40, Options{Present: true})
}

func TestPresentPlaysTurns(t *testing.T) {
	m := presentModel(t)
	total := len(m.pr.items)
	if total < 3 || m.tr.Len() != 0 || m.focus != areaTranscript {
		t.Fatalf("at the start: %d turns loaded, %d shown, focus %v; want none shown, the transcript focused", total, m.tr.Len(), m.focus)
	}
	if f := m.View(); strings.Contains(f, "turn 1") || !strings.Contains(f, "space play the next turn") {
		t.Errorf("the first frame shows a turn, or not the keys:\n%s", f)
	}
	// The turns before the first long reply, each played and shown whole.
	k := 0
	for k < total && (m.pr.items[k].reply == nil || len([]rune(m.pr.items[k].reply.PlainText())) <= presentChars) {
		k++
	}
	if k >= total-1 {
		t.Fatal("the demo has no long reply to type out")
	}
	for range k {
		m.Update(keyMsg("space"))
		press(m, "space")
	}
	full := m.pr.items[k].reply.PlainText()
	// space: the user message, the reply not typed yet.
	_, cmd := m.Update(keyMsg("space"))
	if cmd == nil || m.tr.Len() != k+1 || m.tr.Item(k).reply != nil || !m.pr.typing {
		t.Fatalf("after space: %d turns, reply %v, typing %v, tick %v", m.tr.Len(), m.tr.Item(k).reply, m.pr.typing, cmd != nil)
	}
	// A tick types the next characters.
	_, cmd = m.Update(presentTickMsg{seq: m.pr.tick})
	if got := m.tr.Item(k).reply.PlainText(); got != string([]rune(full)[:presentChars]) || cmd == nil {
		t.Fatalf("after a tick: reply %q, next tick %v", got, cmd != nil)
	}
	goldenFrame(t, "present_typing_120x40", m.View())
	// A tick of another turn is dropped.
	if _, c := m.Update(presentTickMsg{seq: m.pr.tick - 1}); c != nil {
		t.Error("a stale tick ticks again")
	}
	// The ticks run out when the reply is typed: idle means idle.
	drive(m, cmd)
	if m.pr.typing || m.tr.Item(k).reply.PlainText() != full {
		t.Fatalf("after the ticks: typing %v, reply %q", m.pr.typing, m.tr.Item(k).reply.PlainText())
	}
	// space while typing shows the reply whole.
	m.Update(keyMsg("space"))
	press(m, "space")
	if m.pr.typing || m.tr.Len() != k+2 || m.tr.Item(k+1).reply.PlainText() != m.pr.items[k+1].reply.PlainText() {
		t.Fatalf("space while typing: typing %v, %d turns", m.pr.typing, m.tr.Len())
	}
	// The inspector follows the turn shown.
	frameHas(t, m, fmt.Sprintf("turn %d · main", k+2))
	goldenFrame(t, "present_120x40", m.View())
	// Keys that would change the chat or focus the hidden composer do nothing.
	press(m, "e", "r", "w", "x", "tab", "esc")
	if m.br.op != opNone || m.focus != areaTranscript || m.branch != "main" {
		t.Errorf("after e r w x tab esc: op %v, focus %v, branch %s", m.br.op, m.focus, m.branch)
	}
	press(m, "backspace")
	if m.tr.Len() != k+1 || m.tr.Current() != k {
		t.Errorf("after backspace: %d turns shown, turn %d selected", m.tr.Len(), m.tr.Current()+1)
	}
	for range total + 1 {
		m.Update(keyMsg("space"))
		press(m, "space")
	}
	if m.tr.Len() != total || !strings.Contains(m.notice, "the end") {
		t.Errorf("after playing every turn: %d of %d shown, notice %q", m.tr.Len(), total, m.notice)
	}
	for range total + 1 {
		press(m, "backspace")
	}
	if m.tr.Len() != 0 {
		t.Errorf("after stepping back past the start: %d turns shown", m.tr.Len())
	}
}

func TestPresentNarrow(t *testing.T) {
	m := presentModel(t)
	m.Update(keyMsg("space"))
	press(m, "space")
	for _, size := range [][2]int{{80, 24}, {60, 16}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		f := m.View()
		lines := strings.Split(f, "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		if !strings.Contains(f, "turn 1") {
			t.Errorf("%dx%d: no turn shown:\n%s", size[0], size[1], f)
		}
	}
}

// TestPresentSpaceBeforeLoad presses space before the chat is loaded (a slow start, or a
// quick presenter): the turn plays once the chat is, instead of "the end" over an empty
// transcript.
func TestPresentSpaceBeforeLoad(t *testing.T) {
	v := newEnv(t)
	c := v.chat(t, "", nil)
	for i, r := range []string{"Hi! Let me check the customers table.", "Sure."} {
		if _, err := c.SendScripted(context.Background(), fmt.Sprintf("question %d", i+1), r, nil); err != nil {
			t.Fatal(err)
		}
	}
	m := New(Options{Chat: c, Present: true, Theme: themes.Mono(), Now: v.clock.Now, Location: time.UTC, ContextName: "support.ctx.yaml"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	init := m.Init()
	press(m, "space")
	if strings.Contains(m.notice, "the end") || m.pr.early != 1 {
		t.Fatalf("space before the load: notice %q, %d turns asked for", m.notice, m.pr.early)
	}
	drive(m, init)
	if m.tr.Len() != 1 || m.notice != "" {
		t.Fatalf("after the load: %d turns shown, notice %q; want turn 1 played", m.tr.Len(), m.notice)
	}
	frameHas(t, m, "Hi! Let me check")
}
