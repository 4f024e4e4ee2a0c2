package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// migrationFixtures are databases as each schema version left them: for version v, the
// data (testdata/migrate/vV.sql) written into a database migrated to exactly v. Every
// later migration is tested from each of them. When adding migration N, add the fixture of
// version N-1's data if the older fixtures do not cover what N changes, and keep the old
// files as they are.
var migrationFixtures = []struct {
	version int
	file    string
	chat    string // the chat the fixture holds, read back after migrating
}{
	{0, "", ""},
	{1, "testdata/migrate/v1.sql", "fixture"},
	{2, "testdata/migrate/v2.sql", "fixture"},
	{3, "testdata/migrate/v3.sql", "fixture"},
	{4, "testdata/migrate/v4.sql", "fixture"},
	{5, "testdata/migrate/v5.sql", "fixture"},
	{6, "testdata/migrate/v6.sql", "fixture"},
	{7, "testdata/migrate/v7.sql", "fixture"},
	{8, "testdata/migrate/v8.sql", "fixture"},
	{9, "testdata/migrate/v9.sql", "fixture"},
	{10, "testdata/migrate/v10.sql", "fixture"},
}

// openAt makes a database at path migrated to exactly version v.
func openAt(t *testing.T, path string, v int) *sql.DB {
	t.Helper()
	dsn, err := dsnFor(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	d := &DB{db: raw}
	if err := d.migrate(context.Background(), v); err != nil {
		t.Fatalf("migrate to %d: %v", v, err)
	}
	return raw
}

func schemaOf(t *testing.T, d *DB) []string {
	t.Helper()
	rows, err := d.db.Query("SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_schema ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

func TestMigrationsFromEveryVersion(t *testing.T) {
	ctx := context.Background()
	fresh := openTemp(t)
	want := schemaOf(t, fresh)
	if len(migrationFixtures) == 0 || migrationFixtures[len(migrationFixtures)-1].version != SchemaVersion() {
		t.Errorf("the last fixture is not of the current version %d: add one", SchemaVersion())
	}

	for _, fx := range migrationFixtures {
		t.Run(fmt.Sprintf("from v%d", fx.version), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			raw := openAt(t, path, fx.version)
			if fx.file != "" {
				b, err := os.ReadFile(fx.file)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := raw.Exec(string(b)); err != nil {
					t.Fatalf("fixture %s: %v", fx.file, err)
				}
			}
			raw.Close()

			d, err := Open(path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer d.Close()
			if v, _ := schemaVersion(ctx, d.db); v != SchemaVersion() {
				t.Errorf("schema version: got %d, want %d", v, SchemaVersion())
			}
			if got := schemaOf(t, d); !reflect.DeepEqual(got, want) {
				t.Errorf("schema after migrating from v%d:\n%s\nwant (fresh):\n%s", fx.version, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if err := d.Check(ctx); err != nil {
				t.Error(err)
			}
			if fx.chat == "" {
				return
			}
			checkFixtureChat(t, d, fx.chat, fx.version)
		})
	}
}

// checkFixtureChat reads the fixture chat, as version v stored it, through the API and
// writes a turn to it.
func checkFixtureChat(t *testing.T, d *DB, id string, v int) {
	ctx := context.Background()
	s, err := d.Load(ctx, id, "main", DetailLight)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Messages) != 2 || s.Messages[0].Locale == nil || s.Messages[0].Locale.TimeZone != "Asia/Tokyo" ||
		len(s.Turns) != 1 || s.Turns[0].Fired[0].Latches[0] != "kind" || s.Usage.TotalTokens != 129 {
		t.Errorf("fixture chat: got %+v", s)
	}
	tr, err := d.Turn(ctx, id, "t1")
	if err != nil || tr.Request.SystemPrompt != "<role>fixture</role>" || string(tr.Decisions) != `[{"id":"kind","fired":true}]` ||
		tr.Reported == nil || tr.Reported.TotalTokens != 129 || tr.TTFT != time.Millisecond {
		t.Errorf("fixture turn: got %+v, %v", tr, err)
	}
	// Before version 9 a turn kept no responses: its record has none, and says so.
	var want []chat.Response
	if v >= 9 {
		want = []chat.Response{{FinishReason: "stop", Usage: &chat.Usage{PromptTokens: 120, CompletionTokens: 9, TotalTokens: 129},
			EstimatedPrompt: 118, TTFT: time.Millisecond, Latency: 2 * time.Millisecond}}
	}
	if !reflect.DeepEqual(tr.Responses, want) {
		t.Errorf("fixture turn: responses %+v, want %+v", tr.Responses, want)
	}
	// Before version 10 a turn kept no digest of its context file: whether the file
	// changed since is not known (nil), which is not "no context file" ("").
	var digest *string
	if v >= 10 {
		d := "5d0b8ab61f3f3f1ed4f6c5d1b0fcd9c3a4b0b8f8a9e2e5b5a9f1c0d2e3f4a5b6"
		digest = &d
	}
	if !reflect.DeepEqual(tr.ContextDigest, digest) {
		t.Errorf("fixture turn: context digest %s, want %s", showDigest(tr.ContextDigest), showDigest(digest))
	}
	path, turns, _, err := d.PathWithTurns(ctx, id, "a1", nil)
	if err != nil || len(path) != 2 || len(turns) != 1 || turns[0].ID != "t1" || turns[0].Number != 1 ||
		turns[0].UserMessageID != "u1" || turns[0].Fired[0].Latches[0] != "kind" {
		t.Errorf("fixture path with turns: got %+v, %+v, %v", path, turns, err)
	}
	bs, err := d.Branches(ctx, id)
	if err != nil || len(bs) != 2 || bs[1].Turns != 1 || bs[1].Head != "u2" {
		t.Errorf("fixture branches: got %+v, %v", bs, err)
	}
	for search, want := range map[string]int{"fixture": 1, "kind": 0, "again": 1} {
		list, err := d.ListChats(ctx, ListOptions{Search: search})
		if err != nil || len(list) != want {
			t.Errorf("search %q: got %d chats, %v; want %d", search, len(list), err, want)
		}
	}
	if _, err := d.ExportChat(ctx, id); err != nil {
		t.Errorf("export: %v", err)
	}
	u := chat.Message{ID: "u3", ParentID: "a1", Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("after the migration")}}
	none := "" // sent with no context file
	err = d.Commit(ctx, chat.Commit{ChatID: id, Branch: "main", ExpectHead: "a1", NewHead: "u3", Messages: []chat.Message{u},
		Turns: []chat.Turn{{ID: "t3", UserMessageID: "u3", Estimated: chat.Usage{PromptTokens: 1}, ContextDigest: &none}}})
	if err != nil {
		t.Fatalf("commit after the migration: %v", err)
	}
	if t3, err := d.Turn(ctx, id, "t3"); err != nil || t3.ContextDigest == nil || *t3.ContextDigest != "" {
		t.Errorf("a turn sent with no context file: context digest %s, %v; want \"\"", showDigest(t3.ContextDigest), err)
	}
	if u, _ := d.ChatUsage(ctx, id); u.TotalTokens != 130 {
		t.Errorf("usage after a commit: got %+v, want total 130", u)
	}
	if err := d.Check(ctx); err != nil {
		t.Error(err)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"newer schema", func(t *testing.T, path string) {
			raw := openAt(t, path, SchemaVersion())
			raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()+1))
			raw.Close()
		}, fmt.Sprintf("database schema version %d is newer than this ctxlab (%d); upgrade ctxlab", SchemaVersion()+1, SchemaVersion())},
		{"another application's database", func(t *testing.T, path string) {
			raw, _ := sql.Open("sqlite", path)
			raw.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')")
			raw.Close()
		}, "not a ctxlab database (it has tables but no ctxlab schema version)"},
		{"another application id", func(t *testing.T, path string) {
			raw, _ := sql.Open("sqlite", path)
			raw.Exec("PRAGMA application_id = 42")
			raw.Close()
		}, "not a ctxlab database (application id 0x2a)"},
		{"not a database", func(t *testing.T, path string) {
			os.WriteFile(path, bytes.Repeat([]byte("this is a text file, not SQLite\n"), 200), 0o644)
		}, `not a database file: it holds text ("this is a text file, not…")`},
		{"binary, not a database", func(t *testing.T, path string) {
			os.WriteFile(path, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 4096)...), 0o644)
		}, "not a database file: it does not start as a SQLite database does"},
		{"a SQLite header cut short", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("SQLite form"), 0o644)
		}, `not a database file: it holds text ("SQLite form")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			tc.setup(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Open(path)
			if err == nil {
				d.Close()
				t.Fatalf("Open: no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrSchema) {
				t.Errorf("Open: got %v, want ErrSchema with %q", err, tc.want)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Errorf("Open changed the refused file")
			}
		})
	}
}

func TestBusy(t *testing.T) {
	old := busyTimeout
	busyTimeout = 100 * time.Millisecond
	defer func() { busyTimeout = old }()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "busy.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tx, err := a.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	err = b.CreateChat(ctx, chat.Chat{ID: "c"})
	tx.Rollback()
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "database is busy: another connection held the lock for more than 100ms") {
		t.Errorf("CreateChat while another handle writes: got %v, want ErrBusy", err)
	}
	// Reads go on under WAL while a writer holds the lock.
	tx, _ = a.db.BeginTx(ctx, nil)
	_, err = b.ListChats(ctx, ListOptions{})
	tx.Rollback()
	if err != nil {
		t.Errorf("read while another handle writes: %v", err)
	}
	if err := b.CreateChat(ctx, chat.Chat{ID: "c"}); err != nil {
		t.Errorf("CreateChat once the lock is free: %v", err)
	}
}

func TestContextCancelled(t *testing.T) {
	d, err := Open(Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.CreateChat(ctx, chat.Chat{ID: "c"}); !errors.Is(err, context.Canceled) {
		t.Errorf("CreateChat with a cancelled context: got %v, want context.Canceled", err)
	}
	if _, err := d.ListChats(ctx, ListOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("ListChats with a cancelled context: got %v, want context.Canceled", err)
	}
}

func TestFTSQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hello", `"hello"*`},
		{`a"b OR`, `"a""b"* "OR"*`},
		{`  NEAR(x  `, `"NEAR(x"*`},
		{`- * " ^`, ``},
		{"café 東京", `"café"* "東京"*`},
	}
	for _, tc := range tests {
		if got := ftsQuery(tc.in); got != tc.want {
			t.Errorf("ftsQuery(%q): got %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSearchText(t *testing.T) {
	r := "<system-reminder>x</system-reminder>"
	tests := []struct {
		name string
		m    chat.Message
		want string
	}{
		{"plain", chat.Message{Parts: []chat.Part{chat.TextPart("a"), {Type: chat.PartTool, Output: "no"}, chat.TextPart("b")}}, "a\nb"},
		{"inline span", chat.Message{Parts: []chat.Part{chat.TextPart("ask " + r + " now")},
			Reminders: []chat.ReminderSpan{{Part: 0, Start: 4, End: 4 + len(r), Mode: chat.SpanInline}}}, "ask  now"},
		{"part span", chat.Message{Parts: []chat.Part{chat.TextPart("ask"), chat.TextPart(r)},
			Reminders: []chat.ReminderSpan{{Part: 1, Start: 0, End: len(r), Mode: chat.SpanPart}}}, "ask"},
		{"overlapping spans", chat.Message{Parts: []chat.Part{chat.TextPart("0123456789")},
			Reminders: []chat.ReminderSpan{{Part: 0, Start: 5, End: 8}, {Part: 0, Start: 2, End: 6}}}, "0189"},
		{"bad span ignored", chat.Message{Parts: []chat.Part{chat.TextPart("abc")},
			Reminders: []chat.ReminderSpan{{Part: 0, Start: 2, End: 99}}}, "abc"},
	}
	for _, tc := range tests {
		if got := searchText(&tc.m); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// showDigest shows a context digest: quoted, or nil.
func showDigest(d *string) string {
	if d == nil {
		return "nil"
	}
	return strconv.Quote(*d)
}
