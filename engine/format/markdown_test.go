package format

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// tagged wraps s as the engine bakes a reminder.
func tagged(s string) string { return "<system-reminder>" + s + "</system-reminder>" }

// richChat is a branch that shows every kind of thing a transcript writes.
func richChat() Input {
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	u1text := "hello, how many customers do we have?"
	u1 := chat.Message{ID: "u1", Role: chat.RoleUser, CreatedAt: at(0),
		Locale: &chat.Locale{Language: "English", TimeZone: "Europe/Paris"},
		Parts:  []chat.Part{chat.TextPart(u1text + tagged("Date: 2026-03-27\nDay of Week: Friday"))},
		Reminders: []chat.ReminderSpan{{ID: "builtin:date", Part: 0, Start: len(u1text),
			End: len(u1text) + len(tagged("Date: 2026-03-27\nDay of Week: Friday")), Mode: chat.SpanInline}}}
	a1 := chat.Message{ID: "a1", ParentID: "u1", Role: chat.RoleAssistant, CreatedAt: at(0),
		Parts: []chat.Part{chat.TextPart("Hi! Let me check the *customers* table.")}}

	u2text := "why did the query fail?"
	concise := tagged("Stay concise.")
	workflow := tagged("<workflow>\n  <task>Error recovery</task>\n\n</workflow>")
	skills := tagged("Relevant skills:\n- sql-tuning (1.10)")
	u2 := chat.Message{ID: "u2", ParentID: "a1", Role: chat.RoleUser, CreatedAt: at(2),
		Parts: []chat.Part{chat.TextPart(u2text + concise), chat.TextPart("and `this` one too"), chat.TextPart(workflow + skills)},
		Reminders: []chat.ReminderSpan{
			{ID: "concise", Part: 0, Start: len(u2text), End: len(u2text) + len(concise), Mode: chat.SpanInline},
			{ID: "builtin:skills", Part: 2, Start: len(workflow), End: len(workflow) + len(skills), Mode: chat.SpanInline},
			{ID: "sql-safety", Part: 2, Start: 0, End: len(workflow), Mode: chat.SpanPart},
		}}
	a2 := chat.Message{ID: "a2", ParentID: "u2", Role: chat.RoleAssistant, CreatedAt: at(2), Parts: []chat.Part{
		chat.TextPart("Checking."),
		{Type: chat.PartTool, ToolCallID: "c1", ToolName: "run_sql", State: chat.ToolOutputError,
			Input: []byte(`{"query":"select * from secrets"}`), ErrorText: "permission denied"},
		{Type: chat.PartTool, ToolCallID: "c2", ToolName: "run_sql", State: chat.ToolOutputAvailable,
			Input: []byte(`{"query":"select count(*) from customers"}`), Output: `[{"n": 2}]`},
		{Type: chat.PartTool, ToolCallID: "c3", ToolName: "read_file", State: chat.ToolOutputAvailable,
			Input: []byte(`{"path":"a.md"}`), Output: "# Title\n\n```sh\nls\n```\n"},
		{Type: chat.PartTool, ToolCallID: "c4", ToolName: "run_sql", State: chat.ToolOutputError,
			ErrorText: "line 1: syntax error\nline 2: near FROM"},
		{Type: chat.PartTool, ToolCallID: "c5", ToolName: "ping", State: chat.ToolInputAvailable, Input: []byte("{}")},
		chat.TextPart(""),
		chat.TextPart("The first query was refused.\n\nThe second returned 2 rows."),
	}}

	u3 := chat.Message{ID: "u3", ParentID: "a2", Role: chat.RoleUser, CreatedAt: at(5),
		Parts: []chat.Part{chat.TextPart(tagged("Only a reminder"))},
		Reminders: []chat.ReminderSpan{
			{ID: "nudge", Part: 0, Start: 0, End: len(tagged("Only a reminder")), Mode: chat.SpanInline},
			{ID: "broken", Part: 7, Start: 0, End: 3, Mode: chat.SpanInline},
		}}
	a3 := chat.Message{ID: "a3", ParentID: "u3", Role: chat.RoleAssistant, CreatedAt: at(5), Interrupted: true,
		Parts: []chat.Part{chat.TextPart("I was about to")}}
	u4 := chat.Message{ID: "u4", ParentID: "a3", Role: chat.RoleUser, CreatedAt: at(9),
		Parts: []chat.Part{chat.TextPart("are you there?")}}

	rep := chat.Usage{PromptTokens: 120, CompletionTokens: 9}
	turns := []chat.Turn{
		{ID: "t1", Number: 1, UserMessageID: "u1", AssistantMessageID: "a1", Fired: []chat.Fired{{ID: "builtin:date"}},
			Reported: &rep, Estimated: chat.Usage{PromptTokens: 118, CompletionTokens: 9}, FinishReason: "stop"},
		{ID: "t2", Number: 2, UserMessageID: "u2", AssistantMessageID: "a2",
			Fired:     []chat.Fired{{ID: "concise"}, {ID: "sql-safety"}, {ID: "tool-trouble"}, {ID: "builtin:skills"}},
			Estimated: chat.Usage{PromptTokens: 300, CompletionTokens: 40}, FinishReason: "length"},
		{ID: "t3", Number: 3, UserMessageID: "u3", AssistantMessageID: "a3", Fired: []chat.Fired{{ID: "nudge"}},
			Error: "model: stream broken\nby the server"},
		{ID: "t4", Number: 4, UserMessageID: "u4", Error: "model: 401 Unauthorized"},
	}
	return Input{
		Chat: chat.Chat{ID: "demo-1", Title: "Support\ndemo", ActiveBranch: "main",
			Metadata: map[string]any{"tier": "pro", "system_prompt": "You are a careful analyst.\nBe brief."}},
		Messages: ptrs([]chat.Message{u1, a1, u2, a2, u3, a3, u4}),
		Turns:    turns,
		Branches: []chat.BranchInfo{
			{Branch: chat.Branch{Name: "main"}, Turns: 4},
			{Branch: chat.Branch{Name: "main-v2"}, Turns: 1},
			{Branch: chat.Branch{Name: "main-v3"}, Turns: 2},
		},
		Checkpoints: []chat.Checkpoint{{Name: "after-count", MessageID: "a2"}, {Name: "elsewhere", MessageID: "zz"}},
		Usage:       chat.Usage{PromptTokens: 420, CompletionTokens: 49},
	}
}

func TestMarkdownGolden(t *testing.T) {
	tests := []struct {
		name string
		in   func() Input
	}{
		{"rich.md", richChat},
		{"bare.md", func() Input {
			// No turn records (an imported chat), no title, a message before the first user
			// message, and a tool message.
			ms := []chat.Message{
				{ID: "a0", Role: chat.RoleAssistant, Parts: []chat.Part{chat.TextPart("Welcome!")}},
				{ID: "u1", ParentID: "a0", Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("hi"), chat.TextPart("there")}},
				{ID: "x1", ParentID: "u1", Role: chat.RoleTool, Parts: []chat.Part{chat.TextPart("a tool said")}},
				{ID: "a1", ParentID: "x1", Role: chat.RoleAssistant},
			}
			return Input{Chat: chat.Chat{ID: "imported", ActiveBranch: "main", Metadata: map[string]any{"imported_from": "chat.json"}},
				Branch: "main", Messages: ptrs(ms)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteMarkdown(&b, tt.in()); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestMarkdownMarksReminders(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, richChat()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"hello, how many customers do we have?\n\n> ⟨reminder builtin:date⟩ Date: 2026-03-27\n> Day of Week: Friday\n",
		"> ⟨reminder concise⟩ Stay concise.\n",
		"> ⟨reminder sql-safety · part⟩ <workflow>\n>   <task>Error recovery</task>\n>\n> </workflow>\n",
		"`tool-trouble` (ephemeral)",
		"`concise`, `sql-safety`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	// The reminders are cut out of the user's text: no tag is left outside a quote.
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "<system-reminder>") {
			t.Errorf("a reminder tag is left in the transcript: %q", line)
		}
	}
}

func TestSplitReminders(t *testing.T) {
	tests := []struct {
		name  string
		msg   chat.Message
		texts []string
		ids   []string
	}{
		{"none", chat.Message{Parts: []chat.Part{chat.TextPart("a"), chat.TextPart("b")}}, []string{"a", "b"}, nil},
		{"middle", chat.Message{Parts: []chat.Part{chat.TextPart("aXXb")},
			Reminders: []chat.ReminderSpan{{ID: "x", Start: 1, End: 3}}}, []string{"ab"}, []string{"x"}},
		{"out of order and overlapping", chat.Message{Parts: []chat.Part{chat.TextPart("0123456789")},
			Reminders: []chat.ReminderSpan{{ID: "b", Start: 5, End: 8}, {ID: "a", Start: 2, End: 6}}}, []string{"0189"}, []string{"a", "b"}},
		{"out of range", chat.Message{Parts: []chat.Part{chat.TextPart("abc")},
			Reminders: []chat.ReminderSpan{{ID: "x", Start: 2, End: 9}, {ID: "y", Part: 3}, {ID: "z", Start: 2, End: 1}, {ID: "w", Part: -1}}},
			[]string{"abc"}, nil},
		{"tool part", chat.Message{Parts: []chat.Part{{Type: chat.PartTool}, chat.TextPart("ab")},
			Reminders: []chat.ReminderSpan{{ID: "x", Part: 0, Start: 0, End: 0}, {ID: "y", Part: 1, Start: 0, End: 1}}},
			[]string{"b"}, []string{"y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			texts, spans := splitReminders(&tt.msg)
			if strings.Join(texts, "|") != strings.Join(tt.texts, "|") {
				t.Errorf("got texts %q, want %q", texts, tt.texts)
			}
			var ids []string
			for _, s := range spans {
				ids = append(ids, s.id)
			}
			if strings.Join(ids, " ") != strings.Join(tt.ids, " ") {
				t.Errorf("got spans %q, want %q", ids, tt.ids)
			}
		})
	}
}

func TestCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", "`abc`"},
		{"a`b", "``a`b``"},
		{"`a``", "``` `a`` ```"},
		{"a\nb", "`a b`"},
	}
	for _, tt := range tests {
		if got := code(tt.in); got != tt.want {
			t.Errorf("code(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestMarkdownWriteError(t *testing.T) {
	if err := WriteMarkdown(failWriter{}, richChat()); err == nil {
		t.Error("got no error from a failing writer")
	}
}

// TestMarkdownInert: a hostile reply, tool call or title reaches the transcript inert, the
// text around each sequence kept.
func TestMarkdownInert(t *testing.T) {
	in := richChat()
	in.Chat.Title = "title\x1b]0;PWNED\x07"
	for _, m := range in.Messages {
		for i := range m.Parts {
			p := &m.Parts[i]
			if p.Type == chat.PartText && m.Role == chat.RoleAssistant {
				p.Text = "before\x1b[2J\x1b]52;c;aGk=\x07after"
			}
			if p.Type == chat.PartTool {
				p.ToolName += "\x1b[31m"
				p.Output = "out\x9b\u009b1m"
			}
		}
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, in); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"\x1b", "\x07", "\u009b"} {
		if strings.Contains(out, bad) {
			t.Errorf("the transcript holds %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "beforeafter") {
		t.Errorf("the text around the sequences is lost:\n%s", out)
	}
}
