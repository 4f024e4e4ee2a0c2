// Package tokens estimates token counts offline and prices token usage.
//
// Counting uses github.com/tiktoken-go/tokenizer, whose vocabularies are compiled into the
// binary: nothing is downloaded. A vocabulary is loaded on the first count (about 10 ms),
// never at package initialisation, so commands that count nothing pay nothing.
//
// The encoding follows the model name (see EncodingFor): o200k_base for the GPT-4o, GPT-4.1,
// GPT-4.5, GPT-5 and o-series families, cl100k_base for GPT-4, GPT-3.5 and the embedding
// models. Any other model, including local ones (llama3, qwen, mistral, …) whose own
// tokenizers are not available offline, is counted with cl100k_base: an estimate, typically
// within 10-20% of the real count for English text.
package tokens

import (
	"fmt"
	"strings"
)

// Encoding names a BPE vocabulary.
type Encoding string

// The encodings ctxlab can count with.
const (
	O200k  Encoding = "o200k_base"
	Cl100k Encoding = "cl100k_base"
)

// ParseEncoding accepts an encoding by its full name (o200k_base, cl100k_base) or its short
// one (o200k, cl100k), case-insensitively.
func ParseEncoding(name string) (Encoding, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "o200k", "o200k_base":
		return O200k, nil
	case "cl100k", "cl100k_base":
		return Cl100k, nil
	}
	return "", fmt.Errorf("unknown tokenizer %q (want o200k or cl100k)", name)
}

// o200kFamilies are the model name prefixes counted with o200k_base. A prefix matches the
// whole name or the name up to a separator ("o3" matches "o3-mini", not "o30").
var o200kFamilies = []string{
	"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss",
	"o1", "o3", "o4",
}

// EncodingFor returns the encoding a model is counted with: o200k_base for gpt-4o, gpt-4.1,
// gpt-4.5, gpt-5, gpt-oss, chatgpt-4o and the o1, o3 and o4 families; cl100k_base for every
// other name (gpt-4, gpt-3.5, text-embedding-3, and unknown or local models, as the nearest
// general-purpose vocabulary). A provider prefix ("openai/gpt-4o") and a fine-tune prefix
// ("ft:gpt-4o-mini:…") are ignored.
func EncodingFor(model string) Encoding {
	m := baseModel(model)
	m = strings.TrimPrefix(m, "ft:")
	for _, p := range o200kFamilies {
		if hasFamilyPrefix(m, p) {
			return O200k
		}
	}
	return Cl100k
}

// baseModel lower-cases a model name and drops a provider prefix ("openai/").
func baseModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// hasFamilyPrefix reports whether name is prefix or starts with prefix followed by a
// separator (-, :, ., @, _ or a space).
func hasFamilyPrefix(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	if len(name) == len(prefix) {
		return true
	}
	return strings.IndexByte("-:.@_ ", name[len(prefix)]) >= 0
}
