package main

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
)

func (a *app) replayCommand() *cobra.Command {
	var contextPath, requestForm string
	var asJSON, showMessages bool
	cmd := &cobra.Command{
		Use:   "replay CHAT",
		Short: "Show a saved chat turn by turn; with --context, what another context file would have fired",
		Long: "replay walks the active branch of a saved chat and prints each turn as it was recorded:\n" +
			"the request sent, the decisions and why, the reply and the tokens. With --context FILE it\n" +
			"re-evaluates every turn offline under FILE and marks each decision that changed. It never\n" +
			"writes to the chat.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkRequestFlag(requestForm, asJSON); err != nil {
				return err
			}
			out := bufio.NewWriter(a.stdout)
			lines := newJSONLines(out, requestForm)
			stats, err := ctxapp.Replay(cmd.Context(), a.options(), args[0], contextPath, func(t *engine.Trace) error {
				if asJSON {
					return lines.write(t)
				}
				writeTurnView(out, t, userText(t.Request), "", a.view(showMessages))
				return nil
			})
			if err == nil && !asJSON {
				summary := "── " + plural(stats.Turns, "turn") + " replayed"
				if contextPath != "" {
					summary += fmt.Sprintf(" under %s · %s changed", contextPath, plural(stats.Changed, "decision"))
				}
				fmt.Fprintln(out, summary)
			}
			if ferr := out.Flush(); err == nil {
				err = ferr
			}
			return err
		},
	}
	cmd.ValidArgsFunction = a.completeChatIDs
	f := cmd.Flags()
	f.StringVar(&contextPath, "context", "", "re-evaluate every turn under this context file")
	f.BoolVar(&showMessages, "show-messages", false, "show the final user message as sent (reminders baked in) and the system-placement message")
	f.BoolVar(&asJSON, "json", false, "print one JSON trace per turn, one per line")
	addRequestFlag(cmd, &requestForm)
	return cmd
}

var reminderTag = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)

// userText is the text the user wrote in a request's last message, reminders removed.
func userText(req chat.Request) string {
	for i := req.Len() - 1; i >= 0; i-- {
		if m := req.At(i); m.Role == chat.RoleUser {
			text := m.Text()
			if !strings.Contains(text, "<system-reminder>") { // a long message is not copied
				return strings.TrimSpace(text)
			}
			return strings.TrimSpace(reminderTag.ReplaceAllString(text, ""))
		}
	}
	return ""
}
