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
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/transcript"
	"github.com/ctxlab/ctxlab/store"
)

// importTitleLen is the length, in characters, of the title an imported OpenAI array gets
// from its first user message.
const importTitleLen = 60

func (a *app) importCommand() *cobra.Command {
	var newID bool
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import a chat: a ctxlab JSON export, or an OpenAI messages array as a new chat",
		Long: "import reads FILE and saves it as a chat, then prints the chat's id:\n" +
			"  - a JSON export of ctxlab (ctxlab export --format json), with every branch, checkpoint\n" +
			"    and turn, under its own id (--new-id: under a fresh id, beside the original);\n" +
			"  - an OpenAI messages array (or a request body with a \"messages\" array), as a new chat\n" +
			"    with a fresh id on branch main; a leading system message is kept in the chat's\n" +
			"    metadata as system_prompt.\n" +
			"A file that cannot be imported is reported as FILE:LINE:COL: problem, and nothing is written.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			e, isExport, err := loadImport(path, time.Now().UTC())
			if err != nil {
				return err
			}
			if newID && isExport {
				e = e.WithChatID(newUUID())
			}
			db, err := a.openDB()
			if err != nil {
				return err
			}
			defer db.Close()
			if err := db.ImportChat(cmd.Context(), e); err != nil {
				switch {
				case errors.Is(err, store.ErrConflict):
					return fmt.Errorf("%s: %w; import it beside the existing chat with --new-id", path, err)
				case errors.Is(err, store.ErrInvalid):
					return &diag.Error{File: path, Msg: err.Error()}
				}
				return err
			}
			_, err = fmt.Fprintln(a.stdout, e.Chat.ID)
			return err
		},
	}
	cmd.Flags().BoolVar(&newID, "new-id", false, "import a ctxlab export under a new chat id (an OpenAI array always gets one)")
	return cmd
}

// newUUID returns a new time-ordered id (UUIDv7), for chats and messages.
func newUUID() string { return uuid.Must(uuid.NewV7()).String() }

// loadImport reads and checks an import file and returns it as an export ready for
// ImportChat, and whether the file was one (not an OpenAI array). Every problem of the file
// is a *diag.Error naming it (exit code 2), with its line and column where the JSON
// decoder gives an offset.
func loadImport(path string, now time.Time) (store.Export, bool, error) {
	b, err := readImportFile(path)
	if err != nil {
		return store.Export{}, false, err
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a byte order mark, as some editors write
	at := func(off int64, format string, args ...any) error {
		line, col := lineCol(b, off)
		return &diag.Error{File: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	start := bytes.IndexFunc(b, func(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && r != '\r' })
	if start < 0 {
		return store.Export{}, false, &diag.Error{File: path, Msg: "the file is empty; want a ctxlab chat export or an OpenAI messages array"}
	}
	if b[start] == '{' {
		var probe struct {
			Format   json.RawMessage `json:"format"`
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				return store.Export{}, false, jsonSyntaxError(path, b, syn)
			}
			// A type error: the file is an object whose fields say what it is.
		}
		switch {
		case probe.Format != nil:
			e, err := loadExport(path, b, at)
			return e, true, err
		case probe.Messages == nil:
			return store.Export{}, false, at(int64(start), `neither a ctxlab chat export (no "format") nor an OpenAI request (no "messages")`)
		}
	}
	arr, err := transcript.DecodeOpenAI(b)
	if err != nil {
		return store.Export{}, false, openAIError(b, path, err, nil)
	}
	im, err := transcript.FromOpenAI(arr.Messages, newUUID, now)
	if err != nil {
		return store.Export{}, false, openAIError(b, path, err, arr.Offsets)
	}
	if len(im.Messages) == 0 {
		return store.Export{}, false, at(int64(start), "no messages to import")
	}
	meta := map[string]any{"imported_from": filepath.Base(path)}
	if im.HasSystem {
		meta[transcript.MetaSystemPrompt] = im.System
	}
	title := ""
	for i := range im.Messages {
		if im.Messages[i].Role == chat.RoleUser {
			title = firstChars(transcript.UserText(&im.Messages[i]), importTitleLen)
			break
		}
	}
	if title == "" {
		title = firstChars(filepath.Base(path), importTitleLen)
	}
	return store.Export{
		Format: store.ExportFormat, Version: store.ExportVersion,
		Chat: chat.Chat{ID: newUUID(), Title: title, Metadata: meta, ActiveBranch: store.DefaultBranch,
			CreatedAt: now, UpdatedAt: now},
		Messages:    im.Messages,
		Branches:    []chat.Branch{{Name: store.DefaultBranch, Head: im.Messages[len(im.Messages)-1].ID, CreatedAt: now}},
		Checkpoints: []chat.Checkpoint{},
		Turns:       []chat.Turn{},
	}, false, nil
}

// readImportFile reads a file of at most store.MaxExportSize bytes.
func readImportFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &diag.Error{File: path, Msg: "cannot read: " + strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > store.MaxExportSize {
		return nil, &diag.Error{File: path, Msg: fmt.Sprintf("larger than %d bytes", int64(store.MaxExportSize))}
	}
	b, err := io.ReadAll(io.LimitReader(f, store.MaxExportSize+1))
	if err != nil {
		return nil, &diag.Error{File: path, Msg: "cannot read: " + err.Error()}
	}
	if len(b) > store.MaxExportSize {
		return nil, &diag.Error{File: path, Msg: fmt.Sprintf("larger than %d bytes", int64(store.MaxExportSize))}
	}
	return b, nil
}

// loadExport reads a ctxlab JSON export.
func loadExport(path string, b []byte, at func(int64, string, ...any) error) (store.Export, error) {
	var head struct {
		Format any `json:"format"`
	}
	_ = json.Unmarshal(b, &head)
	if head.Format != store.ExportFormat {
		f, _ := json.Marshal(head.Format)
		return store.Export{}, &diag.Error{File: path, Msg: fmt.Sprintf("not a ctxlab chat export (format %s, want %q)", f, store.ExportFormat)}
	}
	e, err := store.ReadExport(bytes.NewReader(b))
	if err == nil {
		return e, nil
	}
	var syn *json.SyntaxError
	if errors.As(json.Unmarshal(b, new(json.RawMessage)), &syn) {
		return store.Export{}, jsonSyntaxError(path, b, syn)
	}
	if !errors.Is(err, store.ErrSchema) {
		// ReadExport gives a type error's position as text; decode again for the offset.
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		var typ *json.UnmarshalTypeError
		if errors.As(dec.Decode(new(store.Export)), &typ) {
			return store.Export{}, at(literalStart(b, typ.Offset), "%s: cannot be %s", typ.Field, typ.Value)
		}
	}
	return store.Export{}, &diag.Error{File: path, Msg: err.Error()}
}

// openAIError places an error of transcript.DecodeOpenAI or FromOpenAI in the file: at its
// offset, or at the start of the message it names.
func openAIError(b []byte, path string, err error, offsets []int64) error {
	var te *transcript.Error
	if !errors.As(err, &te) {
		return &diag.Error{File: path, Msg: err.Error()}
	}
	off := te.Offset
	if off < 0 && te.Index >= 0 && te.Index < len(offsets) {
		off = offsets[te.Index]
	}
	if off < 0 {
		return &diag.Error{File: path, Msg: te.Error()}
	}
	line, col := lineCol(b, off)
	return &diag.Error{File: path, Line: line, Col: col, Msg: te.Error()}
}

// jsonSyntaxError places a JSON syntax error at the byte it is about.
func jsonSyntaxError(path string, b []byte, syn *json.SyntaxError) error {
	if syn.Offset >= int64(len(b)) && strings.Contains(syn.Error(), "unexpected end") {
		line, col := lineCol(b, int64(len(b)))
		return &diag.Error{File: path, Line: line, Col: col, Msg: "unexpected end of the file (truncated?)"}
	}
	line, col := lineCol(b, syn.Offset-1)
	return &diag.Error{File: path, Line: line, Col: col, Msg: strings.TrimPrefix(syn.Error(), "json: ")}
}

// lineCol returns the 1-based line and column (in code points) of byte offset off of b.
func lineCol(b []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	start := bytes.LastIndexByte(before, '\n') + 1
	return bytes.Count(before, []byte("\n")) + 1, utf8.RuneCount(before[start:]) + 1
}

// literalStart returns the start of the JSON value that a decoder's type error offset
// points just past: a string, number or literal ends there; an array or object starts at
// the byte before it.
func literalStart(b []byte, off int64) int64 {
	end := min(max(off-1, 0), int64(len(b)-1))
	if end < 0 {
		return 0
	}
	switch c := b[end]; {
	case c == '"':
		for i := end - 1; i >= 0; i-- {
			if b[i] != '"' {
				continue
			}
			n := 0 // backslashes before the quote
			for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				return i
			}
		}
	case c == '[' || c == '{':
		return end
	default:
		i := end
		for i > 0 && strings.IndexByte("0123456789+-.eEtruefalsn", b[i-1]) >= 0 {
			i--
		}
		return i
	}
	return end
}

// firstChars returns the first n characters of s with its white space collapsed.
func firstChars(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n]))
	}
	return s
}
