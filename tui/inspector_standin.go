package tui

// This file stands in for the inspector of branch tabs (tui/inspector.go and its tabs),
// with the same API, until that branch is merged; the merge deletes it.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

type inspectorTab int

const (
	tabWhy inspectorTab = iota
	tabPrompt
	tabRequest
	tabBranches
	tabUsage
)

type turnView struct {
	Trace   *engine.Trace
	Prev    *engine.Trace
	Preview bool
}

type chatView struct {
	Branches      []chat.BranchInfo
	Active        string
	Totals        chat.Usage
	CostUSD       float64
	CostKnown     bool
	ContextWindow int
}

type inspectorAction interface{}

type switchBranchAction struct{ Name string }

type inspector struct {
	th     *themes.Theme
	tab    inspectorTab
	turn   turnView
	chat   chatView
	scroll int
}

func newInspector(th *themes.Theme) *inspector { return &inspector{th: th} }

func (in *inspector) SetTurn(v turnView)                   { in.turn = v }
func (in *inspector) SetChat(c chatView)                   { in.chat = c }
func (in *inspector) SetTab(t inspectorTab)                { in.tab = t }
func (in *inspector) Tab() inspectorTab                    { return in.tab }
func (in *inspector) SetTheme(th *themes.Theme)            { in.th = th }
func (in *inspector) HandleKey(tea.KeyMsg) inspectorAction { return nil }
func (in *inspector) ScrollBy(n int)                       { in.scroll = max(0, in.scroll+n) }
func (in *inspector) ClickAt(int) inspectorAction          { return nil }
func (in *inspector) Keys() []key.Binding                  { return nil }

func (in *inspector) Render(width, height int, focused bool) string {
	names := []string{"Why", "Prompt", "Request", "Branches", "Usage"}
	var tabs []string
	for i, n := range names {
		if inspectorTab(i) == in.tab {
			tabs = append(tabs, in.th.Render(themes.TabActive, "["+n+"]"))
		} else {
			tabs = append(tabs, in.th.Render(themes.Tab, " "+n+" "))
		}
	}
	lines := []string{strings.Join(tabs, " ")}
	if tr := in.turn.Trace; tr != nil {
		label := fmt.Sprintf("turn %d", tr.Turn)
		if in.turn.Preview {
			label = in.th.Render(themes.Accent, " PREVIEW ") + " " + label
		}
		lines = append(lines, label)
		for _, d := range tr.Decisions {
			mark := "·"
			if d.Fired {
				mark = "✓"
			}
			lines = append(lines, fmt.Sprintf("%s %s %s", mark, inert.Line(d.ID), inert.Line(d.Reason)))
		}
	} else {
		lines = append(lines, in.th.Render(themes.Muted, "no turn selected"))
	}
	if in.scroll < len(lines)-1 {
		lines = append(lines[:1], lines[1+in.scroll:]...)
	}
	return strings.Join(fitBlock(lines, width, height), "\n")
}
