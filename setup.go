package main

import (
	"context"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/llm/config"
	"github.com/ctxlab/ctxlab/store"
)

// options are the global flags as the application layer takes them.
func (a *app) options() ctxapp.Options {
	return ctxapp.Options{DB: a.flags.db, Flags: a.modelFlags()}
}

// modelFlags are the global flags that set the model.
func (a *app) modelFlags() config.Flags {
	return config.Flags{Model: a.flags.model, BaseURL: a.flags.baseURL, APIKeyEnv: a.flags.apiKeyEnv,
		Profile: a.flags.profile, Config: a.flags.config, ConnectTimeout: a.flags.connectTimeout,
		FirstTokenTimeout: a.flags.firstTokenTimeout, IdleTimeout: a.flags.idleTimeout}
}

// openDB opens the chat database, creating it (and the data directory) if needed.
func (a *app) openDB() (*store.DB, error) {
	w, err := ctxapp.Open(context.Background(), a.options())
	if err != nil {
		return nil, err
	}
	return w.Store(), nil
}

// openSavedDB opens the chat database for a command that only reads it: a database that
// does not exist is an error, not a new empty file (a mistyped --db creates nothing).
func (a *app) openSavedDB() (*store.DB, error) {
	w, err := ctxapp.OpenSaved(context.Background(), a.options())
	if err != nil {
		return nil, err
	}
	return w.Store(), nil
}
