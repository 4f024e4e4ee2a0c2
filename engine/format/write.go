package format

import (
	"context"
	"fmt"
	"io"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// The formats WriteChat writes.
const (
	JSON     = "json"     // the whole chat, lossless (Export)
	Markdown = "markdown" // a readable transcript of the active branch
	OpenAI   = "openai"   // the active branch as an OpenAI messages array
)

// Source is what WriteChat reads a saved chat from; *store.DB satisfies it. Each format
// reads only what it shows: the whole chat for JSON, the active branch for the others.
type Source interface {
	// ExportChat returns the whole of a chat (see chat.Archive).
	ExportChat(ctx context.Context, chatID string) (chat.Archive, error)
	// Load opens a chat on a branch ("" for its active branch), with its turns' parts
	// that detail selects.
	Load(ctx context.Context, chatID, branch string, detail chat.Detail) (chat.Snapshot, error)
	// Branches lists the branches of a chat, with the sizes of their paths.
	Branches(ctx context.Context, chatID string) ([]chat.BranchInfo, error)
	// Checkpoints lists the checkpoints of a chat.
	Checkpoints(ctx context.Context, chatID string) ([]chat.Checkpoint, error)
	// Turn returns one turn record, whole.
	Turn(ctx context.Context, chatID, turnID string) (chat.Turn, error)
}

// UnknownFormatError is the error of WriteChat for a format it does not know.
type UnknownFormatError struct {
	Format string // the format asked for
	Want   string // the formats there are: "json, markdown or openai"
}

// Error says which formats there are.
func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q (want %s)", e.Format, e.Want)
}

func unknownFormat(format string) error {
	return &UnknownFormatError{Format: format, Want: JSON + ", " + Markdown + " or " + OpenAI}
}

// CheckFormat returns an *UnknownFormatError unless format is one WriteChat writes, so
// that a command can refuse it before it opens anything.
func CheckFormat(format string) error {
	switch format {
	case JSON, Markdown, OpenAI:
		return nil
	}
	return unknownFormat(format)
}

// WriteChat writes the saved chat chatID of from to w in format (JSON, Markdown or
// OpenAI):
//
//   - JSON: the whole chat, lossless (Export.Encode), which ReadImportFile reads back;
//   - Markdown: a readable transcript of the active branch, the baked reminders marked,
//     with the chat's branches, checkpoints and usage;
//   - OpenAI: the active branch as an OpenAI messages array (the history the model was
//     sent, baked reminders included), after the system prompt the chat's import kept, or
//     else the one of the branch's last request.
//
// An unknown format is an *UnknownFormatError; errors of from are returned as they are.
func WriteChat(ctx context.Context, w io.Writer, format string, from Source, chatID string) error {
	switch format {
	case JSON:
		a, err := from.ExportChat(ctx, chatID)
		if err != nil {
			return err
		}
		return NewExport(a).Encode(w)
	case Markdown:
		snap, err := from.Load(ctx, chatID, "", chat.DetailStats)
		if err != nil {
			return err
		}
		branches, err := from.Branches(ctx, chatID)
		if err != nil {
			return err
		}
		checkpoints, err := from.Checkpoints(ctx, chatID)
		if err != nil {
			return err
		}
		return WriteMarkdown(w, Input{Chat: snap.Chat, Branch: snap.Branch.Name,
			Messages: pointers(snap.Messages), Turns: snap.Turns, Branches: branches,
			Checkpoints: checkpoints, Usage: snap.Usage})
	case OpenAI:
		snap, err := from.Load(ctx, chatID, "", chat.DetailLight)
		if err != nil {
			return err
		}
		msgs := ToOpenAI(pointers(snap.Messages))
		sys, ok := SystemMessage(snap.Chat)
		if !ok && len(snap.Turns) > 0 { // the system prompt of the branch's last request
			last, err := from.Turn(ctx, chatID, snap.Turns[len(snap.Turns)-1].ID)
			if err != nil {
				return err
			}
			sys, ok = chat.WireMessage{Role: chat.RoleSystem, Content: last.Request.SystemPrompt}, last.Request.SystemPrompt != ""
		}
		if ok {
			msgs = append([]chat.WireMessage{sys}, msgs...)
		}
		return WriteOpenAI(w, msgs)
	}
	return unknownFormat(format)
}

func pointers(ms []chat.Message) []*chat.Message {
	out := make([]*chat.Message, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
}
