package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/store"
)

const expScript = "testdata/cli/export.script.yaml"

// expScriptDB returns a database holding the chat of the export script.
func expScriptDB(t *testing.T) string {
	t.Helper()
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	mustRunCtxlab(t, "run", expScript, "--db", db)
	return db
}

// expDBState is every chat of a database, exported, in list order: two states are equal when
// nothing was written.
func expDBState(t *testing.T, path string) string {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer db.Close()
	list, err := db.ListChats(context.Background(), store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range list {
		e, err := db.ExportChat(context.Background(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%+v\n", c)
		if err := format.NewExport(e).Encode(&b); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func TestChatsCommand(t *testing.T) {
	db := expScriptDB(t)
	missing := filepath.Join(t.TempDir(), "sub", "missing.db")
	if got, want := mustRunCtxlab(t, "chats", "--db", missing), "no chats yet (no database at "+missing+")\n"; got != want {
		t.Errorf("chats of a database that does not exist: got %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("chats created %s: %v", filepath.Dir(missing), err)
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	if d, err := store.Open(empty); err != nil {
		t.Fatal(err)
	} else {
		d.Close()
	}
	if got := mustRunCtxlab(t, "chats", "--db", empty); got != "no chats yet\n" {
		t.Errorf("chats of an empty database: got %q, want %q", got, "no chats yet\n")
	}
	for _, db := range []string{empty, missing} {
		if got := mustRunCtxlab(t, "chats", "--db", db, "--json"); got != "" {
			t.Errorf("chats --json of %s: got %q, want nothing", db, got)
		}
	}

	// A second chat, updated earlier: listed after the first.
	other := filepath.Join(t.TempDir(), "other.json")
	expWriteFile(t, other, `[{"role":"user","content":"penguins on ice"},{"role":"assistant","content":"Brr."}]`)
	otherID := strings.TrimSpace(mustRunCtxlab(t, "import", other, "--db", db))

	out := mustRunCtxlab(t, "chats", "--db", db)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want a header and 2 chats:\n%s", len(lines), out)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "ID TITLE BRANCHES TURNS TOKENS COST UPDATED" {
		t.Errorf("got header %q", lines[0])
	}
	// The columns are aligned: every row starts its title where the header does.
	col := strings.Index(lines[0], "TITLE")
	for _, l := range lines[1:] {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row %q: title not at column %d", l, col)
		}
	}
	// The imported chat was made now, after the script's steps: it comes first.
	if !strings.HasPrefix(lines[1], otherID+" ") || !strings.HasPrefix(lines[2], "export-1 ") {
		t.Errorf("want the newest chat first, got:\n%s", out)
	}
	want := regexp.MustCompile(`^export-1 +Orders & <refunds> +2 +3 +1023 +(-|\$[0-9.]+) +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`)
	if !want.MatchString(lines[2]) {
		t.Errorf("got row %q, want it to match %s", lines[2], want)
	}

	// --json: one object per line, with what the table shows.
	out = mustRunCtxlab(t, "chats", "--db", db, "--json")
	lines = strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d JSON lines, want 2:\n%s", len(lines), out)
	}
	var c chatLine
	dec := json.NewDecoder(strings.NewReader(lines[1]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	wantLine := chatLine{ID: "export-1", Title: "Orders & <refunds>", ActiveBranch: "main", Branches: 2, Turns: 3,
		Messages: 8, Tokens: 1023, Usage: chat.Usage{PromptTokens: 978, CompletionTokens: 45, TotalTokens: 1023},
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
	if c != wantLine {
		t.Errorf("got  %+v\nwant %+v", c, wantLine)
	}
	if _, err := time.Parse(time.RFC3339Nano, c.UpdatedAt); err != nil {
		t.Errorf("updated_at: %v", err)
	}
	if !strings.Contains(lines[1], `"title":"Orders & <refunds>"`) {
		t.Errorf("want <, > and & as they are: %s", lines[1])
	}

	// The tokens are the sum of the counted usage of every turn, on every branch.
	var e format.Export
	if err := json.Unmarshal([]byte(mustRunCtxlab(t, "export", "export-1", "--db", db)), &e); err != nil {
		t.Fatal(err)
	}
	var u chat.Usage
	for i := range e.Turns {
		u = u.Add(e.Turns[i].Counted())
	}
	if u.Total() != c.Tokens {
		t.Errorf("got %d tokens, want the sum over the turns, %d", c.Tokens, u.Total())
	}

	tests := []struct {
		search string
		want   []string
	}{
		{"refunds", []string{"export-1"}},
		{"REFUND", []string{"export-1"}},        // a word prefix, any case
		{"orders penguins", nil},                // every word in one chat
		{"penguins", []string{otherID}},         // an imported chat is indexed
		{"Stay concise", nil},                   // baked reminders are not searched
		{"Read the error before retrying", nil}, // nor reminders in their own part
		{"refunds OR zebra", nil},               // FTS operators are words
		{"zebra", nil},
	}
	for _, tt := range tests {
		t.Run("search "+tt.search, func(t *testing.T) {
			out := mustRunCtxlab(t, "chats", "--db", db, "--search", tt.search, "--json")
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var c chatLine
				if l == "" {
					continue
				}
				if err := json.Unmarshal([]byte(l), &c); err != nil {
					t.Fatal(err)
				}
				got = append(got, c.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if got, want := mustRunCtxlab(t, "chats", "--db", db, "--search", "zebra"), "no chats match \"zebra\"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func expWriteFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExportImportExportIsIdentical(t *testing.T) {
	db := expScriptDB(t)
	first := mustRunCtxlab(t, "export", "export-1", "--db", db, "--format", "json")
	if !strings.HasPrefix(first, "{\n  \"format\": \"ctxlab-chat\",\n  \"version\": 1,") {
		t.Errorf("export does not start as a ctxlab export:\n%.200s", first)
	}
	file := filepath.Join(t.TempDir(), "export-1.json")
	mustRunCtxlab(t, "export", "export-1", "--db", db, "--out", file) // json is the default format
	if got := expReadFile(t, file); got != first {
		t.Errorf("--out wrote other bytes than the standard output")
	}

	fresh := filepath.Join(t.TempDir(), "fresh.db")
	if got := mustRunCtxlab(t, "import", file, "--db", fresh); got != "export-1\n" {
		t.Errorf("import printed %q, want %q", got, "export-1\n")
	}
	second := mustRunCtxlab(t, "export", "export-1", "--db", fresh, "--format", "json")
	if second != first {
		t.Errorf("export, import, export differs:\n--- first\n%s\n--- second\n%s", first, second)
	}
	for _, f := range []string{"markdown", "openai"} {
		a := mustRunCtxlab(t, "export", "export-1", "--db", db, "--format", f)
		b := mustRunCtxlab(t, "export", "export-1", "--db", fresh, "--format", f)
		if a != b {
			t.Errorf("%s export of the imported chat differs", f)
		}
	}

	// The same id again is refused, with a hint; --new-id imports it beside.
	before := expDBState(t, fresh)
	r := runCtxlab(t, "import", file, "--db", fresh)
	if r.code != exitFailure || !strings.Contains(r.stderr, `chat "export-1" already exists`) || !strings.Contains(r.stderr, "--new-id") {
		t.Errorf("second import: got exit %d, stderr %q; want 1 and a hint at --new-id", r.code, r.stderr)
	}
	if expDBState(t, fresh) != before {
		t.Error("a refused import changed the database")
	}
	id := strings.TrimSpace(mustRunCtxlab(t, "import", file, "--db", fresh, "--new-id"))
	if !uuidRE.MatchString(id) || len(id) != 36 {
		t.Fatalf("import --new-id printed %q, want a UUID", id)
	}
	e, err := format.ReadExport(strings.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := e.WithChatID(id).Encode(&want); err != nil {
		t.Fatal(err)
	}
	if got := mustRunCtxlab(t, "export", id, "--db", fresh); got != want.String() {
		t.Errorf("the chat imported under a new id is not the export with that id:\n%s", got)
	}
}

func expReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExportGoldens(t *testing.T) {
	db := expScriptDB(t)
	for _, tt := range []struct{ format, golden string }{
		{"markdown", "export.md.golden"},
		{"openai", "export.openai.golden"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			out := mustRunCtxlab(t, "export", "export-1", "--db", db, "--format", tt.format)
			checkGolden(t, tt.golden, normaliseIDs(out))
		})
	}
	// The openai export is what the model was sent: the system prompt of the chat's last
	// request, then the branch's messages with their baked reminders.
	var e format.Export
	if err := json.Unmarshal([]byte(mustRunCtxlab(t, "export", "export-1", "--db", db)), &e); err != nil {
		t.Fatal(err)
	}
	var msgs []chat.WireMessage
	if err := json.Unmarshal([]byte(mustRunCtxlab(t, "export", "export-1", "--db", db, "--format", "openai")), &msgs); err != nil {
		t.Fatal(err)
	}
	if n := len(msgs); n != 10 {
		t.Fatalf("got %d messages, want 10 (the system prompt; a reply with a tool round is 4)", n)
	}
	last := e.Turns[len(e.Turns)-1].Request.SystemPrompt
	if msgs[0].Role != chat.RoleSystem || msgs[0].Text() != last || last == "" {
		t.Errorf("want the last request's system prompt first, got %+v", msgs[0])
	}
	if msgs[6].Role != chat.RoleUser || !strings.Contains(msgs[6].Text(), "<system-reminder>") {
		t.Errorf("want the baked reminders in the openai export, got %+v", msgs[6])
	}
}

func TestImportOpenAIArray(t *testing.T) {
	isolateCtxlabEnv(t)
	db := filepath.Join(t.TempDir(), "ctxlab.db")
	file := "testdata/cli/export-import.openai.json"
	id := strings.TrimSpace(mustRunCtxlab(t, "import", file, "--db", db))
	if !uuidRE.MatchString(id) || len(id) != 36 {
		t.Fatalf("import printed %q, want a UUID", id)
	}
	if got, want := mustRunCtxlab(t, "export", id, "--db", db, "--format", "openai"), expReadFile(t, file); got != want {
		t.Errorf("import then export openai differs:\n--- got\n%s\n--- want\n%s", got, want)
	}
	var e format.Export
	if err := json.Unmarshal([]byte(mustRunCtxlab(t, "export", id, "--db", db)), &e); err != nil {
		t.Fatal(err)
	}
	if got, want := e.Chat.Title, "Which orders of last week were refunded, and by whom? I need…"; got != want {
		t.Errorf("got title %q, want %q (the first user message's first 60 characters, the cut marked)", got, want)
	}
	if got := e.Chat.Metadata["imported_from"]; got != "export-import.openai.json" {
		t.Errorf("got imported_from %v, want the file's base name", got)
	}
	if got := e.Chat.Metadata["system_prompt"]; got != "You answer questions about orders." {
		t.Errorf("got system_prompt %v", got)
	}
	if len(e.Branches) != 1 || e.Branches[0].Name != "main" || e.Branches[0].Head != e.Messages[len(e.Messages)-1].ID {
		t.Errorf("want one branch main at the last message, got %+v", e.Branches)
	}
	if len(e.Turns) != 0 {
		t.Errorf("got %d turn records, want none", len(e.Turns))
	}
	for i, m := range e.Messages {
		if !uuidRE.MatchString(m.ID) {
			t.Errorf("message %d: id %q is not a UUID", i, m.ID)
		}
		if i > 0 && m.ParentID != e.Messages[i-1].ID {
			t.Errorf("message %d: parent %q, want %q", i, m.ParentID, e.Messages[i-1].ID)
		}
	}
	// The imported chat is a chat like any other: searchable, listed, with its reminders
	// marked in the transcript.
	if out := mustRunCtxlab(t, "chats", "--db", db, "--search", "refunded"); !strings.Contains(out, id) {
		t.Errorf("search did not find the imported chat:\n%s", out)
	}
	md := mustRunCtxlab(t, "export", id, "--db", db, "--format", "markdown")
	for _, want := range []string{"## System prompt\n\nYou answer questions about orders.\n", "> ⟨reminder⟩ Stay concise.\n",
		"- tool `query` `{\"sql\":\"select * from refunds\"}` → output: `permission denied`"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestImportRejectsBadFiles(t *testing.T) {
	db := expScriptDB(t)
	good := mustRunCtxlab(t, "export", "export-1", "--db", db)
	dir := t.TempDir()

	// mutate returns the good export changed by fn.
	mutate := func(fn func(e *format.Export)) string {
		e, err := format.ReadExport(strings.NewReader(good))
		if err != nil {
			t.Fatal(err)
		}
		e = e.WithChatID("imported-1")
		fn(&e)
		var b bytes.Buffer
		if err := e.Encode(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	lines := strings.Split(good, "\n")
	// Exact columns inside a message or turn are TestImportPositions's: here each element
	// of the export is one long line.
	tests := []struct {
		name, content string
		want          string // a regular expression the stderr must match
	}{
		{"empty", "", `^FILE:1:1: the file is empty`},
		{"truncated export", good[:len(good)/2], `^FILE:\d+:\d+: unexpected end of the file \(truncated\?\)$`},
		{"truncated to the header", good[:40], `^FILE:3:\d+: unexpected end of the file`},
		{"syntax error", strings.Join(lines[:5], "\n") + "\n  ,,\n" + strings.Join(lines[5:], "\n"), `^FILE:6:3: invalid character ','`},
		{"trailing data", good + "{}", `^FILE:\d+:1: invalid character '\{' after top-level value$`},
		{"not JSON", "hello", `^FILE:1:1: invalid character 'h' looking for beginning of value$`},
		{"binary", "\x00\x01\x02", `^FILE:1:1: invalid character`},
		{"type error", strings.Replace(good, `"turn":1,`, `"turn":"one",`, 1), `^FILE:\d+:\d+: turns\[0\]\.turn: want an integer, not a string$`},
		{"unknown field", strings.Replace(good, `"format": "ctxlab-chat",`, `"format": "ctxlab-chat", "extra": 1,`, 1), `^FILE:2:28: unknown field "extra" in the export \(known fields: format, version, chat, messages, branches, checkpoints, turns\)$`},
		{"other format", `{"format": "other-tool", "messages": []}`, `^FILE:1:12: not a ctxlab chat export \(format "other-tool", want "ctxlab-chat"\)$`},
		{"newer version", strings.Replace(good, `"version": 1,`, `"version": 9,`, 1), `^FILE:3:14: export version 9 is newer than this ctxlab \(1\); upgrade ctxlab$`},
		{"parent cycle", mutate(func(e *format.Export) { e.Messages[0].ParentID = e.Messages[len(e.Messages)-1].ID }),
			`^FILE:\d+:\d+: message "[^"]+": its ancestors form a cycle$`},
		{"missing parent", mutate(func(e *format.Export) { e.Messages[3].ParentID = "nowhere" }),
			`^FILE:\d+:\d+: message "[^"]+": parent "nowhere" is not a message of the chat$`},
		{"head not a message", mutate(func(e *format.Export) { e.Branches[1].Head = "nowhere" }),
			`^FILE:\d+:\d+: branch "main-v2": head "nowhere" is not a message of the chat$`},
		{"turn of another chat", mutate(func(e *format.Export) { e.Turns[0].ChatID = "export-1" }),
			`^FILE:\d+:\d+: turn "[^"]+": chat id "export-1", want "imported-1"$`},
		{"duplicate message", mutate(func(e *format.Export) { e.Messages = append(e.Messages, e.Messages[0]) }),
			`^FILE:\d+:\d+: message "[^"]+" twice$`},
		{"huge id", mutate(func(e *format.Export) { e.Chat.ID = strings.Repeat("x", 1100) }), `^FILE:5:11: chat id "x+"…: longer than 1024 bytes$`},
		{"bad span", mutate(func(e *format.Export) { e.Messages[2].Reminders[0].End = 1 << 20 }),
			`^FILE:\d+:\d+: message "[^"]+": reminder "concise": span \[\d+,1048576\) of part 0 out of range$`},
		{"deep nesting", `[` + strings.Repeat(`{"a":`, 12000), `^FILE:1:\d+: invalid character '\{' exceeded max depth$`},
		{"no messages", `{"model": "gpt"}`, `^FILE:1:1: neither a ctxlab chat export \(no "format"\) nor an OpenAI request \(no "messages"\)$`},
		{"empty array", `[]`, `^FILE:1:1: no messages to import$`},
		{"openai tool answers no call", "[\n  {\"role\": \"user\", \"content\": \"a\"},\n  {\"role\": \"assistant\", \"content\": \"b\"},\n  {\"role\": \"user\", \"content\": \"c\"},\n  {\"role\": \"tool\", \"content\": \"d\", \"tool_call_id\": \"x\"}\n]",
			`^FILE:5:52: messages\[3\]: tool message with tool_call_id "x" answers no call$`},
		{"openai unknown role", "{\"messages\": [\n {\"role\": \"wizard\", \"content\": \"a\"}]}",
			`^FILE:2:11: messages\[0\]: unknown role "wizard" \(want system, developer, user, assistant or tool\)$`},
		{"openai content type", "[{\"role\": \"user\",\n \"content\": [{\"type\": \"image_url\", \"image_url\": {\"url\": \"x\"}}]}]",
			`^FILE:2:23: messages\[0\]: content\[0\]: part type "image_url" is not supported \(only text parts can be imported\)$`},
		{"openai content a number", "[{\"role\": \"user\", \"content\": 12}]",
			`^FILE:1:30: messages\[0\]: content: want a string, an array of text parts or null, not a number$`},
		{"openai role a number", "[{\"role\": 12}]", `^FILE:1:11: messages\[0\]: role: want a string, not number$`},
		{"openai unanswered call", `[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}]`,
			`^FILE:1:42: messages\[0\]: tool call "c" has no tool message answering it$`},
		{"openai bad arguments", `[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{oops"}}]}]`,
			`^FILE:1:81: messages\[0\]: tool_calls\[0\]: arguments are not JSON: invalid character 'o'`},
		{"openai truncated", "[{\"role\": \"user\", \"content\": \"a\"},\n{\"role\": \"assi", `^FILE:2:15: unexpected end of the file \(truncated\?\)$`},
		{"non-ASCII column", "[\n  {\"role\": \"héllo wörld\" x}]", `^FILE:2:26: invalid character 'x' after object key:value pair$`},
	}
	before := expDBState(t, db)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
			expWriteFile(t, file, tt.content)
			r := runCtxlab(t, "import", file, "--db", db)
			if r.code != exitInvalid {
				t.Errorf("got exit %d, want %d (stderr %q)", r.code, exitInvalid, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("got stdout %q, want nothing", r.stdout)
			}
			got := strings.TrimRight(strings.ReplaceAll(r.stderr, file, "FILE"), "\n")
			if !regexp.MustCompile(tt.want).MatchString(got) {
				t.Errorf("got stderr %q, want it to match %q", got, tt.want)
			}
			if after := expDBState(t, db); after != before {
				t.Errorf("the database changed")
			}
		})
	}
	r := runCtxlab(t, "import", filepath.Join(dir, "missing.json"), "--db", db)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "missing.json: cannot read: no such file") {
		t.Errorf("missing file: got exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestExportErrors(t *testing.T) {
	db := expScriptDB(t)
	out := filepath.Join(t.TempDir(), "out.md")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown format", []string{"export", "export-1", "--format", "yaml"}, exitInvalid,
			"ctxlab: unknown --format \"yaml\" (want json, markdown or openai)\n"},
		{"unknown chat", []string{"export", "nope", "--format", "markdown", "--out", out}, exitFailure, "ctxlab: chat \"nope\" not found\n"},
		{"unknown chat, json", []string{"export", "nope"}, exitFailure, "ctxlab: chat \"nope\" not found\n"},
		{"no chat", []string{"export"}, exitInvalid, "ctxlab: accepts 1 arg(s), received 0\n"},
		{"chats with an argument", []string{"chats", "x"}, exitInvalid, "ctxlab: accepts 0 arg(s), received 1\n"},
		{"unknown command", []string{"chat"}, exitInvalid, "ctxlab: unknown command \"chat\" for \"ctxlab\"\n\nDid you mean this?\n\tchats\n\n"},
		{"missing config file", []string{"chats", "--config", "testdata/no-such-config.yaml"}, exitInvalid,
			"ctxlab: flag --config: config file: open testdata/no-such-config.yaml: no such file or directory\n"},
		{"bad base URL", []string{"run", expScript, "--base-url", "ftp://x"}, exitInvalid,
			"ctxlab: flag --base-url: \"ftp://x\" is not an http(s) URL\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCtxlab(t, append(tt.args, "--db", db)...)
			if r.code != tt.code || r.stderr != tt.stderr {
				t.Errorf("got exit %d, stderr %q; want %d, %q", r.code, r.stderr, tt.code, tt.stderr)
			}
			if r.stdout != "" {
				t.Errorf("got stdout %q, want nothing", r.stdout)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s (err %v)", out, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Errorf("a failed export left files: %v", entries)
	}
}

func TestExportImportNewerSchema(t *testing.T) {
	db := expScriptDB(t)
	good := filepath.Join(t.TempDir(), "good.json")
	mustRunCtxlab(t, "export", "export-1", "--db", db, "--out", good)
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	before := expDirState(t, filepath.Dir(db))
	for _, args := range [][]string{
		{"chats"},
		{"chats", "--search", "orders", "--json"},
		{"export", "export-1", "--format", "markdown"},
		{"import", good, "--new-id"},
	} {
		r := runCtxlab(t, append(args, "--db", db)...)
		if r.code != exitFailure || !strings.Contains(r.stderr, "database schema version 99 is newer than this ctxlab") ||
			!strings.Contains(r.stderr, "upgrade ctxlab") {
			t.Errorf("%v: got exit %d, stderr %q; want 1 and the schema version named", args, r.code, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%v: got stdout %q", args, r.stdout)
		}
		if after := expDirState(t, filepath.Dir(db)); after != before {
			t.Errorf("%v: the database files changed:\n%.300s\n%.300s", args, before, after)
		}
	}
}

// expDirState is the database file's contents and the size of its write-ahead log, if
// any: what a refused command must leave as it was. (The store's read-only schema check
// may leave an empty -wal and an -shm file beside it; they hold no data.)
func expDirState(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data := expReadFile(t, filepath.Join(dir, e.Name()))
		switch {
		case strings.HasSuffix(e.Name(), ".db"):
			fmt.Fprintf(&b, "%s %x\n", e.Name(), sha256.Sum256([]byte(data)))
		case strings.HasSuffix(e.Name(), "-wal"):
			if len(data) > 0 {
				fmt.Fprintf(&b, "%s %d bytes\n", e.Name(), len(data))
			}
		}
	}
	return b.String()
}

// BenchmarkExport exports a chat of 10,000 messages (5,000 turns with their requests and
// decisions) through the command path: open the database, read, write (json: ExportChat
// and Encode). Issue 3's target for json: under 500 ms.
func BenchmarkExport(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.db")
	db, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := db.CreateChat(ctx, chat.Chat{ID: "big", Title: "big"}); err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	text := strings.Repeat("Some words of a message about orders and refunds. ", 4)
	decisions := json.RawMessage(`[{"id":"concise","source":"reminder","fired":true,"reason":"fired","detail":"","placement":"inline","tier":"guidance","text":"Stay concise.","tokens":4,"trace":{"expr":"everyNTurns(2)","value":true,"why":"turn 2 % 2 == 0","children":[]}},` +
		`{"id":"read-errors","source":"reminder","fired":false,"reason":"predicate_false","detail":"","placement":"part","tier":"safety","text":"Read the error before retrying.","tokens":7,"trace":{"expr":"contentIncludes(['error'])","value":false,"why":"no match","children":[]}}]`)
	var msgs []chat.Message
	var turns []chat.Turn
	head := ""
	for i := range 5000 {
		t := at.Add(time.Duration(i) * time.Minute)
		u := chat.Message{ID: fmt.Sprintf("u%d", i), ParentID: head, Role: chat.RoleUser, CreatedAt: t,
			Parts:     []chat.Part{chat.TextPart(text + "<system-reminder>Stay concise.</system-reminder>")},
			Reminders: []chat.ReminderSpan{{ID: "concise", Start: len(text), End: len(text) + 48, Mode: chat.SpanInline}}}
		a := chat.Message{ID: fmt.Sprintf("a%d", i), ParentID: u.ID, Role: chat.RoleAssistant, CreatedAt: t,
			Parts: []chat.Part{chat.TextPart(text + text)}}
		rep := chat.Usage{PromptTokens: 100 + i, CompletionTokens: 20, TotalTokens: 120 + i}
		turns = append(turns, chat.Turn{ID: fmt.Sprintf("t%d", i), Branch: "main", Number: i + 1, UserMessageID: u.ID,
			AssistantMessageID: a.ID, At: t, Fired: []chat.Fired{{ID: "concise"}}, Decisions: decisions,
			Request:  chat.SentRequest{Model: "gpt-4o-mini", SystemPrompt: strings.Repeat("<role>You answer questions about orders.</role>\n", 20)},
			Reported: &rep, Estimated: chat.Usage{PromptTokens: 98 + i, CompletionTokens: 20}, FinishReason: "stop"})
		msgs = append(msgs, u, a)
		head = a.ID
	}
	if err := db.Commit(ctx, chat.Commit{ChatID: "big", Branch: "main", NewHead: head, Messages: msgs, Turns: turns}); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"json", "markdown", "openai"} {
		b.Run(format, func(b *testing.B) {
			var size int64
			for b.Loop() {
				var out expCountWriter
				errOut := &bytes.Buffer{}
				if code := run(ctx, []string{"export", "big", "--db", path, "--format", format}, nil, &out, errOut); code != exitOK {
					b.Fatalf("exit %d: %s", code, errOut)
				}
				size = out.n
			}
			b.ReportMetric(float64(size)/(1<<20), "MB")
		})
	}
}

// expCountWriter counts the bytes written to it.
type expCountWriter struct{ n int64 }

func (w *expCountWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*expCountWriter)(nil)
