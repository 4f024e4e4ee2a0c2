package format_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/format"
)

// shapeExport is a ctxlab export of one turn, with the user message's parts and reminder
// spans, and the messages after it, left to each case.
func shapeExport(parts, reminders, more string) string {
	return `{"format": "ctxlab-chat", "version": 1,
"chat": {"id": "c1", "title": "", "active_branch": "main", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"},
"messages": [
{"id": "u1", "role": "user", "parts": ` + parts + `,
 "reminders": ` + reminders + `, "created_at": "2026-01-01T00:00:00Z"},
{"id": "a1", "parent_id": "u1", "role": "assistant", "parts": [{"type": "text", "text": "hi"}], "created_at": "2026-01-01T00:00:01Z"}` + more + `],
"branches": [{"name": "main", "head": "a1", "created_at": "2026-01-01T00:00:00Z"}], "checkpoints": [], "turns": []}`
}

// TestImportRefusesWhatCtxlabCannotMake is issue 12 item 7: import accepted a reminder
// span laid over the user's own words (markdown then showed the question as a reminder
// and the reminder as the user's text), and chats that start with a reply. Each is
// refused at the value at fault; what the engine makes is accepted.
func TestImportRefusesWhatCtxlabCannotMake(t *testing.T) {
	const rem = `<system-reminder>Stay concise.</system-reminder>`
	const inline = `[{"type": "text", "text": "hello` + rem + `"}]` // hello is 5 bytes, the block 48
	const twoInline = `[{"type": "text", "text": "hello` + rem + rem + `"}]`
	const asPart = `[{"type": "text", "text": "hello"}, {"type": "text", "text": "` + rem + `"}]`
	for _, tc := range []struct {
		name, in, want string // want "" for accepted
	}{
		{"inline, as the engine bakes it", shapeExport(inline, `[{"id": "r", "part_index": 0, "start": 5, "end": 53, "mode": "inline"}]`, ""), ""},
		{"two inline", shapeExport(twoInline, `[{"id": "r", "part_index": 0, "start": 5, "end": 53, "mode": "inline"}, {"id": "s", "part_index": 0, "start": 53, "end": 101, "mode": "inline"}]`, ""), ""},
		{"a part, then inline on it", shapeExport(`[{"type": "text", "text": "hello"}, {"type": "text", "text": "`+rem+rem+`"}]`,
			`[{"id": "p", "part_index": 1, "start": 0, "end": 48, "mode": "part"}, {"id": "r", "part_index": 1, "start": 48, "end": 96, "mode": "inline"}]`, ""), ""},
		{"found by an OpenAI import, mid-text", shapeExport(`[{"type": "text", "text": "`+rem+` hello"}]`, `[{"id": "", "part_index": 0, "start": 0, "end": 48, "mode": "inline"}]`, ""), ""},
		{"over the user's words", shapeExport(inline, `[{"id": "r", "part_index": 0, "start": 0, "end": 5, "mode": "inline"}]`, ""),
			`f.json:5:54: message "u1": reminder "r": span [0,5) of part 0 is not a <system-reminder>…</system-reminder> block (a span covers exactly the text a reminder injected)`},
		{"over the words and the block", shapeExport(inline, `[{"id": "r", "part_index": 0, "start": 0, "end": 53, "mode": "inline"}]`, ""),
			`f.json:5:54: message "u1": reminder "r": span [0,53) of part 0 is not a <system-reminder>…</system-reminder> block (a span covers exactly the text a reminder injected)`},
		{"a block cut short", shapeExport(inline, `[{"id": "r", "part_index": 0, "start": 5, "end": 52, "mode": "inline"}]`, ""),
			`f.json:5:54: message "u1": reminder "r": span [5,52) of part 0 is not a <system-reminder>…</system-reminder> block (a span covers exactly the text a reminder injected)`},
		{"the user's words after an engine's span", shapeExport(`[{"type": "text", "text": "`+rem+`hello"}]`, `[{"id": "r", "part_index": 0, "start": 0, "end": 48, "mode": "inline"}]`, ""),
			`f.json:5:64: message "u1": reminder "r": the span [0,48) of part 0 is followed by text that is not a reminder (the engine appends reminders after the user's words)`},
		{"spans out of order", shapeExport(twoInline, `[{"id": "s", "part_index": 0, "start": 53, "end": 101, "mode": "inline"}, {"id": "r", "part_index": 0, "start": 5, "end": 53, "mode": "inline"}]`, ""),
			`f.json:5:127: message "u1": reminder "r": span [5,53) of part 0 overlaps or comes before the span before it ([53,101) of part 0)`},
		{"the same span twice", shapeExport(inline, `[{"id": "r", "part_index": 0, "start": 5, "end": 53, "mode": "inline"}, {"id": "r", "part_index": 0, "start": 5, "end": 53, "mode": "inline"}]`, ""),
			`f.json:5:125: message "u1": reminder "r": span [5,53) of part 0 overlaps or comes before the span before it ([5,53) of part 0)`},
		{"a part reminder inside its part", shapeExport(`[{"type": "text", "text": "hello"}, {"type": "text", "text": "x`+rem+`"}]`, `[{"id": "p", "part_index": 1, "start": 1, "end": 49, "mode": "part"}]`, ""),
			`f.json:5:54: message "u1": reminder "p": a part reminder starts its part, not at byte 1`},
		{"an unknown mode", shapeExport(asPart, `[{"id": "p", "part_index": 1, "start": 0, "end": 48, "mode": "tail"}]`, ""),
			`f.json:5:76: message "u1": reminder "p": mode "tail", want "inline" or "part"`},
		{"a reminder in a reply", shapeExport(inline, `[]`, `,
{"id": "u2", "parent_id": "a1", "role": "user", "parts": [{"type": "text", "text": "ok"}], "created_at": "2026-01-01T00:00:02Z"},
{"id": "a2", "parent_id": "u2", "role": "assistant", "parts": [{"type": "text", "text": "`+rem+`"}], "reminders": [{"id": "r", "part_index": 0, "start": 0, "end": 48, "mode": "inline"}], "created_at": "2026-01-01T00:00:03Z"}`),
			`f.json:8:157: message "a2": reminders are baked into user messages only, not assistant messages`},
		{"a chat that starts with a reply", shapeExport(inline, `[]`, `,
{"id": "a0", "role": "assistant", "parts": [{"type": "text", "text": "Welcome!"}], "created_at": "2026-01-01T00:00:00Z"}`),
			`f.json:7:22: message "a0": a chat starts with a user message, not an assistant message`},
		{"a reply to a reply", shapeExport(inline, `[]`, `,
{"id": "a2", "parent_id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "again"}], "created_at": "2026-01-01T00:00:02Z"}`),
			`f.json:7:27: message "a2": an assistant message answers a user message; its parent "a1" is an assistant message`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := format.ReadImport(strings.NewReader(tc.in), "f.json", format.ImportOptions{IDs: seq()})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want the chat accepted", err)
				}
				return
			}
			var d *diag.Error
			if !errors.As(err, &d) || err.Error() != tc.want {
				t.Fatalf("got %T\n%v\nwant a *diag.Error\n%s", err, err, tc.want)
			}
		})
	}
}
