package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/store"
)

func (a *app) importCommand() *cobra.Command {
	var newID bool
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import a chat: a ctxlab JSON export, or an OpenAI messages array as a new chat",
		Long: "import reads FILE and saves it as a chat, then prints the chat's id:\n" +
			"  - a JSON export of ctxlab (ctxlab export --format json), with every branch, checkpoint\n" +
			"    and turn, under its own id (--new-id: under a fresh id, beside the original);\n" +
			"  - an OpenAI messages array (or a request body with a \"messages\" array), as a new chat\n" +
			"    with a fresh id on branch main; a leading system (or developer) message is kept in the\n" +
			"    chat's metadata as system_prompt; a last user message, not answered, is the branch's head.\n" +
			"A file that cannot be imported, or that holds a chat ctxlab would not have made, is reported\n" +
			"as FILE:LINE:COL: problem, and nothing is written.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			// Reading and checking a large file takes seconds and writes nothing: a
			// signal ends the command at once rather than after it.
			imp, err := untilDone(cmd.Context(), "import "+path, func() (*format.ImportFile, error) {
				return format.ReadImportFile(path, format.ImportOptions{NewID: newID})
			})
			if err != nil {
				return err
			}
			db, err := a.openDB()
			if err != nil {
				return err
			}
			defer db.Close()
			if err := imp.Save(cmd.Context(), db); err != nil {
				if errors.Is(err, store.ErrConflict) {
					return fmt.Errorf("%s: %w; import it beside the existing chat with --new-id", path, err)
				}
				return err
			}
			_, err = fmt.Fprintln(a.stdout, imp.Export.Chat.ID)
			return err
		},
	}
	cmd.Flags().BoolVar(&newID, "new-id", false, "import a ctxlab export under a new chat id (an OpenAI array always gets one)")
	return cmd
}

// untilDone returns f's result, or ctx's error (after what) as soon as ctx is done (a
// signal), leaving f to finish unobserved: f must write nothing (the process is about to
// exit).
func untilDone[T any](ctx context.Context, what string, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%s: %w", what, ctx.Err())
	}
}
