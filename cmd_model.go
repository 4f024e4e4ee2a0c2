package main

import (
	"fmt"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
)

func (a *app) configCommand() *cobra.Command {
	var contextPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the resolved model settings and where each came from (the API key masked)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := ctxapp.LoadSettings(a.modelFlags(), contextPath, true)
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
			names, err := ctxapp.ServerModels(cmd.Context(), a.modelFlags())
			if err != nil {
				return err
			}
			for _, n := range names {
				fmt.Fprintln(a.stdout, n)
			}
			return nil
		},
	}
}
