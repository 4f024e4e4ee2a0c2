package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/script"
)

func (a *app) runCommand() *cobra.Command {
	var contextPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "run SCRIPT.yaml",
		Short: "Play a script: each turn is answered by its scripted reply or sent to the model",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run := ctxapp.ScriptRun{Path: args[0], Context: contextPath}
			run.OnTurn = func(st *script.Step, res *engine.TurnResult) {
				t := res.Trace(res.Turn.ChatID)
				if asJSON {
					_ = writeJSONLine(a.stdout, t)
					return
				}
				if res.PlannedOn != "" {
					fmt.Fprintf(a.stdout, "── another writer wrote to %s meanwhile: saved on %s\n", res.PlannedOn, res.Turn.Branch)
				}
				user := st.User
				if st.Kind == script.StepRegenerate {
					user = "(regenerated reply)"
				}
				source := "scripted"
				if st.Reply == nil {
					source = t.Request.Model
				}
				writeTurn(a.stdout, &t, user, source)
			}
			run.OnStep = func(_ *script.Step, what string) {
				if !asJSON {
					fmt.Fprintf(a.stdout, "── %s\n", what)
				}
			}
			res, err := ctxapp.RunScript(cmd.Context(), a.options(), run)
			if err != nil {
				return err
			}
			if !asJSON {
				sess := res.Session
				c := sess.Chat()
				u := sess.Usage()
				line := fmt.Sprintf("── chat %s · branch %s · %d turns · %d tokens in all", c.ID, sess.Branch(), sess.TurnCount(), u.Total())
				if res.RunPriced {
					line += " · this run " + formatUSD(res.RunCost)
				}
				if res.ChatPriced {
					line += " · chat " + formatUSD(res.ChatCost)
				}
				fmt.Fprintln(a.stdout, line)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&contextPath, "context", "", "context file (default: the script's context:)")
	f.BoolVar(&asJSON, "json", false, "print one JSON trace per turn, one per line")
	return cmd
}
