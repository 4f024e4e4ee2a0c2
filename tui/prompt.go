package tui

import (
	"strconv"
	"strings"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// renderPrompt renders the Prompt tab: the turn's system prompt in sections (run-start
// reminders, each top-level fragment, the instructions block, the explanation), each with
// its estimate as the trace records it, the total at the top.
func (in *inspector) renderPrompt(bb *tabBuilder) {
	t := in.turn.Trace
	if t == nil {
		in.noTurnLine(bb)
		return
	}
	in.turnHeader(bb, t)
	sections := engine.PromptSections(t)
	if est := t.Usage.Estimated.BySource; est != nil {
		total := est.Fragments + est.Instructions
		for _, s := range sections {
			if s.Kind == engine.SectionRunStart {
				total += s.Tokens
			}
		}
		bb.headSegs(tabSeg{themes.Text, "system prompt ~" + strconv.Itoa(total) + " tokens"},
			tabSeg{themes.Muted, " · " + strconv.Itoa(len(sections)) + " sections"})
	} else {
		bb.headSegs(tabSeg{themes.Text, "system prompt"},
			tabSeg{themes.Muted, " · sizes not recorded (whole request ~" + strconv.Itoa(t.Usage.Estimated.PromptTokens) + " tokens)"})
	}
	if len(sections) == 0 {
		bb.text(themes.Muted, 0, 0, "no system prompt: the context file renders nothing")
		return
	}
	for i, s := range sections {
		if i > 0 {
			bb.blank()
		}
		name, role := promptSectionTitle(s), themes.Text
		if s.Kind == engine.SectionRunStart {
			role = themes.Reminder
		}
		size := ""
		switch {
		case s.Tokens >= 0 && s.WithExplanation:
			size = "~" + strconv.Itoa(s.Tokens) + " tok with the explanation"
		case s.Tokens >= 0:
			size = "~" + strconv.Itoa(s.Tokens) + " tok"
		case s.Kind == engine.SectionExplanation:
			size = "counted with the instructions"
		default:
			size = "size not recorded"
		}
		bb.segs(0, tabSeg{role, "── " + name}, tabSeg{themes.Muted, "  " + size})
		textRole := themes.Muted
		if s.Kind == engine.SectionRunStart {
			textRole = themes.Reminder
		}
		bb.text(textRole, 2, 0, inert.Display(strings.TrimRight(s.Text, "\n")))
	}
}

// promptSectionTitle names a section of the system prompt.
func promptSectionTitle(s engine.PromptSection) string {
	switch s.Kind {
	case engine.SectionRunStart:
		return "run-start reminder " + inert.DisplayLine(s.Name)
	case engine.SectionFragment:
		return "fragment " + inert.DisplayLine(s.Name)
	case engine.SectionFragments:
		return "fragments"
	case engine.SectionInstructions:
		return "instructions"
	case engine.SectionExplanation:
		return "explanation of <system-reminder>"
	}
	return s.Kind
}
