package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// wideText holds the characters terminals and width libraries measure differently: an
// emoji with a skin tone (tmux 3.3 draws 4 cells, x/ansi measures 2), a ZWJ sequence, a
// flag, a heart with U+FE0F, a keycap, a subdivision flag (tag characters); then e with a
// combining accent and Hangul.
const wideText = "👍🏽 👨\u200d💻 🇫🇷 ❤\ufe0f 1\ufe0f\u20e3 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F e\u0301 한글"

// TestWorkbenchTmuxWideCharacters runs the real binary in tmux at 160x45 and 80x24 on a
// scripted chat whose message, title, reply and draft hold emoji terminals measure
// differently. Every row is as wide as tmux draws it as the workbench measured it (tmux's
// copy mode says where each row ends, in cells): the header stays on the first row, the
// pane border │ is in one column on every row, and no row is wider than the pane. The
// terminal's auto-wrap is off while the workbench runs, on while $EDITOR runs, and on
// again once it has quit.
func TestWorkbenchTmuxWideCharacters(t *testing.T) {
	tmux := needTmux(t)
	bin := buildCtxlab(t)
	isolateCtxlabEnv(t)
	for _, sz := range []struct{ w, h int }{{160, 45}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			dir := t.TempDir()
			done := filepath.Join(dir, "editor-done")
			editor := filepath.Join(dir, "editor.sh")
			script := "#!/bin/sh\nwhile [ ! -e " + shellQuote(done) + " ]; do sleep 0.05; done\nprintf ' edited' >> \"$1\"\n"
			if err := os.WriteFile(editor, []byte(script), 0o700); err != nil {
				t.Fatal(err)
			}
			p := startPane(t, tmux, bin, sz.w, sz.h, []string{"NO_COLOR=1", "VISUAL=", "EDITOR=" + editor},
				"--db", filepath.Join(dir, "w.db"), "--context", "testdata/demo/support.ctx.yaml", "--theme", "mono")
			waitFor(t, p, "SCRIPTED", e2eTimeout)
			wantAutoWrap(t, p, false, "while the workbench runs")

			typePieces(t, p, "ship it "+wideText+" M1")
			p.keys("Enter")
			waitFor(t, p, "reply as the model to", e2eTimeout)
			typePieces(t, p, "Shipped "+wideText+" R1", " and a line long enough to wrap "+strings.Repeat("👍🏽", 20)+" R2",
				" "+strings.Repeat("👍🏽", 20)+" END")
			p.keys("Enter")
			waitIdle(t, p)
			waitFor(t, p, " END", e2eTimeout)
			screen := typePieces(t, p, "draft "+wideText+" D1", " "+strings.Repeat("👨\u200d💻", 15)+" D2",
				" "+strings.Repeat("👨\u200d💻", 15)+" TAIL")
			checkRowWidths(t, p, screen, sz.w, sz.h)

			p.keys("C-x") // the draft in $EDITOR, which waits for the test
			waitUntil(t, p, "the editor running", e2eTimeout, func(string) bool {
				return autoWrap(t, p) && !strings.Contains(p.capture(), "SCRIPTED")
			})
			if err := os.WriteFile(done, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			waitFor(t, p, "TAIL edited", e2eTimeout)
			wantAutoWrap(t, p, false, "after $EDITOR")

			p.keys("C-c")
			waitFor(t, p, "ctxlab exited: 0", e2eTimeout)
			wantAutoWrap(t, p, true, "after the workbench quit")
		})
	}
}

// TestWorkbenchTmuxAutoWrapAfterSignal: the workbench ended by SIGTERM turns the
// terminal's auto-wrap on again.
func TestWorkbenchTmuxAutoWrapAfterSignal(t *testing.T) {
	tmux := needTmux(t)
	bin := buildCtxlab(t)
	isolateCtxlabEnv(t)
	p := startPane(t, tmux, bin, 100, 30, []string{"NO_COLOR=1"},
		"--db", filepath.Join(t.TempDir(), "w.db"), "--context", "testdata/demo/support.ctx.yaml", "--theme", "mono")
	waitFor(t, p, "SCRIPTED", e2eTimeout)
	wantAutoWrap(t, p, false, "while the workbench runs")
	p.signal(syscall.SIGTERM)
	waitFor(t, p, "ctxlab exited:", e2eTimeout)
	wantAutoWrap(t, p, true, "after SIGTERM")
}

// typePieces types pieces of text one after the other, each once the one before is on
// screen (each ends with a word of its own), and returns the last screen. A piece is
// short: Bubble Tea v1 drops a character its input reader gets split over two reads
// (256 bytes each).
func typePieces(t *testing.T, p *pane, pieces ...string) string {
	t.Helper()
	var screen string
	for _, piece := range pieces {
		if len(piece) > 240 {
			t.Fatalf("piece of %d bytes: at most 240", len(piece))
		}
		p.typeText(piece)
		screen = waitFor(t, p, piece[strings.LastIndexByte(piece, ' '):], e2eTimeout)
	}
	return screen
}

// autoWrap reports whether the pane's auto-wrap (DECAWM) is on.
func autoWrap(t testing.TB, p *pane) bool {
	t.Helper()
	return strings.TrimSpace(p.run("display", "-p", "-t", "s", "#{wrap_flag}")) == "1"
}

func wantAutoWrap(t testing.TB, p *pane, on bool, when string) {
	t.Helper()
	if got := autoWrap(t, p); got != on {
		t.Errorf("auto-wrap on = %v %s, want %v", got, when, on)
	}
}

// checkRowWidths checks a screen of the pane: the header on the first row, and each row
// as wide in tmux (where its copy mode puts the end of the row) as the workbench's width
// measure says, at most the pane's width; the pane border │, when shown, in one column.
func checkRowWidths(t *testing.T, p *pane, screen string, w, h int) {
	t.Helper()
	rows := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if !strings.HasPrefix(rows[0], " ctxlab · ship it ") {
		t.Errorf("the first row is not the header:\n%s", screen)
	}
	// In copy mode, for each row from the top of the screen: its end (the cell after its
	// last character that is not a space) and, on rows with the border, the border's cell.
	args := []string{"copy-mode", "-t", "s", ";", "send-keys", "-t", "s", "-X", "top-line"}
	for range h {
		args = append(args, ";", "send-keys", "-t", "s", "-X", "start-of-line",
			";", "send-keys", "-t", "s", "-X", "end-of-line",
			";", "display", "-p", "-t", "s", "#{copy_cursor_y} #{copy_cursor_x}",
			";", "send-keys", "-t", "s", "-X", "cursor-down")
	}
	ends := strings.Fields(p.run(append(args, ";", "send-keys", "-t", "s", "-X", "cancel")...))
	if len(ends) != 2*h {
		t.Fatalf("copy mode gave %d numbers for %d rows: %v", len(ends), h, ends)
	}
	for i := range h {
		y, _ := strconv.Atoi(ends[2*i])
		x, _ := strconv.Atoi(ends[2*i+1])
		row := ""
		if y < len(rows) {
			row = strings.TrimRight(rows[y], " ")
		}
		if measured := ansi.StringWidth(row); x != measured || x > w {
			t.Errorf("row %d is %d cells wide in tmux, %d by the workbench's measure (pane %d): %q", y, x, measured, w, row)
		}
	}
	// The border's column, where tmux's search finds it on each row that has one.
	var cols []string
	args = []string{"copy-mode", "-t", "s", ";", "send-keys", "-t", "s", "-X", "top-line", ";", "send-keys", "-t", "s", "-X", "start-of-line"}
	borders := 0
	for _, r := range rows {
		borders += strings.Count(r, "│")
	}
	for range borders {
		args = append(args, ";", "send-keys", "-t", "s", "-X", "search-forward", "│",
			";", "display", "-p", "-t", "s", "#{copy_cursor_x}")
	}
	if borders > 0 {
		cols = strings.Fields(p.run(append(args, ";", "send-keys", "-t", "s", "-X", "cancel")...))
	}
	if w >= 120 && borders < h/2 {
		t.Errorf("%d rows with the pane border at %d columns, want most:\n%s", borders, w, screen)
	}
	for _, c := range cols {
		if c != cols[0] {
			t.Errorf("the pane border is in columns %v, want one column:\n%s", cols, screen)
			break
		}
	}
}
