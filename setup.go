package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/llm/config"
	"github.com/ctxlab/ctxlab/llm/tokens"
	"github.com/ctxlab/ctxlab/store"
)

// dbPath returns the chat database: --db, else $CTXLAB_DB, else ctxlab.db in the user's
// data directory ($XDG_DATA_HOME/ctxlab, ~/.local/share/ctxlab; on macOS
// ~/Library/Application Support/ctxlab; on Windows %LocalAppData%\ctxlab).
func (a *app) dbPath() (string, error) {
	if a.flags.db != "" {
		return a.flags.db, nil
	}
	if p := os.Getenv("CTXLAB_DB"); p != "" {
		return p, nil
	}
	dir, err := dataDir()
	if err != nil {
		return "", fmt.Errorf("find the data directory (use --db): %w", err)
	}
	return filepath.Join(dir, "ctxlab", "ctxlab.db"), nil
}

func dataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return d, nil
	}
	switch runtime.GOOS {
	case "darwin":
		return os.UserConfigDir() // ~/Library/Application Support
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return d, nil
		}
		return os.UserConfigDir()
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// openDB opens the chat database, creating it (and the data directory) if needed.
func (a *app) openDB() (*store.DB, error) {
	path, err := a.dbPath()
	if err != nil {
		return nil, err
	}
	if path != store.Memory && a.flags.db == "" && os.Getenv("CTXLAB_DB") == "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create the data directory: %w", err)
		}
	}
	return store.Open(path) // its errors name the file
}

// noDatabaseError is a read-only command pointed at a database that does not exist.
type noDatabaseError struct{ path string }

func (e *noDatabaseError) Error() string {
	return fmt.Sprintf("no database at %s (nothing saved there yet; check --db)", e.path)
}

// openSavedDB opens the chat database for a command that only reads it: a database that
// does not exist is an error, not a new empty file (a mistyped --db creates nothing).
func (a *app) openSavedDB() (*store.DB, error) {
	path, err := a.dbPath()
	if err != nil {
		return nil, err
	}
	if path != store.Memory {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, &noDatabaseError{path}
		}
	}
	return store.Open(path)
}

// settings resolves the model settings; offline commands never run api_key_cmd.
func (a *app) settings(file *ctxfile.File, offline bool) (config.Settings, error) {
	in := config.Inputs{
		Flags: config.Flags{Model: a.flags.model, BaseURL: a.flags.baseURL, APIKeyEnv: a.flags.apiKeyEnv,
			Profile: a.flags.profile, Config: a.flags.config, ConnectTimeout: a.flags.connectTimeout,
			FirstTokenTimeout: a.flags.firstTokenTimeout, IdleTimeout: a.flags.idleTimeout},
		Offline: offline,
	}
	if file != nil {
		in.Context = config.ContextModel(file.Model)
		in.ContextFile = file.Path
	}
	return config.Resolve(in)
}

// newEngine builds an engine for a context file, a store and the resolved settings.
func newEngine(file *ctxfile.File, st engine.Store, s config.Settings) (*engine.Engine, error) {
	return engine.New(engine.Options{
		Context: file,
		Store:   st,
		Tokens:  s.Counter(),
		Model:   s.ModelName(),
		Params: engine.Params{Temperature: s.Temperature.Value, TopP: s.TopP.Value,
			MaxTokens: s.MaxTokens.Value, Seed: s.Seed.Value},
		Cost: func(model string, u chat.Usage) (float64, bool) {
			return tokens.Cost(model, u, s.PriceOverride(model))
		},
	})
}

// chatCost prices a chat's usage, model by model; known is false when some model that
// used tokens has no price (the scripted model, a local model not in the table).
func chatCost(ctx context.Context, db *store.DB, s config.Settings, chatID string) (usd float64, known bool, err error) {
	byModel, err := db.PricedUsageByModel(ctx, chatID)
	if err != nil {
		return 0, false, err
	}
	known = len(byModel) > 0
	for model, u := range byModel {
		c, ok := tokens.Cost(model, u, s.PriceOverride(model))
		if !ok && u.Total() > 0 {
			known = false
		}
		usd += c
	}
	return usd, known, nil
}
