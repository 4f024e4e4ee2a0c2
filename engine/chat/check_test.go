package chat

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

var checkT0 = time.Date(2026, 3, 27, 14, 30, 0, 0, time.UTC)

func TestCheckMessage(t *testing.T) {
	good := func() Message {
		return Message{ID: "m1", Role: RoleUser, CreatedAt: checkT0,
			Parts:     []Part{TextPart("hello <system-reminder>x</system-reminder>")},
			Reminders: []ReminderSpan{{ID: "r", Part: 0, Start: 6, End: 42}}}
	}
	tests := []struct {
		name   string
		change func(m *Message)
		path   []any // nil: accepted
		msg    string
	}{
		{"good", func(*Message) {}, nil, ""},
		{"tool part", func(m *Message) {
			m.Parts = append(m.Parts, Part{Type: PartTool, State: ToolOutputAvailable, Input: json.RawMessage(`{}`)})
		}, nil, ""},
		{"empty id", func(m *Message) { m.ID = "" }, []any{"id"}, "empty message id"},
		{"bad parent", func(m *Message) { m.ParentID = "a\x00" }, []any{"parent_id"}, `message "m1": parent id "a\x00": control character`},
		{"role", func(m *Message) { m.Role = "root" }, []any{"role"}, `message "m1": unknown role "root"`},
		{"too many parts", func(m *Message) { m.Parts = make([]Part, MaxParts+1) }, []any{"parts", MaxParts}, "more than 10000 parts"},
		{"part type", func(m *Message) { m.Parts[0].Type = "image" }, []any{"parts", 0, "type"}, `part 0: unknown part type "image"`},
		{"tool state", func(m *Message) { m.Parts = append(m.Parts, Part{Type: PartTool, State: "done"}) }, []any{"parts", 1, "state"}, `unknown tool state "done"`},
		{"tool input", func(m *Message) { m.Parts = append(m.Parts, Part{Type: PartTool, Input: json.RawMessage(`{`)}) }, []any{"parts", 1, "input"}, "not valid JSON"},
		{"span part", func(m *Message) { m.Reminders[0].Part = 1 }, []any{"reminders", 0, "part_index"}, "out of range"},
		{"span start", func(m *Message) { m.Reminders[0].Start = 50 }, []any{"reminders", 0, "start"}, "out of range"},
		{"span end", func(m *Message) { m.Reminders[0].End = 500 }, []any{"reminders", 0, "end"}, "span [6,500) of part 0 out of range"},
		{"time", func(m *Message) { m.CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, []any{"created_at"}, "outside years 0 to 9999"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := good()
			tc.change(&m)
			checkFieldError(t, CheckMessage(&m), tc.path, tc.msg)
		})
	}
}

func TestCheckTurn(t *testing.T) {
	tests := []struct {
		name   string
		change func(tr *Turn)
		path   []any
		msg    string
	}{
		{"good", func(*Turn) {}, nil, ""},
		{"no reply", func(tr *Turn) { tr.AssistantMessageID = "" }, nil, ""},
		{"empty id", func(tr *Turn) { tr.ID = "" }, []any{"id"}, "empty turn id"},
		{"user message id", func(tr *Turn) { tr.UserMessageID = strings.Repeat("x", MaxNameLen+1) }, []any{"user_message_id"}, "longer than 1024 bytes"},
		{"assistant message id", func(tr *Turn) { tr.AssistantMessageID = "\x7f" }, []any{"assistant_message_id"}, "control character"},
		{"negative number", func(tr *Turn) { tr.Number = -1 }, []any{"turn"}, `turn "t1": negative number -1`},
		{"decisions", func(tr *Turn) { tr.Decisions = json.RawMessage(`[`) }, []any{"decisions"}, "decisions are not valid JSON"},
		{"estimate", func(tr *Turn) { tr.Request.Estimate = &PromptEstimate{Framing: -1} }, []any{"request", "estimate", "framing"}, "negative framing -1"},
		{"fragment estimate", func(tr *Turn) {
			tr.Request.Estimate = &PromptEstimate{EachFragment: []FragmentTokens{{Name: "a", Tokens: 1}, {Name: "b", Tokens: -1}}}
		}, []any{"request", "estimate", "each_fragment", 1, "tokens"}, `fragment "b": negative size -1`},
		{"time", func(tr *Turn) { tr.At = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }, []any{"at"}, `turn "t1": time`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := Turn{ID: "t1", UserMessageID: "u1", AssistantMessageID: "a1", Number: 1, At: checkT0, Decisions: json.RawMessage(`[]`)}
			tc.change(&tr)
			checkFieldError(t, CheckTurn(&tr), tc.path, tc.msg)
		})
	}
}

func TestCheckChat(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *Chat)
		path   []any
		msg    string
	}{
		{"good", func(*Chat) {}, nil, ""},
		{"id", func(c *Chat) { c.ID = "" }, []any{"id"}, "empty chat id"},
		{"active branch", func(c *Chat) { c.ActiveBranch = "" }, []any{"active_branch"}, `chat "c1": active branch: empty branch name`},
		{"title", func(c *Chat) { c.Title = "a\x00" }, []any{"title"}, `chat "c1": title "a\x00": control character`},
		{"created", func(c *Chat) { c.CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, []any{"created_at"}, `chat "c1": time 10000`},
		{"updated", func(c *Chat) { c.UpdatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, []any{"updated_at"}, "outside years"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Chat{ID: "c1", Title: "A chat", ActiveBranch: "main", CreatedAt: checkT0, UpdatedAt: checkT0}
			tc.change(&c)
			checkFieldError(t, CheckChat(&c), tc.path, tc.msg)
		})
	}
}

// checkFieldError fails unless err is nil for a nil path, or else a *FieldError at path
// whose message holds msg and which wraps ErrInvalid.
func checkFieldError(t *testing.T, err error, path []any, msg string) {
	t.Helper()
	if path == nil {
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		return
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("got %T %v, want a *FieldError", err, err)
	}
	if !reflect.DeepEqual(fe.Path, path) {
		t.Errorf("got path %v, want %v", fe.Path, path)
	}
	if !strings.Contains(fe.Error(), msg) {
		t.Errorf("got %q, want it to hold %q", fe.Error(), msg)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("got %v, want it to wrap ErrInvalid", err)
	}
}
