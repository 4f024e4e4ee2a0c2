package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
	got, note, err := l.Open(ctx, c.ID(), nil)
	if err != nil || note != "" {
		t.Fatalf("Open: %v, note %q", err, note)
	}
	if !samePath(got.File().Path, newFile.Path) {
		t.Errorf("opened on %s, want the recorded %s", got.File().Path, newFile.Path)
	}
	// The recorded file is the one in force: the chat opens on it as it is in force (a
	// reload loaded it again), not on l.File nor on a load of its own.
	reloaded := demoFile(t, "support-edited.ctx.yaml")
	if got, _, err := l.Open(ctx, c.ID(), reloaded); err != nil || got.File() != reloaded {
		t.Errorf("Open with the recorded file in force: %v, not opened on it", err)
	}
	// Another file in force: the chat opens on the file it records.
	if got, _, err := l.Open(ctx, other.ID(), reloaded); err != nil || !samePath(got.File().Path, oldFile.Path) {
		t.Errorf("Open with another file in force: %v, want the chat's own file %s", err, oldFile.Path)
	}
	// A recorded file that no longer loads: the default one, and a note.
	bad := filepath.Join(t.TempDir(), "gone.ctx.yaml")
	if err := w.db.SetChatContext(ctx, c.ID(), bad); err != nil {
		t.Fatal(err)
	}
	got, note, err = l.Open(ctx, c.ID(), nil)
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
	// Named after the title (the first message) and the end of the id.
	alnum := strings.ReplaceAll(c.ID(), "-", "")
	base := "a-question-about-the-slow-query-" + alnum[len(alnum)-8:]
	want := []string{base + ".md", base + "-1.md", base + "-2.md"}
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
	if _, err := os.Stat(filepath.Join(dir, base+".json")); err == nil {
		t.Error("a failed export left its file")
	}
	if _, err := l.ExportFile(ctx, dir, "json", "no-such-chat"); err == nil {
		t.Error("export of a chat that does not exist: got no error")
	}
}

// TestExportName: an export file's name is the slug of the chat's title and the end of
// its id; safe on any system, bounded, and the id alone when the title keeps nothing.
func TestExportName(t *testing.T) {
	const uuid = "0192f3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"
	tests := []struct{ name, title, id, want string }{
		{"a title", "Support demo", "demo-1", "support-demo-demo1"},
		{"a uuid's last characters", "Support demo", uuid, "support-demo-4e5f6a7b"},
		{"same title, other chat", "Support demo", "0192f3c4-5d6e-7f80-9a1b-000000000001", "support-demo-00000001"},
		{"case and punctuation", "Why did my query FAIL?!", "c1", "why-did-my-query-fail-c1"},
		{"accents dropped", "Café crème, naïve façade", "c1", "cafe-creme-naive-facade-c1"},
		{"emoji", "🚀 Launch 👍🏽 plan 👨‍💻", "c1", "launch-plan-c1"},
		{"emoji alone: the id", "🚀👍🏽", uuid, "0192f3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"},
		{"path separators", `a/b\c/../../etc/passwd`, "c1", "a-b-c-etc-passwd-c1"},
		{"dots alone", "..", "c1", "c1"},
		{"a leading dot", ".hidden", "c1", "hidden-c1"},
		{"empty: the id", "", "demo-1", "demo-1"},
		{"blank: the id", " \t\n", "demo-1", "demo-1"},
		{"control characters", "line\x1b[2J one\x07\ttwo\x00three\u009b", "c1", "line-2j-one-two-three-c1"},
		{"windows reserved characters", `a<b>c:d"e|f?g*h`, "c1", "a-b-c-d-e-f-g-h-c1"},
		{"a windows device name", "", "con", "chat-con"},
		{"a windows device name with a digit", "", "LPT1", "chat-lpt1"},
		{"nothing at all", "", "", "chat"},
		{"an id with nothing to keep", "Title", "///", "title"},
		{"very long", strings.Repeat("word ", 40), "c1", strings.TrimSuffix(strings.Repeat("word-", 9), "-") + "-c1"},
		{"one very long word", strings.Repeat("x", 300), "c1", strings.Repeat("x", 48) + "-c1"},
		{"a very long id alone", "", strings.Repeat("i", 500), strings.Repeat("i", 96)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExportName(tt.title, tt.id)
			if got != tt.want {
				t.Errorf("ExportName(%q, %q) = %q, want %q", tt.title, tt.id, got, tt.want)
			}
			for _, r := range got {
				if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r >= 'A' && r <= 'Z') {
					t.Errorf("%q holds %q", got, r)
				}
			}
			if len(got) > 2*maxSlug || strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") {
				t.Errorf("%q: %d bytes, or a '-' at an end", got, len(got))
			}
		})
	}
}
