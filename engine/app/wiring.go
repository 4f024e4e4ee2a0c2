package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/llm"
	"github.com/ctxlab/ctxlab/llm/config"
	"github.com/ctxlab/ctxlab/llm/tokens"
)

// UsageError is input that cannot work and is not in a file: settings that name no model
// a server can give, for example. The headless commands exit with code 2 for it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ResolveSettings resolves the model settings from the flags, the environment, the config
// file and the context file's model block (file may be nil). Offline resolution (for what
// sends nothing) never runs api_key_cmd.
func ResolveSettings(flags Flags, file *ctxfile.File, offline bool) (Settings, error) {
	in := config.Inputs{Flags: flags, Offline: offline}
	if file != nil {
		in.Context = config.ContextModel(file.Model)
		in.ContextFile = file.Path
	}
	return config.Resolve(in)
}

// Settings resolves the model settings for a context file (nil for none) under the
// workspace's flags; see ResolveSettings.
func (w *Workspace) Settings(file *ctxfile.File, offline bool) (Settings, error) {
	return ResolveSettings(w.opt.Flags, file, offline)
}

// NewEngine builds an engine for a context file, a store and the resolved settings: their
// model, parameters, tokenizer and prices. now is the clock of turns sent without one (nil:
// time.Now).
func NewEngine(file *ctxfile.File, st engine.Store, s Settings, now func() time.Time) (*engine.Engine, error) {
	return newEngine(file, st, s, now, s.Counter())
}

// newEngine is NewEngine with a token counter.
func newEngine(file *ctxfile.File, st engine.Store, s Settings, now func() time.Time, counter engine.TokenCounter) (*engine.Engine, error) {
	return engine.New(engine.Options{
		Context: file,
		Store:   st,
		Tokens:  counter,
		Model:   s.ModelName(),
		Params: engine.Params{Temperature: s.Temperature.Value, TopP: s.TopP.Value,
			MaxTokens: s.MaxTokens.Value, Seed: s.Seed.Value},
		Cost: func(model string, u chat.Usage) (float64, bool) {
			return tokens.Cost(model, u, s.PriceOverride(model))
		},
		Now: now,
	})
}

// Engine builds an engine for a context file over the workspace's database.
func (w *Workspace) Engine(file *ctxfile.File, s Settings) (*engine.Engine, error) {
	return newEngine(file, w.db, s, w.opt.Now, w.counter(s))
}

// LiveModel returns the replier for turns without a scripted reply: the configured
// OpenAI-compatible server, or nil when none is configured.
func LiveModel(s Settings) engine.Replier {
	if !s.Configured() {
		return nil
	}
	return &engine.Live{Model: NewClient(s)}
}

// Model returns the live model for the settings, or nil when no server is configured. A
// server configured without a model name is asked for its models (see NameServerModel),
// which names the model in s.
func (w *Workspace) Model(ctx context.Context, s *Settings) (engine.Replier, error) {
	if !s.Configured() {
		return nil, nil
	}
	if !s.Model.IsSet() {
		if err := NameServerModel(ctx, s); err != nil {
			return nil, err
		}
	}
	return LiveModel(*s), nil
}

// NameServerModel names the model when a server is configured but no setting names one:
// a server that offers exactly one model (llama.cpp's server, a single-model vLLM) is
// asked for it; one that offers several or none is a *UsageError, with the names it
// offers.
func NameServerModel(ctx context.Context, s *Settings) error {
	list, err := NewClient(*s).Models(ctx)
	if err != nil {
		return fmt.Errorf("no model name is set, and asking the server for its models failed: %w", err)
	}
	const hint = "set one with --model, OPENAI_MODEL, a config profile or the context file's model.name"
	switch len(list) {
	case 1:
		s.UseServerModel(list[0])
		return nil
	case 0:
		return &UsageError{fmt.Sprintf("no model name is set and %s offers no model: %s", s.Server(), hint)}
	}
	shown := list
	if len(shown) > 10 {
		shown = append(shown[:10:10], fmt.Sprintf("… %d more", len(list)-10))
	}
	return &UsageError{fmt.Sprintf("no model name is set and %s offers %d models (%s): %s",
		s.Server(), len(list), strings.Join(shown, ", "), hint)}
}

// NewClient returns a client for the resolved server.
func NewClient(s Settings) *llm.Client {
	return llm.New(llm.Options{BaseURL: s.Endpoint(), APIKey: s.APIKey.Value.Reveal(), AllowHTTPKey: s.AllowHTTPKey.Value,
		ConnectTimeout: s.ConnectTimeout.Value, FirstTokenTimeout: s.FirstTokenTimeout.Value, IdleTimeout: s.IdleTimeout.Value})
}

// WireBody returns the JSON body the live model's client sends for r, byte for byte
// (llm.WireBody): the request's own JSON without an empty "tools" list, with "stream" and
// "stream_options". A front end shows it as the request on the wire; it holds no API key.
func WireBody(r *chat.Request) ([]byte, error) { return llm.WireBody(r) }

// Models lists the models the configured server offers.
func Models(ctx context.Context, s Settings) ([]string, error) {
	return NewClient(s).Models(ctx)
}

// ModelLabel names the model that answers turns under the settings, for a status line:
// "gpt-4o-mini @ 127.0.0.1:11434", or "SCRIPTED" when no server is configured.
func ModelLabel(s Settings) string {
	if !s.Configured() {
		return "SCRIPTED"
	}
	server := s.Server()
	if u, err := url.Parse(server); err == nil && u.Host != "" {
		server = u.Host
	}
	return s.ModelName() + " @ " + server
}

// ContextWindow returns the context window, in tokens, of a well-known model (known false
// for another); see tokens.ContextWindow.
func ContextWindow(model string) (int, bool) { return tokens.ContextWindow(model) }
