package main

import (
	"context"
	"io"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/format"
)

// workbenchLibrary is the saved chats of the workbench's chats overlay, exported as
// `ctxlab export` writes them.
func workbenchLibrary(ws *ctxapp.Workspace, s ctxapp.Settings, model engine.Replier, file *ctxfile.File) *ctxapp.Library {
	return &ctxapp.Library{W: ws, Settings: s, Model: model, File: file,
		Export: func(ctx context.Context, w io.Writer, exportFormat, chatID string) error {
			return format.WriteChat(ctx, w, exportFormat, ws.Store(), chatID)
		}}
}

// recordedContext returns the context file recorded on the chat the workbench is asked to
// open (--chat ID, or --continue), "" when there is none or the database cannot tell
// (ctxapp.ChooseContext passes over a file that no longer exists). It opens the database
// only if it exists, and returns it open (the caller closes it; nil when it did not open
// it), so the workbench does not open it twice.
func (a *app) recordedContext(ctx context.Context, wf workbenchFlags) (string, *ctxapp.Workspace) {
	if wf.chat == "" && !wf.cont {
		return "", nil
	}
	ws, err := ctxapp.OpenSaved(ctx, ctxapp.Options{DB: a.flags.db, Flags: a.workbenchModelFlags()})
	if err != nil {
		return "", nil
	}
	id := wf.chat
	if id != "" {
		if id, err = ws.ResolveChat(ctx, id); err != nil {
			return "", ws // the workbench says why when it opens the chat
		}
	} else if id, err = ws.LastChat(ctx); err != nil || id == "" {
		return "", ws
	}
	return ws.RecordedContext(ctx, id), ws
}
