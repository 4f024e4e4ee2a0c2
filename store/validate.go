package store

import (
	"bytes"
	"encoding/json"
	"math"
	"sync"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/jsonpos"
)

// Limits on what the store accepts, so that a hostile import cannot exhaust it.
const (
	maxParts    = 10_000         // parts of one message
	maxMessages = 2 << 20        // messages of one imported chat
	maxTurns    = 2 << 20        // turns of one imported chat
	maxBranches = 1 << 16        // branches or checkpoints of one imported chat
	maxTokens   = 1e12           // a count of tokens of an imported turn
	maxLatency  = 24 * time.Hour // the time to the first token, or the latency, of an imported turn
)

// A chat's usage totals add up, per turn, at most 2*maxTokens (a total taken as prompt
// plus completion): the sums over an imported chat fit in an int64, in Go and in SQLite.
const _ uint64 = math.MaxInt64 - maxTurns*2*maxTokens

// checkName reports an id or name that the engine's stores all refuse (chat.CheckName):
// empty, too long, not UTF-8 or holding control characters.
func checkName(kind, s string) error {
	if err := chat.CheckName(kind, s); err != nil {
		return invalidf("%v", err)
	}
	return nil
}

func checkRole(r chat.Role) bool {
	switch r {
	case chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleTool:
		return true
	}
	return false
}

// checkMessage validates a message before it is written. Its errors are pathErrors
// naming the field of the message at fault.
func checkMessage(m *chat.Message) error {
	if err := checkName("message id", m.ID); err != nil {
		return within(err, "id")
	}
	if m.ParentID != "" {
		if err := checkName("parent id", m.ParentID); err != nil {
			return invalidAt(jsonpos.Path{"parent_id"}, "message %q: %v", m.ID, err)
		}
	}
	if !checkRole(m.Role) {
		return invalidAt(jsonpos.Path{"role"}, "message %q: unknown role %q", m.ID, m.Role)
	}
	if len(m.Parts) > maxParts {
		return invalidAt(jsonpos.Path{"parts", maxParts}, "message %q: more than %d parts", m.ID, maxParts)
	}
	for i, p := range m.Parts {
		switch p.Type {
		case chat.PartText:
		case chat.PartTool:
			switch p.State {
			case "", chat.ToolInputStreaming, chat.ToolInputAvailable, chat.ToolOutputAvailable, chat.ToolOutputError:
			default:
				return invalidAt(jsonpos.Path{"parts", i, "state"}, "message %q: part %d: unknown tool state %q", m.ID, i, p.State)
			}
		default:
			return invalidAt(jsonpos.Path{"parts", i, "type"}, "message %q: part %d: unknown part type %q", m.ID, i, p.Type)
		}
		if len(p.Input) > 0 && !json.Valid(p.Input) {
			return invalidAt(jsonpos.Path{"parts", i, "input"}, "message %q: part %d: tool input is not valid JSON", m.ID, i)
		}
	}
	for i, s := range m.Reminders {
		field := ""
		switch {
		case s.Part < 0 || s.Part >= len(m.Parts):
			field = "part_index"
		case s.Start < 0 || s.Start > s.End:
			field = "start"
		case s.End > len(m.Parts[s.Part].Text):
			field = "end"
		}
		if field != "" {
			return invalidAt(jsonpos.Path{"reminders", i, field}, "message %q: reminder %q: span [%d,%d) of part %d out of range", m.ID, s.ID, s.Start, s.End, s.Part)
		}
	}
	return within(checkTime(m.CreatedAt, "message "+quote(m.ID)), "created_at")
}

// checkTurn validates a turn before it is written (its references are checked by the
// database, or by ImportChat against the export). Its errors are pathErrors naming the
// field of the turn at fault.
func checkTurn(t *chat.Turn) error {
	if err := checkName("turn id", t.ID); err != nil {
		return within(err, "id")
	}
	for _, f := range []struct{ key, id string }{{"user_message_id", t.UserMessageID}, {"assistant_message_id", t.AssistantMessageID}} {
		if f.id != "" {
			if err := checkName("message id", f.id); err != nil {
				return invalidAt(jsonpos.Path{f.key}, "turn %q: %v", t.ID, err)
			}
		}
	}
	if t.Number < 0 {
		return invalidAt(jsonpos.Path{"turn"}, "turn %q: negative number %d", t.ID, t.Number)
	}
	if len(t.Decisions) > 0 && !json.Valid(t.Decisions) {
		return invalidAt(jsonpos.Path{"decisions"}, "turn %q: decisions are not valid JSON", t.ID)
	}
	return within(checkTime(t.At, "turn "+quote(t.ID)), "at")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// marshalJSON encodes v without escaping <, > and & (messages are full of tags).
func marshalJSON(v any) (string, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// compactJSON returns raw compacted, or an error if it is not valid JSON.
func compactJSON(raw []byte) (string, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	if err := json.Compact(buf, raw); err != nil {
		return "", err
	}
	return buf.String(), nil
}
