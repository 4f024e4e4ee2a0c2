package engine_test

import (
	"context"
	"fmt"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// ExampleLive sends a turn to a model (here a test double that streams prepared replies,
// as a server would) and follows it through its events: the model calls a tool, the
// engine answers it with the context file's canned result and asks again.
func ExampleLive() {
	file, err := ctxfile.Parse("example.ctx.yaml", []byte(`version: 1
tools:
  - name: run_sql
    description: Run SQL
    parameters: {type: object}
    result: '[{"n": 1}]'
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	eng, err := engine.New(engine.Options{Context: file, Store: engine.NewMemStore(nil)})
	if err != nil {
		fmt.Println(err)
		return
	}
	model := newScriptModel(
		chat.Reply{Text: "Checking.", ToolCalls: []chat.WireToolCall{
			{Function: chat.FunctionCall{Name: "run_sql", Arguments: `{"query":"select 1"}`}},
		}},
		chat.Reply{Text: "One row.", Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 3}},
	)
	sess := eng.Start(chat.Chat{})
	_, err = sess.Send(context.Background(), engine.UserInput{Text: "run it"}, &engine.Live{Model: model},
		engine.WithEvents(func(ev engine.Event) {
			switch ev := ev.(type) {
			case engine.EventRequest:
				fmt.Println("request", ev.Step)
			case engine.EventText:
				fmt.Printf("text %q\n", ev.Text)
			case engine.EventToolCall:
				fmt.Printf("tool %d %s %s\n", ev.Index, ev.Name, ev.Arguments)
			case engine.EventToolAnswered:
				fmt.Println("answered", ev.Part.ToolName, ev.Part.Output)
			case engine.EventUsage:
				fmt.Println("usage reported:", ev.Usage.PromptTokens, ev.Usage.CompletionTokens)
			case engine.EventSaved:
				fmt.Println("saved, finish:", ev.Result.Turn.FinishReason)
			}
		}))
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// request 1
	// text "Checking."
	// tool 0 run_sql {"query":"select 1"}
	// answered run_sql [{"n": 1}]
	// request 2
	// text "One "
	// text "row."
	// usage reported: 40 3
	// saved, finish: stop
}
