package main

import (
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

// newClient returns a client for the resolved server.
func newClient(s config.Settings) *llm.Client {
	return llm.New(llm.Options{BaseURL: s.Endpoint(), APIKey: s.APIKey.Value.Reveal()})
}
