package main

import (
	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
)

func (a *app) promptCommand() *cobra.Command {
	var contextPath, user, at string
	var asJSON, showMessages bool
	cmd := &cobra.Command{
		Use:   "prompt [--context FILE]",
		Short: "Render the system prompt and the first turn's decisions without sending anything",
		Long: "prompt plans the first turn of a new chat and prints its system prompt and decisions,\n" +
			"sending nothing. The context file is --context, else ./ctxlab.ctx.yaml, else none: a plain\n" +
			"chat, whose system prompt is empty and which has no decisions.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := ctxapp.Prompt(cmd.Context(), a.modelFlags(), contextPath, user, at)
			if err != nil {
				return err
			}
			plan, trace := res.Plan, res.Trace
			if asJSON {
				return writeJSONLine(a.stdout, trace)
			}
			renderer := res.File.Renderer
			if res.Context.Path == "" {
				renderer = ""
			}
			writePrompt(a.stdout, renderer, plan, &trace, user, a.view(showMessages))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&contextPath, "context", "", "context file (default: ./ctxlab.ctx.yaml, else none: a plain chat)")
	f.StringVar(&user, "user", "", "text of the first user message (default: empty)")
	f.StringVar(&at, "at", "", "clock of the turn, RFC 3339 (default: now)")
	f.BoolVar(&showMessages, "show-messages", false, "show the final user message as sent (reminders baked in) and the system-placement message")
	f.BoolVar(&asJSON, "json", false, "print the trace as one JSON object")
	return cmd
}
