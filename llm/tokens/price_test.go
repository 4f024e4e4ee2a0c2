package tokens

import "testing"

func TestLookupPrice(t *testing.T) {
	free := &Price{}
	gpt4o := &Price{Input: 2.50, CachedInput: 1.25, Output: 10.00}
	tests := []struct {
		model string
		table map[string]Price
		want  *Price // nil: unknown
	}{
		{"gpt-4o", nil, gpt4o},
		{"gpt-4o-2024-08-06", nil, gpt4o},
		{"openai/gpt-4o", nil, gpt4o},
		{"GPT-4o-mini", nil, &Price{Input: 0.15, CachedInput: 0.075, Output: 0.60}},
		{"llama3.1:8b", nil, free},
		{"qwen2.5-coder:7b", nil, free},
		{"gpt-oss:20b", nil, free},
		{"gemma3", nil, free},
		// Hosted copies of open-weight families, named with their provider: not free.
		{"meta-llama/llama-3.1-405b-instruct", nil, nil},
		{"mistralai/mistral-large", nil, nil},
		{"qwen/qwen-max", nil, nil},
		{"openai/gpt-oss-120b", nil, nil},
		{"google/gemma-3-27b-it", nil, nil},
		{"unknown-model", nil, nil},
		{"", nil, nil},
		// A price the config gives applies with or without the prefix.
		{"groq/llama-3.1-8b-instant", map[string]Price{"llama": {}}, free},
		{"openrouter/my-model", map[string]Price{"my-model": {Input: 1, Output: 2}}, &Price{Input: 1, Output: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, ok := LookupPrice(tt.model, tt.table)
			switch {
			case tt.want == nil && ok:
				t.Errorf("got %+v, want an unknown price", got)
			case tt.want != nil && (!ok || got != *tt.want):
				t.Errorf("got %+v (known %v), want %+v", got, ok, *tt.want)
			}
		})
	}
}
