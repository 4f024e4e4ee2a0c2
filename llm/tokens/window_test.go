package tokens

import "testing"

func TestContextWindow(t *testing.T) {
	tests := []struct {
		model string
		want  int // 0: unknown
	}{
		{"gpt-4o", 128000},
		{"gpt-4o-mini", 128000},
		{"gpt-4o-mini-2024-07-18", 128000},
		{"openai/gpt-4o", 128000},
		{"GPT-4.1", 1047576},
		{"gpt-4.1-mini", 1047576},
		{"gpt-4", 8192},
		{"gpt-4-turbo", 128000},
		{"o1", 200000},
		{"o1-mini", 128000},
		{"o3-mini", 200000},
		{"o4-mini", 200000},
		{"gpt-5", 400000},
		{"gpt-5.1", 400000},
		{"gpt-5-mini", 400000},
		{"claude-sonnet-4-5", 200000},
		{"anthropic/claude-3-5-haiku", 200000},
		{"llama3:8b", 8192},
		{"llama3.1:8b", 128000},
		{"meta-llama/llama-3.3-70b-instruct", 128000},
		{"gpt-oss:20b", 131072},
		{"o10", 0},        // not a family of o1
		{"gpt-40", 0},     // not a family of gpt-4
		{"mistral:7b", 0}, // not in the table
		{"", 0},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, ok := ContextWindow(tt.model)
			if ok != (tt.want != 0) || got != tt.want {
				t.Errorf("got %d (known %v), want %d (known %v)", got, ok, tt.want, tt.want != 0)
			}
		})
	}
}
