package app

import (
	"context"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// Chat is one chat opened for interactive use (the workbench): an engine session plus the
// model that answers it (nil: the user writes the replies). It is not safe for concurrent
// use: one goroutine sends at a time.
type Chat struct {
	w        *Workspace
	settings Settings
	sess     *engine.Session
	model    engine.Replier
	// e is the engine of sess; recorded says its file's path is recorded on the chat.
	e        *engine.Engine
	recorded bool
}

// NewChat starts a new chat (engine.Start): it is saved with its first turn, so a first
// turn that fails leaves nothing behind. s are the settings e was built with (for prices
// and the model's label); model answers live sends (nil: none configured).
func (w *Workspace) NewChat(s Settings, e *engine.Engine, model engine.Replier) *Chat {
	return &Chat{w: w, settings: s, sess: e.Start(chat.Chat{}), model: model, e: e}
}

// OpenChat opens a saved chat on its active branch; see NewChat for s and model.
func (w *Workspace) OpenChat(ctx context.Context, s Settings, e *engine.Engine, model engine.Replier, id string) (*Chat, error) {
	sess, err := e.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	return &Chat{w: w, settings: s, sess: sess, model: model, e: e}, nil
}

// Session returns the engine session, for reading: Messages, Turns, Branch, Chat, Head,
// TurnCount. Send through the Chat, which delivers events.
func (c *Chat) Session() *engine.Session { return c.sess }

// ID returns the chat's id (set before it is saved).
func (c *Chat) ID() string { return c.sess.Chat().ID }

// Scripted reports whether no model is configured: every reply is written by the user.
func (c *Chat) Scripted() bool { return c.model == nil }

// ModelLabel names what answers the chat: "gpt-4o-mini @ 127.0.0.1:11434", or "SCRIPTED".
func (c *Chat) ModelLabel() string {
	if c.model == nil {
		return "SCRIPTED"
	}
	return ModelLabel(c.settings)
}

// Preview is the trace of the turn that sending text at at (zero: now) would make: steps
// 1 to 4 of the pipeline (decisions, system prompt, request, estimate). Nothing is sent or
// saved, and no counter or latch moves.
func (c *Chat) Preview(text string, at time.Time) engine.Trace {
	return engine.PlanTrace(c.ID(), c.sess.Preview(engine.UserInput{Text: text, At: at}))
}

// Send sends text to the live model, delivering the turn's events to emit (nil: none). It
// returns ErrNoServer in a scripted chat. As engine.Session.Send, a reply cut short is
// saved and returned with its error.
func (c *Chat) Send(ctx context.Context, text string, emit func(engine.Event)) (*engine.TurnResult, error) {
	if c.model == nil {
		return nil, ErrNoServer
	}
	return c.recordAfter(ctx)(c.sess.Send(ctx, engine.UserInput{Text: text}, c.model, engine.WithEvents(emit)))
}

// SaveAgain saves a turn whose reply came but could not be saved (engine.Session.SaveAgain).
func (c *Chat) SaveAgain(ctx context.Context, u *engine.UnsavedError) (*engine.TurnResult, error) {
	return c.recordAfter(ctx)(c.sess.SaveAgain(ctx, u))
}

// SendScripted sends text with a reply the user wrote (engine.Scripted): nothing is asked
// of a model.
func (c *Chat) SendScripted(ctx context.Context, text, reply string, emit func(engine.Event)) (*engine.TurnResult, error) {
	return c.recordAfter(ctx)(c.sess.Send(ctx, engine.UserInput{Text: text}, &engine.Scripted{Text: reply}, engine.WithEvents(emit)))
}

// SendUnanswered saves text as a user message with no reply: a turn with no assistant
// message, as replay shows it (engine.Session.SendUnanswered).
func (c *Chat) SendUnanswered(ctx context.Context, text string) error {
	if _, err := c.sess.SendUnanswered(ctx, engine.UserInput{Text: text}); err != nil {
		return err
	}
	return c.recordContext(ctx)
}

// Traces returns the recorded trace of every turn of the active branch, exactly as
// `ctxlab replay --json` gives them (engine.Replay without re-evaluation). A chat not
// saved yet has none.
func (c *Chat) Traces(ctx context.Context) ([]engine.Trace, error) {
	if !c.sess.Saved() {
		return nil, nil
	}
	var out []engine.Trace
	err := c.w.Replay(ctx, c.ID(), nil, func(t *engine.Trace) error {
		out = append(out, *t)
		return nil
	})
	return out, err
}

// Branches lists the chat's branches with their turn counts and heads (none before the
// chat is saved).
func (c *Chat) Branches(ctx context.Context) ([]chat.BranchInfo, error) {
	if !c.sess.Saved() {
		return nil, nil
	}
	return c.sess.Branches(ctx)
}

// Switch makes another branch the active one.
func (c *Chat) Switch(ctx context.Context, branch string) error { return c.sess.Switch(ctx, branch) }

// Usage returns the chat's accumulated usage over all branches.
func (c *Chat) Usage() chat.Usage { return c.sess.Usage() }

// Cost prices the chat's usage (every branch); known is false when the price of a model
// it used is unknown, or the chat is not saved yet.
func (c *Chat) Cost(ctx context.Context) (usd float64, known bool, err error) {
	if !c.sess.Saved() {
		return 0, false, nil
	}
	return c.w.ChatCost(ctx, c.settings, c.ID())
}

// replayFile is the context file of a replay that does not re-evaluate: the recorded
// turns carry what they need.
var replayFile = ctxfile.File{Renderer: "xml"}

// Replay walks the active branch of a saved chat and calls fn with each turn's trace
// (engine.Replay): as recorded when file is nil, else re-evaluated under file. The
// settings are resolved offline under the workspace's flags (and file).
func (w *Workspace) Replay(ctx context.Context, chatID string, file *ctxfile.File, fn func(*engine.Trace) error) error {
	e, err := w.replayEngine(file)
	if err != nil {
		return err
	}
	return e.Replay(ctx, chatID, file != nil, fn)
}

// replayEngine is the engine of a replay under file (nil: as recorded), with the
// settings resolved offline under the workspace's flags.
func (w *Workspace) replayEngine(file *ctxfile.File) (*engine.Engine, error) {
	if file == nil {
		f := replayFile
		file = &f
	}
	s, err := w.Settings(file, true)
	if err != nil {
		return nil, err
	}
	return w.Engine(file, s)
}

// replier is the live model, or the user's reply when reply is not nil.
func (c *Chat) replier(reply *string) (engine.Replier, error) {
	if reply != nil {
		return &engine.Scripted{Text: *reply}, nil
	}
	if c.model == nil {
		return nil, ErrNoServer
	}
	return c.model, nil
}

// Edit replaces turn n's user message with text: a new branch from its parent, switched
// to, where text is sent as a new turn, answered by the live model, or by reply when it is
// not nil (the user's). It delivers the turn's events to emit (nil: none).
func (c *Chat) Edit(ctx context.Context, n int, text string, reply *string, emit func(engine.Event)) (*engine.TurnResult, error) {
	r, err := c.replier(reply)
	if err != nil {
		return nil, err
	}
	return c.recordAfter(ctx)(c.sess.Edit(ctx, n, engine.UserInput{Text: text}, r, engine.WithEvents(emit)))
}

// Regenerate asks again for the branch's last reply, on a new branch switched to: from the
// live model, or reply when it is not nil (the user's). It delivers the turn's events to
// emit (nil: none).
func (c *Chat) Regenerate(ctx context.Context, reply *string, emit func(engine.Event)) (*engine.TurnResult, error) {
	r, err := c.replier(reply)
	if err != nil {
		return nil, err
	}
	return c.recordAfter(ctx)(c.sess.Regenerate(ctx, r, time.Time{}, engine.WithEvents(emit)))
}

// Rewind makes a new branch at turn n's reply and switches to it.
func (c *Chat) Rewind(ctx context.Context, n int) error { return c.sess.Rewind(ctx, n) }

// Checkpoint names the head of the active branch.
func (c *Chat) Checkpoint(ctx context.Context, name string) error {
	return c.sess.Checkpoint(ctx, name)
}

// Restore makes a new branch at a checkpoint and switches to it.
func (c *Chat) Restore(ctx context.Context, name string) error { return c.sess.Restore(ctx, name) }
