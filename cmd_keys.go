package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/tui/keybind"
)

// keyLine is one action of `ctxlab keys --json`.
type keyLine struct {
	Action string   `json:"action"`
	Area   string   `json:"area"`
	Keys   []string `json:"keys"`
	// Rebound says the config file's keys: section set the keys.
	Rebound bool   `json:"rebound"`
	Does    string `json:"does"`
}

// keysCommand is `ctxlab keys`: every action of the workbench, by the name the config
// file's keys: section rebinds it with, and the keys in force.
func (a *app) keysCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "List the workbench's actions: the names the config file's keys: section rebinds, and the keys in force",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := ctxapp.LoadSettings(a.modelFlags(), "", true)
			if err != nil {
				return err // a bad keys: section: FILE:LINE:COL, exit 2
			}
			keys := keybind.Apply(s.Keys)
			rebound := map[string]bool{}
			for _, b := range s.Keys {
				rebound[b.Action] = true
			}
			var lines []keyLine
			for _, act := range keybind.Actions() {
				lines = append(lines, keyLine{Action: act.Name, Area: string(act.Area), Keys: keys[act.Name], Rebound: rebound[act.Name], Does: act.Desc})
			}
			if asJSON {
				for _, l := range lines {
					if err := writeJSONLine(a.stdout, l); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ACTION\tAREA\tKEYS\tDOES")
			for _, l := range lines {
				k := keybind.Label(l.Keys)
				if l.Rebound {
					k += " (config)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Action, l.Area, k, l.Does)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per action")
	return cmd
}
