package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/diag"
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
			ctx := cmd.Context()
			sc, err := script.Load(args[0])
			if err != nil {
				return err
			}
			if contextPath == "" {
				contextPath = sc.Context
				if _, err := os.Stat(contextPath); contextPath != "" && errors.Is(err, fs.ErrNotExist) {
					return diag.Errorf(sc.Path, sc.ContextAt.Line, sc.ContextAt.Col, "context: %s: no such file", contextPath)
				}
			}
			if contextPath == "" {
				return &diag.Error{File: sc.Path, Line: 1, Col: 1, Msg: "the script names no context file; add context: or give --context FILE"}
			}
			file, err := ctxfile.Load(contextPath)
			if err != nil {
				return err
			}
			settings, err := a.settings(file, !needsModel(sc))
			if err != nil {
				return err
			}
			if err := script.Check(sc, file, settings.Configured()); err != nil {
				return err
			}
			if needsModel(sc) && settings.Configured() && !settings.Model.IsSet() {
				if err := ctxapp.NameServerModel(ctx, &settings); err != nil {
					return err
				}
			}
			w, err := ctxapp.Open(ctx, a.options())
			if err != nil {
				return err
			}
			defer w.Close()
			model := ctxapp.LiveModel(settings)

			// Dry run first, in memory over the database: a step that cannot be done is
			// found before anything is sent or written.
			dry, err := ctxapp.NewEngine(file, engine.NewMemStore(w.Store()), settings, nil)
			if err != nil {
				return err
			}
			dryRun := script.Runner{Engine: dry, Model: &engine.Scripted{Text: "(dry run)"}}
			if _, err := dryRun.Run(ctx, sc); err != nil {
				if diag.IsInvalidInput(err) {
					return err
				}
				return fmt.Errorf("checking the script: %w", err)
			}

			eng, err := w.Engine(file, settings)
			if err != nil {
				return err
			}
			runner := script.Runner{Engine: eng, Model: model}
			var cost float64
			priced := false
			runner.OnTurn = func(st *script.Step, res *engine.TurnResult) {
				t := res.Trace(res.Turn.ChatID)
				if t.Usage.CostUSD != nil {
					cost += *t.Usage.CostUSD
					priced = true
				}
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
			runner.OnStep = func(_ *script.Step, what string) {
				if !asJSON {
					fmt.Fprintf(a.stdout, "── %s\n", what)
				}
			}
			sess, err := runner.Run(ctx, sc)
			if err != nil {
				return err
			}
			if !asJSON {
				c := sess.Chat()
				u := sess.Usage()
				line := fmt.Sprintf("── chat %s · branch %s · %d turns · %d tokens in all", c.ID, sess.Branch(), sess.TurnCount(), u.Total())
				if priced {
					line += " · this run " + formatUSD(cost)
				}
				if total, known, err := w.ChatCost(ctx, settings, c.ID); err == nil && known {
					line += " · chat " + formatUSD(total)
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

// needsModel reports whether some step of the script asks the model.
func needsModel(sc *script.Script) bool {
	for _, st := range sc.Steps {
		switch st.Kind {
		case script.StepTurn, script.StepEdit, script.StepRegenerate:
			if st.Reply == nil {
				return true
			}
		}
	}
	return false
}
