package format

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/jsonpos"
)

// The identity of the JSON export format.
const (
	ExportFormat  = "ctxlab-chat"
	ExportVersion = 1
)

// MaxExportSize is the largest export file ReadExport accepts.
const MaxExportSize = 1 << 30

// Export is the lossless JSON export of a chat: the format's identity, then the whole
// chat (chat.Archive: every message of its graph, parents before children, every branch
// and checkpoint in the order they were made, and every turn record with its request and
// decisions, in commit order). The chat's usage totals are derived from the turns. Encode
// writes it as JSON; ReadExport reads it back; ImportChat checks and stores it.
type Export struct {
	Format  string `json:"format"`  // ExportFormat
	Version int    `json:"version"` // ExportVersion
	chat.Archive
}

// NewExport returns the export of a.
func NewExport(a chat.Archive) Export {
	return Export{Format: ExportFormat, Version: ExportVersion, Archive: a}
}

// Encode writes e as JSON, with <, > and & left as they are: the chat record indented, and
// each message, branch, checkpoint and turn compact on a line of its own, so that an
// export reads and diffs line by line and a long chat is written without re-indenting
// megabytes. Export, Encode, ReadExport, ImportChat and Export again give the same bytes.
func (e Export) Encode(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(v any) ([]byte, error) {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
	fmt.Fprintf(bw, "{\n  \"format\": %q,\n  \"version\": %d,\n  \"chat\": ", e.Format, e.Version)
	enc.SetIndent("  ", "  ")
	b, err := encode(e.Chat)
	if err != nil {
		return err
	}
	bw.Write(b)
	enc.SetIndent("", "")
	lists := []struct {
		name string
		n    int
		item func(i int) any
	}{
		{"messages", len(e.Messages), func(i int) any { return &e.Messages[i] }},
		{"branches", len(e.Branches), func(i int) any { return &e.Branches[i] }},
		{"checkpoints", len(e.Checkpoints), func(i int) any { return &e.Checkpoints[i] }},
		{"turns", len(e.Turns), func(i int) any { return &e.Turns[i] }},
	}
	for _, l := range lists {
		fmt.Fprintf(bw, ",\n  %q: [", l.name)
		for i := range l.n {
			if b, err = encode(l.item(i)); err != nil {
				return err
			}
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString("\n    ")
			bw.Write(b)
		}
		if l.n > 0 {
			bw.WriteString("\n  ")
		}
		bw.WriteByte(']')
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// WithChatID returns a copy of e for the chat id id (the turns follow), to import a chat
// beside the one it was exported from. Message, turn, branch and checkpoint ids are scoped
// by chat, so they need no change.
func (e Export) WithChatID(id string) Export {
	e.Chat.ID = id
	turns := make([]chat.Turn, len(e.Turns))
	for i, t := range e.Turns {
		t.ChatID = id
		turns[i] = t
	}
	e.Turns = turns
	return e
}

// ReadExport reads an export written by Encode, of at most MaxExportSize bytes. Every
// problem of the file is an *ExportError that gives its place in the file (see
// DecodeExport). It does not check the chat's consistency: ImportChat (or CheckExport)
// does.
func ReadExport(r io.Reader) (Export, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxExportSize+1))
	if err != nil {
		return Export{}, fmt.Errorf("read export: %w", err)
	}
	if len(b) > MaxExportSize {
		return Export{}, fileErr(b, 0, nil, false, "larger than %d bytes", MaxExportSize)
	}
	return DecodeExport(b)
}

// DecodeExport decodes the export file b. Every problem of the file is an *ExportError
// with its byte offset, line and column in b, wrapping chat.ErrInvalid (ErrSchema for a newer
// version): an empty file; not JSON (at the offending character); truncated (at the end);
// data after the export; not an object; another format or no format (at "format"); a
// newer, missing or bad version (at "version"); an unknown field (at its key, nested ones
// too); a value of the wrong type, such as a time that is not RFC 3339 (at the value).
// The version is checked first, so that an export of a newer ctxlab is reported as such
// whatever fields it has.
func DecodeExport(b []byte) (Export, error) {
	start := jsonpos.Start(b)
	if start == int64(len(b)) {
		return Export{}, fileErr(b, 0, nil, false, "the file is empty; want a ctxlab chat export")
	}
	var head struct {
		Format  json.RawMessage `json:"format"`
		Version json.RawMessage `json:"version"`
	}
	// Unmarshal checks the syntax of the whole file before it decodes anything.
	if err := json.Unmarshal(b, &head); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			if syn.Offset >= int64(len(b)) && strings.Contains(syn.Error(), "unexpected end") {
				return Export{}, fileErr(b, int64(len(b)), nil, false, "unexpected end of the file (truncated?)")
			}
			return Export{}, fileErr(b, syn.Offset-1, nil, false, "%s", strings.TrimPrefix(syn.Error(), "json: "))
		}
	}
	if b[start] != '{' {
		return Export{}, fileErr(b, start, nil, false, "want a JSON object (a ctxlab chat export), not %s", jsonpos.Kind(b[start:start+1]))
	}
	if err := checkHeaderJSON(head.Format, head.Version); err != nil {
		return Export{}, placed(b, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var e Export
	if err := dec.Decode(&e); err != nil {
		return Export{}, decodeProblem(b, reflect.TypeFor[Export](), err)
	}
	return e, nil
}

// checkHeaderJSON checks the format and version of an export as written in its file.
func checkHeaderJSON(format, version json.RawMessage) error {
	var f string
	if format == nil {
		return exportErr(nil, "not a ctxlab chat export (no \"format\"; want %q)", ExportFormat)
	}
	if err := json.Unmarshal(format, &f); err != nil || f != ExportFormat {
		shown := string(format)
		if len(shown) > 60 {
			shown = jsonpos.Kind(format)
		}
		return exportErr(jsonpos.Path{"format"}, "not a ctxlab chat export (format %s, want %q)", shown, ExportFormat)
	}
	if version == nil {
		return exportErr(nil, "no export \"version\" (want %d)", ExportVersion)
	}
	var v int
	if err := json.Unmarshal(version, &v); err != nil {
		shown := jsonpos.Kind(version)
		if shown == "a number" {
			shown = "the number " + string(version)
		}
		return exportErr(jsonpos.Path{"version"}, "export version: want an integer from 1 to %d, not %s", ExportVersion, shown)
	}
	return checkHeader(f, v)
}

// checkHeader checks the format and version of a decoded export.
func checkHeader(format string, version int) error {
	if format != ExportFormat {
		return exportErr(jsonpos.Path{"format"}, "not a ctxlab chat export (format %q, want %q)", format, ExportFormat)
	}
	if version > ExportVersion {
		e := exportErr(jsonpos.Path{"version"}, "export version %d is newer than this ctxlab (%d); upgrade ctxlab", version, ExportVersion)
		e.kind = ErrSchema
		return e
	}
	if version < 1 {
		return exportErr(jsonpos.Path{"version"}, "export version %d: want 1 to %d", version, ExportVersion)
	}
	return nil
}

// Importer is where ImportChat stores a chat; *store.DB satisfies it. ImportChat gives it
// a checked chat, messages in an order where parents come before children; it checks each
// record as it stores it, writes all or nothing, and returns an error wrapping
// chat.ErrConflict for a chat id that is taken.
type Importer interface {
	ImportChat(ctx context.Context, a chat.Archive) error
}

// ImportChat stores an exported chat under e.Chat.ID, after checking all of it (see
// CheckExport): format and version, ids and names (unique, sane sizes), every parent,
// head, checkpoint and turn reference inside the chat, no cycle in the graph, valid JSON,
// and that the chat is one the engine could have made: user and assistant messages, turn
// records numbered and linked as the engine writes them, with decisions of the form it
// records, branch heads and checkpoints at replies (or user messages not answered), token
// counts and latencies in range. An inconsistent export gives an error wrapping an
// *ExportError (chat.ErrInvalid, or ErrSchema for a newer version) with the path of the
// offending value, and nothing is written; a chat id that exists gives the importer's
// error, which wraps chat.ErrConflict (see WithChatID).
func ImportChat(ctx context.Context, into Importer, e Export) error {
	p, err := planImport(&e)
	if err != nil {
		return fmt.Errorf("import chat %q: %w", e.Chat.ID, err)
	}
	a := e.Archive
	if !p.inOrder {
		a.Messages = make([]chat.Message, len(p.order))
		for i, j := range p.order {
			a.Messages[i] = e.Messages[j]
		}
	}
	return into.ImportChat(ctx, a)
}
