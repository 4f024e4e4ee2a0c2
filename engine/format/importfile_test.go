package format_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/format"
)

// FuzzReadImportFile checks that no import file makes the reader panic, and that every
// file it refuses gets an error naming the file, with a line and column.
func FuzzReadImportFile(f *testing.F) {
	for _, s := range []string{
		`[{"role":"user","content":"a"}]`,
		`{"messages":[{"role":"system","content":"s"},{"role":"user","content":"a"}]}`,
		`{"format":"ctxlab-chat","version":1,"chat":{"id":"x","title":"","active_branch":"main","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"},"messages":[],"branches":[],"checkpoints":[],"turns":[]}`,
		`{"format":"ctxlab-chat","version":"1"}`, "\xef\xbb\xbf[", `{"format":1}`, `{"a":[}`, "",
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "in.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		imp, err := format.ReadImportFile(path, format.ImportOptions{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			var d *diag.Error
			if !errors.As(err, &d) || d.File != path || d.Line < 1 || d.Col < 1 {
				t.Fatalf("got %T %v, want a *diag.Error naming the file with a line and column", err, err)
			}
			return
		}
		// An export is checked for consistency by ImportChat; an OpenAI array is a chat
		// ready to store.
		e := imp.Export
		if !imp.IsExport && (e.Chat.ID == "" || len(e.Messages) == 0 || e.Branches[0].Head != e.Messages[len(e.Messages)-1].ID) {
			t.Fatalf("an accepted OpenAI array gave an incomplete chat: %+v", e.Chat)
		}
	})
}
