package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxlab/ctxlab/store"
)

// TestOpenRecoversALeftLog checks that a database as a killed process leaves it (the
// file, its write-ahead log and the log's index, none of them closed) opens with Open and
// with OpenExisting (the read-only commands), with every turn of the log. (A read-only
// look that finds the log needs recovery leaves it to the open: see precheck.)
func TestOpenRecoversALeftLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cb := newChat(t, db, "c")
	cb.turns("main", "", 5)
	// What a kill -9 leaves: the file, its log and the log's index, as they are on disk.
	copied := filepath.Join(dir, "killed.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(b) == 0 {
			t.Fatal("the log is empty: the test needs one")
		}
		if err := os.WriteFile(copied+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, open := range map[string]func(string) (*store.DB, error){"Open": store.Open, "OpenExisting": store.OpenExisting} {
		got, err := open(copied)
		if err != nil {
			t.Fatalf("%s after the crash: %v", name, err)
		}
		snap, err := got.Load(ctx, "c", "main", store.DetailLight)
		got.Close()
		if err != nil || len(snap.Turns) != 5 {
			t.Errorf("%s: %d turns (%v), want 5", name, len(snap.Turns), err)
		}
	}
}
