package tokens

import (
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Price is what a model costs, in USD per million tokens. A zero CachedInput means cached
// input tokens cost the Input price.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"`
	Output      float64 `json:"output"`
}

// Cost returns the price of a usage: uncached prompt tokens at Input, cached ones at
// CachedInput, completion tokens (reasoning included) at Output.
func (p Price) Cost(u chat.Usage) float64 {
	cached := min(max(u.CachedTokens, 0), u.PromptTokens)
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	return (float64(u.PromptTokens-cached)*p.Input +
		float64(cached)*cachedPrice +
		float64(u.CompletionTokens)*p.Output) / 1e6
}

// prices is the embedded price table, USD per 1M tokens, standard (not batch, not flex)
// tier. Keys match a model name exactly or as a family prefix (see LookupPrice).
//
// Source: OpenAI's pricing page (https://platform.openai.com/docs/pricing, now
// developers.openai.com/api/docs/pricing) as of 2025-11 for gpt-4o … gpt-5.1 and the
// o-series; gpt-5.2, gpt-5.4 and gpt-5.5 from secondary price lists of 2026. Prices change:
// override them per model in the config file (profiles.NAME.prices).
var prices = map[string]Price{
	"gpt-5.5":           {Input: 5.00, CachedInput: 0.50, Output: 30.00},
	"gpt-5.4":           {Input: 2.50, CachedInput: 0.25, Output: 15.00},
	"gpt-5.4-mini":      {Input: 0.75, CachedInput: 0.075, Output: 4.50},
	"gpt-5.4-nano":      {Input: 0.20, CachedInput: 0.02, Output: 1.25},
	"gpt-5.2":           {Input: 1.75, CachedInput: 0.175, Output: 14.00},
	"gpt-5.1":           {Input: 1.25, CachedInput: 0.125, Output: 10.00},
	"gpt-5":             {Input: 1.25, CachedInput: 0.125, Output: 10.00},
	"gpt-5-mini":        {Input: 0.25, CachedInput: 0.025, Output: 2.00},
	"gpt-5-nano":        {Input: 0.05, CachedInput: 0.005, Output: 0.40},
	"gpt-5-pro":         {Input: 15.00, Output: 120.00},
	"gpt-4.1":           {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"gpt-4.1-mini":      {Input: 0.40, CachedInput: 0.10, Output: 1.60},
	"gpt-4.1-nano":      {Input: 0.10, CachedInput: 0.025, Output: 0.40},
	"gpt-4o":            {Input: 2.50, CachedInput: 1.25, Output: 10.00},
	"gpt-4o-2024-05-13": {Input: 5.00, Output: 15.00},
	"gpt-4o-mini":       {Input: 0.15, CachedInput: 0.075, Output: 0.60},
	"chatgpt-4o":        {Input: 5.00, Output: 15.00},
	"o1":                {Input: 15.00, CachedInput: 7.50, Output: 60.00},
	"o1-mini":           {Input: 1.10, CachedInput: 0.55, Output: 4.40},
	"o1-pro":            {Input: 150.00, Output: 600.00},
	"o3":                {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"o3-mini":           {Input: 1.10, CachedInput: 0.55, Output: 4.40},
	"o3-pro":            {Input: 20.00, Output: 80.00},
	"o4-mini":           {Input: 1.10, CachedInput: 0.275, Output: 4.40},
	"gpt-4-turbo":       {Input: 10.00, Output: 30.00},
	"gpt-4":             {Input: 30.00, Output: 60.00},
	"gpt-3.5-turbo":     {Input: 0.50, Output: 1.50},

	// Open-weight families, usually served locally (Ollama, llama.cpp, vLLM, LM Studio):
	// free. Give a price in the config for a hosted one.
	"llama":     {},
	"llama2":    {},
	"llama3":    {},
	"llama3.1":  {},
	"llama3.2":  {},
	"llama3.3":  {},
	"llama4":    {},
	"codellama": {},
	"qwen":      {},
	"qwen2":     {},
	"qwen2.5":   {},
	"qwen3":     {},
	"mistral":   {},
	"mixtral":   {},
	"gemma":     {},
	"gemma2":    {},
	"gemma3":    {},
	"phi":       {},
	"phi3":      {},
	"phi4":      {},
	"gpt-oss":   {},
	"smollm":    {},
	"smollm2":   {},
	"tinyllama": {},
}

// LookupPrice finds the price of a model in table (the embedded table when table is nil):
// the entry named exactly, else the longest entry that is a family prefix of the name (the
// name continues with -, :, ., @, _ or a space: "gpt-4o-mini-2024-07-18" is "gpt-4o-mini",
// "llama3.1:8b" is "llama3.1"), case-insensitively. A provider prefix ("openai/gpt-4o") is
// tried with and without; without it, the embedded table's free entries do not match: a
// model named with its provider ("meta-llama/llama-3.1-405b-instruct" on OpenRouter) is
// hosted, not local, and its price is unknown.
func LookupPrice(model string, table map[string]Price) (Price, bool) {
	embedded := table == nil
	if embedded {
		table = prices
	}
	full := strings.ToLower(strings.TrimSpace(model))
	if full == "" {
		return Price{}, false
	}
	names := []string{full}
	if b := baseModel(full); b != full {
		names = append(names, b)
	}
	for i, name := range names {
		hosted := embedded && i > 0
		best, bestLen := Price{}, -1
		for key, p := range table {
			if hosted && p == (Price{}) {
				continue
			}
			k := strings.ToLower(key)
			if hasFamilyPrefix(name, k) && len(k) > bestLen {
				best, bestLen = p, len(k)
			}
		}
		if bestLen >= 0 {
			return best, true
		}
	}
	return Price{}, false
}

// Cost returns the USD cost of a usage for a model: at the override price when it is not
// nil, else at the embedded table's. known is false when the model has no price.
func Cost(model string, u chat.Usage, override *Price) (usd float64, known bool) {
	if override != nil {
		return override.Cost(u), true
	}
	p, ok := LookupPrice(model, nil)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}
