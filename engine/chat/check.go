package chat

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// MaxParts is the most parts a store accepts in one message.
const MaxParts = 10_000

// FieldError is a problem of one field of a record that a store refuses: Path locates the
// field within the record as its JSON writes it (parts[2].type of a message), so that a
// file format can point at it in a file. It wraps ErrInvalid.
type FieldError struct {
	// Path is a list of object keys (strings) and array indexes (ints).
	Path []any
	Msg  string
}

// Error returns the message, which names the record concerned.
func (e *FieldError) Error() string { return e.Msg }

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func fieldErr(path []any, format string, args ...any) error {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// within returns err (of CheckName or CheckTime) as a problem of the field at path.
func within(err error, path ...any) error {
	if err == nil {
		return nil
	}
	return &FieldError{Path: path, Msg: err.Error()}
}

// CheckTime reports a time that a store cannot keep: outside years 0 to 9999. what names
// the record in the message (`message "m1"`). The error wraps ErrInvalid.
func CheckTime(t time.Time, what string) error {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return nameError(fmt.Sprintf("%s: time %s is outside years 0 to 9999", what, t.UTC().Format(time.RFC3339)))
	}
	return nil
}

// Quote returns s as a JSON string, as messages about records name them.
func Quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// CheckChat reports a chat record that a store refuses: a bad id or active branch name
// (CheckName), a bad title (CheckTitle), a time out of range (CheckTime). Its errors are
// *FieldErrors naming the field at fault.
func CheckChat(c *Chat) error {
	if err := CheckName("chat id", c.ID); err != nil {
		return within(err, "id")
	}
	if err := CheckName("branch name", c.ActiveBranch); err != nil {
		return fieldErr([]any{"active_branch"}, "chat %q: active branch: %v", c.ID, err)
	}
	if err := CheckTitle(c.Title); err != nil {
		return fieldErr([]any{"title"}, "chat %q: %v", c.ID, err)
	}
	if err := CheckTime(c.CreatedAt, "chat "+Quote(c.ID)); err != nil {
		return within(err, "created_at")
	}
	return within(CheckTime(c.UpdatedAt, "chat "+Quote(c.ID)), "updated_at")
}

// ValidRole reports whether r is one of the four roles of a message.
func ValidRole(r Role) bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// CheckMessage reports a message that a store refuses: a bad id or parent id, an unknown
// role, part type or tool state, more than MaxParts parts, tool input that is not JSON, a
// reminder span out of its part, a time out of range. Its errors are *FieldErrors naming
// the field of the message at fault.
func CheckMessage(m *Message) error {
	if err := CheckName("message id", m.ID); err != nil {
		return within(err, "id")
	}
	if m.ParentID != "" {
		if err := CheckName("parent id", m.ParentID); err != nil {
			return fieldErr([]any{"parent_id"}, "message %q: %v", m.ID, err)
		}
	}
	if !ValidRole(m.Role) {
		return fieldErr([]any{"role"}, "message %q: unknown role %q", m.ID, m.Role)
	}
	if len(m.Parts) > MaxParts {
		return fieldErr([]any{"parts", MaxParts}, "message %q: more than %d parts", m.ID, MaxParts)
	}
	for i, p := range m.Parts {
		switch p.Type {
		case PartText:
		case PartTool:
			switch p.State {
			case "", ToolInputStreaming, ToolInputAvailable, ToolOutputAvailable, ToolOutputError:
			default:
				return fieldErr([]any{"parts", i, "state"}, "message %q: part %d: unknown tool state %q", m.ID, i, p.State)
			}
		default:
			return fieldErr([]any{"parts", i, "type"}, "message %q: part %d: unknown part type %q", m.ID, i, p.Type)
		}
		if len(p.Input) > 0 && !json.Valid(p.Input) {
			return fieldErr([]any{"parts", i, "input"}, "message %q: part %d: tool input is not valid JSON", m.ID, i)
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
			return fieldErr([]any{"reminders", i, field}, "message %q: reminder %q: span [%d,%d) of part %d out of range", m.ID, s.ID, s.Start, s.End, s.Part)
		}
	}
	return within(CheckTime(m.CreatedAt, "message "+Quote(m.ID)), "created_at")
}

// CheckTurn reports a turn record that a store refuses on its own (its references are
// checked against the chat it belongs to): a bad id or message id, a negative number,
// decisions that are not JSON, a time out of range. Its errors are *FieldErrors naming
// the field of the turn at fault.
func CheckTurn(t *Turn) error {
	if err := CheckName("turn id", t.ID); err != nil {
		return within(err, "id")
	}
	for _, f := range []struct{ key, id string }{{"user_message_id", t.UserMessageID}, {"assistant_message_id", t.AssistantMessageID}} {
		if f.id != "" {
			if err := CheckName("message id", f.id); err != nil {
				return fieldErr([]any{f.key}, "turn %q: %v", t.ID, err)
			}
		}
	}
	if t.Number < 0 {
		return fieldErr([]any{"turn"}, "turn %q: negative number %d", t.ID, t.Number)
	}
	if len(t.Decisions) > 0 && !validJSON(t.Decisions) {
		return fieldErr([]any{"decisions"}, "turn %q: decisions are not valid JSON", t.ID)
	}
	if err := checkEstimate(t.ID, t.Request.Estimate); err != nil {
		return err
	}
	if d := t.ContextDigest; d != nil {
		if msg := digestProblem(*d); msg != "" {
			return fieldErr([]any{"context_digest"}, "turn %q: context_digest %s; want %d lower-case hexadecimal digits "+
				"(the SHA-256 of the context file the turn was sent with), or \"\" for a turn sent with no context file",
				t.ID, msg, ContextDigestLen)
		}
	}
	return within(CheckTime(t.At, "turn "+Quote(t.ID)), "at")
}

// ContextDigestLen is the length of a turn's context digest (Turn.ContextDigest): the
// SHA-256 in lower-case hexadecimal digits.
const ContextDigestLen = 64

// digestProblem says what is wrong with a context digest, "" when nothing is.
func digestProblem(d string) string {
	if d == "" {
		return ""
	}
	if len(d) != ContextDigestLen {
		return fmt.Sprintf("has %d bytes", len(d))
	}
	for i := 0; i < len(d); i++ {
		if c := d[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			r, _ := utf8.DecodeRuneInString(d[i:])
			return fmt.Sprintf("holds %s at byte %d", Quote(string(r)), i+1)
		}
	}
	return ""
}

// checkEstimate refuses a turn's estimate with a negative size (nil is no estimate).
func checkEstimate(turnID string, e *PromptEstimate) error {
	if e == nil {
		return nil
	}
	sizes := e.Sources()
	for _, f := range append(sizes[:], SourceSize{"total", e.Total}) {
		if f.Tokens < 0 {
			return fieldErr([]any{"request", "estimate", f.Name}, "turn %q: request estimate: negative %s %d", turnID, f.Name, f.Tokens)
		}
	}
	for i, f := range e.EachFragment {
		if f.Tokens < 0 {
			return fieldErr([]any{"request", "estimate", "each_fragment", i, "tokens"},
				"turn %q: request estimate: fragment %s: negative size %d", turnID, Quote(f.Name), f.Tokens)
		}
	}
	return nil
}

// validJSON is json.Valid, in one faster pass (ScanJSON).
func validJSON(b []byte) bool {
	valid, _ := ScanJSON(b)
	return valid
}
