package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// exampleContext is a small context file: a role, one instruction, a reminder that fires
// once when the user mentions an error, and one that fires from the second turn on.
const exampleContext = `version: 1
model: {name: gpt-4o-mini}
system:
  - role: You are a careful data analyst.
instructions:
  - id: cite-tables
    prompt: Name the tables a query reads.
reminders:
  - id: sql-safety
    text: Read the error before changing the query.
    when: "and(contentIncludes(['error']), once('sql-safety'))"
  - id: follow-up
    text: Build on your last answer.
    when: afterTurn(1)
`

// loadExampleContext writes the example context file to a temporary directory and loads
// it, as an embedder loads a file a user edits.
func loadExampleContext() (*ctxfile.File, func()) {
	dir, err := os.MkdirTemp("", "ctxlab-example")
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(dir, "analyst.ctx.yaml")
	if err := os.WriteFile(path, []byte(exampleContext), 0o644); err != nil {
		log.Fatal(err)
	}
	file, err := ctxfile.Load(path)
	if err != nil {
		log.Fatal(err) // a *diag.Error: FILE:LINE:COL: message
	}
	return file, func() { os.RemoveAll(dir) }
}

// newExampleEngine returns an engine on the example context file, with an in-memory store,
// a fixed clock and counting ids, so the example's output is the same on every run.
func newExampleEngine(file *ctxfile.File) *engine.Engine {
	n := 0
	e, err := engine.New(engine.Options{
		Context: file,
		Store:   engine.NewMemStore(nil),
		Now:     func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) },
		NewID:   func() string { n++; return fmt.Sprintf("id-%d", n) },
	})
	if err != nil {
		log.Fatal(err)
	}
	return e
}

// printDecisions prints each decision: fired or not, and why.
func printDecisions(ds []engine.Decision) {
	for _, d := range ds {
		mark := " "
		if d.Fired {
			mark = "+"
		}
		fmt.Printf("%s %-12s %s\n", mark, d.ID, d.Reason)
	}
}

// Load a context file and preview the first turn of a chat: which reminders and
// instructions would apply to a user message, and why, without sending or saving
// anything.
func ExampleSession_Preview() {
	file, cleanup := loadExampleContext()
	defer cleanup()
	e := newExampleEngine(file)

	s := e.Start(chat.Chat{ID: "demo"}) // not saved until its first turn is
	plan := s.Preview(engine.UserInput{Text: "My query fails with an error."})
	fmt.Println("turn", plan.Turn, "on", plan.Branch)
	printDecisions(plan.Decisions)
	fmt.Println("messages in the request:", plan.Request.Len())
	fmt.Println("saved:", s.Saved())
	// Output:
	// turn 1 on main
	// + sql-safety   fired
	//   follow-up    predicate_false
	// + cite-tables  fired
	// messages in the request: 2
	// saved: false
}

// Send turns with scripted replies (no model at all) on an in-memory store. The second
// turn's decisions follow the chat: sql-safety fired once and stays latched, follow-up
// starts firing.
func ExampleSession_Send() {
	file, cleanup := loadExampleContext()
	defer cleanup()
	e := newExampleEngine(file)
	ctx := context.Background()

	s := e.Start(chat.Chat{ID: "demo", Title: "Failing query"})
	for _, turn := range []struct{ user, reply string }{
		{"My query fails with an error.", "The column name is misspelt: use customer_id."},
		{"Same error again.", "Now the table is missing: create orders first."},
	} {
		res, err := s.Send(ctx, engine.UserInput{Text: turn.user}, &engine.Scripted{Text: turn.reply})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("turn %d: %s\n", res.Turn.Number, res.Assistant.PlainText())
		printDecisions(res.Plan.Decisions)
	}
	fmt.Println("turns saved:", s.TurnCount())
	// Output:
	// turn 1: The column name is misspelt: use customer_id.
	// + sql-safety   fired
	//   follow-up    predicate_false
	// + cite-tables  fired
	// turn 2: Now the table is missing: create orders first.
	//   sql-safety   predicate_false
	// + follow-up    fired
	// + cite-tables  fired
	// turns saved: 2
}

// Read back the decisions of saved turns: Replay walks the active branch of a saved chat
// and gives each turn's trace as it was recorded (the request sent, the decisions with
// their reasons and predicate traces, the reply and the usage).
func ExampleEngine_Replay() {
	file, cleanup := loadExampleContext()
	defer cleanup()
	e := newExampleEngine(file)
	ctx := context.Background()

	s := e.Start(chat.Chat{ID: "demo"})
	for _, user := range []string{"My query fails with an error.", "Thanks, and now?"} {
		if _, err := s.Send(ctx, engine.UserInput{Text: user}, &engine.Scripted{Text: "Done."}); err != nil {
			log.Fatal(err)
		}
	}

	err := e.Replay(ctx, "demo", false, func(tr *engine.Trace) error {
		fmt.Printf("turn %d:", tr.Turn)
		for _, d := range tr.Decisions {
			if d.Fired {
				fmt.Printf(" %s", d.ID)
			}
		}
		fmt.Println()
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// turn 1: sql-safety cite-tables
	// turn 2: follow-up cite-tables
}
