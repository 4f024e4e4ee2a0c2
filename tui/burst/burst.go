// Package burst makes text that reaches the workbench in one burst a paste.
//
// Bubble Tea v1 reads the terminal in chunks and splits a chunk of plain text at its
// spaces, one key event a word: a burst of words (a paste without bracketed paste,
// dictation, a text expander, a slow SSH link, `tmux send-keys -l`) arrives as events
// whose names may equal a binding ("press enter now" holds the word "enter", which is
// the name of the enter key). The terminal cannot tell a typed key from a word of a
// burst, but the bytes can: a key a person presses arrives on its own, and a burst is
// several characters read at once.
//
// Reader sits between the terminal and Bubble Tea. It passes escape sequences (keys,
// the mouse, focus reports, the terminal's own bracketed pastes) and lone control
// characters through as they are, and brackets every run of two or more printable
// characters read at once as a paste (CSI 200~ … CSI 201~), which Bubble Tea delivers
// as one key event marked Paste: text, never a binding. A tab, carriage return or line
// feed between printable characters of a run is part of it (a pasted paragraph); one
// at the end of a run is a key (text typed ahead of an enter).
package burst

import (
	"io"
	"os"
	"unicode/utf8"
)

// The markers of a bracketed paste.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// maxHold bounds the bytes held back at the end of a read for the next one: an escape
// sequence or a character cut by the read, or a short run of text that the bytes
// already waiting continue. Longer, they are passed on as they are.
const maxHold = 32

// expansion bounds what Reader writes for one byte it reads: a run of two printable
// bytes and the byte that ends it (3 bytes) become 3+12. Each read takes at most
// (len(p)-slack)/expansion bytes from the terminal, so that what Bubble Tea is given
// always fits its buffer with a byte to spare (a full buffer makes it wait for more):
// slack covers the brackets of a last run and of a first one that continues the last
// read's text, however short.
const (
	expansion = 5
	slack     = 1 + 2*12 + 4
)

// Reader reads a terminal, bracketing bursts of text as pastes. It satisfies the
// interface Bubble Tea's input needs to put the terminal in raw mode and cancel its
// reads (Fd and Name: the file's), so it is given to tea.WithInput in place of the file.
// Read is called from one goroutine at a time (Bubble Tea's input loop).
type Reader struct {
	f *os.File
	s scanner
	// waiting reports how many bytes the terminal holds unread (0 when it cannot tell).
	waiting func() int
	buf     []byte
	held    []byte
}

// NewReader returns a Reader of the terminal f.
func NewReader(f *os.File) *Reader {
	return &Reader{f: f, waiting: func() int { return pendingBytes(f) }}
}

// Read reads what the terminal holds, at most what fits p once rewritten.
func (r *Reader) Read(p []byte) (int, error) {
	want := max((len(p)-slack)/expansion-len(r.held), 1)
	if cap(r.buf) < want {
		r.buf = make([]byte, want)
	}
	n, err := r.f.Read(r.buf[:want])
	chunk := append(r.held, r.buf[:n]...)
	r.held = nil
	more := err == nil && r.waiting() > 0
	out, held := r.s.rewrite(make([]byte, 0, len(p)), chunk, more)
	if len(held) > 0 {
		r.held = append([]byte(nil), held...)
	}
	if len(out) > len(p) { // cannot happen (see expansion): never write past p
		out = out[:len(p)]
	}
	return copy(p, out), err
}

// File is the terminal file read: what a program run on the terminal (an editor) reads,
// rather than this Reader.
func (r *Reader) File() *os.File { return r.f }

// Write writes to the terminal.
func (r *Reader) Write(p []byte) (int, error) { return r.f.Write(p) }

// Close closes the terminal file.
func (r *Reader) Close() error { return r.f.Close() }

// Fd is the terminal's file descriptor.
func (r *Reader) Fd() uintptr { return r.f.Fd() }

// Name is the terminal file's name.
func (r *Reader) Name() string { return r.f.Name() }

var _ io.ReadWriteCloser = (*Reader)(nil)

// scanner is the state one read leaves for the next: a bracketed paste of the terminal's
// own, whose bytes pass through untouched until its end marker, or a burst of text cut by
// the read, which the next read continues.
type scanner struct {
	// inPaste says the terminal's paste is not over; endSeen is how many bytes of its end
	// marker the last read ended with.
	inPaste bool
	endSeen int
	// textBefore says the last read ended in a run of text that the bytes waiting
	// continued.
	textBefore bool
}

// rewrite appends to dst the bytes of chunk with each run of two or more printable
// characters bracketed as a paste. more says further bytes are waiting to be read: an
// escape sequence or a character cut at the end of chunk, or a short run of text there,
// is then returned as held, to be read again before those bytes.
func (s *scanner) rewrite(dst, chunk []byte, more bool) (out, held []byte) {
	textBefore := s.textBefore
	s.textBefore = false
	run, runes := -1, 0 // the run of text being read: its start, its characters
	flush := func(end int) {
		if run < 0 {
			return
		}
		if run == 0 && textBefore {
			runes++ // it continues the text of the last read
		}
		if runes >= 2 {
			dst = append(dst, pasteStart...)
			dst = append(dst, chunk[run:end]...)
			dst = append(dst, pasteEnd...)
		} else {
			dst = append(dst, chunk[run:end]...)
		}
		run, runes = -1, 0
	}
	// hold ends the read at i, where the burst goes on in the bytes waiting: with the
	// run of text it is part of when that is short, else after it.
	hold := func(i int) ([]byte, []byte) {
		if run >= 0 && len(chunk)-run <= maxHold {
			return dst, chunk[run:]
		}
		if run >= 0 {
			flush(i)
			s.textBefore = true
		}
		return dst, chunk[i:]
	}
	i := 0
	for i < len(chunk) {
		if s.inPaste {
			n := s.skipPaste(chunk[i:])
			dst = append(dst, chunk[i:i+n]...)
			i += n
			continue
		}
		c := chunk[i]
		switch {
		case c == 0x1b:
			flush(i)
			n, complete := escapeLen(chunk[i:], more)
			if !complete && more && len(chunk)-i <= maxHold {
				return dst, chunk[i:]
			}
			if string(chunk[i:i+n]) == pasteStart {
				s.inPaste, s.endSeen = true, 0
			}
			dst = append(dst, chunk[i:i+n]...)
			i += n
		case c >= 0x20 && c != 0x7f:
			r, w := utf8.DecodeRune(chunk[i:])
			if r == utf8.RuneError && w <= 1 {
				if !utf8.FullRune(chunk[i:]) && more && len(chunk)-i <= maxHold {
					return hold(i) // a character cut by the read
				}
				flush(i)
				dst = append(dst, c)
				i++
				continue
			}
			if run < 0 {
				run = i
			}
			runes++
			i += w
		case c == '\t' || c == '\r' || c == '\n':
			end := i
			for end < len(chunk) && (chunk[end] == '\t' || chunk[end] == '\r' || chunk[end] == '\n') {
				end++
			}
			inText := run >= 0 || (i == 0 && textBefore)
			switch {
			case inText && end < len(chunk) && chunk[end] >= 0x20 && chunk[end] != 0x7f:
				if run < 0 {
					run = i
				}
				i = end
			case inText && end == len(chunk) && more:
				return hold(i) // text or keys: the bytes waiting tell
			default:
				flush(i)
				dst = append(dst, c)
				i++
			}
		default:
			flush(i)
			dst = append(dst, c)
			i++
		}
	}
	if run >= 0 && more {
		return hold(len(chunk))
	}
	flush(len(chunk))
	return dst, nil
}

// skipPaste returns how many bytes of b belong to the terminal's own bracketed paste,
// its end marker included, and ends the paste when the marker is found (across reads).
func (s *scanner) skipPaste(b []byte) int {
	for i := range b {
		if b[i] == pasteEnd[s.endSeen] {
			s.endSeen++
			if s.endSeen == len(pasteEnd) {
				s.inPaste, s.endSeen = false, 0
				return i + 1
			}
			continue
		}
		s.endSeen = 0
		if b[i] == pasteEnd[0] {
			s.endSeen = 1
		}
	}
	return len(b)
}

// escapeLen returns the length of the escape sequence b starts with (b[0] is ESC), and
// whether it is complete in b. A lone ESC at the end of b is the escape key when no
// more bytes are waiting (more false). Sequences: CSI (ESC [ … final byte, the X10
// mouse's ESC [ M and three bytes), SS3 (ESC O and one byte), strings (OSC, DCS, APC,
// PM, SOS: to BEL or ESC \), and ESC before one character (alt and that key).
func escapeLen(b []byte, more bool) (int, bool) {
	if len(b) < 2 {
		return len(b), !more
	}
	switch b[1] {
	case '[':
		if len(b) > 2 && b[2] == 'M' { // X10 mouse: three raw bytes follow
			if len(b) < 6 {
				return len(b), false
			}
			return 6, true
		}
		for i := 2; i < len(b); i++ {
			c := b[i]
			switch {
			case c >= 0x20 && c <= 0x3f: // parameters and intermediates
			case c >= 0x40 && c <= 0x7e:
				return i + 1, true
			default: // not a CSI after all: what came before is the sequence
				return i, true
			}
		}
		return len(b), false
	case 'O':
		if len(b) < 3 {
			return len(b), false
		}
		return 3, true
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1, true
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2, true
			}
		}
		return len(b), false
	case 0x1b:
		return 1, true // ESC ESC: the first is a sequence of its own
	}
	if b[1] < 0x80 {
		return 2, true // alt and an ASCII key or control character
	}
	_, w := utf8.DecodeRune(b[1:])
	if !utf8.FullRune(b[1:]) {
		return len(b), false
	}
	return 1 + w, true
}
