package tokens

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// Tuning of the long-text path of Count.
const (
	// chunkTarget is the size from which a chunk ends at the next safe boundary.
	chunkTarget = 4 << 10
	// longText is the size from which Count splits its input into chunks.
	longText = 2 * chunkTarget
	// parallelMin is the number of uncached bytes from which chunks are counted in parallel.
	parallelMin = 64 << 10
	// maxSpaceRun is the length from which a run of white space is cut (see splitChunks).
	maxSpaceRun = 256
	// maxUnbroken is the length from which a chunk with no safe boundary is cut (see
	// splitChunks).
	maxUnbroken = 64 << 10
	// cacheLimit bounds the bytes of chunk text the cache holds; it is emptied when full.
	cacheLimit = 16 << 20
)

// Counter counts the tokens of texts with one encoding; the zero value counts with
// cl100k_base. A Counter is safe for concurrent use; its vocabulary is loaded on the first
// count.
//
// Long texts are split at boundaries where the encoder's pre-tokenizer always splits (see
// splitChunks), so the count stays exact, but for runs of 64 KiB without such a boundary
// (base64, minified code), which are cut anyway, at a cost of about a token per cut. From 8 KiB the chunks' counts are cached, so a
// long history or a pasted document that comes back every turn is counted once, and from
// 64 KiB of uncached text the chunks are counted in parallel. Shorter texts are
// remembered whole, in a memo shared by the Counters of an encoding (up to 8 MiB of text),
// so that a text counted by one engine is not counted again by the next.
type Counter struct {
	enc Encoding

	once  sync.Once
	codec tokenizer.Codec

	mu         sync.Mutex
	cache      map[string]int
	cacheBytes int
}

// New returns a Counter for enc; an unknown encoding counts with cl100k_base.
func New(enc Encoding) *Counter {
	if enc != O200k {
		enc = Cl100k
	}
	return &Counter{enc: enc}
}

// ForModel returns a Counter for a model: with the encoding named by override (o200k,
// cl100k, o200k_base, cl100k_base) when it is not empty, else by EncodingFor(model).
func ForModel(model, override string) (*Counter, error) {
	if override != "" {
		enc, err := ParseEncoding(override)
		if err != nil {
			return nil, err
		}
		return New(enc), nil
	}
	return New(EncodingFor(model)), nil
}

// Encoding returns the encoding the counter uses.
func (c *Counter) Encoding() Encoding {
	if c.enc != O200k {
		return Cl100k
	}
	return O200k
}

// Preload starts loading the vocabulary of enc in the background and returns at once.
// Loading it takes tens of milliseconds, which the first count of a process otherwise
// waits for: a command that will count calls Preload as soon as it knows the encoding, so
// that the load overlaps its other start-up work (opening the database, a dry run). A
// count that comes before the load ends waits for it, as it would have loaded it itself.
func Preload(enc Encoding) {
	go New(enc).load()
}

func (c *Counter) load() tokenizer.Codec {
	c.once.Do(func() {
		codec, err := tokenizer.Get(tokenizer.Encoding(c.Encoding()))
		if err != nil { // cannot happen for the two encodings New allows
			codec, _ = tokenizer.Get(tokenizer.Cl100kBase)
		}
		c.codec = codec
	})
	return c.codec
}

// Count returns the number of tokens of s, as the encoder would produce them (special
// tokens such as <|endoftext|> are counted as plain text), give or take a token per 64 KiB
// of runs with no place where the encoder always splits (see splitChunks).
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	if len(s) < longText {
		return c.countShort(s)
	}
	chunks := splitChunks(s, chunkTarget, maxSpaceRun)
	if len(chunks) == 1 {
		return c.countDirect(s)
	}
	return c.countLong(chunks)
}

// memo remembers the counts of texts shorter than longText, for all the Counters of one
// encoding in the process: a chat's texts are counted again by each engine that plays it
// (a script's dry run, then its run) and by each turn that sends them again.
type memo struct {
	mu    sync.Mutex
	m     map[string]int
	bytes int
}

// memoLimit bounds the bytes of text a memo holds; it is emptied when full.
const memoLimit = 8 << 20

var memos [2]memo // by encoding: cl100k_base, o200k_base

// countShort counts a text shorter than longText, through the memo of its encoding.
func (c *Counter) countShort(s string) int {
	m := &memos[0]
	if c.Encoding() == O200k {
		m = &memos[1]
	}
	m.mu.Lock()
	n, ok := m.m[s]
	m.mu.Unlock()
	if ok {
		return n
	}
	if blocks := tagBlocks(s); len(blocks) > 1 {
		for _, b := range blocks {
			n += c.countShort(b)
		}
	} else if len(s) <= maxSpaceRun {
		n = c.countDirect(s)
	} else {
		for _, ch := range splitChunks(s, chunkTarget, maxSpaceRun) {
			n += c.countDirect(ch)
		}
	}
	m.mu.Lock()
	if m.m == nil || m.bytes+len(s) > memoLimit {
		m.m, m.bytes = make(map[string]int), 0
	}
	m.m[strings.Clone(s)] = n // a key must not keep a larger text alive
	m.bytes += len(s)
	m.mu.Unlock()
	return n
}

// tagBlocks cuts s before each line that starts with a tag ("\n<"): a user message with
// its reminders baked in is its text, then one block a reminder, which come back turn
// after turn and are counted once through the memo (countShort). A newline followed by
// '<' is a safe boundary (splitChunks), so the count of s is the sum of its blocks'. It
// returns s alone when it has no such line, or too many to be worth it.
func tagBlocks(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "\n<")
		if i < 0 || len(out) == maxTagBlocks {
			return append(out, s)
		}
		cut := i + 1 // past the newline
		out = append(out, s[:cut])
		s = s[cut:]
	}
}

// maxTagBlocks bounds the blocks tagBlocks cuts a text into.
const maxTagBlocks = 64

// countDirect counts s: with fastCount when it splits s, else in one call of the
// encoder.
func (c *Counter) countDirect(s string) int {
	if n, ok := c.fastCount(s); ok {
		return n
	}
	return c.countDirectSlow(s)
}

// countDirectSlow counts s in one call of the encoder.
func (c *Counter) countDirectSlow(s string) int {
	n, err := c.load().Count(s)
	if err != nil { // the encoder only fails on a regexp timeout, which is not set
		return (len(s) + 3) / 4
	}
	return n
}

// countLong counts the chunks of a long text, with the cache, in parallel when much is
// uncached.
func (c *Counter) countLong(chunks []string) int {
	counts := make([]int, len(chunks))
	var missing []int
	missingBytes := 0
	c.mu.Lock()
	for i, ch := range chunks {
		if n, ok := c.cache[ch]; ok {
			counts[i] = n
		} else {
			missing = append(missing, i)
			missingBytes += len(ch)
		}
	}
	c.mu.Unlock()

	if len(missing) > 0 {
		workers := min(runtime.GOMAXPROCS(0), len(missing))
		if missingBytes < parallelMin {
			workers = 1
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					k := int(next.Add(1)) - 1
					if k >= len(missing) {
						return
					}
					i := missing[k]
					counts[i] = c.countDirect(chunks[i])
				}
			})
		}
		wg.Wait()

		c.mu.Lock()
		if c.cacheBytes+missingBytes > cacheLimit || c.cache == nil {
			c.cache = make(map[string]int)
			c.cacheBytes = 0
		}
		if missingBytes <= cacheLimit {
			for _, i := range missing {
				// Clone: a key must not keep the whole (possibly huge) text alive.
				c.cache[strings.Clone(chunks[i])] = counts[i]
			}
			c.cacheBytes += missingBytes
		}
		c.mu.Unlock()
	}

	total := 0
	for _, n := range counts {
		total += n
	}
	return total
}

// splitChunks cuts s into pieces of at least target bytes (but the last) that end at a safe
// boundary: a place where the pre-tokenizer regexp of both o200k_base and cl100k_base always
// ends a piece, so that counting the chunks separately gives exactly the count of s. The
// boundaries are content-defined (each one depends only on the text since the previous
// one), so a text that grows at its end keeps its earlier chunks, and their cached counts.
//
// A position i is safe when
//   - s[i-1] is '\n' and s[i] is a printable ASCII character other than space and '/':
//     no alternative of the regexps matches a newline followed by such a character ('/'
//     may follow newlines in o200k's punctuation alternative); or
//   - s[i-1] is an ASCII letter, s[i] is a space and s[i+1] an ASCII letter: a run of
//     letters (with an optional contraction) never takes a space, and the space starts
//     the next word's piece.
//
// In both cases the piece before i is decided by the text before i: the only look-ahead,
// \s+(?!\S), comes after \s*[\r\n]+ in the alternation, which wins on a run ending in '\n'.
//
// The encoder's regexp engine takes quadratic time on long runs of white space that mix
// newlines and spaces (40 KB of " \n" take 0.7 s). Such a run is also cut, whatever target,
// once it is maxRun bytes long, after a '\n' followed by a space or a tab. With this
// engine, which ends a \s*[\r\n]+ piece at the first run of newlines, the count stays
// exact too; with a fully greedy engine each such cut could move the count by a token.
// FuzzChunksExact checks the equality on arbitrary input, for both kinds of cut.
//
// A chunk that reaches maxUnbroken bytes with no safe boundary (base64, minified code, a
// reply of one endless word) is cut there too, before a character: the encoder's merges
// take some 40 bytes of memory per byte of a piece, and more than linear time, so that a
// 4 MiB word alone took 4 s and 900 MB. The pieces of such a run are counted apart, which
// can move the count by a token or so per cut: an error of about one in 15,000 tokens,
// only in text that has such runs.
func splitChunks(s string, target, maxRun int) []string {
	var out []string
	for len(s) > 0 {
		cut := nextBoundary(s, target, maxRun)
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

// nextBoundary returns the first safe boundary at or after from, or the first forced cut
// of a white-space run maxRun bytes long, or the first character from maxUnbroken bytes,
// or len(s).
func nextBoundary(s string, from, maxRun int) int {
	run := 0 // length of the ASCII white-space run that ends at i-1
	for i := 1; i < len(s); i++ {
		if i >= maxUnbroken && utf8.RuneStart(s[i]) {
			return i
		}
		prev, b := s[i-1], s[i]
		if prev == ' ' || prev == '\t' || prev == '\n' || prev == '\r' || prev == '\v' || prev == '\f' {
			run++
		} else {
			run = 0
		}
		switch {
		case prev == '\n':
			if i >= from && b > ' ' && b < 0x7f && b != '/' {
				return i
			}
			if run >= maxRun && (b == ' ' || b == '\t') {
				return i
			}
		case b == ' ':
			if i >= from && isLetter(prev) && i+1 < len(s) && isLetter(s[i+1]) {
				return i
			}
		}
	}
	return len(s)
}

func isLetter(b byte) bool {
	return ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
}
