package predicates

import (
	"sync"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Predicate is a compiled predicate expression.
type Predicate interface {
	// Eval evaluates the predicate for one turn. It never panics and never fails: a
	// predicate that cannot be evaluated returns Value false and a non-empty Error.
	Eval(c *WhenContext) Result
	// String returns the canonical expression text, e.g. `everyNTurns(3)`.
	String() string
}

// Result is the outcome of evaluating a predicate, as a tree that mirrors the expression.
type Result struct {
	Expr     string   `json:"expr"`
	Value    bool     `json:"value"`
	Why      string   `json:"why"`
	Error    string   `json:"error,omitempty"`
	Children []Result `json:"children"`

	// latch is the once('id') latch this node would set (set only on a once('id') node
	// that evaluated true).
	latch string
}

// MarshalJSON always writes children as an array, never null, and leaves <, > and &
// unescaped: traces show expressions and reasons as written.
func (r Result) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(nil), nil
}

// AppendJSON appends the result tree as JSON to dst (what MarshalJSON writes). Decisions
// are encoded on every turn, so this avoids encoding/json's reflection and re-validation.
func (r *Result) AppendJSON(dst []byte) []byte { return r.AppendJSONStrings(dst, nil) }

// AppendJSONStrings is AppendJSON that also calls str, unless nil, with the bounds in dst
// of each JSON string it writes, keys and values, quotes included, in order: the strings
// chat.ScanJSONValue would report of what it appends.
func (r *Result) AppendJSONStrings(dst []byte, str func(start, end int)) []byte {
	key := func(k string) {
		dst = chat.AppendJSONField(dst, k)
		if str != nil {
			str(len(dst)-len(k)-3, len(dst)-1) // "k":
		}
	}
	val := func(v string, appendString func([]byte, string) []byte) {
		start := len(dst)
		dst = appendString(dst, v)
		if str != nil {
			str(start, len(dst))
		}
	}
	dst = append(dst, '{')
	key("expr")
	val(r.Expr, appendExprJSON)
	key("value")
	dst = chat.AppendJSONBool(dst, r.Value)
	key("why")
	val(r.Why, chat.AppendJSONString)
	if r.Error != "" {
		key("error")
		val(r.Error, chat.AppendJSONString)
	}
	key("children")
	dst = append(dst, '[')
	for i := range r.Children {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = r.Children[i].AppendJSONStrings(dst, str)
	}
	return append(dst, ']', '}')
}

// exprJSON keeps the JSON strings of long expressions: a predicate's expression is the
// same on every turn (a contentMatches over 50 topics is kilobytes, repeated in each
// combinator above it), and every turn's decisions are encoded.
var exprJSON struct {
	sync.Mutex
	m     map[string][]byte
	bytes int
}

// Bounds of exprJSON: the shortest expression kept, and the bytes kept (emptied when
// full).
const (
	exprJSONMin   = 64
	exprJSONLimit = 4 << 20
)

// appendExprJSON appends expr as a JSON string, as chat.AppendJSONString does.
func appendExprJSON(dst []byte, expr string) []byte {
	if len(expr) < exprJSONMin {
		return chat.AppendJSONString(dst, expr)
	}
	exprJSON.Lock()
	b, ok := exprJSON.m[expr]
	exprJSON.Unlock()
	if ok {
		return append(dst, b...)
	}
	b = chat.AppendJSONString(nil, expr)
	exprJSON.Lock()
	if exprJSON.m == nil || exprJSON.bytes+len(expr)+len(b) > exprJSONLimit {
		exprJSON.m, exprJSON.bytes = make(map[string][]byte), 0
	}
	exprJSON.m[expr] = b
	exprJSON.bytes += len(expr) + len(b)
	exprJSON.Unlock()
	return append(dst, b...)
}

// Latches returns the once('id') latches that this evaluation consulted and found unset,
// in evaluation order. The engine sets them only if the whole reminder is injected.
func (r Result) Latches() []string { return r.appendLatches(nil) }

func (r *Result) appendLatches(out []string) []string {
	if r.latch != "" {
		out = append(out, r.latch)
	}
	for i := range r.Children {
		out = r.Children[i].appendLatches(out)
	}
	return out
}

// HasError reports whether any node of the tree failed to evaluate.
func (r Result) HasError() bool {
	if r.Error != "" {
		return true
	}
	for _, c := range r.Children {
		if c.HasError() {
			return true
		}
	}
	return false
}
