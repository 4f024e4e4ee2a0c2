package format_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/predicates"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

// richChat builds a chat using every feature: branches, checkpoints, a regenerated reply,
// tool parts, reminders, a failed turn, metadata with a large number.
func richChat(t testing.TB, db *store.DB) {
	t.Helper()
	if err := db.CreateChat(ctx, chat.Chat{ID: "demo-1", Title: "Support <demo> & co",
		Metadata: map[string]any{"tier": "pro", "big": json.Number("12345678901234567890"), "nested": map[string]any{"a": []any{1.5, "x"}}}}); err != nil {
		t.Fatal(err)
	}
	decisions := json.RawMessage(`[
		{"id": "concise", "source": "reminder", "fired": true, "trace": {"expr": "everyNTurns(3)", "why": "turn 3 % 3 == 0"}}]`)
	n := 0 // the turns made
	step := func(branch, head, text string) chat.Commit {
		n++
		return storetest.TurnCommit("demo-1", "", n, branch, head, text, decisions)
	}
	// The first two turns were sent with a context file, the third with none, the others
	// before ctxlab recorded it (not known).
	sent, none := strings.Repeat("0f1e2d3c4b5a6978", 4), ""
	h := ""
	for range 2 {
		c := step("main", h, fmt.Sprintf("message number %d about topic%d", n+1, n%7))
		c.Turns[0].ContextDigest = &sent
		if err := db.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
		h = c.NewHead
	}
	c := step("main", h, "run the report")
	c.Messages[1].Parts = []chat.Part{
		{Type: chat.PartTool, ToolCallID: "call_1", ToolName: "run_sql", State: chat.ToolOutputError, Input: json.RawMessage(`{ "query" : "select 1" }`), ErrorText: "permission denied", Round: 1},
		{Type: chat.PartTool, ToolCallID: "call_2", ToolName: "run_sql", State: chat.ToolOutputAvailable, Input: json.RawMessage(`{"query":"select 2"}`), Output: `[{"n": 2}]`, Round: 1},
		chat.TextPart("Running it now."),
	}
	const rem = "<system-reminder>Stay concise.</system-reminder>"
	c.Messages[0].Parts = []chat.Part{chat.TextPart("run the report\n\n" + rem)}
	c.Messages[0].Reminders = []chat.ReminderSpan{{ID: "concise", Part: 0, Start: 16, End: 16 + len(rem), Mode: chat.SpanInline}}
	temp, seed := 0.2, 7
	c.Turns[0].Request = chat.SentRequest{Model: "gpt-4o-mini", SystemPrompt: "<role>x</role>", SystemInject: "<system-reminder>s</system-reminder>",
		Tools:       []chat.WireTool{{Type: "function", Function: chat.FunctionDecl{Name: "run_sql", Parameters: json.RawMessage(`{"type": "object"}`)}}},
		Temperature: &temp, Seed: &seed, MaxTokens: 256}
	// A live tool loop of two requests, the second of which reported no usage.
	c.Turns[0].Reported, c.Turns[0].FinishReason = nil, "length"
	c.Turns[0].Responses = []chat.Response{
		{FinishReason: "tool_calls", Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 12, TotalTokens: 52, CachedTokens: 8},
			EstimatedPrompt: 45, TTFT: 110 * time.Millisecond, Latency: 300 * time.Millisecond},
		{FinishReason: "length", EstimatedPrompt: 54, TTFT: 10 * time.Millisecond, Latency: 150 * time.Millisecond},
	}
	c.Turns[0].ContextDigest = &none
	if err := db.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := db.SetCheckpoint(ctx, "demo-1", "before-choice", "demo-1-a2"); err != nil {
		t.Fatal(err)
	}
	// Edit turn 1 on a new branch.
	e := step("main-v2", "", "hello again")
	e.NewBranch = &chat.Branch{Parent: "main"}
	e.Activate = true
	e.Turns[0].Number = 1
	if err := db.Commit(ctx, e); err != nil {
		t.Fatal(err)
	}
	// A failed turn with no reply.
	f := step("main-v2", e.NewHead, "this fails")
	f.Messages = f.Messages[:1]
	f.NewHead = f.Messages[0].ID
	f.Turns[0].AssistantMessageID, f.Turns[0].Error, f.Turns[0].Decisions, f.Turns[0].Responses = "", "model: 503", nil, nil
	f.Turns[0].Number = 2
	if err := db.Commit(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateBranch(ctx, "demo-1", chat.Branch{Name: "restore-1", Head: "demo-1-a2", Parent: "main"}, false); err != nil {
		t.Fatal(err)
	}
}

// exportChat returns the export of a chat of db.
func exportChat(db *store.DB, id string) (format.Export, error) {
	a, err := db.ExportChat(ctx, id)
	return format.NewExport(a), err
}

func encode(t testing.TB, e format.Export) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := e.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExportImportRoundTrip(t *testing.T) {
	src := storetest.MustOpen(t)
	richChat(t, src)
	e1, err := exportChat(src, "demo-1")
	if err != nil {
		t.Fatal(err)
	}
	b1 := encode(t, e1)

	golden := filepath.Join("testdata", "export.golden.json")
	if *format.Update {
		if err := os.WriteFile(golden, b1, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(b1, want) {
		t.Errorf("export differs from %s (run go test -update if the change is intended):\n%s", golden, b1)
	}

	read, dst := reimport(t, b1)

	// Derived data is rebuilt: usage, counts, search.
	u1, _ := src.ChatUsage(ctx, "demo-1")
	u2, _ := dst.ChatUsage(ctx, "demo-1")
	l1, _ := src.ListChats(ctx, store.ListOptions{Search: "report"})
	l2, _ := dst.ListChats(ctx, store.ListOptions{Search: "report"})
	if u1 != u2 || len(l1) != 1 || len(l2) != 1 || l1[0].Messages != l2[0].Messages || l1[0].Turns != l2[0].Turns || l1[0].Branches != l2[0].Branches {
		t.Errorf("derived data: usage %+v vs %+v, summaries %+v vs %+v", u1, u2, l1, l2)
	}

	// The same chat again is a conflict; under a new id it goes in beside it.
	if err := format.ImportChat(ctx, dst, read); !errors.Is(err, store.ErrConflict) {
		t.Errorf("import twice: got %v, want ErrConflict", err)
	}
	if err := format.ImportChat(ctx, dst, read.WithChatID("demo-2")); err != nil {
		t.Errorf("import under a new id: %v", err)
	}
	if read.Turns[0].ChatID != "demo-1" {
		t.Errorf("WithChatID changed the original: %q", read.Turns[0].ChatID)
	}
	p, err := dst.Path(ctx, "demo-2", "demo-1-a3")
	if err != nil || len(p) != 6 {
		t.Errorf("Path of the copy: got %d messages, %v", len(p), err)
	}
}

// reimport reads the export b, imports it into a new database, and fails the test unless
// exporting it from there gives b again.
func reimport(t *testing.T, b []byte) (format.Export, *store.DB) {
	t.Helper()
	read, err := format.ReadExport(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	dst := storetest.MustOpenMemory(t)
	if err := format.ImportChat(ctx, dst, read); err != nil {
		t.Fatal(err)
	}
	e2, err := exportChat(dst, read.Chat.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b2 := encode(t, e2); !bytes.Equal(b, b2) {
		t.Errorf("export, import, export: the bytes differ:\n%s\n----\n%s", b, b2)
	}
	return read, dst
}

// TestImportEmptyChat checks that a chat with no message yet (engine.Create saves one),
// whose branch has no head, goes through export, import and export unchanged.
func TestImportEmptyChat(t *testing.T) {
	src := storetest.MustOpenMemory(t)
	if err := src.CreateChat(ctx, chat.Chat{ID: "empty", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	e, err := exportChat(src, "empty")
	if err != nil {
		t.Fatal(err)
	}
	reimport(t, encode(t, e))
}

func TestImportRejects(t *testing.T) {
	src := storetest.MustOpenMemory(t)
	richChat(t, src)
	good, err := exportChat(src, "demo-1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(e *format.Export)
		want   string
		path   string // of the value at fault, in the export's JSON
	}{
		{"format", func(e *format.Export) { e.Format = "other" }, `not a ctxlab chat export`, "format"},
		{"newer version", func(e *format.Export) { e.Version = 2 }, `export version 2 is newer than this ctxlab (1); upgrade ctxlab`, "version"},
		{"duplicate message", func(e *format.Export) { e.Messages[3].ID = e.Messages[2].ID }, `twice`, "messages[3].id"},
		{"missing parent", func(e *format.Export) { e.Messages[2].ParentID = "ghost" }, `parent "ghost" is not a message of the chat`, "messages[2].parent_id"},
		{"cycle", func(e *format.Export) { e.Messages[0].ParentID = e.Messages[3].ID }, `cycle`, "messages[0].parent_id"},
		{"self parent", func(e *format.Export) { e.Messages[1].ParentID = e.Messages[1].ID }, `cycle`, "messages[1].parent_id"},
		{"head missing", func(e *format.Export) { e.Branches[0].Head = "ghost" }, `head "ghost"`, "branches[0].head"},
		{"duplicate branch", func(e *format.Export) { e.Branches[1].Name = "main" }, `branch "main" twice`, "branches[1].name"},
		{"branch parent missing", func(e *format.Export) { e.Branches[1].Parent = "ghost" }, `parent branch "ghost"`, "branches[1].parent"},
		{"active branch missing", func(e *format.Export) { e.Chat.ActiveBranch = "ghost" }, `active branch "ghost"`, "chat.active_branch"},
		{"checkpoint missing", func(e *format.Export) { e.Checkpoints[0].MessageID = "ghost" }, `checkpoint "before-choice"`, "checkpoints[0].message_id"},
		{"turn message missing", func(e *format.Export) { e.Turns[0].UserMessageID = "ghost" }, `message "ghost"`, "turns[0].user_message_id"},
		{"turn branch missing", func(e *format.Export) { e.Turns[0].Branch = "ghost" }, `branch "ghost"`, "turns[0].branch"},
		{"turn of another chat", func(e *format.Export) { e.Turns[0].ChatID = "x" }, `chat id "x"`, "turns[0].chat_id"},
		{"duplicate turn", func(e *format.Export) { e.Turns[1].ID = e.Turns[0].ID }, `twice`, "turns[1].id"},
		{"bad decisions", func(e *format.Export) { e.Turns[0].Decisions = json.RawMessage("{") }, `decisions`, "turns[0].decisions"},
		{"bad role", func(e *format.Export) { e.Messages[0].Role = "root" }, `unknown role`, "messages[0].role"},
		{"span out of range", func(e *format.Export) { e.Messages[0].Reminders = []chat.ReminderSpan{{Part: 5}} }, `out of range`, "messages[0].reminders[0].part_index"},
		{"long id", func(e *format.Export) { e.Messages[0].ID = strings.Repeat("x", chat.MaxNameLen+1) }, `longer than`, "messages[0].id"},
		{"control character", func(e *format.Export) { e.Chat.ID = "a\x1b[31m" }, `control character`, "chat.id"},
		{"year 10000", func(e *format.Export) { e.Messages[0].CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, `outside years`, "messages[0].created_at"},

		// A chat ctxlab could not have made.
		{"title control character", func(e *format.Export) { e.Chat.Title = "a\x00b" }, `title "a\x00b": control character`, "chat.title"},
		{"system message", func(e *format.Export) { e.Messages[2].Role = chat.RoleSystem }, `not system messages`, "messages[2].role"},
		{"no parts", func(e *format.Export) { e.Messages[1].Parts = nil }, `no parts`, "messages[1].parts"},
		{"head on an answered user message", func(e *format.Export) { e.Branches[0].Head = "demo-1-u1" }, `is a user message that has a reply`, "branches[0].head"},
		{"checkpoint on an answered user message", func(e *format.Export) { e.Checkpoints[0].MessageID = "demo-1-u2" }, `is a user message that has a reply`, "checkpoints[0].message_id"},
		{"turn messages swapped", func(e *format.Export) {
			e.Turns[0].UserMessageID, e.Turns[0].AssistantMessageID = e.Turns[0].AssistantMessageID, e.Turns[0].UserMessageID
		}, `user message "demo-1-a1" is an assistant message`, "turns[0].user_message_id"},
		{"turn number", func(e *format.Export) { e.Turns[3].Number = 4 }, `number 4, want 1`, "turns[3].turn"},
		{"turn reply of another message", func(e *format.Export) { e.Turns[1].AssistantMessageID = "demo-1-a1" }, `does not answer user message "demo-1-u2"`, "turns[1].assistant_message_id"},
		{"two turns on one reply", func(e *format.Export) {
			t := e.Turns[0]
			t.ID = "again"
			e.Turns = append(e.Turns, t)
		}, `message "demo-1-a1" is already the reply of turn "demo-1-t1"`, "turns[5].assistant_message_id"},
		{"no reply and no error", func(e *format.Export) { e.Turns[4].Error = "" }, `no assistant message and no error`, "turns[4].assistant_message_id"},
		{"negative usage", func(e *format.Export) { e.Turns[0].Reported.PromptTokens = -1 }, `reported.prompt_tokens -1 is out of range`, "turns[0].reported.prompt_tokens"},
		{"usage too large", func(e *format.Export) { e.Turns[1].Estimated.CachedTokens = 1e12 + 1 }, `estimated.cached_tokens 1000000000001 is out of range`, "turns[1].estimated.cached_tokens"},
		{"negative estimate", func(e *format.Export) {
			e.Turns[0].Request.Estimate = &chat.PromptEstimate{Total: 10, EachFragment: []chat.FragmentTokens{{Name: "role", Tokens: -2}}}
		}, `request estimate: fragment "role": negative size -2`, "turns[0].request.estimate.each_fragment[0].tokens"},
		{"estimate too large", func(e *format.Export) { e.Turns[1].Request.Estimate = &chat.PromptEstimate{History: 1e12 + 1} },
			`request.estimate.history 1000000000001 is out of range`, "turns[1].request.estimate.history"},
		{"latency too long", func(e *format.Export) { e.Turns[0].Latency = 25 * time.Hour }, `latency 90000000000000 is out of range`, "turns[0].latency"},
		{"response too long", func(e *format.Export) { e.Turns[2].Responses[1].Latency = 25 * time.Hour },
			`responses[1].latency 90000000000000 is out of range`, "turns[2].responses[1].latency"},
		{"response usage negative", func(e *format.Export) { e.Turns[2].Responses[0].Usage.CachedTokens = -1 },
			`responses[0].usage.cached_tokens -1 is out of range`, "turns[2].responses[0].usage.cached_tokens"},
		{"context digest too short", func(e *format.Export) { d := (*e.Turns[0].ContextDigest)[:63]; e.Turns[0].ContextDigest = &d },
			`turn "demo-1-t1": context_digest has 63 bytes; want 64 lower-case hexadecimal digits`, "turns[0].context_digest"},
		{"context digest in capitals", func(e *format.Export) { d := strings.ToUpper(*e.Turns[1].ContextDigest); e.Turns[1].ContextDigest = &d },
			`context_digest holds "F" at byte 2; want 64 lower-case hexadecimal digits`, "turns[1].context_digest"},
		{"context digest of another kind", func(e *format.Export) { d := strings.Repeat("é", 32); e.Turns[3].ContextDigest = &d },
			`context_digest holds "é" at byte 1`, "turns[3].context_digest"},
		{"decisions not a list", func(e *format.Export) { e.Turns[0].Decisions = json.RawMessage(`{"id": "x"}`) }, `want an array, not an object`, "turns[0].decisions"},
		{"decision id a number", func(e *format.Export) { e.Turns[0].Decisions = json.RawMessage(`[{"id": 1}]`) }, `want a string, not the number 1`, "turns[0].decisions[0].id"},
		{"decision source", func(e *format.Export) { e.Turns[0].Decisions = json.RawMessage(`[{"id": "x"}]`) }, `source "", want "reminder" or "instruction"`, "turns[0].decisions[0].source"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := format.ReadExport(bytes.NewReader(encode(t, good))) // a deep copy
			if err != nil {
				t.Fatal(err)
			}
			tc.change(&e)
			dst := storetest.MustOpenMemory(t)
			err = format.ImportChat(ctx, dst, e)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ImportChat: got %v, want an error with %q", err, tc.want)
			}
			if !errors.Is(err, chat.ErrInvalid) && !errors.Is(err, format.ErrSchema) {
				t.Errorf("ImportChat: got %v, want ErrInvalid or ErrSchema", err)
			}
			var ee *format.ExportError
			if !errors.As(err, &ee) || ee.Path.String() != tc.path || ee.Offset != -1 {
				t.Errorf("ImportChat: got %#v, want an *ExportError at %s", err, tc.path)
			}
			if err2 := format.CheckExport(&e); err2 == nil || err2.Error() != ee.Error() {
				t.Errorf("CheckExport: got %v, want %v", err2, ee)
			}
			if list, _ := dst.ListChats(ctx, store.ListOptions{}); len(list) != 0 {
				t.Errorf("a rejected import wrote %d chats", len(list))
			}
		})
	}
}

func TestReadExportRejects(t *testing.T) {
	src := storetest.MustOpenMemory(t)
	richChat(t, src)
	good, _ := exportChat(src, "demo-1")
	b := encode(t, good)
	lines := strings.Count(string(b), "\n")
	tests := []struct {
		name string
		data string
		want string // the error: line, column and message
		path string // the path of the value at fault
	}{
		{"empty", "", "line 1, column 1: the file is empty; want a ctxlab chat export", ""},
		{"truncated", string(b[:len(b)/2]), "unexpected end of the file (truncated?)", ""},
		{"trailing data", string(b) + `{"format":"ctxlab-chat"}`, fmt.Sprintf("line %d, column 1: invalid character '{' after top-level value", lines+1), ""},
		{"garbage", "\x00\x01PK zip", "line 1, column 1: invalid character '\\x00' looking for beginning of value", ""},
		{"not an object", ` [1, 2]`, "line 1, column 2: want a JSON object (a ctxlab chat export), not an array", ""},
		{"unknown field", strings.Replace(string(b), `"title"`, `"colour": 1, "title"`, 1),
			`line 6, column 5: unknown field "colour" in chat (known fields: id, title, metadata, active_branch, created_at, updated_at)`, "chat.colour"},
		{"unknown field, near", strings.Replace(string(b), `"title"`, `"titles": 1, "title"`, 1),
			`line 6, column 5: unknown field "titles" in chat; did you mean title?`, "chat.titles"},
		{"wrong type", strings.Replace(string(b), `"version": 1`, `"version": "1"`, 1),
			"line 3, column 14: export version: want an integer from 1 to 1, not a string", "version"},
		{"wrong type nested", strings.Replace(string(b), `"part_index":0`, `"part_index":false`, 1),
			"line 26, column 254: messages[4].reminders[0].part_index: want an integer, not a boolean", "messages[4].reminders[0].part_index"},
		{"bad time", strings.Replace(string(b), `"created_at":"2026-03-27T14:31:01Z"`, `"created_at":"2026-03-27 14:31"`, 1),
			`line 23, column 153: messages[1].created_at: want a time like "2006-01-02T15:04:05Z" (RFC 3339), not "2026-03-27 14:31"`, "messages[1].created_at"},
		{"wrong format", `{"format": "chatgpt", "version": 1}`, `line 1, column 12: not a ctxlab chat export (format "chatgpt", want "ctxlab-chat")`, "format"},
		{"no format", `{"version": 1}`, `line 1, column 1: not a ctxlab chat export (no "format"; want "ctxlab-chat")`, ""},
		{"newer", `{"format": "ctxlab-chat", "version": 9, "future": true}`, "line 1, column 38: export version 9 is newer than this ctxlab (1); upgrade ctxlab", "version"},
		{"syntax error line", "{\n  \"format\": \"ctxlab-chat\",\n  \"version\": 1,\n  \"chat\": {,}\n}",
			"line 4, column 12: invalid character ',' looking for beginning of object key string", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := format.ReadExport(strings.NewReader(tc.data))
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("ReadExport: got %v, want an error ending with %q", err, tc.want)
			}
			var ee *format.ExportError
			if !errors.As(err, &ee) || ee.Line < 1 || ee.Col < 1 || ee.Offset < 0 || ee.Offset > int64(len(tc.data)) {
				t.Fatalf("ReadExport: got %#v, want an *ExportError with its place in the file", err)
			}
			if got := ee.Path.String(); got != tc.path {
				t.Errorf("got path %q, want %q", got, tc.path)
			}
			if line, col := ee.Locate([]byte(tc.data)); line != ee.Line || col != ee.Col {
				t.Errorf("Locate: got %d:%d, want %d:%d", line, col, ee.Line, ee.Col)
			}
			if !errors.Is(err, chat.ErrInvalid) && !errors.Is(err, format.ErrSchema) {
				t.Errorf("got %v, want ErrInvalid or ErrSchema", err)
			}
		})
	}
}

func FuzzReadExport(f *testing.F) {
	src := storetest.MustOpenMemory(f)
	richChat(f, src)
	good, _ := exportChat(src, "demo-1")
	b := encode(f, good)
	f.Add(b)
	f.Add(b[:len(b)/3])
	f.Add([]byte(`{"format":"ctxlab-chat","version":1,"chat":{"id":"x","title":"","active_branch":"main","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"},"messages":[],"branches":[{"name":"main","head":"","created_at":"2026-01-01T00:00:00Z"}],"checkpoints":[],"turns":[]}`))
	f.Add([]byte(`{"format":"ctxlab-chat","version":1,"chat":{"id":"x","active_branch":"main"},"messages":[{"id":"a","parent_id":"b","role":"user","parts":null,"created_at":"0001-01-01T00:00:00Z"},{"id":"b","parent_id":"a","role":"user","parts":null,"created_at":"0001-01-01T00:00:00Z"}],"branches":[{"name":"main","head":"a","created_at":"0001-01-01T00:00:00Z"}]}`))
	// One database for every input (opening one per input makes fuzzing crawl); each
	// input's chat goes in under a fresh id.
	db := storetest.MustOpenMemory(f)
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := format.ReadExport(bytes.NewReader(data))
		if err != nil {
			return
		}
		id := fmt.Sprintf("fuzz-%d", n.Add(1))
		before, _ := db.ListChats(ctx, store.ListOptions{})
		if err := format.ImportChat(ctx, db, e.WithChatID(id)); err != nil {
			if after, _ := db.ListChats(ctx, store.ListOptions{}); len(after) != len(before) {
				t.Fatalf("a rejected import (%v) wrote a chat", err)
			}
			return
		}
		e1, err := exportChat(db, id)
		if err != nil {
			t.Fatalf("export of an imported chat: %v", err)
		}
		b1 := encode(t, e1)
		e2, err := format.ReadExport(bytes.NewReader(b1))
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		if err := format.ImportChat(ctx, db, e2.WithChatID(id+"-copy")); err != nil {
			t.Fatalf("import of an export: %v", err)
		}
		e3, err := exportChat(db, id+"-copy")
		if err != nil {
			t.Fatal(err)
		}
		if b3 := encode(t, e3.WithChatID(id)); !bytes.Equal(b1, b3) {
			t.Fatalf("export, import, export differ:\n%s\n----\n%s", b1, b3)
		}
	})
}

// TestImportTakesRecordedDecisions checks that an import takes the decisions the engine
// records, of both forms, with every field set: the import check decodes them into the
// engine's own decision type (decision.Decision), refusing unknown fields.
func TestImportTakesRecordedDecisions(t *testing.T) {
	src := storetest.MustOpenMemory(t)
	richChat(t, src)
	good, err := exportChat(src, "demo-1")
	if err != nil {
		t.Fatal(err)
	}
	tr := &predicates.Result{Expr: "once('x')", Value: true, Why: "w", Error: "e", Children: []predicates.Result{{Expr: "turn > 1"}}}
	for _, d := range []decision.Decision{
		{ID: "r", Source: decision.SourceReminder, Fired: true, Reason: decision.ReasonFired, Detail: "d", Placement: "user",
			Tier: "safety", Text: "t", Tokens: 3, Trace: tr, OnceLatches: []string{"x"}, Was: &decision.Was{Reason: decision.ReasonCapReached}},
		{ID: "i", Source: decision.SourceInstruction, Kind: "must", Scope: "Always", Fired: true, Reason: decision.ReasonDeferredToModel,
			Detail: "d", Text: "t", When: []string{"w"}, Trace: tr, OnceLatches: []string{"x"}, Was: &decision.Was{Fired: true, Reason: decision.ReasonFired}},
	} {
		e, err := format.ReadExport(bytes.NewReader(encode(t, good))) // a deep copy
		if err != nil {
			t.Fatal(err)
		}
		e.Turns[0].Decisions = decision.AppendList(nil, []decision.Decision{d})
		if err := format.CheckExport(&e); err != nil {
			t.Errorf("%s decision %s: %v", d.Source, e.Turns[0].Decisions, err)
		}
		dst := storetest.MustOpenMemory(t)
		if err := format.ImportChat(ctx, dst, e); err != nil {
			t.Errorf("ImportChat with %s decision: %v", d.Source, err)
		}
	}
}
