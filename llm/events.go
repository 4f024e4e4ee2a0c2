package llm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// MaxNonEvent bounds the lines of a server's event stream that are not events (data:
// lines): 1 MiB of them in a row, between two events, and 1 MiB in all of stray lines,
// which are neither events nor fields of the event-stream format. A stream past either
// fails with a KindMalformed *Error naming the server ("malformed stream from URL: the
// server sent more than 1 MiB of lines that are not events").
//
// SSE comments (": keep-alive", OpenRouter's ": OPENROUTER PROCESSING") and the fields
// event:, id: and retry: are dropped, as the format says: go-openai kept every line that
// is not an event in an error buffer for the life of the stream, so a server sending
// 4 MB comment lines grew the process by some 600 MB a second before the first token.
// Stray lines still reach it: a server may answer an error as a bare JSON object in a
// 200 stream, which go-openai reads from that buffer.
const MaxNonEvent = 1 << 20

// ErrNonEventLines is the error (inside an *Error) for a stream past MaxNonEvent.
var ErrNonEventLines = fmt.Errorf("the server sent more than %d MiB of lines that are not events", MaxNonEvent>>20)

// lineKind is what a line of an event stream is.
type lineKind int

const (
	lineStart   lineKind = iota // no byte of the line read yet
	lineEvent                   // data: …
	lineDropped                 // a comment, or a field other than data
	lineBlank                   // white space only: the end of an event
	lineStray                   // anything else
)

// eventFilter hands on a server's event stream line by line, in bounded memory: the
// lines go-openai reads (events, blank lines, stray lines), not the comments and fields it
// has no use for, and fails past MaxNonEvent. Lines are bounded by the reader below it
// (lineLimiter), and are handed on in the pieces bufio reads, never held whole.
type eventFilter struct {
	io.Closer
	src     *bufio.Reader
	pending []byte // what to hand on next: a piece of a line, in src's buffer
	kind    lineKind
	run     int // bytes of lines that are not events since the last event
	stray   int // bytes of stray lines handed on
	err     error
}

func newEventFilter(body io.ReadCloser) *eventFilter {
	return &eventFilter{Closer: body, src: bufio.NewReaderSize(body, 64<<10)}
}

func (f *eventFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		piece, err := f.src.ReadSlice('\n')
		if len(piece) > 0 {
			f.take(piece)
		}
		if err != nil && err != bufio.ErrBufferFull && f.err == nil {
			f.err = err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// take classifies a piece of a line (the first piece of a line decides its kind), counts
// it and keeps it to hand on, or drops it.
func (f *eventFilter) take(piece []byte) {
	if f.kind == lineStart {
		f.kind = classify(piece)
	}
	switch f.kind {
	case lineEvent:
		f.run = 0
	case lineStray:
		f.stray += len(piece)
		f.run += len(piece)
	default:
		f.run += len(piece)
	}
	if f.run > MaxNonEvent || f.stray > MaxNonEvent {
		f.err = ErrNonEventLines
		return
	}
	if f.kind != lineDropped {
		f.pending = piece
	}
	if piece[len(piece)-1] == '\n' {
		f.kind = lineStart
	}
}

// classify tells what a line is from its first piece, as go-openai reads lines: with the
// white space around them trimmed.
func classify(piece []byte) lineKind {
	s := bytes.TrimLeft(piece, " \t\r\n\v\f")
	switch {
	case len(s) == 0 && piece[len(piece)-1] == '\n':
		return lineBlank
	case bytes.HasPrefix(s, []byte("data:")):
		return lineEvent
	case bytes.HasPrefix(s, []byte(":")), bytes.HasPrefix(s, []byte("event:")),
		bytes.HasPrefix(s, []byte("id:")), bytes.HasPrefix(s, []byte("retry:")):
		return lineDropped
	}
	return lineStray
}
