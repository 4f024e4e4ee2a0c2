package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// setBudget sets how long md waits for a layout, from now on.
func setBudget(md *markdown, d time.Duration) { md.budget, md.until = d, time.Time{} }

// table is a table of cols columns and two rows.
func table(cols int) string {
	return "|" + strings.Repeat(" a |", cols) + "\n|" + strings.Repeat("---|", cols) + "\n|" + strings.Repeat(" b |", cols) + "\n"
}

// codeReply is about n bytes of Markdown whose layout takes a while: code blocks, which
// glamour highlights.
func codeReply(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Step %d:\n\n```go\nfunc step%d(x int) int {\n\treturn x * %d // scale\n}\n```\n\n", i, i, i)
	}
	return b.String()
}

// TestMarkdownBounds: what reaches glamour is bounded. Each shape of reply that made
// glamour take minutes or gigabytes (issue 22) is shown as plain text past its bound,
// with the reason, and laid out as Markdown up to it; either way at once.
func TestMarkdownBounds(t *testing.T) {
	for _, c := range []struct {
		name  string
		text  string
		width int
		// note is the reason the text is shown plain ("": laid out as Markdown).
		note string
	}{
		{"a paragraph", "Some **bold** text and `code`.", 76, ""},
		{"100 nested blockquotes", strings.Repeat("> ", 100) + "x", 76, "nested deeper than 16 levels"},
		{"16 nested blockquotes", strings.Repeat("> ", 16) + "x", 76, ""},
		{"16 nested blockquotes at 40 columns", strings.Repeat("> ", 16) + "x", 40, "nested deeper than 10 levels at 40 columns"},
		{"a list nested 400 levels on one line", strings.Repeat("- ", 400) + "x", 76, "nested deeper than 16 levels"},
		{"a list nested 17 levels", nestedList(17), 76, "nested deeper than 16 levels"},
		{"a list nested 16 levels", nestedList(16), 76, ""},
		{"a list nested 400 levels (160 KB)", nestedList(400), 76, "longer than 64 KiB"},
		{"a 200 KB token", hostileToken(200_000), 76, "more than 1024 bytes without a space"},
		{"a 1025-byte token", hostileToken(1025), 76, "more than 1024 bytes without a space"},
		{"a 1024-byte token", hostileToken(1024), 76, ""},
		{"emphasis nested 5,000 deep", strings.Repeat("*a ", 5000) + "x" + strings.Repeat(" a*", 5000), 76, "nested deeper than 48 levels"},
		{"a list of 1,001 items", strings.Repeat("- item\n", 1001), 76, "a list of more than 1000 items"},
		{"a list of 1,000 items", strings.Repeat("- item\n", 1000), 76, ""},
		{"a table of 129 columns", table(129), 76, "a table of more than 128 columns"},
		{"a table of 128 columns", table(128), 76, ""},
		{"10,000 headings", strings.Repeat("# a\n", 10_000), 76, ""},
		{"64 KiB and a byte of words", strings.Repeat("word ", 64<<10/5) + "words", 76, "longer than 64 KiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			md := newMarkdown("dark")
			setBudget(md, time.Minute) // this test is about the bounds: wait for every layout
			type out struct {
				res   mdResult
				ready bool
				took  time.Duration
			}
			o := within(t, 20*time.Second, c.name, func() out {
				start := time.Now()
				res, ready := md.Render(c.text, c.width)
				return out{res, ready, time.Since(start)}
			})
			if !o.ready {
				t.Fatalf("not laid out within a minute")
			}
			if o.res.note != c.note {
				t.Errorf("note %q, want %q", o.res.note, c.note)
			}
			if c.note != "" {
				// Plain text: every character is there, wrapped at the width.
				if got, want := strings.Join(strings.Fields(strings.Join(o.res.lines, " ")), ""), strings.Join(strings.Fields(c.text), ""); got != want {
					t.Errorf("the plain text differs from the reply: %d bytes shown of %d", len(got), len(want))
				}
				for i, l := range o.res.lines {
					if w := ansi.StringWidth(l); w > c.width {
						t.Fatalf("plain line %d is %d columns wide, at most %d: %q", i, w, c.width, l)
					}
				}
			}
			t.Logf("%s: %v, %d lines", c.name, o.took.Round(time.Microsecond), len(o.res.lines))
		})
	}
}

// TestMarkdownLaysOutOffTheUIGoroutine: a layout that outlasts the budget runs on, off
// the UI goroutine, while the text shows plain; it wakes the UI when it is done, and the
// next Render returns it. One layout runs at a time: meanwhile another text shows plain
// too, without a layout of its own started. A layout Render waited for does not wake.
func TestMarkdownLaysOutOffTheUIGoroutine(t *testing.T) {
	md := newMarkdown("dark")
	setBudget(md, 0)
	woke := make(chan struct{}, 4)
	md.setWake(func() { woke <- struct{}{} })

	code := codeReply(60 << 10)
	res, ready := md.Render(code, 76)
	if ready {
		t.Fatal("60 KB of code laid out within a budget of 0")
	}
	if res.note != "" || !strings.Contains(strings.Join(res.lines, "\n"), "```go") {
		t.Fatalf("meanwhile the text is not shown plain (note %q)", res.note)
	}
	if !md.Busy() {
		t.Fatal("no layout runs")
	}
	other := strings.Repeat("Another **reply**, long enough to be laid out off the UI goroutine. ", 40)
	if _, ready := md.Render(other, 76); ready {
		t.Error("a second text was laid out while the first one's layout runs")
	}
	select {
	case <-woke:
	case <-time.After(30 * time.Second):
		t.Fatal("no wake within 30 s of the layout's start")
	}
	res, ready = md.Render(code, 76)
	if !ready || strings.Contains(strings.Join(res.lines, "\n"), "```") {
		t.Fatalf("after the wake, the layout is not there (ready %v)", ready)
	}

	setBudget(md, time.Minute)
	if res, ready := md.Render(other, 76); !ready || strings.Contains(strings.Join(res.lines, "\n"), "**") {
		t.Fatalf("the second text, waited for, is not laid out (ready %v)", ready)
	}
	select {
	case <-woke:
		t.Error("a layout Render waited for woke the UI too")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestMarkdownWakesWhatWaitedForTheSlot: a reply shown plain because the layout of a
// streaming reply's tail held the slot is drawn again when that layout is done (a tail's
// layout does not wake for itself).
func TestMarkdownWakesWhatWaitedForTheSlot(t *testing.T) {
	md := newMarkdown("dark")
	setBudget(md, 0)
	woke := make(chan struct{}, 4)
	md.setWake(func() { woke <- struct{}{} })
	if _, fresh := md.Live("```go\n"+strings.Repeat("x := 1 // a line of code\n", 1600), 76); fresh {
		t.Fatal("40 KB of code laid out within a budget of 0")
	}
	other := strings.Repeat("A saved **reply**, long enough to be laid out off the UI goroutine. ", 40)
	if _, ready := md.Render(other, 76); ready {
		t.Fatal("a reply was laid out while a tail's layout runs")
	}
	select {
	case <-woke:
	case <-time.After(30 * time.Second):
		t.Fatal("the end of the tail's layout did not wake the reply waiting for the slot")
	}
	setBudget(md, time.Minute)
	if _, ready := md.Render(other, 76); !ready {
		t.Fatal("the reply is not laid out once the slot is free")
	}
}

// TestLiveTailShowsLastLayout: while the layout of a streaming reply's tail runs, the
// tail shows the last layout of an earlier tail it extends (not a plain flicker), and a
// tail that does not extend it shows plain.
func TestLiveTailShowsLastLayout(t *testing.T) {
	md := newMarkdown("dark")
	setBudget(md, time.Minute)
	tail := "```go\n" + strings.Repeat("x := 1 // a line of code\n", 200)
	first, fresh := md.Live(tail, 76)
	if !fresh {
		t.Fatal("the first tail was not laid out within a minute")
	}
	setBudget(md, 0)
	longer := tail + strings.Repeat("y := 2 // another line of code\n", 1200)
	got, fresh := md.Live(longer, 76)
	if fresh {
		t.Fatal("40 KB of code laid out within a budget of 0")
	}
	if strings.Join(got.lines, "\n") != strings.Join(first.lines, "\n") {
		t.Error("meanwhile the tail does not show the last layout of the tail it extends")
	}
	other := "```go\n" + strings.Repeat("z := 3 // not the same tail\n", 100)
	got, fresh = md.Live(other, 76)
	if fresh || !strings.Contains(strings.Join(got.lines, "\n"), "```go") {
		t.Errorf("a tail that does not extend the last one is not shown plain (fresh %v)", fresh)
	}
	// The tail's layout is never kept: the cache holds none of them.
	for range 600 {
		if !md.Busy() {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	md.mu.Lock()
	n := len(md.cache.cur) + len(md.cache.old)
	md.mu.Unlock()
	if n != 0 {
		t.Errorf("%d tail layouts cached", n)
	}
}

// TestPendingReplyRedrawnOnceLaidOut: a saved reply whose layout outlasts the budget is
// drawn plain in the first frame, and laid out when the layout reports through Notify.
func TestPendingReplyRedrawnOnceLaidOut(t *testing.T) {
	v := newEnv(t)
	c := v.chat(t, "", nil)
	reply := codeReply(40<<10) + "```go\nfunc last() {}\n```"
	if _, err := c.SendScripted(context.Background(), "show me the steps", reply, nil); err != nil {
		t.Fatal(err)
	}
	m := newModel(t, v, c, 120, 40, Options{})
	msgs := make(chan tea.Msg, 4)
	m.Notify(func(msg tea.Msg) { msgs <- msg })
	setBudget(m.tr.md, 0)
	if frame := m.View(); !strings.Contains(frame, "```go") {
		t.Fatalf("the first frame does not show the reply plain:\n%s", frame)
	}
	select {
	case msg := <-msgs:
		m.Update(msg)
	case <-time.After(30 * time.Second):
		t.Fatal("the layout did not report within 30 s")
	}
	if frame := m.View(); strings.Contains(frame, "```") || !strings.Contains(frame, "func last() {}") {
		t.Fatalf("once laid out, the reply is not drawn as Markdown:\n%s", frame)
	}
}

// TestReplyShownUpToItsBound: of a reply longer than ReplyMaxShown the first MiB is
// shown, with a line saying how much the reply holds, saved or streaming.
func TestReplyShownUpToItsBound(t *testing.T) {
	huge := strings.Repeat("A line of a reply that goes on and on.\n", 3<<20/39)
	v := newEnv(t)
	c := v.chat(t, "", nil)
	if _, err := c.SendScripted(context.Background(), "say it all", huge, nil); err != nil {
		t.Fatal(err)
	}
	m := newModel(t, v, c, 120, 40, Options{})
	const want = "only the first 1 MiB of this 3.0 MiB reply is shown"
	if frame := within(t, 20*time.Second, "the first frame", m.View); !strings.Contains(collapsed(frame), want) {
		t.Fatalf("the frame does not say the reply is cut:\n%s", frame)
	}
	if n := len(m.tr.render(0)); n > 40_000 {
		t.Errorf("%d lines drawn for a reply shown up to 1 MiB", n)
	}

	live := &turnItem{user: &chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart("again")}}, live: &liveTurn{sent: v.clock.Now()}}
	m.tr.Append(live)
	for i := 0; i < len(huge); i += 64 << 10 {
		m.tr.AddText(live, huge[i:min(i+64<<10, len(huge))])
	}
	if frame := m.View(); !strings.Contains(collapsed(frame), want) {
		t.Fatalf("the streaming reply's frame does not say it is cut:\n%s", frame)
	}
	if got := live.live.stable + len(live.live.tail); got > ReplyMaxShown {
		t.Errorf("%d bytes of the streaming reply kept, at most %d", got, ReplyMaxShown)
	}
}

// TestMdPieces: a reply longer than MarkdownMaxBytes is cut at paragraph breaks outside
// code fences into pieces of at most that, a longer block being a piece of its own;
// nothing is lost.
func TestMdPieces(t *testing.T) {
	para := strings.Repeat("word ", 2000) + "\n\n"                            // 10 KB
	fence := "```\n" + strings.Repeat("code\n\nmore code\n", 500) + "```\n\n" // 7.5 KB, blank lines inside
	big := strings.Repeat("x ", 40<<10) + "\n\n"                              // 80 KB, one paragraph
	for _, c := range []struct {
		name string
		text string
		// want is the number of pieces; bigOnes how many are longer than the bound.
		want, bigOnes int
	}{
		{"short", para, 1, 0},
		{"paragraphs", strings.Repeat(para, 20), 4, 0},
		{"fences", strings.Repeat(fence, 20), 3, 0},
		{"a block past the bound", para + big + para, 3, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			pieces := mdPieces(c.text)
			bigOnes := 0
			for _, p := range pieces {
				if len(p) > MarkdownMaxBytes {
					bigOnes++
				}
				if strings.Count(p, "```")%2 != 0 {
					t.Errorf("a piece cuts a code fence")
				}
			}
			if len(pieces) != c.want || bigOnes != c.bigOnes {
				t.Errorf("%d pieces, %d past the bound; want %d and %d", len(pieces), bigOnes, c.want, c.bigOnes)
			}
			if got, want := strings.Join(strings.Fields(strings.Join(pieces, " ")), " "), strings.Join(strings.Fields(c.text), " "); got != want {
				t.Error("the pieces do not hold the text")
			}
		})
	}
}
