package app

import (
	"context"
	"errors"

	"github.com/ctxlab/ctxlab/engine"
)

// ErrAskNoModel is `ctxlab ask` with no model configured: it has no scripted reply to fall
// back on.
var ErrAskNoModel = &UsageError{"ask needs a model, and none is configured: set --base-url (a local server) or " +
	"OPENAI_API_KEY with --model, or a config profile (see ctxlab config); or play a script whose turns " +
	"have scripted replies (assistant:) with ctxlab run"}

// AskRequest is one message to send to the model (`ctxlab ask`).
type AskRequest struct {
	// Text is the user's message.
	Text string
	// Context is the context file (--context); "" leaves it to ChooseContext: the file a
	// saved chat was last used with, else ./ctxlab.ctx.yaml, else none (a plain chat).
	Context string
	// Chat continues a saved chat on its active branch: an id, a unique prefix of one, or
	// "last" (see ResolveChat); "" starts a new chat.
	Chat string
	// OnEvent, when not nil, receives the turn's events as it runs, with the chat's id.
	OnEvent func(chatID string, ev engine.Event)
}

// AskResult is a message sent and its reply saved.
type AskResult struct {
	Turn *engine.TurnResult
	// Context is the context file the turn was sent under.
	Context ContextChoice
	// ChatID is the chat the turn was saved in; DBPath the database.
	ChatID, DBPath string
	// Branch is the branch the turn was saved on; Turns the branch's turn count.
	Branch string
	Turns  int
	// Unsaved says the reply came but could not be saved (the error says why): Turn holds
	// it as it would have been saved, and nothing of the turn is in the database.
	Unsaved bool
}

// Ask sends one message to the configured model, in a new chat or a saved one, and saves
// the turn. With no model configured it returns ErrAskNoModel before opening anything. A
// reply cut short is saved and returned with its error, as engine.Session.Send does; a
// reply that could not be saved is returned too (AskResult.Unsaved), with the error.
func Ask(ctx context.Context, opt Options, r AskRequest) (*AskResult, error) {
	choice := ChooseContext(r.Context, func() string { return savedChatContext(ctx, opt, r.Chat, true) })
	file, err := LoadContext(choice)
	if err != nil {
		return nil, err
	}
	settings, err := ResolveSettings(opt.Flags, file, false)
	if err != nil {
		return nil, err
	}
	if !settings.Configured() {
		return nil, ErrAskNoModel
	}
	w, err := Open(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	model, err := w.Model(ctx, &settings)
	if err != nil {
		return nil, err
	}
	eng, err := w.Engine(file, settings)
	if err != nil {
		return nil, err
	}
	var c *Chat
	if r.Chat == "" {
		c = w.NewChat(settings, eng, model)
	} else {
		id, err := w.ResolveChat(ctx, r.Chat)
		if err != nil {
			return nil, err
		}
		if c, err = w.OpenChat(ctx, settings, eng, model, id); err != nil {
			return nil, err
		}
	}
	var emit func(engine.Event)
	if r.OnEvent != nil {
		emit = func(ev engine.Event) { r.OnEvent(c.ID(), ev) }
	}
	res, err := c.Send(ctx, r.Text, emit)
	var unsaved *engine.UnsavedError
	if res == nil && errors.As(err, &unsaved) {
		// The reply came but could not be saved: it is returned, to be shown, with the error.
		return &AskResult{Turn: unsaved.Result, Context: choice, ChatID: c.ID(), DBPath: w.DBPath(), Unsaved: true}, err
	}
	if res == nil {
		return nil, err
	}
	sess := c.Session()
	return &AskResult{Turn: res, Context: choice, ChatID: c.ID(), DBPath: w.DBPath(), Branch: sess.Branch(), Turns: sess.TurnCount()}, err
}
