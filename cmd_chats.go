package main

import (
	"bufio"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
)

// chatLine is one chat as `ctxlab chats --json` prints it.
type chatLine struct {
	ID           string     `json:"id"`
	Title        string     `json:"title"`
	ActiveBranch string     `json:"active_branch"`
	Branches     int        `json:"branches"`
	Turns        int        `json:"turns"`    // user messages on the active branch
	Messages     int        `json:"messages"` // messages on every branch
	Tokens       int        `json:"tokens"`   // usage.total_tokens
	Usage        chat.Usage `json:"usage"`
	CostUSD      *float64   `json:"cost_usd,omitempty"` // absent when a model's price is unknown
	CreatedAt    string     `json:"created_at"`
	UpdatedAt    string     `json:"updated_at"`
}

func (a *app) chatsCommand() *cobra.Command {
	var search string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "chats",
		Short: "List the saved chats, most recently updated first",
		Long: "chats lists the saved chats, most recently updated first: id, title, branches, turns on\n" +
			"the active branch, tokens (every branch) and the time of the last step. --search keeps the\n" +
			"chats with a message holding every word of TEXT (as word prefixes, any case; baked\n" +
			"reminders are not searched).",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := ctxapp.OpenSaved(cmd.Context(), a.options())
			var none *ctxapp.NoDatabaseError
			if errors.As(err, &none) { // nothing saved yet: an empty list, and where it looked
				if !asJSON {
					fmt.Fprintf(a.stdout, "no chats yet (%s)\n", none.Where())
				}
				return nil
			}
			if err != nil {
				return err
			}
			defer ws.Close()
			list, err := ws.Chats(cmd.Context(), search)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(a.stdout)
			if asJSON {
				for i := range list {
					s := &list[i]
					u := s.Usage
					u.TotalTokens = u.Total()
					if err := writeJSONLine(w, chatLine{ID: s.ID, Title: s.Title, ActiveBranch: s.ActiveBranch,
						Branches: s.Branches, Turns: s.Turns, Messages: s.Messages, Tokens: u.TotalTokens, Usage: u, CostUSD: s.CostUSD,
						CreatedAt: s.CreatedAt.UTC().Format(time.RFC3339Nano), UpdatedAt: s.UpdatedAt.UTC().Format(time.RFC3339Nano)}); err != nil {
						return err
					}
				}
				return w.Flush()
			}
			if len(list) == 0 {
				if search != "" {
					fmt.Fprintf(w, "no chats match %q\n", search)
				} else {
					fmt.Fprintln(w, "no chats yet")
				}
				return w.Flush()
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTITLE\tBRANCHES\tTURNS\tTOKENS\tCOST\tUPDATED")
			for i := range list {
				s := &list[i]
				title := oneLine(s.Title, 50)
				if title == "" {
					title = "(untitled)"
				}
				cost := "-"
				if s.CostUSD != nil {
					cost = formatUSD(*s.CostUSD)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\n", inert.VisibleLine(s.ID), title,
					s.Branches, s.Turns, s.Usage.Total(), cost, s.UpdatedAt.UTC().Format("2006-01-02 15:04:05"))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&search, "search", "", "keep the chats with a message holding every word of TEXT")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per chat, one per line")
	return cmd
}
