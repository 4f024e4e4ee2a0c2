package tokens

import "strings"

// windows is the context window, in tokens, of well-known model families. Keys match a
// model name exactly or as a family prefix, as in the price table.
//
// Sources: the providers' model pages (OpenAI, Anthropic, Meta) as of 2025-11.
var windows = map[string]int{
	"gpt-5":         400000,
	"gpt-4.1":       1047576,
	"gpt-4o":        128000,
	"chatgpt-4o":    128000,
	"gpt-4-turbo":   128000,
	"gpt-4":         8192,
	"gpt-3.5-turbo": 16385,
	"o1":            200000,
	"o1-mini":       128000,
	"o3":            200000,
	"o4-mini":       200000,
	"claude":        200000,
	"gpt-oss":       131072,
	"llama3":        8192,
	"llama-3":       8192,
	"llama3.1":      128000,
	"llama3.2":      128000,
	"llama3.3":      128000,
	"llama-3.1":     128000,
	"llama-3.2":     128000,
	"llama-3.3":     128000,
}

// ContextWindow returns the context window, in tokens, of a well-known model: the entry
// named exactly, else the longest that is a family prefix of the name
// ("gpt-4o-mini-2024-07-18" is "gpt-4o", "llama3.1:8b" is "llama3.1"), case-insensitively,
// with or without a provider prefix ("openai/gpt-4o"). known is false for a model not in
// the table.
func ContextWindow(model string) (tokens int, known bool) {
	full := strings.ToLower(strings.TrimSpace(model))
	if full == "" {
		return 0, false
	}
	for _, name := range []string{full, baseModel(full)} {
		best, bestLen := 0, -1
		for k, w := range windows {
			if hasFamilyPrefix(name, k) && len(k) > bestLen {
				best, bestLen = w, len(k)
			}
		}
		if bestLen >= 0 {
			return best, true
		}
	}
	return 0, false
}
