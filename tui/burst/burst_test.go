package burst

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// p brackets s as a paste.
func p(s string) string { return pasteStart + s + pasteEnd }

func TestRewrite(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a key alone", "q", "q"},
		{"enter alone", "\r", "\r"},
		{"a word", "enter", p("enter")},
		{"words with spaces", "press enter now", p("press enter now")},
		{"two characters", "jj", p("jj")},
		{"a space and a key", " q", p(" q")},
		{"a space alone", " ", " "},
		{"ctrl spelled", "ctrl+c", p("ctrl+c")},
		{"emoji with a skin tone", "ok 👍🏽", p("ok 👍🏽")},
		{"one emoji", "👍", "👍"},
		{"one emoji and its modifier", "👍🏽", p("👍🏽")},
		{"a pasted paragraph", "line one\rline two\nthree\tfour", p("line one\rline two\nthree\tfour")},
		{"text typed ahead of enter", "hello\r", p("hello") + "\r"},
		{"enter then text", "\rhello", "\r" + p("hello")},
		{"an arrow key", "\x1b[A", "\x1b[A"},
		{"keys between words", "ab\x1b[Acd", p("ab") + "\x1b[A" + p("cd")},
		{"alt+1", "\x1b1", "\x1b1"},
		{"alt+enter", "\x1b\r", "\x1b\r"},
		{"F1 (SS3)", "\x1bOP", "\x1bOP"},
		{"a lone esc", "\x1b", "\x1b"},
		{"esc esc", "\x1b\x1b", "\x1b\x1b"},
		{"SGR mouse", "\x1b[<0;12;5M\x1b[<0;12;5m", "\x1b[<0;12;5M\x1b[<0;12;5m"},
		{"X10 mouse with printable bytes", "\x1b[M ab", "\x1b[M ab"},
		{"focus report", "\x1b[I", "\x1b[I"},
		{"an OSC reply", "\x1b]11;rgb:0000/0000/0000\x07xy", "\x1b]11;rgb:0000/0000/0000\x07" + p("xy")},
		{"an OSC ended by ST", "\x1b]11;rgb:1/2/3\x1b\\", "\x1b]11;rgb:1/2/3\x1b\\"},
		{"the terminal's own paste", p("enter now") + "x", p("enter now") + "x"},
		{"ctrl+c among text", "ab\x03cd", p("ab") + "\x03" + p("cd")},
		{"backspace after text", "ab\x7f", p("ab") + "\x7f"},
		{"tab after text is a key", "ab\t", p("ab") + "\t"},
		{"invalid UTF-8", "a\xffb", "a\xffb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scanner
			out, held := s.rewrite(nil, []byte(tt.in), false)
			if string(out) != tt.want || held != nil {
				t.Errorf("rewrite(%q) = %q, held %q; want %q", tt.in, out, held, tt.want)
			}
		})
	}
}

// TestRewriteAcrossReads feeds chunks one after the other, as reads of a terminal whose
// bytes were still waiting (more) after each but the last.
func TestRewriteAcrossReads(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"a word cut by the read", []string{"ent", "er"}, p("enter")},
		{"a one-letter word after a long run", []string{strings.Repeat("x", 40), " q"}, p(strings.Repeat("x", 40)) + p(" q")},
		{"one character continuing a long run", []string{strings.Repeat("x", 40), "q"}, p(strings.Repeat("x", 40)) + p("q")},
		{"a line break cut at the end", []string{strings.Repeat("x", 40) + "\r", "more"}, p(strings.Repeat("x", 40)) + p("\rmore")},
		{"an arrow key cut", []string{"\x1b[", "A"}, "\x1b[A"},
		{"a mouse report cut", []string{"\x1b[<0;1", "2;5M"}, "\x1b[<0;12;5M"},
		{"a character cut", []string{"ab\xf0\x9f", "\x91\x8d"}, p("ab👍")},
		{"the terminal's paste across reads", []string{pasteStart + "enter", " now" + pasteEnd[:3], pasteEnd[3:] + "q"}, p("enter now") + "q"},
		{"a lone esc at the end of the last read", []string{"ab", "\x1b"}, p("ab") + "\x1b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scanner
			var out, held []byte
			for i, c := range tt.chunks {
				chunk := append(held, c...)
				out, held = s.rewrite(out, chunk, i < len(tt.chunks)-1)
			}
			if string(out) != tt.want || len(held) != 0 {
				t.Errorf("got %q, held %q; want %q", out, held, tt.want)
			}
		})
	}
}

// unbracket removes the brackets rewrite added: what is left is what was read.
func unbracket(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(pasteStart), nil)
	return bytes.ReplaceAll(b, []byte(pasteEnd), nil)
}

// FuzzRewrite checks that rewriting loses and adds no byte but the brackets, cut into
// reads anywhere, and that what one read gives fits Bubble Tea's buffer.
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{"press enter now", "\x1b[<0;12;5M", "ab\x1b[Acd\r", p("x y") + "z", "👍🏽 ok\r\nline"} {
		f.Add([]byte(s), uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		if bytes.Contains(in, []byte(pasteStart)) || bytes.Contains(in, []byte(pasteEnd)) {
			return // the terminal's own pastes: passed through, and not told apart here
		}
		var s scanner
		var out, held []byte
		step := int(cut%50) + 1
		for i := 0; i < len(in); i += step {
			chunk := append(held, in[i:min(i+step, len(in))]...)
			before := len(out)
			out, held = s.rewrite(out, chunk, i+step < len(in))
			if n := len(out) - before; n > expansion*len(chunk)+slack {
				t.Fatalf("a read of %d bytes gave %d", len(chunk), n)
			}
		}
		out = append(out, held...)
		if got := unbracket(out); !bytes.Equal(got, in) {
			t.Fatalf("rewrite lost or added bytes: %q -> %q", in, got)
		}
	})
}

// recorder is a Bubble Tea model that records the keys it is sent.
type recorder struct {
	keys []tea.KeyMsg
	done string // the key that ends it
}

func (r *recorder) Init() tea.Cmd { return nil }

func (r *recorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		r.keys = append(r.keys, k)
		if k.String() == r.done {
			return r, tea.Quit
		}
	}
	return r, nil
}

func (r *recorder) View() string { return "" }

// TestReaderInBubbleTea runs a Bubble Tea program on a Reader of a pipe: a burst of words
// written at once arrives as one paste, whatever its words spell; keys written one at a
// time arrive as keys.
func TestReaderInBubbleTea(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	rec := &recorder{done: "ctrl+d"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	prog := tea.NewProgram(rec, tea.WithInput(NewReader(pr)), tea.WithOutput(&bytes.Buffer{}), tea.WithContext(ctx),
		tea.WithoutRenderer(), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() { _, err := prog.Run(); done <- err }()
	write := func(s string) {
		if _, err := pw.WriteString(s); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond) // a person's pace: each write is read on its own
	}
	burst := "press enter now, use tab here, the word down, esc, q and ctrl+c " + strings.Repeat("more words ", 20)
	write(burst)
	write("q")
	write("\r")
	write("\x04")
	if err := <-done; err != nil {
		t.Fatalf("program: %v", err)
	}
	var pasted strings.Builder
	var keys []string
	for _, k := range rec.keys {
		switch {
		case k.Paste:
			pasted.WriteString(string(k.Runes))
		default:
			keys = append(keys, k.String())
		}
	}
	if pasted.String() != burst {
		t.Errorf("pasted %q, want the burst %q", pasted.String(), burst)
	}
	if want := []string{"q", "enter", "ctrl+d"}; strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("keys %q, want %q", keys, want)
	}
}
