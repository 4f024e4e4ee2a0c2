package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

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
		FirstTokenTimeout: a.flags.firstTokenTimeout, IdleTimeout: a.flags.idleTimeout, AllowHTTPKey: a.flags.allowHTTPKey}
}

// openDB opens the chat database, creating it (and the data directory) if needed.
func (a *app) openDB() (*store.DB, error) {
	w, err := ctxapp.Open(context.Background(), a.options())
	if err != nil {
		return nil, err
	}
	return w.Store(), nil
}

// checkFlags refuses global flags given values that would silently mean something else:
// an empty --db (which would be the default database), and a timeout of 0 or less, all
// three alike: a timeout is a positive duration, and there is no "no limit" (leave the
// flag out for the profile's or the default).
func checkFlags(cmd *cobra.Command, _ []string) error {
	if f := cmd.Flags().Lookup("db"); f != nil && f.Changed && f.Value.String() == "" {
		return &usageError{"flag --db: empty path (leave the flag out for the default database, or give :memory: for none)"}
	}
	for _, name := range []string{"connect-timeout", "first-token-timeout", "idle-timeout"} {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d <= 0 {
			msg := fmt.Sprintf("flag --%s must be a positive duration like 90s, found %s", name, f.Value)
			if d == 0 {
				msg += " (there is no 'no limit': leave the flag out for the profile's or the default)"
			}
			return &usageError{msg}
		}
	}
	return nil
}
