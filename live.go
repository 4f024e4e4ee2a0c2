package main

import (
	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/llm/config"
)

// liveModel returns the replier for turns without a scripted reply, or nil when no model
// is configured.
func (a *app) liveModel(s config.Settings) (engine.Replier, error) {
	if !s.Configured() {
		return nil, nil
	}
	return nil, errNoLiveModel
}
