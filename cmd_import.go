package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/jsonpos"
	"github.com/ctxlab/ctxlab/engine/transcript"
	"github.com/ctxlab/ctxlab/store"
)

func (a *app) importCommand() *cobra.Command {
	var newID bool
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import a chat: a ctxlab JSON export, or an OpenAI messages array as a new chat",
		Long: "import reads FILE and saves it as a chat, then prints the chat's id:\n" +
			"  - a JSON export of ctxlab (ctxlab export --format json), with every branch, checkpoint\n" +
			"    and turn, under its own id (--new-id: under a fresh id, beside the original);\n" +
			"  - an OpenAI messages array (or a request body with a \"messages\" array), as a new chat\n" +
			"    with a fresh id on branch main; a leading system (or developer) message is kept in the\n" +
			"    chat's metadata as system_prompt; a last user message, not answered, is the branch's head.\n" +
			"A file that cannot be imported, or that holds a chat ctxlab would not have made, is reported\n" +
			"as FILE:LINE:COL: problem, and nothing is written.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			imp, err := readImport(path, time.Now().UTC(), newID)
			if err != nil {
				return err
			}
			db, err := a.openDB()
			if err != nil {
				return err
			}
			defer db.Close()
			if err := db.ImportChat(cmd.Context(), imp.export); err != nil {
				if errors.Is(err, store.ErrConflict) {
					return fmt.Errorf("%s: %w; import it beside the existing chat with --new-id", path, err)
				}
				var ee *store.ExportError
				if errors.As(err, &ee) { // checked by readImport: not expected here
					return imp.exportError(path, ee)
				}
				return err
			}
			_, err = fmt.Fprintln(a.stdout, imp.export.Chat.ID)
			return err
		},
	}
	cmd.Flags().BoolVar(&newID, "new-id", false, "import a ctxlab export under a new chat id (an OpenAI array always gets one)")
	return cmd
}

// newUUID returns a new time-ordered id (UUIDv7), for chats and messages.
func newUUID() string { return uuid.Must(uuid.NewV7()).String() }

// importFile is an import file read and checked: the chat it holds, as an export ready for
// ImportChat, and the file's bytes, to place a problem of the chat in it.
type importFile struct {
	export   store.Export
	isExport bool   // a ctxlab export (not an OpenAI array)
	data     []byte // the file, without a byte order mark
	start    int64  // the offset of its top-level value
}

// loadImport reads and checks an import file and returns it as an export ready for
// ImportChat, and whether the file was one (not an OpenAI array). See readImport.
func loadImport(path string, now time.Time) (store.Export, bool, error) {
	imp, err := readImport(path, now, false)
	return imp.export, imp.isExport, err
}

// readImport reads an import file and checks all of it, as ImportChat will, before any
// database is opened; a ctxlab export gets a new chat id with newID. Every problem of the
// file is a *diag.Error (exit code 2) at the line and column of the offending value: the
// character a syntax error is about, the end of a truncated file, the key of an unknown
// field, the value of a wrong type or of a reference to nothing (a branch head, the active
// branch, a message's parent), the start of the file for a problem of the whole file.
func readImport(path string, now time.Time, newID bool) (importFile, error) {
	b, err := readImportFile(path)
	if err != nil {
		return importFile{}, err
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a byte order mark, as some editors write
	imp := importFile{data: b, start: jsonpos.Start(b)}
	at := func(off int64, format string, args ...any) error {
		line, col := jsonpos.LineCol(b, off)
		return &diag.Error{File: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	if imp.start == int64(len(b)) {
		return imp, at(0, "the file is empty; want a ctxlab chat export or an OpenAI messages array")
	}
	if b[imp.start] == '{' {
		var probe struct {
			Format   present `json:"format"`
			Messages present `json:"messages"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				return imp, jsonSyntaxError(path, b, syn)
			}
		}
		switch {
		case bool(probe.Format):
			imp.isExport = true
			e, err := store.DecodeExport(b)
			if err != nil {
				return imp, imp.placeError(path, err)
			}
			if newID {
				e = e.WithChatID(newUUID())
			}
			imp.export = e
			if err := store.CheckExport(&imp.export); err != nil {
				return imp, imp.placeError(path, err)
			}
			return imp, nil
		case !bool(probe.Messages):
			return imp, at(imp.start, `neither a ctxlab chat export (no "format") nor an OpenAI request (no "messages")`)
		}
	}
	arr, err := transcript.DecodeOpenAI(b)
	if err != nil {
		return imp, openAIError(b, path, err)
	}
	im, err := transcript.FromOpenAI(arr.Messages, newUUID, now)
	if err != nil {
		return imp, openAIError(b, path, err)
	}
	if len(im.Messages) == 0 {
		return imp, at(imp.start, "no messages to import")
	}
	meta := map[string]any{"imported_from": filepath.Base(path)}
	if im.HasSystem {
		meta[transcript.MetaSystemPrompt] = im.System
	}
	title := ""
	for i := range im.Messages {
		if im.Messages[i].Role == chat.RoleUser {
			title = chat.TitleFrom(transcript.UserText(&im.Messages[i]))
			break
		}
	}
	if title == "" {
		title = chat.TitleFrom(filepath.Base(path))
	}
	imp.export = store.Export{
		Format: store.ExportFormat, Version: store.ExportVersion,
		Chat: chat.Chat{ID: newUUID(), Title: title, Metadata: meta, ActiveBranch: store.DefaultBranch,
			CreatedAt: now, UpdatedAt: now},
		Messages:    im.Messages,
		Branches:    []chat.Branch{{Name: store.DefaultBranch, Head: im.Messages[len(im.Messages)-1].ID, CreatedAt: now}},
		Checkpoints: []chat.Checkpoint{},
		Turns:       []chat.Turn{},
	}
	if err := store.CheckExport(&imp.export); err != nil {
		return imp, imp.placeError(path, err)
	}
	return imp, nil
}

// present records whether a key is in a JSON object, without copying its value.
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

// placeError returns an error of store.DecodeExport or CheckExport as a *diag.Error.
func (imp *importFile) placeError(path string, err error) error {
	var ee *store.ExportError
	if errors.As(err, &ee) {
		return imp.exportError(path, ee)
	}
	line, col := jsonpos.LineCol(imp.data, imp.start)
	return &diag.Error{File: path, Line: line, Col: col, Msg: err.Error()}
}

// exportError places a problem of the export in the file: where it says, for a ctxlab
// export; at the start for a chat made from an OpenAI array (whose JSON is not the file's,
// and which FromOpenAI has checked: not expected).
func (imp *importFile) exportError(path string, ee *store.ExportError) error {
	line, col := jsonpos.LineCol(imp.data, imp.start)
	if imp.isExport {
		line, col = ee.Locate(imp.data)
	}
	return &diag.Error{File: path, Line: line, Col: col, Msg: ee.Msg}
}

// readImportFile reads a file of at most store.MaxExportSize bytes.
func readImportFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &diag.Error{File: path, Msg: "cannot read: " + strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > store.MaxExportSize {
		return nil, &diag.Error{File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d bytes", int64(store.MaxExportSize))}
	}
	b, err := io.ReadAll(io.LimitReader(f, store.MaxExportSize+1))
	if err != nil {
		return nil, &diag.Error{File: path, Msg: "cannot read: " + err.Error()}
	}
	if len(b) > store.MaxExportSize {
		return nil, &diag.Error{File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d bytes", int64(store.MaxExportSize))}
	}
	return b, nil
}

// openAIError places an error of transcript.DecodeOpenAI or FromOpenAI in the file: at
// the value of the message it names that it is about (a role, a content part, a tool
// call's id, a value of the wrong type), else at the start of that message, else at its
// offset.
func openAIError(b []byte, path string, err error) error {
	var te *transcript.Error
	if !errors.As(err, &te) {
		line, col := jsonpos.LineCol(b, jsonpos.Start(b))
		return &diag.Error{File: path, Line: line, Col: col, Msg: err.Error()}
	}
	off := te.Offset
	if te.Index >= 0 {
		// The message: an element of the top-level array, or of the "messages" array.
		msg := jsonpos.Path{te.Index}
		if s := jsonpos.Start(b); s < int64(len(b)) && b[s] == '{' {
			msg = jsonpos.Path{"messages", te.Index}
		}
		if start, n := jsonpos.Find(b, msg); n == len(msg) {
			switch {
			case off > start && strings.Contains(te.Msg, ": want "):
				// A type error, which DecodeOpenAI places at the end of the value.
				_, off = jsonpos.At(b, off)
			case te.Key:
				off, _ = jsonpos.FindKey(b[start:], te.Field)
				off += start
			case te.Field != nil:
				off, _ = jsonpos.Find(b[start:], te.Field)
				off += start
			default:
				off = start
			}
		}
	}
	if off < 0 {
		off = jsonpos.Start(b)
	}
	line, col := jsonpos.LineCol(b, off)
	return &diag.Error{File: path, Line: line, Col: col, Msg: te.Error()}
}

// jsonSyntaxError places a JSON syntax error at the byte it is about.
func jsonSyntaxError(path string, b []byte, syn *json.SyntaxError) error {
	if syn.Offset >= int64(len(b)) && strings.Contains(syn.Error(), "unexpected end") {
		line, col := jsonpos.LineCol(b, int64(len(b)))
		return &diag.Error{File: path, Line: line, Col: col, Msg: "unexpected end of the file (truncated?)"}
	}
	line, col := jsonpos.LineCol(b, syn.Offset-1)
	return &diag.Error{File: path, Line: line, Col: col, Msg: strings.TrimPrefix(syn.Error(), "json: ")}
}
