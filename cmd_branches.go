package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/inert"
)

func (a *app) branchesCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "branches CHAT",
		Short: "List a chat's branches with their turn counts and heads (* marks the active one)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := ctxapp.OpenSaved(cmd.Context(), a.options())
			if err != nil {
				return err
			}
			defer w.Close()
			id, err := w.ResolveChat(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			c, list, err := w.Branches(cmd.Context(), id)
			if err != nil {
				return err
			}
			if asJSON {
				for _, b := range list {
					line := struct {
						Name     string `json:"name"`
						Active   bool   `json:"active"`
						Parent   string `json:"parent,omitempty"`
						Head     string `json:"head"`
						Turns    int    `json:"turns"`
						Messages int    `json:"messages"`
					}{b.Name, b.Name == c.ActiveBranch, b.Parent, b.Head, b.Turns, b.Messages}
					if err := writeJSONLine(a.stdout, line); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "\tBRANCH\tFROM\tTURNS\tMESSAGES\tHEAD")
			for _, b := range list {
				mark := ""
				if b.Name == c.ActiveBranch {
					mark = "*"
				}
				from := b.Parent
				if from == "" {
					from = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", mark, inert.VisibleLine(b.Name), inert.VisibleLine(from), b.Turns, b.Messages, inert.VisibleLine(b.Head))
			}
			return tw.Flush()
		},
	}
	cmd.ValidArgsFunction = a.completeChatIDs
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per branch")
	return cmd
}
