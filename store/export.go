package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// The identity of the JSON export format.
const (
	ExportFormat  = "ctxlab-chat"
	ExportVersion = 1
)

// MaxExportSize is the largest export file ReadExport accepts.
const MaxExportSize = 1 << 30

// Export is a whole chat, lossless: every message of its graph (parents before children),
// every branch and checkpoint in the order they were made, and every turn record with its
// request and decisions, in commit order. The chat's usage totals are derived from the
// turns. Encode writes it as JSON; ReadExport reads it back; ImportChat stores it.
type Export struct {
	Format      string            `json:"format"`  // ExportFormat
	Version     int               `json:"version"` // ExportVersion
	Chat        chat.Chat         `json:"chat"`
	Messages    []chat.Message    `json:"messages"`
	Branches    []chat.Branch     `json:"branches"`
	Checkpoints []chat.Checkpoint `json:"checkpoints"`
	Turns       []chat.Turn       `json:"turns"`
}

// ExportChat returns the whole of a chat, read in one snapshot; ErrNotFound if there is no
// such chat.
func (d *DB) ExportChat(ctx context.Context, id string) (Export, error) {
	e := Export{Format: ExportFormat, Version: ExportVersion}
	err := d.read(ctx, func(q querier) error {
		var err error
		if e.Chat, _, err = loadChat(ctx, q, id); err != nil {
			return err
		}
		rows, err := q.QueryContext(ctx, "SELECT "+msgCols+" FROM messages WHERE chat_id = ? ORDER BY pk", id)
		if err != nil {
			return dbErr(ctx, err, "export messages")
		}
		if e.Messages, err = scanMessages(ctx, rows, 0, nil); err != nil {
			return err
		}
		bs, err := loadBranchInfos(ctx, q, id)
		if err != nil {
			return err
		}
		e.Branches = make([]chat.Branch, len(bs))
		for i := range bs {
			e.Branches[i] = bs[i].Branch
		}
		if e.Checkpoints, err = loadCheckpoints(ctx, q, id); err != nil {
			return err
		}
		e.Turns, err = queryTurns(ctx, q, id, DetailAll, "1")
		return err
	})
	if err != nil {
		return Export{}, err
	}
	// Empty lists, not null, so an export reads the same whatever it holds.
	if e.Messages == nil {
		e.Messages = []chat.Message{}
	}
	if e.Checkpoints == nil {
		e.Checkpoints = []chat.Checkpoint{}
	}
	if e.Turns == nil {
		e.Turns = []chat.Turn{}
	}
	return e, nil
}

// Encode writes e as indented JSON, with <, > and & left as they are. Export, Encode,
// ReadExport, ImportChat and Export again give the same bytes.
func (e Export) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(e)
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

// ReadExport reads an export written by Encode. Unknown fields, trailing data, another
// format, a newer version or a file larger than MaxExportSize are errors wrapping
// ErrInvalid (ErrSchema for a newer version). It does not check the chat's consistency:
// ImportChat does.
func ReadExport(r io.Reader) (Export, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxExportSize+1))
	if err != nil {
		return Export{}, fmt.Errorf("read export: %w", err)
	}
	if len(b) > MaxExportSize {
		return Export{}, invalidf("read export: larger than %d bytes", MaxExportSize)
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&head); err != nil {
		return Export{}, jsonErr(b, err)
	}
	if err := checkHeader(head.Format, head.Version); err != nil {
		return Export{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var e Export
	if err := dec.Decode(&e); err != nil {
		return Export{}, jsonErr(b, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Export{}, invalidf("read export: data after the end of the export at byte %d", dec.InputOffset())
	}
	return e, nil
}

func checkHeader(format string, version int) error {
	if format != ExportFormat {
		return invalidf("not a ctxlab chat export (format %q, want %q)", format, ExportFormat)
	}
	if version > ExportVersion {
		return &storeError{msg: fmt.Sprintf("export version %d is newer than this ctxlab (%d); upgrade ctxlab", version, ExportVersion), kind: ErrSchema}
	}
	if version < 1 {
		return invalidf("export version %d: want 1 to %d", version, ExportVersion)
	}
	return nil
}

// jsonErr describes a JSON decoding error with its line and column.
func jsonErr(b []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return invalidf("read export: truncated file (unexpected end of JSON)")
	case errors.As(err, &syn):
		line, col := lineCol(b, syn.Offset)
		return invalidf("read export: line %d, column %d: %v", line, col, syn)
	case errors.As(err, &typ):
		line, col := lineCol(b, typ.Offset)
		return invalidf("read export: line %d, column %d: %s: cannot be %s", line, col, typ.Field, typ.Value)
	}
	return invalidf("read export: %v", err)
}

// lineCol returns the line and column of the byte before offset off (the one a JSON error
// is reported after).
func lineCol(b []byte, off int64) (int, int) {
	pos := int(min(max(off-1, 0), int64(len(b))))
	before := b[:pos]
	return bytes.Count(before, []byte("\n")) + 1, pos - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// ImportChat stores an exported chat under e.Chat.ID, in one transaction, after checking
// all of it: format and version, ids and names (unique, sane sizes), every parent, head,
// checkpoint and turn reference inside the chat, no cycle in the graph, valid JSON. An
// inconsistent export gives an error wrapping ErrInvalid and writes nothing; a chat id
// that exists gives ErrConflict (see WithChatID).
func (d *DB) ImportChat(ctx context.Context, e Export) error {
	p, err := planImport(&e)
	if err != nil {
		return fmt.Errorf("import chat %q: %w", e.Chat.ID, err)
	}
	return d.write(ctx, func(tx *sql.Tx) error {
		if err := insertChat(ctx, tx, &e.Chat, p.meta, p.usage, len(e.Messages)); err != nil {
			return err
		}
		w := msgWriter{tx: tx, chatID: e.Chat.ID}
		for _, i := range p.order {
			m := &e.Messages[i]
			var parent *msgInfo
			if m.ParentID != "" {
				in := p.infos[m.ParentID]
				parent = &in
			}
			in, err := w.insert(ctx, m, parent)
			if err != nil {
				return err
			}
			p.infos[m.ID] = in // with its pk, for its children
		}
		for _, b := range e.Branches {
			_, err := tx.ExecContext(ctx, "INSERT INTO branches (chat_id, name, head, parent, created_at) VALUES (?, ?, ?, ?, ?)",
				e.Chat.ID, b.Name, nullStr(b.Head), nullStr(b.Parent), encTime(b.CreatedAt))
			if err != nil {
				return dbErr(ctx, err, fmt.Sprintf("import chat %q: branch %q", e.Chat.ID, b.Name))
			}
		}
		for _, c := range e.Checkpoints {
			_, err := tx.ExecContext(ctx, "INSERT INTO checkpoints (chat_id, name, message_id, created_at) VALUES (?, ?, ?, ?)",
				e.Chat.ID, c.Name, c.MessageID, encTime(c.CreatedAt))
			if err != nil {
				return dbErr(ctx, err, fmt.Sprintf("import chat %q: checkpoint %q", e.Chat.ID, c.Name))
			}
		}
		tw := turnWriter{tx: tx, chatID: e.Chat.ID}
		for i := range p.turns {
			if err := tw.insert(ctx, &p.turns[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
