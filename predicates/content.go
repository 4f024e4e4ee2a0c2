package predicates

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// lower returns the lower-cased content, computed once per WhenContext.
func (c *WhenContext) lower() string {
	if c.lowerContent == nil {
		s := strings.ToLower(c.Content)
		c.lowerContent = &s
	}
	return *c.lowerContent
}

// terms returns the distinct non-stop-word tokens of the content, computed once per
// WhenContext.
func (c *WhenContext) terms() []string {
	if !c.tokenized {
		c.contentTokens = queryTerms(c.Content)
		c.tokenized = true
	}
	return c.contentTokens
}

// find returns where re first matches the content (nil for nowhere), once per regex
// literal and content: a context file often repeats a pattern across reminders. A regex
// runs only when the content holds a literal it needs (Regex.mayMatch).
func (c *WhenContext) find(re *Regex) []int {
	if !re.mayMatch(c) {
		return nil
	}
	key := re.String()
	if c.patterns == nil || c.patternsFor != c.Content {
		c.patterns, c.patternsFor = make(map[string][]int), c.Content
	} else if loc, ok := c.patterns[key]; ok {
		return loc
	}
	loc := re.re.FindStringIndex(c.Content)
	c.patterns[key] = loc
	return loc
}

type contentIncludes struct {
	words []string // lower-cased
	orig  []string
	expr  string
	// The reasons it gives, made once: matched[i] when words[i] matches, none when
	// nothing does.
	matched []string
	none    string
}

// ContentIncludes fires when the content contains any of words, compared as
// case-insensitive substrings. At least one word is needed, and none may be empty.
func ContentIncludes(words ...string) Predicate {
	expr := "contentIncludes(" + quoteList(words) + ")"
	if len(words) == 0 {
		return newInvalid(expr, "contentIncludes: needs at least one keyword")
	}
	p := &contentIncludes{orig: append([]string(nil), words...), expr: expr}
	for _, w := range words {
		if w == "" {
			return newInvalid(expr, "contentIncludes: empty keyword")
		}
		p.words = append(p.words, strings.ToLower(w))
		p.matched = append(p.matched, "matched "+dquote(w, 40))
	}
	if len(words) == 1 {
		p.none = "no " + dquote(words[0], 40) + " in content"
	} else {
		p.none = "none of " + strconv.Itoa(len(words)) + " keywords in content"
	}
	return p
}

func (p *contentIncludes) String() string { return p.expr }

func (p *contentIncludes) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	text := c.lower()
	for i, w := range p.words {
		if strings.Contains(text, w) {
			return leaf(p.expr, true, p.matched[i])
		}
	}
	return leaf(p.expr, false, p.none)
}

type contentPattern struct {
	re   *Regex
	expr string
	// noMatch is the reason it gives when re does not match, made once.
	noMatch string
}

// ContentPattern fires when re matches the content.
func ContentPattern(re *Regex) Predicate {
	if re == nil {
		return newInvalid("contentPattern()", "contentPattern: nil regex")
	}
	return &contentPattern{re: re, expr: "contentPattern(" + re.String() + ")", noMatch: re.String() + " no match"}
}

func (p *contentPattern) String() string { return p.expr }

func (p *contentPattern) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	loc := c.find(p.re)
	if loc == nil {
		return leaf(p.expr, false, p.noMatch)
	}
	return leaf(p.expr, true, "matched "+dquote(c.Content[loc[0]:loc[1]], 40))
}

type contentMatches struct {
	topics    []string
	threshold float64
	index     func() *BM25 // built on first use: checking a context file needs no index
	expr      string
	// quoted are the topics as its reasons quote them, made on first use; th is the
	// threshold as they show it.
	quoted func() []string
	th     string
}

// ContentMatches fires when the BM25 score of the content against any of topics is above
// threshold (and above 0). The topics form the corpus; they have no names.
func ContentMatches(topics []string, threshold float64) Predicate {
	th := ""
	if threshold != 0 {
		th = ", threshold=" + fmtNum(threshold)
	}
	expr := "contentMatches(" + quoteList(topics) + th + ")"
	if len(topics) == 0 {
		return newInvalid(expr, "contentMatches: needs at least one topic")
	}
	topics = slices.Clone(topics)
	return &contentMatches{
		topics:    topics,
		threshold: threshold,
		index:     sync.OnceValue(func() *BM25 { return NewBM25(topics) }),
		expr:      expr,
		quoted: sync.OnceValue(func() []string {
			q := make([]string, len(topics))
			for i, t := range topics {
				q[i] = dquote(t, 30)
			}
			return q
		}),
		th: fmtNum(threshold),
	}
}

func (p *contentMatches) String() string { return p.expr }

func (p *contentMatches) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	terms := c.terms()
	if len(terms) == 0 {
		return leaf(p.expr, false, "bm25 no query terms in content")
	}
	index := p.index()
	var buf [64]float64
	var scores []float64
	if index.n <= len(buf) {
		scores = buf[:index.n]
	} else {
		scores = make([]float64, index.n)
	}
	index.scoreTerms(scores, terms)
	best := -1
	for i, s := range scores {
		if best < 0 || s > scores[best] {
			best = i
		}
	}
	s := scores[best]
	if s <= 0 {
		return leaf(p.expr, false, "bm25 no topic scored")
	}
	var num [32]byte
	score := strconv.AppendFloat(num[:0], s, 'f', 2, 64) // as fmtScore writes it
	if s > p.threshold {
		return leaf(p.expr, true, "bm25 "+p.quoted()[best]+"="+string(score)+" > "+p.th)
	}
	return leaf(p.expr, false, "bm25 "+p.quoted()[best]+"="+string(score)+" <= "+p.th)
}

type classifies struct {
	name      string
	cl        *Classifier
	topN      int
	threshold float64
	expr      string
}

// Classifies fires when the classifier cl (known as name in the context file) ranks at least
// one item for the content: score above 0 and threshold, within the topN best. topN must be
// at least 1.
func Classifies(name string, cl *Classifier, topN int, threshold float64) Predicate {
	expr := "classifies(" + quote(name)
	if topN != 5 {
		expr += ", topN=" + strconv.Itoa(topN)
	}
	if threshold != 0 {
		expr += ", threshold=" + fmtNum(threshold)
	}
	expr += ")"
	switch {
	case cl == nil:
		return newInvalid(expr, "classifies: nil classifier "+strconv.Quote(name))
	case topN < 1:
		return newInvalid(expr, "classifies: topN must be at least 1, got "+strconv.Itoa(topN))
	}
	return &classifies{name: name, cl: cl, topN: topN, threshold: threshold, expr: expr}
}

func (p *classifies) String() string { return p.expr }

func (p *classifies) Eval(c *WhenContext) Result {
	if c == nil {
		c = new(WhenContext)
	}
	terms := c.terms()
	if len(terms) == 0 {
		return leaf(p.expr, false, "bm25 no query terms in content")
	}
	ms, best := p.cl.rank(terms, p.topN, p.threshold)
	th := fmtNum(p.threshold)
	if len(ms) == 0 {
		if best.Index < 0 {
			return leaf(p.expr, false, "bm25 no item scored")
		}
		return leaf(p.expr, false, "bm25 best "+best.Name+"="+fmtScore(best.Score)+" <= "+th)
	}
	var b strings.Builder
	b.WriteString("bm25 ")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Name)
		b.WriteByte('=')
		b.WriteString(fmtScore(m.Score))
	}
	b.WriteString(" > ")
	b.WriteString(th)
	return leaf(p.expr, true, b.String())
}
