package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestLibrary(t *testing.T) {
	ctx := context.Background()
	w := open(t, Flags{})
	oldFile, newFile := demoFile(t, "support.ctx.yaml"), demoFile(t, "support-edited.ctx.yaml")
	s, _ := w.Settings(oldFile, true)
	l := &Library{W: w, Settings: s, File: oldFile,
		Export: func(_ context.Context, out io.Writer, format, id string) error {
			_, err := fmt.Fprintf(out, "%s of %s\n", format, id)
			return err
		}}
	c, err := l.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendScripted(ctx, "a question about the slow query", "an answer", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Reload(ctx, newFile); err != nil {
		t.Fatal(err)
	}
	other, _ := l.New(nil)
	if _, err := other.SendScripted(ctx, "hello there", "hi", nil); err != nil {
		t.Fatal(err)
	}

	// Opening restores the recorded context file.
	got, note, err := l.Open(ctx, c.ID())
	if err != nil || note != "" {
		t.Fatalf("Open: %v, note %q", err, note)
	}
	if !samePath(got.File().Path, newFile.Path) {
		t.Errorf("opened on %s, want the recorded %s", got.File().Path, newFile.Path)
	}
	// A recorded file that no longer loads: the default one, and a note.
	bad := filepath.Join(t.TempDir(), "gone.ctx.yaml")
	if err := w.db.SetChatContext(ctx, c.ID(), bad); err != nil {
		t.Fatal(err)
	}
	got, note, err = l.Open(ctx, c.ID())
	if err != nil || note == "" || got.File() != oldFile {
		t.Errorf("Open with a missing file: got %v, note %q, file %s", err, note, got.File().Path)
	}

	// The overlay's list (two queries) is the workspace's (a query per chat).
	got2, err := l.Chats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want2, err := w.Chats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got2) != len(want2) {
		t.Fatalf("Chats: got %d, want %d", len(got2), len(want2))
	}
	for i := range want2 {
		g, wnt := got2[i], want2[i]
		if g.ID != wnt.ID || (g.CostUSD == nil) != (wnt.CostUSD == nil) || (g.CostUSD != nil && *g.CostUSD != *wnt.CostUSD) {
			t.Errorf("chat %d: got %+v, want %+v", i, g, wnt)
		}
	}

	ids, err := l.Search(ctx, "slow")
	if err != nil || len(ids) != 1 || !ids[c.ID()] {
		t.Errorf("Search: got %v, %v, want only %s", ids, err, c.ID())
	}

	dir := t.TempDir()
	var paths []string
	for range 3 {
		p, err := l.ExportFile(ctx, dir, "markdown", c.ID())
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
	}
	want := []string{c.ID() + ".md", c.ID() + "-1.md", c.ID() + "-2.md"}
	for i := range want {
		if paths[i] != want[i] {
			t.Errorf("export %d: got %s, want %s", i, paths[i], want[i])
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, want[0]))
	if string(b) != "markdown of "+c.ID()+"\n" {
		t.Errorf("exported: got %q", b)
	}
	if _, err := l.ExportFile(ctx, dir, "yaml", c.ID()); err == nil {
		t.Error("export as yaml: got no error")
	}
	l.Export = func(context.Context, io.Writer, string, string) error { return fmt.Errorf("boom") }
	if _, err := l.ExportFile(ctx, dir, "json", c.ID()); err == nil {
		t.Error("a failed export: got no error")
	}
	if _, err := os.Stat(filepath.Join(dir, c.ID()+".json")); err == nil {
		t.Error("a failed export left its file")
	}
	if got := safeName("a/b c"); got != "a_b_c" {
		t.Errorf("safeName: got %q", got)
	}
}
