package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/inert"
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
			fmt.Fprint(a.stdout, inert.Text(s.Describe())) // values come from files and the environment
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
			names, err := newClient(s).Models(cmd.Context())
			if err != nil {
				return fmt.Errorf("model: %w", err)
			}
			for _, n := range names {
				fmt.Fprintln(a.stdout, inert.Line(n)) // the server's ids, untrusted
			}
			return nil
		},
	}
}
