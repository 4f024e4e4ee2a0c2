package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// benchReminders is a context file with n reminders of the kinds of predicate the demo
// uses (keywords, turn arithmetic, usage, once latches); every is the period of the
// turn-arithmetic ones, which an edit changes.
func benchReminders(n, every int) string {
	var b strings.Builder
	b.WriteString("version: 1\nsystem:\n  - role: You are a careful data analyst.\n  - hint: Keep answers short.\nreminders:\n")
	for i := range n {
		var when string
		switch i % 4 {
		case 0:
			when = fmt.Sprintf("contentIncludes(['topic%d', 'error'])", i)
		case 1:
			when = fmt.Sprintf("everyNTurns(%d)", every+i%7)
		case 2:
			when = fmt.Sprintf("usageExceeds(%d)", 1000*(i+1))
		default:
			when = fmt.Sprintf("and(contentIncludes(['fail']), once('r%d'))", i)
		}
		fmt.Fprintf(&b, "  - id: r%d\n    text: Reminder %d says something useful about the topic.\n    when: %q\n", i, i, when)
	}
	return b.String()
}

// BenchmarkReloadReevaluate: a context file of 200 reminders edited and reloaded, and
// every turn of a 1,000-turn chat re-evaluated under it (what the workbench does off the
// UI loop on a save: load, then Chat.Reevaluation started and Chat.Reload beside it).
// Target: under 500 ms.
func BenchmarkReloadReevaluate(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.ctx.yaml")
	if err := os.WriteFile(path, []byte(benchReminders(200, 2)), 0o644); err != nil {
		b.Fatal(err)
	}
	w, err := Open(ctx, Options{DB: filepath.Join(dir, "ctxlab.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	lib := &Library{W: w, File: nil}
	file, err := loadPath(path)
	if err != nil {
		b.Fatal(err)
	}
	lib.File = file
	if lib.Settings, err = w.Settings(file, true); err != nil {
		b.Fatal(err)
	}
	c, err := lib.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		text := fmt.Sprintf("message %d about topic%d", i, i%50)
		if i%10 == 0 {
			text += ", it failed with an error"
		}
		if _, err := c.SendScripted(ctx, text, "a reply about the topic", nil); err != nil {
			b.Fatal(err)
		}
	}
	// The edit: every turn-arithmetic reminder changes its period.
	if err := os.WriteFile(path, []byte(benchReminders(200, 3)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		f, err := loadPath(path)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		// As the workbench does: the re-evaluation starts, and runs while the chat moves.
		reeval := c.Reevaluation(f, nil)
		type result struct {
			traces []engine.Trace
			err    error
		}
		done := make(chan result, 1)
		go func() {
			traces, err := reeval(ctx)
			done <- result{traces, err}
		}()
		if err := c.Reload(ctx, f); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		res := <-done
		b.Logf("load %v reload %v (beside the re-evaluation) all %v", t1.Sub(t0), t2.Sub(t1), time.Since(t0))
		if res.err != nil {
			b.Fatal(res.err)
		}
		if len(res.traces) != 1000 {
			b.Fatalf("got %d traces, want 1000", len(res.traces))
		}
	}
}

func loadPath(path string) (*ctxfile.File, error) { return ctxfile.Load(path) }

// BenchmarkLibraryChats: the chats overlay's one read of the list, over 10,000 saved
// chats (each priced), and the message-text search a filter runs in a Cmd.
func BenchmarkLibraryChats(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	w, err := Open(ctx, Options{DB: filepath.Join(dir, "ctxlab.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for i := range 10000 {
		if err := w.db.CreateChat(ctx, chat.Chat{ID: fmt.Sprintf("chat-%05d", i), Title: fmt.Sprintf("Chat %d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	l := &Library{W: w}
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			list, err := l.Chats(ctx)
			if err != nil || len(list) != 10000 {
				b.Fatalf("got %d chats, %v", len(list), err)
			}
		}
	})
	b.Run("search", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.Search(ctx, "slow query"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
