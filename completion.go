package main

import (
	"strings"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/format"
	"github.com/ctxlab/ctxlab/engine/inert"
)

// completeChatIDs completes a chat id (the first argument of replay, branches and export,
// ask --chat and the workbench's --chat): the saved chats whose id starts with what is typed, most recently
// updated first, each described by its title; "last" too. A database that cannot be
// opened completes nothing, and never creates one.
func (a *app) completeChatIDs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 && cmd.Flags().Lookup("chat") == nil { // the argument is given already
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	w, err := ctxapp.OpenSaved(cmd.Context(), a.options())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer w.Close()
	list, err := w.Chats(cmd.Context(), "")
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	if strings.HasPrefix("last", toComplete) && len(list) > 0 {
		out = append(out, cobra.CompletionWithDesc("last", "the most recently updated chat"))
	}
	for _, c := range list {
		if strings.HasPrefix(c.ID, toComplete) {
			out = append(out, cobra.CompletionWithDesc(c.ID, inert.VisibleLine(c.Title)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeThemes completes the workbench's --theme.
func completeThemes(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, t := range [][2]string{
		{"auto", "dark or light, from the terminal's background"},
		{"dark", "for a dark background"},
		{"light", "for a light background"},
		{"mono", "no colour (as NO_COLOR)"},
	} {
		if strings.HasPrefix(t[0], toComplete) {
			out = append(out, cobra.CompletionWithDesc(t[0], t[1]))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeFormats completes export's --format.
func completeFormats(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []cobra.Completion{
		cobra.CompletionWithDesc(format.JSON, "the whole chat, lossless"),
		cobra.CompletionWithDesc(format.Markdown, "a readable transcript of the active branch"),
		cobra.CompletionWithDesc(format.OpenAI, "the active branch as OpenAI messages"),
	}, cobra.ShellCompDirectiveNoFileComp
}
