package store_test

import (
	"database/sql"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/store"
)

// TestTamperedDepthIsCorruption is issue 22 item 9: a message's depth, the number of its
// ancestors, is read from the file and sized the walk of its path: a depth of
// 2,000,000,000 made replay and export die out of memory, a negative one panic. A depth
// the path does not have is reported as corruption (ErrCorrupt), in bounded memory.
func TestTamperedDepthIsCorruption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctxlab.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	head := newChat(t, db, "c").turns("main", "", 3) // 6 messages: the head's depth is 5
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, tt := range []struct {
		name  string
		depth int64
		want  string
	}{
		{"two billion", 2_000_000_000, `message "` + head + `" has depth 2000000000, but its path has 6 messages`},
		{"the largest integer", math.MaxInt64, "has depth 9223372036854775807, but its path has 6 messages"},
		{"negative", -1, "has depth -1"},
		{"the smallest integer", math.MinInt64, "has depth -9223372036854775808"},
		{"too small", 2, "has depth 2, but its path has 6 messages"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := raw.Exec("UPDATE messages SET depth = ? WHERE id = ?", tt.depth, head); err != nil {
				t.Fatal(err)
			}
			for _, read := range []struct {
				name string
				f    func() error
			}{
				{"Path", func() error { _, err := db.Path(ctx, "c", head); return err }},
				{"PathTail", func() error { _, _, err := db.PathTail(ctx, "c", head, nil); return err }},
			} {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := read.f()
				runtime.ReadMemStats(&after)
				if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "the database is corrupt: ") ||
					!strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %v; want ErrCorrupt, %q", read.name, err, tt.want)
				}
				if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
					t.Errorf("%s allocated %d MB to read a path of 6 messages", read.name, n>>20)
				}
			}
		})
	}
	if _, err := raw.Exec("UPDATE messages SET depth = 5 WHERE id = ?", head); err != nil {
		t.Fatal(err)
	}
	if ms, err := db.Path(ctx, "c", head); err != nil || len(ms) != 6 {
		t.Errorf("the depth put back: %d messages, %v; want the 6", len(ms), err)
	}
}
