package format_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/store"
	"github.com/ctxlab/ctxlab/store/storetest"
)

// seq returns an id maker giving id-1, id-2, ...
func seq() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("id-%d", n) }
}

func TestReadImportOpenAI(t *testing.T) {
	const in = `{"model": "m", "messages": [{"role": "developer", "content": "Be brief."},
		{"role": "user", "content": "How many orders?"}, {"role": "assistant", "content": "Twelve."},
		{"role": "user", "content": "And refunds?"}]}`
	imp, err := format.ReadImport(strings.NewReader(in), "dir/request.json", format.ImportOptions{Now: t0, IDs: seq()})
	if err != nil {
		t.Fatal(err)
	}
	e := imp.Export
	if imp.IsExport || e.Format != format.ExportFormat || e.Version != format.ExportVersion {
		t.Errorf("got IsExport %v, format %q %d; want an OpenAI array made a ctxlab export", imp.IsExport, e.Format, e.Version)
	}
	wantChat := chat.Chat{ID: "id-4", Title: "How many orders?", ActiveBranch: "main", CreatedAt: t0, UpdatedAt: t0,
		Metadata: map[string]any{"imported_from": "request.json", format.MetaSystemPrompt: "Be brief."}}
	if !reflect.DeepEqual(e.Chat, wantChat) {
		t.Errorf("chat: got %+v, want %+v", e.Chat, wantChat)
	}
	var ids []string
	for _, m := range e.Messages {
		ids = append(ids, m.ID+"<"+m.ParentID)
	}
	if got, want := strings.Join(ids, " "), "id-1< id-2<id-1 id-3<id-2"; got != want {
		t.Errorf("messages: got %s, want %s", got, want)
	}
	if want := []chat.Branch{{Name: "main", Head: "id-3", CreatedAt: t0}}; !reflect.DeepEqual(e.Branches, want) {
		t.Errorf("branches: got %+v, want %+v", e.Branches, want)
	}
}

func TestReadImportExportNewID(t *testing.T) {
	src := storetest.MustOpenMemory(t)
	richChat(t, src)
	good, err := exportChat(src, "demo-1")
	if err != nil {
		t.Fatal(err)
	}
	b := encode(t, good)
	for _, tc := range []struct {
		newID bool
		want  string
	}{{false, "demo-1"}, {true, "id-1"}} {
		imp, err := format.ReadImport(bytes.NewReader(b), "x.json", format.ImportOptions{NewID: tc.newID, IDs: seq()})
		if err != nil {
			t.Fatal(err)
		}
		if !imp.IsExport || imp.Export.Chat.ID != tc.want || imp.Export.Turns[0].ChatID != tc.want {
			t.Errorf("NewID %v: got chat %q (turn of %q), want %q", tc.newID, imp.Export.Chat.ID, imp.Export.Turns[0].ChatID, tc.want)
		}
	}
}

func TestReadImportErrors(t *testing.T) {
	src := storetest.MustOpenMemory(t)
	richChat(t, src)
	good, err := exportChat(src, "demo-1")
	if err != nil {
		t.Fatal(err)
	}
	export := string(encode(t, good))
	tests := []struct {
		name, in, want string
	}{
		{"empty", " \n", "f.json:1:1: the file is empty; want a ctxlab chat export or an OpenAI messages array"},
		{"neither", "\n {\"model\": 1}", `f.json:2:2: neither a ctxlab chat export (no "format") nor an OpenAI request (no "messages")`},
		{"syntax", `{"messages": [}`, "f.json:1:15: invalid character '}' looking for beginning of value"},
		{"truncated", `{"messages": [`, "f.json:1:15: unexpected end of the file (truncated?)"},
		{"no messages", `[]`, "f.json:1:1: no messages to import"},
		{"openai role", `[{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]`, `f.json:1:45: messages[1]: unknown role "robot" (want system, developer, user, assistant or tool)`},
		{"export head", strings.Replace(export, `"head":"demo-1-a3"`, `"head":"ghost"`, 1), `branch "main": head "ghost" is not a message of the chat`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := format.ReadImport(strings.NewReader(tc.in), "f.json", format.ImportOptions{IDs: seq()})
			var d *diag.Error
			if !errors.As(err, &d) || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("got %T %v, want a *diag.Error ending with %q", err, err, tc.want)
			}
		})
	}
}

// orderImporter records the chat it is given.
type orderImporter struct{ got chat.Archive }

func (o *orderImporter) ImportChat(_ context.Context, a chat.Archive) error { o.got = a; return nil }

func TestSave(t *testing.T) {
	// Children before parents in the file: the store is given parents first.
	const in = `{"format": "ctxlab-chat", "version": 1,
		"chat": {"id": "c1", "title": "", "active_branch": "main", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"},
		"messages": [
			{"id": "a1", "parent_id": "u1", "role": "assistant", "parts": [{"type": "text", "text": "hi"}], "created_at": "2026-01-01T00:00:01Z"},
			{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hello"}], "created_at": "2026-01-01T00:00:00Z"}],
		"branches": [{"name": "main", "head": "a1", "created_at": "2026-01-01T00:00:00Z"}], "checkpoints": [], "turns": []}`
	imp, err := format.ReadImport(strings.NewReader(in), "f.json", format.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var o orderImporter
	if err := imp.Save(ctx, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.got.Messages) != 2 || o.got.Messages[0].ID != "u1" || o.got.Messages[1].ID != "a1" {
		t.Errorf("the importer got messages %+v, want u1 then a1", o.got.Messages)
	}
	if imp.Export.Messages[0].ID != "a1" {
		t.Errorf("Save reordered the file's export: %+v", imp.Export.Messages)
	}

	db := storetest.MustOpenMemory(t)
	if err := imp.Save(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := imp.Save(ctx, db); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a second Save: got %v, want ErrConflict", err)
	}
}

// FuzzReadImportFile checks that no import file makes the reader panic, and that every
// file it refuses gets an error naming the file, with a line and column.
func FuzzReadImportFile(f *testing.F) {
	for _, s := range []string{
		`[{"role":"user","content":"a"}]`,
		`{"messages":[{"role":"system","content":"s"},{"role":"user","content":"a"}]}`,
		`{"format":"ctxlab-chat","version":1,"chat":{"id":"x","title":"","active_branch":"main","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"},"messages":[],"branches":[],"checkpoints":[],"turns":[]}`,
		`{"format":"ctxlab-chat","version":"1"}`, "\xef\xbb\xbf[", `{"format":1}`, `{"a":[}`, "",
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "in.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		imp, err := format.ReadImportFile(path, format.ImportOptions{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			var d *diag.Error
			if !errors.As(err, &d) || d.File != path || d.Line < 1 || d.Col < 1 {
				t.Fatalf("got %T %v, want a *diag.Error naming the file with a line and column", err, err)
			}
			return
		}
		// An export is checked for consistency by ImportChat; an OpenAI array is a chat
		// ready to store.
		e := imp.Export
		if !imp.IsExport && (e.Chat.ID == "" || len(e.Messages) == 0 || e.Branches[0].Head != e.Messages[len(e.Messages)-1].ID) {
			t.Fatalf("an accepted OpenAI array gave an incomplete chat: %+v", e.Chat)
		}
	})
}

func TestImport(t *testing.T) {
	db := storetest.MustOpenMemory(t)
	const in = `[{"role": "user", "content": "Hello?"}, {"role": "assistant", "content": "Hi."}]`
	id, err := format.Import(ctx, strings.NewReader(in), "hello.json", db, format.ImportOptions{IDs: seq()})
	if err != nil || id != "id-3" {
		t.Fatalf("Import: got %q, %v; want id-3", id, err)
	}
	if c, err := db.Chat(ctx, id); err != nil || c.Title != "Hello?" {
		t.Errorf("the saved chat: got %+v, %v", c, err)
	}
	if _, err := format.Import(ctx, strings.NewReader(`[`), "bad.json", db, format.ImportOptions{}); err == nil || !strings.HasPrefix(err.Error(), "bad.json:1:2: ") {
		t.Errorf("Import of a bad file: got %v, want a placed error", err)
	}
	if list, _ := db.ListChats(ctx, store.ListOptions{}); len(list) != 1 {
		t.Errorf("got %d chats, want 1", len(list))
	}
}

// TestReadImportOfALongMessage is issue 22 item 11: an import of one 100 MB message took
// 1.35 GB. Reading and checking a file of one long message allocates the file and the
// message's text, about twice the file, not copies of it grown by doubling (a buffer of
// the file, the json.Decoder's, the message's raw JSON, its text joined for the title:
// ten times the file).
func TestReadImportOfALongMessage(t *testing.T) {
	text := strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ", 20<<20/78)
	for _, tt := range []struct{ name, body string }{
		{"an array", `[{"role":"user","content":"` + text + `"},{"role":"assistant","content":"ok"}]`},
		{"a request body", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"` + text + `"}]},{"role":"assistant","content":"ok"}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "long.json")
			if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			imp, err := format.ReadImportFile(path, format.ImportOptions{Now: t0, IDs: seq()})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if got := imp.Export.Messages[0].Parts[0].Text; got != text {
				t.Fatalf("the message's text is %d bytes, want %d", len(got), len(text))
			}
			if n, size := after.TotalAlloc-before.TotalAlloc, uint64(len(tt.body)); n > 5*size/2 {
				t.Errorf("reading a file of %d MB allocated %d MB, want at most 2.5 times the file", size>>20, n>>20)
			}
		})
	}
}
