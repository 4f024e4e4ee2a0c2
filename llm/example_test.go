package llm_test

import (
	"context"
	"fmt"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/llm"
)

func ExampleScripted() {
	model := llm.NewScripted(
		llm.Reply{Text: "Checking.", ToolCalls: []chat.WireToolCall{
			{Function: chat.FunctionCall{Name: "run_sql", Arguments: `{"query":"select 1"}`}},
		}},
		llm.Reply{Text: "One row.", Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 3}},
	)
	req := chat.Request{Model: "scripted", Messages: []chat.WireMessage{{Role: chat.RoleUser, Content: "run it"}}}
	for range 2 {
		r, err := model.Stream(context.Background(), req, func(d llm.Delta) {
			if d.Text == "" {
				fmt.Printf("tool %d %s %s\n", d.ToolCallIndex, d.ToolName, d.Arguments)
			} else {
				fmt.Printf("text %q\n", d.Text)
			}
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("finish:", r.FinishReason, "usage reported:", r.Usage != nil)
	}
	// Output:
	// text "Checking."
	// tool 0 run_sql {"query":"select 1"}
	// finish: tool_calls usage reported: false
	// text "One "
	// text "row."
	// finish: stop usage reported: true
}
