package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/store"
)

// waitReport waits for a report of Watch, failing after a timeout.
func waitReport(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case _, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the channel closed", what)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no report within 5s", what)
	}
}

func TestWatch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("c.ctx.yaml", "system:\n  - fragment: {name: notes, file: notes.md}\n  - skills: ./skills\n")
	write("notes.md", "notes\n")
	write("skills/one/SKILL.md", "---\nname: one\ndescription: the first skill\n---\nbody\n")
	write("other.txt", "not watched\n")
	f, err := ctxfile.Load(filepath.Join(dir, "c.ctx.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Watch(ctx, f.Sources())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func()
	}{
		{"the context file", func() { write("c.ctx.yaml", "system:\n  - role: changed\n") }},
		{"a file fragment", func() { write("notes.md", "other notes\n") }},
		{"a skill", func() { write("skills/one/SKILL.md", "---\nname: one\ndescription: changed\n---\n") }},
		{"a new skill", func() { write("skills/two/SKILL.md", "---\nname: two\ndescription: new\n---\n") }},
		{"replaced by rename", func() {
			write("tmp.swp", "system:\n  - role: renamed\n")
			if err := os.Rename(filepath.Join(dir, "tmp.swp"), filepath.Join(dir, "c.ctx.yaml")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		tt.change()
		waitReport(t, ch, tt.name)
	}
	// A burst is one report; a file not among the sources makes none.
	for i := range 5 {
		write("notes.md", string(rune('a'+i)))
	}
	waitReport(t, ch, "a burst")
	write("other.txt", "changed\n")
	select {
	case <-ch:
		t.Errorf("a change to another file was reported")
	case <-time.After(3 * WatchDebounce):
	}
	cancel()
	select {
	case _, ok := <-ch:
		if ok {
			t.Errorf("a report after the context ended")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the channel did not close when the context ended")
	}
}

func TestWatchMissingFolder(t *testing.T) {
	if _, err := Watch(context.Background(), []string{filepath.Join(t.TempDir(), "gone", "c.ctx.yaml")}); err == nil {
		t.Error("watching a file in a folder that does not exist: got no error")
	}
}

// demoFile loads a demo context file of the repository.
func demoFile(t *testing.T, name string) *ctxfile.File {
	t.Helper()
	f, err := ctxfile.Load(filepath.Join("..", "..", "testdata", "demo", name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReload(t *testing.T) {
	ctx := context.Background()
	w := open(t, Flags{})
	oldFile, newFile := demoFile(t, "support.ctx.yaml"), demoFile(t, "support-edited.ctx.yaml")
	s, err := w.Settings(oldFile, true)
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.Engine(oldFile, s)
	if err != nil {
		t.Fatal(err)
	}
	c := w.NewChat(s, e, nil)
	// A chat not saved yet moves to the new file and stays new.
	id := c.ID()
	if err := c.Reload(ctx, newFile); err != nil {
		t.Fatal(err)
	}
	if c.ID() != id || c.Session().Saved() || c.File() != newFile {
		t.Fatalf("new chat after reload: id %q saved %v, want %q unsaved on the new file", c.ID(), c.Session().Saved(), id)
	}
	if err := c.Reload(ctx, oldFile); err != nil {
		t.Fatal(err)
	}
	if err := c.Reload(ctx, nil); err == nil || c.File() != oldFile {
		t.Errorf("Reload(nil): got %v, file %v; want an error and the file kept", err, c.File().Path)
	}
	for i, text := range []string{"hello", "the query is slow", "thanks", "one more"} {
		if _, err := c.SendScripted(ctx, text, "ok "+string(rune('a'+i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := w.ChatContext(ctx, id); err != nil || p != abs(t, oldFile.Path) {
		t.Errorf("context recorded on the first turn: got %q, %v, want %q", p, err, abs(t, oldFile.Path))
	}
	recorded, err := c.Traces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Re-evaluation is replay --context: the same traces, and some decision changes.
	got, err := c.Reevaluate(ctx, newFile)
	if err != nil {
		t.Fatal(err)
	}
	var want []engine.Trace
	if err := w.Replay(ctx, id, newFile, func(tr *engine.Trace) error { want = append(want, *tr); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recorded) || len(got) != len(want) {
		t.Fatalf("got %d traces, want %d", len(got), len(want))
	}
	changed := 0
	for i := range got {
		if traceJSON(t, got[i]) != traceJSON(t, want[i]) {
			t.Errorf("turn %d: Reevaluate and Replay differ", i+1)
		}
		for _, d := range got[i].Decisions {
			if d.Was != nil {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Error("no decision changed under the edited file")
	}
	// Reload keeps the branch and moves the next turn to the new file.
	if err := c.Reload(ctx, newFile); err != nil {
		t.Fatal(err)
	}
	if c.File() != newFile || c.Session().TurnCount() != 4 || c.Session().Branch() != "main" {
		t.Errorf("after reload: %d turns on %q", c.Session().TurnCount(), c.Session().Branch())
	}
	if p, _ := w.ChatContext(ctx, id); p != abs(t, newFile.Path) {
		t.Errorf("context after reload: got %q, want %q", p, abs(t, newFile.Path))
	}
	if _, err := c.SendScripted(ctx, "five", "ok", nil); err != nil {
		t.Fatal(err)
	}
	var last engine.Trace
	w.Replay(ctx, id, nil, func(tr *engine.Trace) error { last = *tr; return nil })
	if last.Turn != 5 {
		t.Errorf("last turn: got %d, want 5", last.Turn)
	}
}

func TestRenameDeleteChat(t *testing.T) {
	ctx := context.Background()
	w := open(t, Flags{})
	file := loadFile(t)
	s, _ := w.Settings(file, true)
	e, err := w.Engine(file, s)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, text := range []string{"first chat", "second chat"} {
		c := w.NewChat(s, e, nil)
		if _, err := c.SendScripted(ctx, text, "ok", nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID())
	}
	if err := w.RenameChat(ctx, ids[0], "Renamed"); err != nil {
		t.Fatal(err)
	}
	if err := w.DeleteChat(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	list, err := w.Chats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != ids[0] || list[0].Title != "Renamed" {
		t.Errorf("chats after rename and delete: got %+v", list)
	}
	if err := w.DeleteChat(ctx, ids[1]); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("delete twice: got %v, want ErrNotFound", err)
	}
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSharedCounter: the engines a workspace builds share one memo of token counts per
// encoding, so a reload does not tokenize the history again.
func TestSharedCounter(t *testing.T) {
	w := open(t, Flags{})
	file := loadFile(t)
	s, _ := w.Settings(file, true)
	a, b := w.counter(s), w.counter(s)
	if a != b {
		t.Fatal("two counters for one encoding")
	}
	m := a.(*memoCounter)
	if got, want := m.Count("hello there, general"), s.Counter().Count("hello there, general"); got != want {
		t.Errorf("Count: got %d, want %d", got, want)
	}
	if _, ok := m.n["hello there, general"]; !ok {
		t.Error("the count is not remembered")
	}
}
