package engine

import (
	"strings"

	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// Kinds of the sections of a system prompt (PromptSection.Kind).
const (
	SectionRunStart     = "run_start"    // a run-start reminder, tagged
	SectionFragment     = "fragment"     // one top-level fragment
	SectionFragments    = "fragments"    // the fragments, when they cannot be told apart
	SectionInstructions = "instructions" // the instructions block
	SectionExplanation  = "explanation"  // the paragraph about <system-reminder> blocks
)

// PromptSection is one section of a turn's system prompt, in the order the prompt has
// them.
type PromptSection struct {
	Kind string
	// Name is the fragment's name or the run-start reminder's id ("" for the others).
	Name string
	// Text is the section as the prompt holds it.
	Text string
	// Tokens is the section's size as the trace records it: the decision's tokens for a
	// run-start reminder, Estimate.EachFragment for a fragment, Estimate.Fragments for the
	// fragments, Estimate.Instructions for the instructions block (which counts the
	// explanation with it: WithExplanation). -1 when the trace has no size for it (a
	// recorded turn keeps only its total, and the explanation is sized with the
	// instructions).
	Tokens int
	// WithExplanation marks an instructions section whose Tokens include the explanation
	// paragraph (as Estimate.Instructions does).
	WithExplanation bool
}

// PromptSections splits a turn's system prompt into its sections from the trace alone:
// the run-start reminders the turn fired (at the start, as the pipeline puts them), the
// top-level fragments, the instructions block the fired instructions render, and the
// explanation paragraph. The fragments are told apart by the names in
// Usage.Estimated.BySource.EachFragment when each one is found, in order, at the start of
// a line; otherwise they are one section. Sizes are the trace's (see PromptSection.Tokens),
// never counted again. The texts, in order with the blank lines between them, are the
// whole prompt: text the decisions do not account for (an instructions block they do not
// render) stays with the fragments.
func PromptSections(t *Trace) []PromptSection {
	rest := t.SystemPrompt
	var est *Estimate
	if t.Usage.Estimated.BySource != nil {
		est = t.Usage.Estimated.BySource
	}
	var out []PromptSection
	for i := range t.Decisions {
		d := &t.Decisions[i]
		if !d.Fired || d.Source == SourceInstruction || d.Placement != ctxfile.PlaceRunStart {
			continue
		}
		tagged := "<system-reminder>" + d.Text + "</system-reminder>"
		after, ok := strings.CutPrefix(rest, tagged)
		if !ok {
			continue
		}
		out = append(out, PromptSection{Kind: SectionRunStart, Name: d.ID, Text: tagged, Tokens: d.Tokens})
		rest = strings.TrimPrefix(after, "\n\n")
	}

	var tail []PromptSection
	explained := false
	if body, ok := strings.CutSuffix(rest, explanation); ok && (body == "" || strings.HasSuffix(body, "\n\n")) {
		explained = true
		tail = append(tail, PromptSection{Kind: SectionExplanation, Text: explanation, Tokens: -1})
		rest = strings.TrimSuffix(body, "\n\n")
	}
	if block := firedInstructionsBlock(t.Decisions); block != "" {
		if body, ok := strings.CutSuffix(rest, block); ok && (body == "" || strings.HasSuffix(body, "\n\n")) {
			n := -1
			if est != nil {
				n = est.Instructions
			}
			tail = append([]PromptSection{{Kind: SectionInstructions, Text: block, Tokens: n, WithExplanation: explained}}, tail...)
			rest = strings.TrimSuffix(body, "\n\n")
		}
	}
	if rest != "" {
		out = append(out, fragmentSections(rest, est)...)
	}
	return append(out, tail...)
}

// firedInstructionsBlock renders the instructions block of the fired instructions, as
// instructionsBlock does from the file: global ones, then mode ones, each in order.
func firedInstructionsBlock(ds []Decision) string {
	var global, scoped []string
	for i := range ds {
		d := &ds[i]
		if d.Source != SourceInstruction || !d.Fired {
			continue
		}
		line := "- [" + d.Kind + "] [" + d.Scope + "] " + d.Text
		if cond := whenClause(d.When); cond != "" {
			line += " (" + cond + ")"
		}
		if d.Scope == "Always" {
			global = append(global, line)
		} else {
			scoped = append(scoped, line)
		}
	}
	if len(global)+len(scoped) == 0 {
		return ""
	}
	return "## Instructions\n" + strings.Join(append(global, scoped...), "\n")
}

// fragmentSections splits the fragments of a prompt by the names of the estimate's
// fragments, or returns them as one section.
func fragmentSections(text string, est *Estimate) []PromptSection {
	whole := []PromptSection{{Kind: SectionFragments, Text: text, Tokens: -1}}
	if est == nil {
		return whole
	}
	whole[0].Tokens = est.Fragments
	if len(est.EachFragment) == 0 {
		return whole
	}
	starts := make([]int, len(est.EachFragment))
	from := 0
	for i, f := range est.EachFragment {
		at := lineStarting(text, from, f.Name)
		if at < 0 || (i == 0 && at != 0) {
			return whole
		}
		starts[i] = at
		from = at + 1
	}
	out := make([]PromptSection, len(starts))
	for i, at := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		f := est.EachFragment[i]
		out[i] = PromptSection{Kind: SectionFragment, Name: f.Name, Text: strings.TrimRight(text[at:end], "\n"), Tokens: f.Tokens}
	}
	return out
}

// lineStarting returns the offset, at or after from, of the first line of text that opens
// the fragment name in one of the renderers' forms (<name>, ## Name, [name], name =,
// name:), or -1.
func lineStarting(text string, from int, name string) int {
	for at := from; at < len(text); {
		if at == 0 || text[at-1] == '\n' {
			if opens(text[at:], name) {
				return at
			}
		}
		nl := strings.IndexByte(text[at:], '\n')
		if nl < 0 {
			return -1
		}
		at += nl + 1
	}
	return -1
}

// opens reports whether line (and what follows it) starts with the opening of fragment
// name.
func opens(line, name string) bool {
	if nl := strings.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	for _, p := range []string{"<" + name + ">", "<" + name + " ", "[" + name + "]", "[[" + name + "]]", name + " =", name + ":", name + "["} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	if h, ok := strings.CutPrefix(line, "## "); ok {
		return strings.EqualFold(strings.ReplaceAll(h, " ", "_"), name) || strings.EqualFold(h, name)
	}
	return false
}
