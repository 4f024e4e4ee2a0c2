package engine

import (
	"strings"
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
	// prompts holds the system prompts (without run-start reminders) by the instructions
	// they apply (see prompt); fragTokens the fragments' size (-1 until counted).
	prompts    map[string]*systemPrompt
	fragTokens int
	// remTokens holds the size of each reminder's static text, by its index in the
	// file (-1 until counted).
	remTokens []int
}

// systemPrompt is the system prompt of a set of applied instructions: the fragments, the
// instructions block and the explanation, joined, and the block's size (with the
// explanation's).
type systemPrompt struct {
	system      string
	instrTokens int
}

// prompt returns the system prompt (without run-start reminders) of the applied
// instructions, rendered and sized once per set: the set seldom changes from turn to turn.
func (c *fileCache) prompt(f *ctxfile.File, applied []bool) *systemPrompt {
	key := make([]byte, len(applied))
	for i, a := range applied {
		if a {
			key[i] = 1
		}
	}
	c.mu.Lock()
	sp, ok := c.prompts[string(key)]
	c.mu.Unlock()
	if ok {
		return sp
	}
	instr := instructionsBlock(f, applied)
	sections := make([]string, 0, 3)
	for _, sec := range []string{c.fragments, instr} {
		if sec != "" {
			sections = append(sections, sec)
		}
	}
	if f.ExplainReminders {
		sections = append(sections, explanation)
	}
	sp = &systemPrompt{system: strings.Join(sections, "\n\n"), instrTokens: c.count(instr)}
	if f.ExplainReminders {
		sp.instrTokens += c.count(explanation)
	}
	c.mu.Lock()
	if c.prompts == nil || len(c.prompts) >= 256 {
		c.prompts = make(map[string]*systemPrompt)
	}
	c.prompts[string(key)] = sp
	c.mu.Unlock()
	return sp
}

// fragmentTokens returns the size of the rendered fragments, counted once.
func (c *fileCache) fragmentTokens() int {
	c.mu.Lock()
	n := c.fragTokens
	c.mu.Unlock()
	if n >= 0 {
		return n
	}
	n = c.count(c.fragments)
	c.mu.Lock()
	c.fragTokens = n
	c.mu.Unlock()
	return n
}

// reminderTokens returns the size of the static text of reminder i of the file, counted
// once.
func (c *fileCache) reminderTokens(i int, text string) int {
	c.mu.Lock()
	n := c.remTokens[i]
	c.mu.Unlock()
	if n >= 0 {
		return n
	}
	n = c.count(text)
	c.mu.Lock()
	c.remTokens[i] = n
	c.mu.Unlock()
	return n
}

func newFileCache(f *ctxfile.File, tokens TokenCounter) (*fileCache, error) {
	text, err := fragment.Render(f.System, f.Renderer, fragment.Options{GroupFragments: f.GroupFragments})
	if err != nil {
		return nil, err
	}
	c := &fileCache{fragments: text, tokens: tokens, memo: map[string]int{}, fragTokens: -1,
		remTokens: make([]int, len(f.Reminders))}
	for i := range c.remTokens {
		c.remTokens[i] = -1
	}
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
