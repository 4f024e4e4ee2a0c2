package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
)

// appendTurns commits n turns to the main branch of chatID through db, reloading the head
// and retrying when another writer moved it. It returns the number of conflicts met.
func appendTurns(tb testing.TB, db *store.DB, chatID, tag string, n int) int {
	b := &chatBuilder{tb: tb, db: db, chat: chatID, tag: tag}
	conflicts := 0
	for b.n < n {
		br, err := db.Branch(ctx, chatID, "main")
		if err != nil {
			tb.Errorf("%s: Branch: %v", tag, err)
			return conflicts
		}
		c := b.step("main", br.Head, "text from "+tag)
		err = db.Commit(ctx, c)
		if errors.Is(err, store.ErrConflict) {
			conflicts++
			b.n-- // the same turn again, from the new head
			continue
		}
		if err != nil {
			tb.Errorf("%s: Commit: %v", tag, err)
			return conflicts
		}
	}
	return conflicts
}

// checkShared checks the shared chat after writers each appended n turns: one linear
// path holding every turn of every writer, nothing lost, nothing half-written.
func checkShared(t *testing.T, db *store.DB, chatID string, tags []string, n int) {
	t.Helper()
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := db.Load(ctx, chatID, "main", store.DetailLight)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(s.Messages), 2*n*len(tags); got != want {
		t.Errorf("%s: path of %d messages, want %d", chatID, got, want)
	}
	if got, want := len(s.Turns), n*len(tags); got != want {
		t.Errorf("%s: %d turns on the path, want %d", chatID, got, want)
	}
	seen := map[string]bool{}
	for _, tr := range s.Turns {
		seen[tr.ID] = true
	}
	for _, tag := range tags {
		for i := 1; i <= n; i++ {
			if id := fmt.Sprintf("%s%s-t%d", chatID, tag, i); !seen[id] {
				t.Errorf("turn %s lost", id)
			}
		}
	}
	list, _ := db.ListChats(ctx, store.ListOptions{})
	for _, c := range list {
		if c.ID == chatID && c.Messages != 2*n*len(tags) {
			t.Errorf("%s: %d messages stored, want %d (a losing commit left rows)", chatID, c.Messages, 2*n*len(tags))
		}
	}
}

func TestTwoHandlesConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	var dbs [2]*store.DB
	for i := range dbs {
		db, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	for _, id := range []string{"own-0", "own-1", "shared"} {
		if err := dbs[0].CreateChat(ctx, chat.Chat{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	n := 25
	if testing.Short() || raceEnabled {
		n = 8
	}
	var conflicts atomic.Int64
	var wg sync.WaitGroup
	for i, db := range dbs {
		// Each handle: its own chat, and two writers on the shared chat.
		wg.Go(func() { appendTurns(t, db, fmt.Sprintf("own-%d", i), "", n) })
		for w := range 2 {
			tag := fmt.Sprintf("-h%dw%d", i, w)
			wg.Go(func() { conflicts.Add(int64(appendTurns(t, db, "shared", tag, n))) })
		}
	}
	wg.Wait()
	checkShared(t, dbs[1], "shared", []string{"-h0w0", "-h0w1", "-h1w0", "-h1w1"}, n)
	checkShared(t, dbs[0], "own-0", []string{""}, n)
	checkShared(t, dbs[0], "own-1", []string{""}, n)
	t.Logf("%d compare-and-swap conflicts retried", conflicts.Load())
}

// TestProcesses runs writers in separate processes (this test binary, run again), as two
// ctxlab processes sharing a database would.
func TestProcesses(t *testing.T) {
	if os.Getenv("STORE_CHILD_DB") != "" {
		t.Skip("in a child")
	}
	path := filepath.Join(t.TempDir(), "procs.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateChat(ctx, chat.Chat{ID: "shared"}); err != nil {
		t.Fatal(err)
	}
	n := 20
	if raceEnabled {
		n = 5
	}
	tags := []string{"-p0", "-p1", "-p2"}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for _, tag := range tags {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STORE_CHILD_DB="+path, "STORE_CHILD_TAG="+tag, "STORE_CHILD_N="+strconv.Itoa(n))
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %s: %v\n%s", tags[i], err, outs[i])
		}
	}
	checkShared(t, db, "shared", tags, n)
}

// TestChildWriter is the writer process of TestProcesses; it does nothing on its own.
func TestChildWriter(t *testing.T) {
	path := os.Getenv("STORE_CHILD_DB")
	if path == "" {
		t.Skip("run by TestProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv("STORE_CHILD_N"))
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	appendTurns(t, db, "shared", os.Getenv("STORE_CHILD_TAG"), n)
}
