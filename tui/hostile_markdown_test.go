package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/themes"
)

// within runs f and fails the test when it takes longer than d (f goes on, unwatched).
func within[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	start := time.Now()
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s: still running after %v", what, time.Since(start).Round(time.Millisecond))
		panic("unreachable")
	}
}

// hostileToken is an unbroken token of n bytes, like base64 or minified code.
func hostileToken(n int) string {
	const alphabet = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw"
	return strings.Repeat(alphabet, n/len(alphabet)+1)[:n]
}

// nestedList is a list nested n levels deep, each level on a line of its own.
func nestedList(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "- level\n")
	}
	return b.String()
}

// collapsed is text with its white space collapsed, so that a phrase wrapped over two
// lines is found.
func collapsed(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestHostileRepliesShowPromptly: a saved chat whose reply is one of the hostile Markdown
// replies of issue 22 (100 nested blockquotes, a 200 KB token, a list nested 400 levels)
// opens with its first frame at once, at 120x40 and 80x24, in the dark theme (glamour's
// heaviest style) and mono, the reply shown as plain text with a line saying why. glamour
// took from 44 s to more than 5 minutes on each, and the chat could not be opened.
func TestHostileRepliesShowPromptly(t *testing.T) {
	for _, c := range []struct{ name, reply, want string }{
		{"100 nested blockquotes", strings.Repeat("> ", 100) + "x", "shown as plain text: nested deeper than 16 levels"},
		{"a 200 KB token", hostileToken(200_000), "shown as plain text: more than 1024 bytes without a space"},
		{"a list nested 400 levels", strings.Repeat("- ", 400) + "x", "shown as plain text: nested deeper than 16 levels"},
		{"a list nested 400 levels, a line each", nestedList(400), "shown as plain text: longer than 64 KiB"},
	} {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			th := themes.Dark()
			if size[0] == 80 {
				th = themes.Mono()
			}
			t.Run(fmt.Sprintf("%s at %dx%d, %s", c.name, size[0], size[1], th.Name), func(t *testing.T) {
				v := newEnv(t)
				ch := v.chat(t, "", nil)
				if _, err := ch.SendScripted(context.Background(), "show it", c.reply, nil); err != nil {
					t.Fatal(err)
				}
				frame := within(t, 10*time.Second, "the first frame", func() string {
					m := newModel(t, v, ch, size[0], size[1], Options{Theme: th})
					return m.View()
				})
				if !strings.Contains(collapsed(frame), c.want) {
					t.Errorf("%dx%d: the frame does not say %q:\n%s", size[0], size[1], c.want, frame)
				}
			})
		}
	}
}

// TestLiveTokenKeepsFramesCheap: a reply streaming in as one unbroken 200,000-character
// token, in batches as the stream forwards them: every frame is drawn in milliseconds (of
// CPU time: the clock's time depends on what else the machine does). glamour laid the
// growing tail out again on each frame, in time quadratic in it: the screen froze for
// minutes and esc waited behind it.
func TestLiveTokenKeepsFramesCheap(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 120, 40, Options{})
	it := &turnItem{user: &chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("stream it")}}, live: &liveTurn{sent: v.clock.Now()}}
	m.tr.Append(it)
	token := hostileToken(200_000)
	worst := within(t, time.Minute, "the stream's frames", func() time.Duration {
		var worst time.Duration
		for i := 0; i < len(token); i += 500 {
			m.tr.AddText(it, token[i:i+500])
			start := cpuTime()
			m.View()
			worst = max(worst, cpuTime()-start)
		}
		return worst
	})
	frame := m.View()
	if !strings.Contains(frame, token[len(token)-20:]) {
		t.Errorf("the end of the token is not on screen:\n%s", frame)
	}
	t.Logf("the costliest of 400 frames: %v of CPU time", worst)
	if worst > 250*time.Millisecond {
		t.Errorf("the costliest frame took %v of CPU time, want milliseconds", worst)
	}
}
