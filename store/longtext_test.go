package store_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store/storetest"
)

// TestCommitOfALongMessage is issue 22 item 11: the import of a 100 MB message peaked at
// over a gigabyte. Committing a turn of two 20 MB messages allocates, on the Go side, their
// parts column (the JSON the row holds, once: not in a buffer grown by doubling and then
// copied into a string) and nothing for their search text (the text itself, when it is
// the message's one text).
func TestCommitOfALongMessage(t *testing.T) {
	db := openFile(t)
	if err := db.CreateChat(ctx, chat.Chat{ID: "c", Title: "Long"}); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ", 20<<20/78)
	c := storetest.TurnCommit("c", "", 1, "main", "", text, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := db.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n, size := after.TotalAlloc-before.TotalAlloc, uint64(2*len(text)); n > size*3/2 {
		t.Errorf("committing %d MB of messages allocated %d MB, want at most 1.5 times them", size>>20, n>>20)
	}
	ms, err := db.Path(ctx, "c", c.NewHead)
	if err != nil || len(ms) != 2 || ms[0].Parts[0].Text != text {
		t.Fatalf("read back: %d messages, %v", len(ms), err)
	}
}
