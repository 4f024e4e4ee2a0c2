package engine

import (
	"testing"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// TestTurnRecordsContextDigest checks that each turn's record, saved and in its traces,
// holds the digest of the context file it was sent with: the file of the engine that
// planned it ("" for a plain chat, with no context file), and, for a regenerated reply,
// which sends the recorded request again, the digest of the turn it regenerates.
func TestTurnRecordsContextDigest(t *testing.T) {
	const src = "system:\n  - role: helper\nreminders:\n  - id: concise\n    text: Stay concise.\n"
	edited := parseFile(t, src+"  - id: polite\n    text: Be polite.\n")
	tests := []struct {
		name string
		// run sends turns on the harness and returns the last one's result and the digest
		// it must record.
		run func(t *testing.T, h *harness) (*TurnResult, string)
	}{
		{"a turn", func(t *testing.T, h *harness) (*TurnResult, string) {
			return h.send("hello", at(1)), h.file.Digest()
		}},
		{"a turn sent with no context file", func(t *testing.T, h *harness) (*TurnResult, string) {
			h.openOn(&ctxfile.File{Renderer: "xml"})
			return h.send("hello", at(1)), ""
		}},
		{"a turn after the file changed", func(t *testing.T, h *harness) (*TurnResult, string) {
			h.send("hello", at(1))
			h.openOn(edited)
			return h.send("again", at(2)), edited.Digest()
		}},
		{"a reply regenerated after the file changed", func(t *testing.T, h *harness) (*TurnResult, string) {
			h.send("hello", at(1))
			h.openOn(edited)
			res, err := h.s.Regenerate(h.ctx, &Scripted{Text: "another answer"}, at(2))
			if err != nil {
				t.Fatal(err)
			}
			return res, h.file.Digest()
		}},
		{"a message left unanswered", func(t *testing.T, h *harness) (*TurnResult, string) {
			res, err := h.s.SendUnanswered(h.ctx, UserInput{Text: "hello", At: at(1)})
			if err != nil {
				t.Fatal(err)
			}
			return res, h.file.Digest()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, src)
			res, want := tt.run(t, h)
			if want != "" && len(want) != chat.ContextDigestLen {
				t.Fatalf("the file's digest %q is not %d digits", want, chat.ContextDigestLen)
			}
			check := func(what string, got *string) {
				t.Helper()
				if got == nil || *got != want {
					t.Errorf("%s: context digest %s, want %q", what, show(got), want)
				}
			}
			check("the turn's record", res.Turn.ContextDigest)
			tr := res.Trace("chat-1")
			check("the turn's trace", tr.ContextDigest)
			saved, err := h.store.Turn(h.ctx, "chat-1", res.Turn.ID)
			if err != nil {
				t.Fatal(err)
			}
			check("the saved record", saved.ContextDigest)
			var last *Trace
			if err := h.eng.ReplayRecorded(h.ctx, "chat-1", func(t *Trace) error { last = t; return nil }); err != nil {
				t.Fatal(err)
			}
			if last == nil {
				t.Fatal("the replay gives no turn")
			}
			check("the replayed trace", last.ContextDigest)
		})
	}
}

// openOn opens the chat again with a new engine on file f.
func (h *harness) openOn(f *ctxfile.File) {
	h.tb.Helper()
	h.eng = h.engine(f)
	s, err := h.eng.Open(h.ctx, "chat-1")
	if err != nil {
		h.tb.Fatalf("reopen: %v", err)
	}
	h.s = s
}

// show shows a context digest: quoted, or nil.
func show(d *string) string {
	if d == nil {
		return "nil"
	}
	return `"` + *d + `"`
}
