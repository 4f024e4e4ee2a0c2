package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// File returns the context file the chat's engine was built for.
func (c *Chat) File() *ctxfile.File { return c.e.File() }

// recordAfter records the context file after a turn that saved something (a result, with
// or without an error).
func (c *Chat) recordAfter(ctx context.Context) func(*engine.TurnResult, error) (*engine.TurnResult, error) {
	return func(r *engine.TurnResult, err error) (*engine.TurnResult, error) {
		if r != nil {
			if rerr := c.recordContext(ctx); err == nil && rerr != nil {
				err = fmt.Errorf("record the context file: %w", rerr)
			}
		}
		return r, err
	}
}

// Reload puts the chat on another context file (a reloaded one): a new engine over the
// same database and settings, the chat reopened on it (engine.Reopen: its branches are not
// read again unless another writer moved them). A saved chat keeps the branch the
// session has loaded; a chat not saved yet stays new, with its id and title. The file's
// path is recorded on a saved chat (see Workspace.ChatContext). On error the chat stays
// on its old file.
func (c *Chat) Reload(ctx context.Context, file *ctxfile.File) error {
	if file == nil {
		return errors.New("reload: no context file")
	}
	e, err := c.w.Engine(file, c.settings)
	if err != nil {
		return fmt.Errorf("reload %s: %w", file.Path, err)
	}
	if !c.sess.Saved() {
		c.sess, c.e = e.Start(chat.Chat{ID: c.sess.Chat().ID, Title: c.sess.Chat().Title}), e
		return nil
	}
	branch := c.sess.Branch()
	sess, err := e.Reopen(ctx, c.sess) // what the session holds is read again only if it moved
	if err != nil {
		return fmt.Errorf("reload %s: %w", file.Path, err)
	}
	if sess.Branch() != branch {
		if err := sess.Switch(ctx, branch); err != nil {
			return fmt.Errorf("reload %s: %w", file.Path, err)
		}
	}
	c.sess, c.e = sess, e
	c.recorded = false
	return c.recordContext(ctx)
}

// recordContext records the chat's context file (its absolute path) on a saved chat, once
// per file.
func (c *Chat) recordContext(ctx context.Context) error {
	if c.recorded || !c.sess.Saved() {
		return nil
	}
	if err := recordChatContext(ctx, c.w, c.ID(), c.File().Path); err != nil {
		return err
	}
	c.recorded = true
	return nil
}

// recordChatContext records path, made absolute, as the context file of saved chat id
// (nothing for an empty path).
func recordChatContext(ctx context.Context, w *Workspace, id, path string) error {
	if path == "" {
		return nil
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return w.db.SetChatContext(ctx, id, path)
}

// Reevaluate returns the trace of every turn of the chat's active branch re-evaluated
// under file, exactly as `ctxlab replay --json --context FILE` gives them (engine.Replay
// with re-evaluation): each decision that changes carries Was, and what the file no
// longer has is in Removed. A chat not saved yet has none.
func (c *Chat) Reevaluate(ctx context.Context, file *ctxfile.File) ([]engine.Trace, error) {
	return c.Reevaluation(file, nil)(ctx)
}

// Reevaluation returns Reevaluate for the chat as it is now, to run later without the
// chat, so it can run while the chat moves to the file (Reload) or sends: it re-evaluates
// the branch the chat's session has loaded, on the messages it has loaded (only the turn
// records are read from the database), with an engine of its own for file, as replay
// --context does. progress (nil: none) is called from the goroutine that runs it after
// each turn, with the turns done and their number.
func (c *Chat) Reevaluation(file *ctxfile.File, progress func(done, total int)) func(context.Context) ([]engine.Trace, error) {
	if !c.sess.Saved() {
		return func(context.Context) ([]engine.Trace, error) { return nil, nil }
	}
	w, ch, branch, n := c.w, c.sess.Chat(), c.sess.Branch(), c.sess.TurnCount()
	msgs := c.sess.Messages()
	path := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		path[i] = *m
	}
	return func(ctx context.Context) ([]engine.Trace, error) {
		s, err := w.Settings(file, true)
		if err != nil {
			return nil, err
		}
		e, err := w.Engine(file, s)
		if err != nil {
			return nil, err
		}
		out := make([]engine.Trace, 0, n)
		err = e.ReplayPath(ctx, ch, branch, path, true, func(t *engine.Trace) error {
			out = append(out, *t)
			if progress != nil {
				progress(len(out), max(n, len(out)))
			}
			return nil
		})
		return out, err
	}
}

// ChatContext returns the context file recorded on a saved chat ("" when none is).
func (w *Workspace) ChatContext(ctx context.Context, chatID string) (string, error) {
	return w.db.ChatContext(ctx, chatID)
}

// RenameChat sets a saved chat's title.
func (w *Workspace) RenameChat(ctx context.Context, chatID, title string) error {
	return w.db.RenameChat(ctx, chatID, title)
}

// DeleteChat removes a saved chat and everything of it, in one transaction.
func (w *Workspace) DeleteChat(ctx context.Context, chatID string) error {
	return w.db.DeleteChat(ctx, chatID)
}
