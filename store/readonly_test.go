package store_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/store"
)

// dirFiles lists the names in dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestOpenExistingReadOnly is issue 22 item 9: a database in a directory the reader may
// not write could not be read at all ("database is read-only"), and one in a file it may
// not write left the log's files behind. OpenExisting opens such a database read-only:
// everything reads, search included (the messages the index waits for are indexed in
// memory), nothing is written or made beside the file, and a write is refused. With a
// writer's log beside it, it reads what the log holds too.
func TestOpenExistingReadOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ctxlab.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b := newChat(t, db, "c")
	head := b.turns("main", "", 3)
	newChat(t, db, "other").turns("main", "", 2)
	db.Close()
	if got := dirFiles(t, dir); !slices.Equal(got, []string{"ctxlab.db"}) {
		t.Fatalf("after a writer closed: %v", got)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	defer store.SetCanWrite(false)()
	ro, err := store.OpenExisting(path)
	if err != nil {
		t.Fatalf("OpenExisting of a database it cannot write: %v", err)
	}
	if !ro.ReadOnly() {
		t.Fatal("opened read-write")
	}
	chats, err := ro.ListChats(ctx, store.ListOptions{})
	if err != nil || len(chats) != 2 {
		t.Errorf("ListChats: %d chats, %v; want 2", len(chats), err)
	}
	for range 2 { // the index in memory is made and dropped each time
		found, err := ro.ListChats(ctx, store.ListOptions{Search: "number 3"})
		if err != nil || len(found) != 1 || found[0].Chat.ID != "c" {
			t.Errorf("search read-only: %+v, %v; want chat c, as read-write", found, err)
		}
	}
	if found, err := ro.ListChats(ctx, store.ListOptions{Search: "nowhere"}); err != nil || len(found) != 0 {
		t.Errorf("search for nothing: %+v, %v", found, err)
	}
	if ms, err := ro.Path(ctx, "c", head); err != nil || len(ms) != 6 {
		t.Errorf("Path: %d messages, %v; want 6", len(ms), err)
	}
	err = ro.Commit(ctx, b.step("main", head, "one more"))
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Commit on a database opened read-only: %v, want it refused as read-only", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("the database file changed")
	}
	if got := dirFiles(t, dir); !slices.Equal(got, []string{"ctxlab.db"}) {
		t.Errorf("after a read-only open: %v, want the database file alone", got)
	}

	// A writer has the database open: its log is beside it, and holds its last commit.
	restore := store.SetCanWrite(true)
	w, err := store.Open(path)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.RenameChat(ctx, "c", "Renamed by the writer"); err != nil {
		t.Fatal(err)
	}
	ro, err = store.OpenExisting(path)
	if err != nil {
		t.Fatalf("OpenExisting beside a writer: %v", err)
	}
	defer ro.Close()
	if c, err := ro.Chat(ctx, "c"); err != nil || c.Title != "Renamed by the writer" {
		t.Errorf("read beside a writer: %q, %v; want the title in its log", c.Title, err)
	}
}

// TestOpenExistingReadOnlyRefuses checks what a read-only open cannot do: bring an older
// schema up to date. A file with no schema is no database, as read-write.
func TestOpenExistingReadOnlyRefuses(t *testing.T) {
	defer store.SetCanWrite(false)()
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	if err := store.MakeAtVersion(old, store.SchemaVersion()-1); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenExisting(old); err == nil || !errors.Is(err, store.ErrSchema) || !strings.Contains(err.Error(), "made by an older ctxlab") {
		t.Errorf("an older schema: %v, want ErrSchema, made by an older ctxlab", err)
	}
	blank := filepath.Join(dir, "blank.db")
	if err := store.MakeAtVersion(blank, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenExisting(blank); !errors.Is(err, store.ErrNoDatabase) {
		t.Errorf("no schema: %v, want ErrNoDatabase", err)
	}
}
