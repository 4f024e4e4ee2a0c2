package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// DefaultContextFile is the context file a command uses when nothing names one and the
// working directory holds it (ChooseContext); `ctxlab init` writes it.
const DefaultContextFile = "ctxlab.ctx.yaml"

// NoContextLabel names the context of a chat with no context file, where a file's name
// would be shown (the workbench's header).
const NoContextLabel = "no context file"

// ContextSource says where the context file a command runs on came from.
type ContextSource int

const (
	// ContextNone is no context file: a plain chat, with no system prompt, no tools and
	// no reminders.
	ContextNone ContextSource = iota
	// ContextNamed is a file named for the command: --context, or a script's context:.
	ContextNamed
	// ContextRecorded is the file a saved chat was last used with (recorded on the chat).
	ContextRecorded
	// ContextDefault is ./ctxlab.ctx.yaml (DefaultContextFile) in the working directory.
	ContextDefault
)

// ContextChoice is the context file a command runs on, as ChooseContext decides it.
type ContextChoice struct {
	// Path is the file; "" is none (Source is ContextNone).
	Path   string
	Source ContextSource
	// Gone is the file the saved chat was last used with, when it no longer exists and
	// was passed over ("" otherwise).
	Gone string
}

// Label names the choice in a line of the screen: the file's base name, or
// NoContextLabel.
func (c ContextChoice) Label() string {
	if c.Path == "" {
		return NoContextLabel
	}
	return filepath.Base(c.Path)
}

// ChooseContext decides which context file a command runs on. It is the one rule every
// command follows (the workbench, ask, prompt, run, config; spec/tui.md, "Starting"):
//
//  1. named, the file the command line (--context) or the script (context:) names;
//  2. else the file the saved chat being continued was last used with, which recorded
//     returns ("" for none; recorded may be nil: a new chat), when it still exists;
//  3. else ./ctxlab.ctx.yaml when the working directory holds it;
//  4. else none: a plain chat, with no system prompt and no tools (PlainContext).
//
// The demo context is never chosen: `ctxlab demo` alone uses it. recorded is called only
// when named is "", so the database is read only when the rule needs it. A file that
// exists but cannot be read is still chosen, so that loading it says what is wrong.
func ChooseContext(named string, recorded func() string) ContextChoice {
	if named != "" {
		return ContextChoice{Path: named, Source: ContextNamed}
	}
	var gone string
	if recorded != nil {
		if p := recorded(); p != "" {
			if exists(p) {
				return ContextChoice{Path: p, Source: ContextRecorded}
			}
			gone = p
		}
	}
	if exists(DefaultContextFile) {
		return ContextChoice{Path: DefaultContextFile, Source: ContextDefault, Gone: gone}
	}
	return ContextChoice{Source: ContextNone, Gone: gone}
}

// exists reports whether path names something: a file that is there but cannot be read
// counts, so that loading it reports why.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// PlainContext is the context of a chat with no context file: no fragments (so no system
// prompt), no tools, no reminders, no instructions.
func PlainContext() *ctxfile.File { return &ctxfile.File{Renderer: "xml"} }

// LoadContext loads the chosen context file (its errors are *diag.Error at FILE:LINE:COL),
// or returns PlainContext for none.
func LoadContext(c ContextChoice) (*ctxfile.File, error) {
	if c.Path == "" {
		return PlainContext(), nil
	}
	return ctxfile.Load(c.Path)
}

// RecordedContext returns the context file recorded on the saved chat with id (its
// absolute path), "" when none is recorded or the chat cannot be read (the command that
// opens the chat says why). It is what ChooseContext's recorded returns for a saved chat.
func (w *Workspace) RecordedContext(ctx context.Context, id string) string {
	path, err := w.ChatContext(ctx, id)
	if err != nil {
		return ""
	}
	return path
}
