// Package app is ctxlab's application layer: the one API the headless commands and the
// workbench share.
//
// A Workspace is an opened chat database with the global settings of the command line;
// from it come the resolved model settings, engines, the live model, the chat list and
// prices. A Chat is one chat opened for interactive use: an engine session plus the model
// that answers it, sending with typed events (engine.Event).
package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/ctxlab/ctxlab/llm/config"
	"github.com/ctxlab/ctxlab/llm/tokens"
	"github.com/ctxlab/ctxlab/store"
)

// Flags are the command-line flags that set the model (config.Flags).
type Flags = config.Flags

// Settings are resolved model settings with their sources (config.Settings).
type Settings = config.Settings

// Options open a workspace: what the global flags of every command give.
type Options struct {
	// DB is the chat database (--db); "" resolves $CTXLAB_DB, then ctxlab.db in the
	// user's data directory. store.Memory (":memory:") is a private in-memory database.
	DB string
	// Flags are the model flags.
	Flags Flags
	// Now is the clock of turns sent without one; nil is time.Now.
	Now func() time.Time
}

// Workspace is an opened chat database with the global settings: what a command or the
// workbench works in. It is not safe for concurrent use by several goroutines unless
// they only read.
type Workspace struct {
	opt  Options
	path string
	db   *store.DB
	// counters are the token counters of the engines it builds, by encoding.
	countersMu sync.Mutex
	counters   map[tokens.Encoding]*memoCounter
}

// Open opens the chat database, creating it (and the data directory, for the default
// path) if needed.
func Open(ctx context.Context, opt Options) (*Workspace, error) {
	return openWorkspace(ctx, opt, true)
}

// OpenSaved opens the chat database for a command that only reads it: a database that
// does not exist is an error (*NoDatabaseError), not a new empty file, so a mistyped --db
// creates nothing.
func OpenSaved(ctx context.Context, opt Options) (*Workspace, error) {
	return openWorkspace(ctx, opt, false)
}

func openWorkspace(ctx context.Context, opt Options, create bool) (*Workspace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := DBPath(opt.DB)
	if err != nil {
		return nil, err
	}
	open := store.Open
	switch {
	case path == store.Memory:
	case !create:
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, &NoDatabaseError{Path: path}
		}
		open = store.OpenExisting // an empty file stays empty
	case opt.DB == "" && os.Getenv("CTXLAB_DB") == "":
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create the data directory: %w", err)
		}
	}
	db, err := open(path) // its errors name the file
	if errors.Is(err, store.ErrNoDatabase) {
		return nil, &NoDatabaseError{Path: path, Empty: true}
	}
	if err != nil {
		return nil, err
	}
	return &Workspace{opt: opt, path: path, db: db}, nil
}

// NoDatabaseError is a read-only command pointed at a database that does not exist, or
// at a file with no database in it yet (Empty), which it leaves as it is.
type NoDatabaseError struct {
	Path  string
	Empty bool
}

func (e *NoDatabaseError) Error() string {
	if e.Empty {
		return fmt.Sprintf("no database in %s: the file is empty (check --db)", e.Path)
	}
	return fmt.Sprintf("no database at %s (nothing saved there yet; check --db)", e.Path)
}

// Where says what was found at the path: "no database at PATH", or "PATH is an empty
// file".
func (e *NoDatabaseError) Where() string {
	if e.Empty {
		return e.Path + " is an empty file"
	}
	return "no database at " + e.Path
}

// Close closes the database.
func (w *Workspace) Close() error { return w.db.Close() }

// DBPath returns the path of the workspace's database.
func (w *Workspace) DBPath() string { return w.path }

// Store returns the database, for the commands the application layer does not cover yet
// (import and export). The workbench does not need it.
func (w *Workspace) Store() *store.DB { return w.db }

// DBPath resolves the chat database: flag (--db) when set, else $CTXLAB_DB, else ctxlab.db
// in the user's data directory ($XDG_DATA_HOME/ctxlab when it is an absolute path, else
// ~/.local/share/ctxlab; on macOS ~/Library/Application Support/ctxlab; on Windows
// %LocalAppData%\ctxlab).
func DBPath(flag string) (string, error) {
	if flag != "" {
		return flag, nil
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
	// A relative $XDG_DATA_HOME is ignored, as the XDG base directory rules say: the
	// database would move with the working directory.
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
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
