package engine

import (
	"sync"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/fragment"
)

// fileCache holds what never changes while a context file is loaded: the rendered
// fragments, the tool declarations, and token counts of texts already seen.
type fileCache struct {
	fragments string
	tools     []chat.WireTool
	tokens    TokenCounter
	// each holds the fragments rendered one by one, sized on first use.
	each      []fragmentText
	eachOnce  sync.Once
	eachSizes []FragmentTokens

	mu   sync.Mutex
	memo map[string]int
}

func newFileCache(f *ctxfile.File, tokens TokenCounter) (*fileCache, error) {
	text, err := fragment.Render(f.System, f.Renderer, fragment.Options{GroupFragments: f.GroupFragments})
	if err != nil {
		return nil, err
	}
	c := &fileCache{fragments: text, tokens: tokens, memo: map[string]int{}}
	for _, fr := range f.System {
		one, err := fragment.Render([]fragment.Fragment{fr}, f.Renderer, fragment.Options{GroupFragments: f.GroupFragments})
		if err != nil {
			return nil, err
		}
		c.each = append(c.each, fragmentText{name: fr.Name, text: one})
	}
	for _, t := range f.Tools {
		c.tools = append(c.tools, chat.WireTool{Type: "function", Function: chat.FunctionDecl{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		}})
	}
	return c, nil
}

// fragmentText is one fragment of the system prompt, rendered alone.
type fragmentText struct{ name, text string }

// eachFragment returns the estimated size of each fragment (counted once per file).
func (c *fileCache) eachFragment() []FragmentTokens {
	c.eachOnce.Do(func() {
		for _, f := range c.each {
			c.eachSizes = append(c.eachSizes, FragmentTokens{Name: f.name, Tokens: c.tokens.Count(f.text)})
		}
	})
	return c.eachSizes
}

// count returns the token count of s, remembering it: reminder texts, instruction blocks
// and system prompts repeat from turn to turn.
func (c *fileCache) count(s string) int {
	if s == "" {
		return 0
	}
	c.mu.Lock()
	n, ok := c.memo[s]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = c.tokens.Count(s)
	c.mu.Lock()
	if len(c.memo) > 4096 {
		clear(c.memo)
	}
	c.memo[s] = n
	c.mu.Unlock()
	return n
}
