package engine

import (
	"strings"

	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// explanation closes the system prompt of a file with reminders, so the model knows what
// the <system-reminder> blocks in its messages are.
const explanation = "Some messages contain <system-reminder>…</system-reminder> blocks. " +
	"The application adds them, not the user, to give you context and guidance for the current turn. " +
	"Read them and follow them when they apply, but do not quote them or mention them to the user."

// scopeOf returns the caption of an instruction without brackets: Always or In: Mode.
func scopeOf(in *ctxfile.Instruction) string {
	if in.Mode == "" {
		return "Always"
	}
	return "In: " + in.Mode
}

// instructionLine renders one applied instruction as a bullet of the instructions block.
func instructionLine(in *ctxfile.Instruction) string {
	var b strings.Builder
	b.WriteString("- [")
	b.WriteString(in.Kind)
	b.WriteString("] [")
	b.WriteString(scopeOf(in))
	b.WriteString("] ")
	b.WriteString(in.Prompt)
	if cond := whenClause(in.When); cond != "" {
		b.WriteString(" (")
		b.WriteString(cond)
		b.WriteString(")")
	}
	return b.String()
}

// whenClause renders model-judged conditions: positive ones joined with OR after "apply
// only when:", exclusions (written "!…") joined with OR after "do not apply when:".
func whenClause(when []string) string {
	var pos, neg []string
	for _, w := range when {
		if rest, ok := strings.CutPrefix(w, "!"); ok {
			neg = append(neg, strings.TrimSpace(rest))
		} else {
			pos = append(pos, strings.TrimSpace(w))
		}
	}
	var parts []string
	if len(pos) > 0 {
		parts = append(parts, "apply only when: "+strings.Join(pos, " OR "))
	}
	if len(neg) > 0 {
		parts = append(parts, "do not apply when: "+strings.Join(neg, " OR "))
	}
	return strings.Join(parts, "; ")
}

// instructionsBlock renders the applied instructions: global ones, then mode ones, each in
// file order. It is empty when none applies.
func instructionsBlock(file *ctxfile.File, applied []bool) string {
	var global, scoped []string
	for i := range file.Instructions {
		if !applied[i] {
			continue
		}
		in := &file.Instructions[i]
		if in.Mode == "" {
			global = append(global, instructionLine(in))
		} else {
			scoped = append(scoped, instructionLine(in))
		}
	}
	if len(global)+len(scoped) == 0 {
		return ""
	}
	return "## Instructions\n" + strings.Join(append(global, scoped...), "\n")
}
