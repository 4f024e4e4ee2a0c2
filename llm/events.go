package llm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
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
//
// An answer that is not an event stream at all fails with a *notEventStream: an HTML page
// (a login portal, a proxy's page) at its first line, anything else with no event in it
// (a server that answered without streaming) at its end, unless go-openai reads an error
// object in it.
type eventFilter struct {
	io.Closer
	src     *bufio.Reader
	ctype   string // the answer's Content-Type
	pending []byte // what to hand on next: a piece of a line, in src's buffer
	kind    lineKind
	run     int    // bytes of lines that are not events since the last event
	stray   int    // bytes of stray lines handed on
	events  bool   // an event was read
	sample  []byte // the start of the stray lines before the first event
	err     error
}

func newEventFilter(body io.ReadCloser, contentType string) *eventFilter {
	return &eventFilter{Closer: body, src: bufio.NewReaderSize(body, 64<<10), ctype: contentType}
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
		switch {
		case err == nil, err == bufio.ErrBufferFull, f.err != nil:
		case err == io.EOF && !f.events && f.stray > 0:
			f.err = &notEventStream{contentType: f.ctype, excerpt: excerpt(f.sample)}
		default:
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
		if f.kind == lineStray && !f.events && f.stray == 0 && isHTML(piece, f.ctype) {
			f.err = f.htmlPage(piece)
			return
		}
	}
	switch f.kind {
	case lineEvent:
		f.run, f.events = 0, true
	case lineStray:
		f.stray += len(piece)
		f.run += len(piece)
		if !f.events && len(f.sample) < maxExcerpt*4 {
			f.sample = append(f.sample, piece[:min(len(piece), maxExcerpt*4-len(f.sample))]...)
		}
	default:
		f.run += len(piece)
	}
	if f.run > MaxNonEvent || f.stray > MaxNonEvent {
		f.err = ErrNonEventLines
		if !f.events && f.stray > MaxNonEvent {
			f.err = &notEventStream{contentType: f.ctype, excerpt: excerpt(f.sample)}
		}
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

// isHTML reports whether the first line of an answer, which is not a line of an event
// stream, is the start of an HTML page: a tag (after white space or a byte order mark), or
// any line under a Content-Type of HTML.
func isHTML(line []byte, contentType string) bool {
	ct := strings.ToLower(contentType)
	if strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml") {
		return true
	}
	s := bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte("\uFEFF")), " \t\r\n")
	return bytes.HasPrefix(s, []byte("<"))
}

// htmlPage reads the start of an HTML page (up to 16 KiB, in which its title is) and
// returns the error that names it.
func (f *eventFilter) htmlPage(first []byte) error {
	page := append([]byte(nil), first...) // first is in src's buffer, which reading reuses
	for len(page) < 16<<10 {
		more, err := f.src.ReadSlice('\n')
		page = append(page, more...)
		if err != nil && err != bufio.ErrBufferFull {
			break
		}
	}
	text := htmlTitle(string(page))
	if text == "" {
		text = excerpt(page)
	}
	return &notEventStream{contentType: f.ctype, html: true, excerpt: clip(text, maxExcerpt)}
}

// notEventStream is a 2xx answer to a streamed request that is not an event stream: an
// HTML page, or an answer with no event at all. It names what the server answered.
type notEventStream struct {
	contentType string
	html        bool
	excerpt     string // the page's title, or the start of the answer, on one line
}

func (e *notEventStream) Error() string {
	ct := "no Content-Type"
	if e.contentType != "" {
		ct = "Content-Type " + clip(e.contentType, maxExcerpt)
	}
	if e.html {
		return fmt.Sprintf("the server answered an HTML page (%s), not an event stream: %s", ct, strconv.Quote(e.excerpt))
	}
	return fmt.Sprintf("the server's answer (%s) is not an event stream: %s", ct, strconv.Quote(e.excerpt))
}

// maxExcerpt bounds the excerpt of an answer an error quotes.
const maxExcerpt = 100

// excerpt is the start of b on one line (runs of white space made one space), at most
// maxExcerpt bytes.
func excerpt(b []byte) string {
	if len(b) > 4*maxExcerpt {
		b = b[:4*maxExcerpt]
	}
	return clip(strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " "), maxExcerpt)
}

// clip cuts s to at most n bytes, at a character, marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
