package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

func (a *app) promptCommand() *cobra.Command {
	var contextPath, user, at string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "prompt --context FILE",
		Short: "Render the system prompt and the first turn's decisions without sending anything",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if contextPath == "" {
				return &usageError{"prompt needs --context FILE"}
			}
			file, err := ctxfile.Load(contextPath)
			if err != nil {
				return err
			}
			settings, err := a.settings(file, true)
			if err != nil {
				return err
			}
			eng, err := ctxapp.NewEngine(file, engine.NewMemStore(nil), settings, nil)
			if err != nil {
				return err
			}
			sess, err := eng.Create(cmd.Context(), chat.Chat{ID: "prompt"})
			if err != nil {
				return err
			}
			in := engine.UserInput{Text: user}
			if at != "" {
				t, err := time.Parse(time.RFC3339, at)
				if err != nil {
					return &usageError{fmt.Sprintf("--at %q is not an RFC 3339 time like 2026-03-27T14:30:00Z", at)}
				}
				in.At = t
			}
			plan := sess.Preview(in)
			trace := engine.PlanTrace("", plan)
			if asJSON {
				return writeJSONLine(a.stdout, trace)
			}
			fmt.Fprintf(a.stdout, "── system prompt · %s · ~%d tokens\n%s\n\n", file.Renderer,
				plan.Estimate.Fragments+plan.Estimate.Instructions, plan.SystemPrompt)
			writeTurn(a.stdout, &trace, user, "")
			fmt.Fprintf(a.stdout, "  %-16s model %s · %d messages · %d tools\n", "request:",
				plan.Request.Model, len(plan.Request.Messages), len(plan.Request.Tools))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&contextPath, "context", "", "context file (*.ctx.yaml)")
	f.StringVar(&user, "user", "", "text of the first user message (default: empty)")
	f.StringVar(&at, "at", "", "clock of the turn, RFC 3339 (default: now)")
	f.BoolVar(&asJSON, "json", false, "print the trace as one JSON object")
	return cmd
}
