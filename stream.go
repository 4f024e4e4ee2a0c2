package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/engine/script"
)

// turnStream prints the turns of a script as they run, for a terminal: the turn's header,
// user message and decisions when it is planned (before anything is sent), the reply as
// it arrives, then the rest of the block when the turn is saved. Everything goes through
// humanOutput.
type turnStream struct {
	w    io.Writer
	view turnView
	// pending is an incomplete UTF-8 sequence at the end of the last piece of text,
	// held until the next piece completes it.
	pending []byte
	// open is a reply being printed: its line is not ended.
	open bool
	// word is the word being received; col the column the reply's line has reached
	// (after the label).
	word   strings.Builder
	col    int
	spaces []rune
	fresh  bool // a new line of the reply, not indented yet
	// streamed is the step whose head and reply were printed as they came.
	streamed *script.Step
}

func newTurnStream(w io.Writer, v turnView) *turnStream {
	return &turnStream{w: humanOutput(w), view: v}
}

// stepUser is the user's text a step's block shows.
func stepUser(st *script.Step) string {
	if st.Kind == script.StepRegenerate {
		return "(regenerated reply)"
	}
	return st.User
}

// stepSource labels where a step's reply comes from: "scripted", or the model's name.
func stepSource(st *script.Step, model string) string {
	if st.Reply == nil {
		return model
	}
	return "scripted"
}

// event prints what one event of a running turn shows.
func (s *turnStream) event(st *script.Step, chatID string, ev engine.Event) {
	switch ev := ev.(type) {
	case engine.EventPlanned:
		t := engine.PlanTrace(chatID, ev.Plan)
		writeTurnHead(s.w, &t, stepUser(st), s.view)
		tag := "[" + stepSource(st, ev.Plan.Request.Model) + "] "
		fmt.Fprintf(s.w, "  %-16s %s", "assistant:", tag)
		s.col, s.fresh = ansi.StringWidth(inert.Visible(tag)), false
		s.open, s.streamed = true, st
	case engine.EventText:
		s.text(ev.Text)
	case engine.EventFailed:
		s.end()
	}
}

// text prints a piece of the reply, its lines indented under the label and, on a
// terminal of known width, wrapped to it between words (a word is held until it ends).
func (s *turnStream) text(piece string) {
	if !s.open {
		return
	}
	b := append(s.pending, piece...)
	cut := len(b)
	// Hold back an incomplete character at the end: inert would make it U+FFFD.
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	s.pending = append([]byte(nil), b[cut:]...)
	limit := s.limit()
	var out strings.Builder
	for _, r := range inert.Text(string(b[:cut])) {
		switch r {
		case '\n':
			s.flushWord(&out, limit)
			s.newline(&out)
		case ' ', '\t':
			s.flushWord(&out, limit)
			if limit == 0 {
				s.put(&out, string(r))
				continue
			}
			s.spaces = append(s.spaces, r) // printed before the next word on this line
		default:
			s.word.WriteRune(r)
		}
	}
	if limit == 0 {
		s.flushHeld(&out)
	}
	_, _ = io.WriteString(s.w, out.String())
}

// flushHeld prints the word being received up to where what follows cannot change how it
// is shown (inert.Hold: a joiner or a selector is shown or kept by what is before it), and
// keeps the rest for the next piece.
func (s *turnStream) flushHeld(out *strings.Builder) {
	word := s.word.String()
	h := inert.Hold(word)
	if h == 0 {
		return
	}
	s.word.Reset()
	s.word.WriteString(word[h:])
	shown := inert.Visible(word[:h])
	s.put(out, shown)
	s.col += ansi.StringWidth(shown)
}

// limit is the width the reply's lines are wrapped to, 0 for none.
func (s *turnStream) limit() int {
	if s.view.Width <= labelWidth+10 {
		return 0
	}
	return s.view.Width - labelWidth
}

// newline ends a line of the reply and indents the next under the label.
func (s *turnStream) newline(out *strings.Builder) {
	s.spaces = s.spaces[:0]
	out.WriteString("\n")
	s.col, s.fresh = 0, true
}

// put prints text on the reply's line, indenting the line first if it is new.
func (s *turnStream) put(out *strings.Builder, text string) {
	if s.fresh && text != "" {
		out.WriteString(strings.Repeat(" ", labelWidth))
		s.fresh = false
	}
	out.WriteString(text)
}

// flushWord prints the word held, on a new line when it does not fit on this one (cut
// in pieces when it fits on none).
func (s *turnStream) flushWord(out *strings.Builder, limit int) {
	word := inert.Visible(s.word.String())
	s.word.Reset()
	if word == "" {
		return
	}
	w := ansi.StringWidth(word)
	if limit > 0 && s.col > 0 && s.col+len(s.spaces)+w > limit {
		s.newline(out)
	}
	s.put(out, string(s.spaces))
	s.col += len(s.spaces)
	s.spaces = s.spaces[:0]
	if limit > 0 && w > limit {
		lines := strings.Split(ansi.Hardwrap(word, limit, false), "\n")
		for i, l := range lines {
			if i > 0 {
				s.newline(out)
			}
			s.put(out, l)
		}
		s.col = ansi.StringWidth(lines[len(lines)-1])
		return
	}
	s.put(out, word)
	s.col += w
}

// end ends the reply's line, if one is open.
func (s *turnStream) end() {
	if !s.open {
		return
	}
	var out strings.Builder
	s.word.Write(s.pending) // an incomplete character the reply ended with
	s.pending = nil
	s.flushWord(&out, s.limit())
	s.spaces = s.spaces[:0]
	if !s.fresh {
		out.WriteString("\n")
	}
	_, _ = io.WriteString(s.w, out.String())
	s.open, s.fresh = false, false
}

// turn prints the rest of a saved turn's block; one whose events were not seen (st is not
// the step streamed) is printed whole.
func (s *turnStream) turn(st *script.Step, t *engine.Trace, plannedOn string) {
	s.end()
	if plannedOn != "" {
		fmt.Fprintf(s.w, "── another writer wrote to %s meanwhile: saved on %s\n", plannedOn, t.Branch)
	}
	source := stepSource(st, t.Request.Model)
	if s.streamed != st {
		writeTurnView(s.w, t, stepUser(st), source, s.view)
		return
	}
	s.streamed = nil
	writeTurnTail(s.w, t, source, s.view, true)
}
