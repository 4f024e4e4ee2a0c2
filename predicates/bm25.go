package predicates

import (
	"math"
	"slices"
	"sync"
)

// BM25 parameters, as in tiny-tfidf (used by @deepagents/context).
const (
	bm25K1 = 2.0
	bm25B  = 0.75
)

// BM25 is an index of documents scored with BM25: k1 = 2.0, b = 0.75, idf = ln(N+1) − ln(n),
// document length counted in tokens (stop words included), the weight of a term in a document
// tf·idf·(k1+1) / (k1·(1−b+b·dl/avgdl) + tf). It is built once and safe for concurrent use.
type BM25 struct {
	n        int
	postings map[string][]posting
}

type posting struct {
	doc    int
	weight float64
}

// NewBM25 indexes docs, each tokenized with Tokenize.
func NewBM25(docs []string) *BM25 {
	toks := make([][]string, len(docs))
	for i, d := range docs {
		toks[i] = Tokenize(d)
	}
	return NewBM25Tokens(toks)
}

// NewBM25Tokens indexes documents given as tokens (as Tokenize returns them). Stop words
// count toward a document's length but are not indexed.
func NewBM25Tokens(docs [][]string) *BM25 {
	x := &BM25{n: len(docs), postings: map[string][]posting{}}
	if len(docs) == 0 {
		return x
	}
	total := 0
	df := map[string]int{}
	tfs := make([]map[string]int, len(docs))
	order := make([][]string, len(docs)) // terms in order of first appearance
	for i, d := range docs {
		total += len(d)
		tf := map[string]int{}
		for _, t := range d {
			if IsStopWord(t) {
				continue
			}
			if tf[t] == 0 {
				order[i] = append(order[i], t)
			}
			tf[t]++
		}
		for t := range tf {
			df[t]++
		}
		tfs[i] = tf
	}
	avgdl := float64(total) / float64(len(docs))
	lnN1 := math.Log(float64(len(docs) + 1))
	for i, tf := range tfs {
		ndl := float64(len(docs[i])) / avgdl
		norm := bm25K1 * ((1 - bm25B) + bm25B*ndl)
		for _, t := range order[i] {
			f := float64(tf[t])
			idf := lnN1 - math.Log(float64(df[t]))
			w := idf * f * (bm25K1 + 1) / (norm + f)
			x.postings[t] = append(x.postings[t], posting{doc: i, weight: w})
		}
	}
	return x
}

// Len returns the number of documents.
func (x *BM25) Len() int { return x.n }

// Score returns the score of every document for the query tokens (as Tokenize returns
// them): the sum of the weights of the query's distinct terms. Stop words and repeats in the
// query are ignored.
func (x *BM25) Score(query []string) []float64 {
	return x.scoreTerms(make([]float64, x.n), uniqueTerms(query))
}

// scoreTerms adds into dst (len x.n, zeroed) the weights of terms, which must be distinct.
func (x *BM25) scoreTerms(dst []float64, terms []string) []float64 {
	for _, t := range terms {
		for _, p := range x.postings[t] {
			dst[p.doc] += p.weight
		}
	}
	return dst
}

// ClassifierItem is one entry of a classifier: its name is indexed with its description.
type ClassifierItem struct {
	Name        string
	Description string
}

// Match is an item a classifier ranked: its name, its index in the items, and its score.
type Match struct {
	Name  string
	Index int
	Score float64
}

// Classifier ranks named items against a query with BM25 over "name description", like
// @deepagents/context's BM25Classifier. It is built once and safe for concurrent use.
type Classifier struct {
	items []ClassifierItem
	index func() *BM25 // built on first use: checking a context file needs no index
}

// NewClassifier returns a classifier of items, each indexed as "name description" when
// the classifier first ranks.
func NewClassifier(items []ClassifierItem) *Classifier {
	items = slices.Clone(items)
	return &Classifier{items: items, index: sync.OnceValue(func() *BM25 {
		docs := make([]string, len(items))
		for i, it := range items {
			docs[i] = it.Name + " " + it.Description
		}
		return NewBM25(docs)
	})}
}

// Items returns the classifier's items.
func (c *Classifier) Items() []ClassifierItem { return slices.Clone(c.items) }

// Len returns the number of items.
func (c *Classifier) Len() int { return len(c.items) }

// Rank tokenizes query and returns the items scoring above both 0 and threshold, highest
// first (ties in item order), at most topN of them (topN <= 0: all).
func (c *Classifier) Rank(query string, topN int, threshold float64) []Match {
	return c.rankTerms(queryTerms(query), topN, threshold)
}

// RankTokens is Rank for a query already tokenized with Tokenize.
func (c *Classifier) RankTokens(tokens []string, topN int, threshold float64) []Match {
	return c.rankTerms(uniqueTerms(tokens), topN, threshold)
}

// rankTerms ranks for distinct, non-stop-word terms.
func (c *Classifier) rankTerms(terms []string, topN int, threshold float64) []Match {
	ms, _ := c.rank(terms, topN, threshold)
	return ms
}

// rank returns the matches and the best-scoring item overall (Index -1 when nothing
// scored above 0).
func (c *Classifier) rank(terms []string, topN int, threshold float64) (ms []Match, best Match) {
	best.Index = -1
	if len(terms) == 0 || len(c.items) == 0 {
		return nil, best
	}
	index := c.index()
	var buf [64]float64
	var scores []float64
	if index.n <= len(buf) {
		scores = buf[:index.n]
	} else {
		scores = make([]float64, index.n)
	}
	index.scoreTerms(scores, terms)
	selecting := topN > 0 && topN <= 16 // keep the best topN by insertion; else sort
	for i, s := range scores {
		if s > 0 && (best.Index < 0 || s > best.Score) {
			best = Match{Name: c.items[i].Name, Index: i, Score: s}
		}
		if !(s > 0 && s > threshold) {
			continue
		}
		m := Match{Name: c.items[i].Name, Index: i, Score: s}
		if !selecting {
			ms = append(ms, m)
			continue
		}
		if len(ms) == topN && s <= ms[topN-1].Score {
			continue
		}
		j := len(ms)
		for j > 0 && ms[j-1].Score < s {
			j--
		}
		if len(ms) < topN {
			ms = append(ms, Match{})
		}
		copy(ms[j+1:], ms[j:len(ms)-1])
		ms[j] = m
	}
	if !selecting {
		slices.SortStableFunc(ms, func(a, b Match) int {
			switch {
			case a.Score > b.Score:
				return -1
			case a.Score < b.Score:
				return 1
			}
			return 0
		})
		if topN > 0 && len(ms) > topN {
			ms = ms[:topN]
		}
	}
	return ms, best
}
