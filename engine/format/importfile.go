package format

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/jsonpos"
)

// DefaultBranch is the branch of a chat made from an OpenAI messages array.
const DefaultBranch = "main"

// ImportOptions tune how ReadImportFile reads a file.
type ImportOptions struct {
	// NewID imports a ctxlab export under a fresh chat id, beside the chat it was exported
	// from (an OpenAI array always gets one).
	NewID bool
	// Now is the time of a chat made from an OpenAI array; zero is time.Now, in UTC.
	Now time.Time
	// IDs makes the ids of new chats and messages; nil makes UUIDv7s (time-ordered).
	IDs func() string
}

// ImportFile is an import file read and checked: the chat it holds, as an export ready for
// ImportChat, and the file's bytes, to place a problem of the chat in it.
type ImportFile struct {
	// Export is the chat to store: the file itself for a ctxlab export, or the chat made
	// from an OpenAI array.
	Export Export
	// IsExport tells a ctxlab export from an OpenAI array.
	IsExport bool

	name  string
	data  []byte // the file, without a byte order mark
	start int64  // the offset of its top-level value
}

// ReadImportFile reads the import file at path (of at most MaxExportSize bytes) and
// checks all of it, as ImportChat will, before any database is opened. See ReadImport.
func ReadImportFile(path string, opt ImportOptions) (*ImportFile, error) {
	if err := diag.CheckFile(path, "an import"); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &diag.Error{File: path, Msg: "cannot read: " + strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if size = fi.Size(); size > MaxExportSize {
			return nil, &diag.Error{File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d bytes", int64(MaxExportSize))}
		}
	}
	return readImport(f, path, opt, size)
}

// ReadImport reads an import file from r, named name in messages, and checks all of it:
//
//   - a ctxlab JSON export (an object with "format"), with every branch, checkpoint and
//     turn, under its own chat id (a fresh one with opt.NewID);
//   - an OpenAI messages array (or a request body, an object with a "messages" array), as
//     a new chat with a fresh id on branch main: a leading system (or developer) message
//     is kept in the chat's metadata as system_prompt, the file's base name as
//     imported_from, and the title is made from the first user message.
//
// Every problem of the file is a *diag.Error at the line and column of the offending
// value: the character a syntax error is about, the end of a truncated file, the key of
// an unknown field, the value of a wrong type or of a reference to nothing (a branch
// head, the active branch, a message's parent), the start of the file for a problem of
// the whole file.
func ReadImport(r io.Reader, name string, opt ImportOptions) (*ImportFile, error) {
	return readImport(r, name, opt, 0)
}

// readImport is ReadImport of a file whose size is known (0: not known): it is read into
// a buffer of that size, not one grown by doubling (a 100 MB file allocated 236 MB).
func readImport(r io.Reader, name string, opt ImportOptions, size int64) (*ImportFile, error) {
	var buf bytes.Buffer
	if size > 0 {
		buf.Grow(int(size) + bytes.MinRead) // room to find the end without growing
	}
	_, err := buf.ReadFrom(io.LimitReader(r, MaxExportSize+1))
	b := buf.Bytes()
	if err != nil {
		return nil, &diag.Error{File: name, Msg: "cannot read: " + err.Error()}
	}
	if len(b) > MaxExportSize {
		return nil, &diag.Error{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d bytes", int64(MaxExportSize))}
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now().UTC()
	}
	if opt.IDs == nil {
		opt.IDs = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a byte order mark, as some editors write
	imp := &ImportFile{name: name, data: b, start: jsonpos.Start(b)}
	at := func(off int64, format string, args ...any) error {
		line, col := jsonpos.LineCol(b, off)
		return &diag.Error{File: name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	if imp.start == int64(len(b)) {
		return nil, at(0, "the file is empty; want a ctxlab chat export or an OpenAI messages array")
	}
	if b[imp.start] == '{' {
		var probe struct {
			Format   present `json:"format"`
			Messages present `json:"messages"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				return nil, jsonSyntaxError(name, b, syn)
			}
		}
		switch {
		case bool(probe.Format):
			imp.IsExport = true
			e, err := DecodeExport(b)
			if err != nil {
				return nil, imp.placeError(err)
			}
			if opt.NewID {
				e = e.WithChatID(opt.IDs())
			}
			imp.Export = e
			if err := CheckExport(&imp.Export); err != nil {
				return nil, imp.placeError(err)
			}
			return imp, nil
		case !bool(probe.Messages):
			return nil, at(imp.start, `neither a ctxlab chat export (no "format") nor an OpenAI request (no "messages")`)
		}
	}
	arr, err := DecodeOpenAI(b)
	if err != nil {
		return nil, openAIError(b, name, err)
	}
	im, err := FromOpenAI(arr.Messages, opt.IDs, opt.Now)
	if err != nil {
		return nil, openAIError(b, name, err)
	}
	if len(im.Messages) == 0 {
		return nil, at(imp.start, "no messages to import")
	}
	meta := map[string]any{"imported_from": filepath.Base(name)}
	if im.HasSystem {
		meta[MetaSystemPrompt] = im.System
	}
	title := ""
	for i := range im.Messages {
		if im.Messages[i].Role == chat.RoleUser {
			title = chat.TitleFrom(UserText(&im.Messages[i]))
			break
		}
	}
	if title == "" {
		title = chat.TitleFrom(filepath.Base(name))
	}
	now := opt.Now
	imp.Export = NewExport(chat.Archive{
		Chat: chat.Chat{ID: opt.IDs(), Title: title, Metadata: meta, ActiveBranch: DefaultBranch,
			CreatedAt: now, UpdatedAt: now},
		Messages:    im.Messages,
		Branches:    []chat.Branch{{Name: DefaultBranch, Head: im.Messages[len(im.Messages)-1].ID, CreatedAt: now}},
		Checkpoints: []chat.Checkpoint{},
		Turns:       []chat.Turn{},
	})
	if err := CheckExport(&imp.Export); err != nil {
		return nil, imp.placeError(err)
	}
	return imp, nil
}

// Save stores the chat of the file with ImportChat. A problem of the chat is a
// *diag.Error placed in the file (ReadImport has checked it: not expected); a chat id
// that is taken gives into's error, which wraps chat.ErrConflict.
func (imp *ImportFile) Save(ctx context.Context, into Importer) error {
	err := ImportChat(ctx, into, imp.Export)
	var ee *ExportError
	if errors.As(err, &ee) {
		return imp.exportError(ee)
	}
	return err
}

// present records whether a key is in a JSON object, without copying its value.
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

// placeError returns an error of DecodeExport or CheckExport as a *diag.Error.
func (imp *ImportFile) placeError(err error) error {
	var ee *ExportError
	if errors.As(err, &ee) {
		return imp.exportError(ee)
	}
	line, col := jsonpos.LineCol(imp.data, imp.start)
	return &diag.Error{File: imp.name, Line: line, Col: col, Msg: err.Error()}
}

// exportError places a problem of the export in the file: where it says, for a ctxlab
// export; at the start for a chat made from an OpenAI array (whose JSON is not the file's,
// and which FromOpenAI has checked: not expected).
func (imp *ImportFile) exportError(ee *ExportError) error {
	line, col := jsonpos.LineCol(imp.data, imp.start)
	if imp.IsExport {
		line, col = ee.Locate(imp.data)
	}
	return &diag.Error{File: imp.name, Line: line, Col: col, Msg: ee.Msg}
}

// openAIError places an error of DecodeOpenAI or FromOpenAI in the file: at the value of
// the message it names that it is about (a role, a content part, a tool call's id, a
// value of the wrong type), else at the start of that message, else at its offset.
func openAIError(b []byte, name string, err error) error {
	var te *OpenAIError
	if !errors.As(err, &te) {
		line, col := jsonpos.LineCol(b, jsonpos.Start(b))
		return &diag.Error{File: name, Line: line, Col: col, Msg: err.Error()}
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
	return &diag.Error{File: name, Line: line, Col: col, Msg: te.Error()}
}

// jsonSyntaxError places a JSON syntax error at the byte it is about.
func jsonSyntaxError(name string, b []byte, syn *json.SyntaxError) error {
	if syn.Offset >= int64(len(b)) && strings.Contains(syn.Error(), "unexpected end") {
		line, col := jsonpos.LineCol(b, int64(len(b)))
		return &diag.Error{File: name, Line: line, Col: col, Msg: "unexpected end of the file (truncated?)"}
	}
	line, col := jsonpos.LineCol(b, syn.Offset-1)
	return &diag.Error{File: name, Line: line, Col: col, Msg: strings.TrimPrefix(syn.Error(), "json: ")}
}

// Import reads an import file from r, named name in messages (see ReadImport), and stores
// it in into (see ImportFile.Save): the one call for a front end that has its store open
// already. It returns the id of the chat it saved.
func Import(ctx context.Context, r io.Reader, name string, into Importer, opt ImportOptions) (string, error) {
	imp, err := ReadImport(r, name, opt)
	if err != nil {
		return "", err
	}
	if err := imp.Save(ctx, into); err != nil {
		return "", err
	}
	return imp.Export.Chat.ID, nil
}
