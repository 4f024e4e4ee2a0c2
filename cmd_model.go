package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

func (a *app) configCommand() *cobra.Command {
	var contextPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the resolved model settings and where each came from (the API key masked)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var file *ctxfile.File
			if contextPath != "" {
				f, err := ctxfile.Load(contextPath)
				if err != nil {
					return err
				}
				file = f
			}
			s, err := a.settings(file, true)
			if err != nil {
				return err
			}
			if asJSON {
				for _, l := range s.Lines() {
					if err := writeJSONLine(a.stdout, l); err != nil {
						return err
					}
				}
				return nil
			}
			fmt.Fprint(a.stdout, s.Describe())
			return nil
		},
	}
	cmd.Flags().StringVar(&contextPath, "context", "", "also read the model block of this context file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per setting")
	return cmd
}

func (a *app) modelsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "models",
		Short: "List the models the configured server offers",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.settings(nil, false)
			if err != nil {
				return err
			}
			if !s.Configured() {
				return errors.New("no model server is configured: set --base-url or OPENAI_API_KEY, or a config profile (see ctxlab config)")
			}
			names, err := ctxapp.Models(cmd.Context(), s)
			if err != nil {
				return fmt.Errorf("model: %w", err)
			}
			for _, n := range names {
				fmt.Fprintln(a.stdout, n)
			}
			return nil
		},
	}
}
