package store_test

import (
	"encoding/json"
	"os"
	"testing"
)

// TestCheckpointsReuseTheLog commits 600 turns of 200 decisions, as a scripted run does,
// and checks that the write-ahead log is copied back and started over as it goes: its
// file stays a few MB, where a log never reused would hold every page written (about 36
// MB here). The checkpoints run on a goroutine of the DB; the log starts over only when a
// write finds all of it copied, which the write after each checkpoint sees to.
func TestCheckpointsReuseTheLog(t *testing.T) {
	if testing.Short() {
		t.Skip("600 commits")
	}
	db := openFile(t)
	cb := newChat(t, db, "long")
	head := ""
	largest := int64(0)
	for range 600 {
		list := halfChangingDecisions(cb.n+1, 200)
		c := cb.step("main", head, "a user message of ordinary length, asking about the quarterly report")
		if err := db.CommitLate(ctx, c, func() json.RawMessage { return list }); err != nil {
			t.Fatal(err)
		}
		head = c.NewHead
		if fi, err := os.Stat(db.File() + "-wal"); err == nil {
			largest = max(largest, fi.Size())
		}
	}
	if largest == 0 || largest > 12<<20 {
		t.Errorf("the log's file reached %d bytes, want at most 12 MB", largest)
	}
	t.Logf("the log's file reached %.1f MB", float64(largest)/(1<<20))
}
