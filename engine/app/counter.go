package app

import (
	"sync"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/llm/tokens"
)

// maxCounted bounds the texts a workspace remembers the token counts of.
const maxCounted = 1 << 16

// memoCounter counts tokens with an encoding, remembering the counts of the texts it saw:
// the engines a workspace builds one after the other (a reload of the context file, each
// re-evaluation) share it, so a chat's history is tokenized once, not on every reload.
// It is safe for concurrent use.
type memoCounter struct {
	c  *tokens.Counter
	mu sync.Mutex
	n  map[string]int
}

// Count returns the number of tokens of s.
func (m *memoCounter) Count(s string) int {
	m.mu.Lock()
	n, ok := m.n[s]
	m.mu.Unlock()
	if ok {
		return n
	}
	n = m.c.Count(s)
	m.mu.Lock()
	if len(m.n) >= maxCounted {
		clear(m.n)
	}
	m.n[s] = n
	m.mu.Unlock()
	return n
}

// counter returns the workspace's shared counter for the settings' tokenizer.
func (w *Workspace) counter(s Settings) engine.TokenCounter {
	c := s.Counter()
	w.countersMu.Lock()
	defer w.countersMu.Unlock()
	if w.counters == nil {
		w.counters = map[tokens.Encoding]*memoCounter{}
	}
	m, ok := w.counters[c.Encoding()]
	if !ok {
		m = &memoCounter{c: c, n: map[string]int{}}
		w.counters[c.Encoding()] = m
	}
	return m
}
