package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/engine/inert"
)

func (a *app) exportCommand() *cobra.Command {
	var exportFormat, out string
	cmd := &cobra.Command{
		Use:   "export CHAT --format json|markdown|openai",
		Short: "Write a saved chat as JSON (lossless), a Markdown transcript or OpenAI messages",
		Long: "export writes a saved chat:\n" +
			"  json      the whole chat, lossless: every message, branch, checkpoint and turn with its\n" +
			"            request and decisions (ctxlab import reads it back)\n" +
			"  markdown  a readable transcript of the active branch, the baked reminders marked\n" +
			"  openai    the active branch as an OpenAI messages array: the history the model was\n" +
			"            sent, baked reminders included, after the system prompt of its last\n" +
			"            request (or the one an import kept)",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var unknown *format.UnknownFormatError
			if err := format.CheckFormat(exportFormat); errors.As(err, &unknown) {
				return &usageError{fmt.Sprintf("unknown --format %q (want %s)", unknown.Format, unknown.Want)}
			}
			ws, err := ctxapp.OpenSaved(cmd.Context(), a.options())
			if err != nil {
				return err
			}
			defer ws.Close()
			id, err := ws.ResolveChat(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			write := func(ctx context.Context, w io.Writer, exportFormat, id string) error {
				return format.WriteChat(ctx, w, exportFormat, ws.Store(), id)
			}
			if fi, err := os.Stat(out); err == nil && fi.IsDir() {
				// A folder: a new file in it named after the chat, as the workbench names it.
				lib := &ctxapp.Library{W: ws, Export: write}
				path, err := lib.ExportFile(cmd.Context(), out, exportFormat, id)
				if err != nil {
					return err
				}
				fmt.Fprintln(a.stdout, inert.VisibleLine(path))
				return nil
			}
			return writeOutput(out, a.stdout, func(w io.Writer) error {
				return write(cmd.Context(), w, exportFormat, id)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&exportFormat, "format", format.JSON, "json, markdown or openai")
	f.StringVarP(&out, "out", "o", "", "write to FILE instead of the standard output (replaced only when the export succeeds); "+
		"to a folder, write a new file in it named after the chat's title, never over another, and print its path")
	cmd.ValidArgsFunction = a.completeChatIDs
	_ = cmd.RegisterFlagCompletionFunc("format", completeFormats) // fails only for an unknown flag
	return cmd
}

// writeOutput runs write on stdout (buffered), or on a temporary file beside path that
// replaces path only when write succeeds, so a failed export leaves no half file.
func writeOutput(path string, stdout io.Writer, write func(w io.Writer) error) error {
	if path == "" || path == "-" {
		bw := bufio.NewWriterSize(stdout, 256<<10)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing left to remove
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm() // replacing a file keeps its permissions
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
