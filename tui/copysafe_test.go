package tui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// sneakyReply looks like one harmless command on screen, but its ESC[201~ ends a bracketed
// paste and its carriage returns press enter: pasted raw into a shell, it runs touch. It
// also holds what a terminal draws as nothing (a right-to-left override), a C1 CSI and DEL.
const sneakyReply = "echo harmless\x1b[201~\rtouch pwned\r # \u202etxt.exe \u009b201~\x7f, क्\u200dष 👨\u200d💻"

// pasteable fails unless s is safe to paste: valid UTF-8 without ESC, without any other
// control character but newline and tab (C0, DEL, C1), without a bidi override unshown.
func pasteable(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s: invalid UTF-8 in %q", what, s)
	}
	for i, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e {
			t.Errorf("%s: %U at byte %d of %+q", what, r, i, s)
			return
		}
	}
}

// TestCopyIsSafeToPaste: c copies a reply as the transcript shows it (no escape sequence,
// no control character, the bidi override shown, the joiners of Hindi and emoji kept as
// typed), and y the request JSON with those characters escaped (the same JSON value),
// whether the copy goes to the clipboard or, when it cannot, to a file.
func TestCopyIsSafeToPaste(t *testing.T) {
	const shown = "echo harmlesstouch pwned # ⟨U+202E⟩txt.exe 201~, क्\u200dष 👨\u200d💻"
	for _, term := range []string{"xterm-256color", "dumb"} {
		t.Run(term, func(t *testing.T) {
			v := newEnv(t)
			model := &streamModel{turns: [][]step{{textStep("echo harmless", "\x1b[201~\rtouch pwned\r # \u202etxt.exe \u009b201~\x7f, क्\u200dष 👨\u200d💻")},
				{textStep("fine.")}}}
			var buf bytes.Buffer
			m := newModel(t, v, v.chat(t, "", model), 120, 40, Options{Clipboard: &buf})
			dir := t.TempDir()
			m.clip.env = clipEnv{getenv: func(k string) string { return map[string]string{"TERM": term}[k] }, dir: dir}
			copied := func(what string) string {
				t.Helper()
				if term != "dumb" {
					s := copiedText(t, buf.String())
					buf.Reset()
					return s
				}
				files, _ := filepath.Glob(filepath.Join(dir, "ctxlab-turn-*-"+what+"-*"))
				if len(files) != 1 {
					t.Fatalf("saved %v, want one %s file", files, what)
				}
				b, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			press(m, "type:be sneaky", "enter", "tab", "c")
			reply := copied("reply")
			pasteable(t, "c", reply)
			if reply != shown {
				t.Errorf("c copied %+q, want %+q", reply, shown)
			}

			press(m, "esc", "type:and now?", "enter", "tab", "y")
			raw := copied("request")
			pasteable(t, "y", raw)
			var req struct {
				Messages []struct{ Role, Content string } `json:"messages"`
			}
			if err := json.Unmarshal([]byte(raw), &req); err != nil {
				t.Fatalf("y copied invalid JSON: %v\n%s", err, raw)
			}
			found := false
			for _, msg := range req.Messages {
				found = found || msg.Role == "assistant" && msg.Content == sneakyReply
			}
			if !found || !strings.Contains(raw, `\u202e`) || !strings.Contains(raw, "क्\u200dष") {
				t.Errorf("y copied %s\nwant the reply's exact value, its override escaped, its joiners as they are", raw)
			}
		})
	}
}
