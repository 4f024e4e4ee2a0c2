package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/llm"
	"github.com/ctxlab/ctxlab/llm/config"
)

// liveModel returns the replier for turns without a scripted reply: the configured
// OpenAI-compatible server, or nil when none is configured.
func (a *app) liveModel(s config.Settings) (engine.Replier, error) {
	if !s.Configured() {
		return nil, nil
	}
	return &engine.Live{Model: newClient(s)}, nil
}

// nameServerModel names the model when a server is configured but no setting names one:
// a server that offers exactly one model (llama.cpp's server, a single-model vLLM) is
// asked for it; one that offers several or none is invalid input, with the names it offers.
func nameServerModel(ctx context.Context, s *config.Settings) error {
	list, err := newClient(*s).Models(ctx)
	if err != nil {
		return fmt.Errorf("no model name is set, and asking the server for its models failed: %w", err)
	}
	const hint = "set one with --model, OPENAI_MODEL, a config profile or the context file's model.name"
	switch len(list) {
	case 1:
		s.UseServerModel(list[0])
		return nil
	case 0:
		return &usageError{fmt.Sprintf("no model name is set and %s offers no model: %s", s.Server(), hint)}
	}
	shown := list
	if len(shown) > 10 {
		shown = append(shown[:10:10], fmt.Sprintf("… %d more", len(list)-10))
	}
	return &usageError{fmt.Sprintf("no model name is set and %s offers %d models (%s): %s",
		s.Server(), len(list), strings.Join(shown, ", "), hint)}
}

// newClient returns a client for the resolved server.
func newClient(s config.Settings) *llm.Client {
	return llm.New(llm.Options{BaseURL: s.Endpoint(), APIKey: s.APIKey.Value.Reveal(), ConnectTimeout: s.ConnectTimeout.Value,
		FirstTokenTimeout: s.FirstTokenTimeout.Value, IdleTimeout: s.IdleTimeout.Value})
}
