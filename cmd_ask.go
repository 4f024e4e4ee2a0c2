package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/store"
)

func (a *app) askCommand() *cobra.Command {
	var req ctxapp.AskRequest
	var asJSON, showMessages bool
	cmd := &cobra.Command{
		Use:   "ask MESSAGE",
		Short: "Send one message to the model and print the reply and the turn's decisions",
		Long: "ask sends MESSAGE to the configured model, in a new chat (or, with --chat, a saved one),\n" +
			"saves the turn and prints it as run does: the decisions and why, the reply, the tokens.\n" +
			"The context file is --context; else, with --chat, the file the chat was last used with;\n" +
			"else ./ctxlab.ctx.yaml; else none: a plain chat, with no system prompt and no tools.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Text = args[0]
			// A step standing for the message, to label the turn's block as run does.
			st := &script.Step{Kind: script.StepTurn, User: req.Text}
			var stream *turnStream
			if _, tty := a.stdoutTerminal(); tty && !asJSON {
				stream = newTurnStream(a.stdout, a.view(showMessages))
				req.OnEvent = func(chatID string, ev engine.Event) { stream.event(st, chatID, ev) }
			}
			res, err := ctxapp.Ask(cmd.Context(), a.options(), req)
			if res == nil {
				if stream != nil {
					stream.end()
				}
				return err
			}
			t := res.Turn.Trace(res.ChatID)
			switch {
			case asJSON:
				if jerr := writeJSONLine(a.stdout, t); jerr != nil && err == nil {
					err = jerr
				}
				return err
			case stream != nil:
				stream.turn(st, &t, res.Turn.PlannedOn)
			default:
				writeTurnView(a.stdout, &t, req.Text, t.Request.Model, a.view(showMessages))
			}
			if res.Unsaved {
				fmt.Fprintf(humanOutput(a.stdout), "── NOT SAVED: the reply above is not in %s (the error below says why)\n", savedIn(res.DBPath))
				return err
			}
			fmt.Fprintf(humanOutput(a.stdout), "── chat %s · branch %s · %s · saved in %s\n", res.ChatID, res.Branch,
				plural(res.Turns, "turn"), savedIn(res.DBPath))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Context, "context", "", "context file (default: the chat's last one, else ./ctxlab.ctx.yaml, else none: a plain chat)")
	f.StringVar(&req.Chat, "chat", "", "continue a saved chat: an id, a unique prefix of one, or last")
	f.BoolVar(&showMessages, "show-messages", false, "show the final user message as sent (reminders baked in) and the system-placement message")
	f.BoolVar(&asJSON, "json", false, "print the turn's JSON trace on one line")
	_ = cmd.RegisterFlagCompletionFunc("chat", a.completeChatIDs) // fails only for an unknown flag
	return cmd
}

// plural is n with the noun, plural unless n is 1: "1 turn", "2 turns".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// savedIn names the database a command wrote to, for its last line.
func savedIn(path string) string {
	if path == store.Memory {
		return ":memory: (kept nowhere)"
	}
	return path
}
