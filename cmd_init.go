package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/inert"
)

// starterContext is the context file `ctxlab init` writes: one of each part a new user
// needs first (a fragment, an instruction, a reminder with a condition), each explained,
// and pointers to the reference. A test loads it with the real loader.
const starterContext = `# A context file: everything ctxlab puts around your messages before the model sees
# them. In this folder, ctxlab uses it by itself (the workbench, ask, prompt and run,
# unless --context names another file). Edit it while the workbench runs: it reloads
# the file when you save it and shows, turn by turn, what would have changed.
#
# See what it produces, sending nothing:  ctxlab prompt --user "why did it fail?"
# Every key and fragment kind: CONTEXT-FILE.md; every condition: PREDICATES.md
# (https://github.com/ctxlab/ctxlab/blob/main/CONTEXT-FILE.md)

version: 1

# The model's defaults, if you want some; flags, the environment (OPENAI_MODEL, ...)
# and the config file override them ("ctxlab config" shows what is used).
# model: {name: gpt-4o-mini, temperature: 0.2}

# The system prompt, as a list of fragments, each written by the renderer (xml by
# default). Other kinds: guardrail, workflow, example, glossary, fragment with data or
# a file, ... (CONTEXT-FILE.md, "system: fragments").
system:
  - role: You are a helpful assistant.
  - hint: Answer briefly, and say so when you are not sure.

# Rules written into the system prompt under "## Instructions". kind is must, never
# or should; an if: condition, checked by ctxlab every turn, can leave a rule out.
instructions:
  - id: cite-sources
    kind: must
    prompt: Name the source of any figure you give.

# Texts added to a turn only when their when: condition holds (PREDICATES.md). The
# workbench's Why tab shows, for every turn, which fired and why the others did not.
reminders:
  - id: ask-for-the-error
    text: Ask for the exact error message before guessing at a cause.
    when: contentIncludes(['error', 'fail'])
`

// initCommand is `ctxlab init [PATH]`: it writes a starter context file, never over an
// existing one.
func (a *app) initCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "init [PATH]",
		Short: "Write a commented starter context file (default ./" + ctxapp.DefaultContextFile + "), never over an existing one",
		Long: "init writes a starter context file, with a fragment, an instruction and a reminder, each\n" +
			"explained, to PATH (a folder: " + ctxapp.DefaultContextFile + " in it; default: ./" + ctxapp.DefaultContextFile + ").\n" +
			"In the folder that holds ./" + ctxapp.DefaultContextFile + ", every command uses it when --context\n" +
			"names no other file. An existing file is never overwritten.",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.MaximumNArgs(1)(cmd, args); err != nil {
				return &usageError{err.Error()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ctxapp.DefaultContextFile
			if len(args) == 1 && args[0] != "" {
				path = args[0]
				if fi, err := os.Stat(path); err == nil && fi.IsDir() {
					path = filepath.Join(path, ctxapp.DefaultContextFile)
				}
			}
			if err := writeNewFile(path, []byte(starterContext)); err != nil {
				return err
			}
			use, prompt := "ctxlab", `ctxlab prompt --user "hello"`
			if !samePath(path, ctxapp.DefaultContextFile) { // not the file every command finds
				use += " --context " + path
				prompt = "ctxlab prompt --context " + path + ` --user "hello"`
			}
			w := max(len(prompt), len(use))
			fmt.Fprintf(a.stdout, "wrote %s: a starter context file (a fragment, an instruction, a reminder)\n", inert.VisibleLine(path))
			fmt.Fprintf(a.stdout, "  %-*s   shows the system prompt it makes, sending nothing\n", w, inert.VisibleLine(prompt))
			fmt.Fprintf(a.stdout, "  %-*s   opens the workbench on it (it reloads the file when you save it)\n", w, inert.VisibleLine(use))
			fmt.Fprintln(a.stdout, "Every key it can hold: CONTEXT-FILE.md")
			return nil
		},
	}
}

// writeNewFile creates path with data; a path that exists is a *usageError (exit 2) and
// is left as it is. A failed write removes the file it created.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return &usageError{fmt.Sprintf("%s already exists: init never overwrites a file (remove it, or give another path)", path)}
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	return nil
}

// samePath reports whether two paths name the same file once made absolute.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
