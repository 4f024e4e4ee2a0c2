package main

import (
	"fmt"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
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
			res, err := ctxapp.Prompt(cmd.Context(), a.modelFlags(), contextPath, user, at)
			if err != nil {
				return err
			}
			plan, trace := res.Plan, res.Trace
			if asJSON {
				return writeJSONLine(a.stdout, trace)
			}
			fmt.Fprintf(a.stdout, "── system prompt · %s · ~%d tokens\n%s\n\n", res.File.Renderer,
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
