package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/transcript"
	"github.com/ctxlab/ctxlab/store"
)

// The formats of ctxlab export.
const (
	formatJSON     = "json"
	formatMarkdown = "markdown"
	formatOpenAI   = "openai"
)

func (a *app) exportCommand() *cobra.Command {
	var format, out string
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
			switch format {
			case formatJSON, formatMarkdown, formatOpenAI:
			default:
				return &usageError{fmt.Sprintf("unknown --format %q (want json, markdown or openai)", format)}
			}
			db, err := a.openSavedDB()
			if err != nil {
				return err
			}
			defer db.Close()
			return writeOutput(out, a.stdout, func(w io.Writer) error {
				return exportChat(cmd.Context(), db, args[0], format, w)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", formatJSON, "json, markdown or openai")
	f.StringVarP(&out, "out", "o", "", "write to FILE instead of the standard output (replaced only when the export succeeds)")
	return cmd
}

// exportChat writes chat id of db to w in format.
func exportChat(ctx context.Context, db *store.DB, id, format string, w io.Writer) error {
	switch format {
	case formatJSON:
		e, err := db.ExportChat(ctx, id)
		if err != nil {
			return err
		}
		return e.Encode(w)
	case formatMarkdown:
		snap, err := db.Load(ctx, id, "", store.DetailStats)
		if err != nil {
			return err
		}
		branches, err := db.Branches(ctx, id)
		if err != nil {
			return err
		}
		checkpoints, err := db.Checkpoints(ctx, id)
		if err != nil {
			return err
		}
		return transcript.Markdown(w, transcript.Input{Chat: snap.Chat, Branch: snap.Branch.Name,
			Messages: pointers(snap.Messages), Turns: snap.Turns, Branches: branches,
			Checkpoints: checkpoints, Usage: snap.Usage})
	default:
		snap, err := db.Load(ctx, id, "", store.DetailLight)
		if err != nil {
			return err
		}
		msgs := transcript.OpenAI(pointers(snap.Messages))
		sys, ok := transcript.SystemMessage(snap.Chat)
		if !ok && len(snap.Turns) > 0 { // the system prompt of the branch's last request
			last, err := db.Turn(ctx, id, snap.Turns[len(snap.Turns)-1].ID)
			if err != nil {
				return err
			}
			sys, ok = chat.WireMessage{Role: chat.RoleSystem, Content: last.Request.SystemPrompt}, last.Request.SystemPrompt != ""
		}
		if ok {
			msgs = append([]chat.WireMessage{sys}, msgs...)
		}
		return transcript.WriteOpenAI(w, msgs)
	}
}

func pointers(ms []chat.Message) []*chat.Message {
	out := make([]*chat.Message, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
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
