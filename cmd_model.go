package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/llm/config"
	"github.com/ctxlab/ctxlab/store"
)

func (a *app) configCommand() *cobra.Command {
	var contextPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the resolved model settings and where each came from (the API key masked)",
		Long: "config prints the settings a new chat of the workbench (or ask, prompt, run) would use:\n" +
			"the context file, chosen as every command chooses it (--context, else ./ctxlab.ctx.yaml,\n" +
			"else none: a plain chat), the model settings under it and where each came from, the\n" +
			"config file it looked at and the chat database.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var closers []func()
			defer func() {
				for _, c := range closers {
					c()
				}
			}()
			// The workbench's own start: the same context file, so the same model.
			st, err := a.workbenchStart(cmd.Context(), workbenchFlags{context: contextPath}, false, func(f func()) { closers = append(closers, f) })
			if err != nil {
				return err
			}
			lines := append(st.settings.Lines(), contextLine(st.choice))
			lines = append(lines, a.fileLines()...)
			if asJSON {
				for _, l := range lines {
					if err := writeJSONLine(a.stdout, l); err != nil {
						return err
					}
				}
				return nil
			}
			fmt.Fprint(a.stdout, inert.Visible(config.DescribeLines(lines))) // values come from files and the environment
			return nil
		},
	}
	cmd.Flags().StringVar(&contextPath, "context", "", "context file (default: ./ctxlab.ctx.yaml, else none), whose model block is read")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per setting")
	return cmd
}

// contextLine is the context file of `ctxlab config`: the one a new chat would use.
func contextLine(c ctxapp.ContextChoice) config.Line {
	switch c.Source {
	case ctxapp.ContextNamed:
		return config.Line{Key: "context_file", Value: c.Path, Source: "flag --context"}
	case ctxapp.ContextDefault:
		return config.Line{Key: "context_file", Value: c.Path, Source: "found in the working directory"}
	case ctxapp.ContextRecorded:
		return config.Line{Key: "context_file", Value: c.Path, Source: "the file the chat was last used with"}
	}
	return config.Line{Key: "context_file", Value: "none: a plain chat (no system prompt, no tools)",
		Source: "no --context, no ./" + ctxapp.DefaultContextFile + " (ctxlab init writes one)"}
}

// fileLines are the files `ctxlab config` names: the config file it looked at and the
// chat database, each marked when it does not exist.
func (a *app) fileLines() []config.Line {
	exists := func(path string) string {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return path + " (not there)"
		}
		return path
	}
	path, source := config.FilePath(a.flags.config)
	cfg := config.Line{Key: "config_file", Value: "(none: no config directory)", Source: source}
	if path != "" {
		cfg.Value = exists(path)
	}
	db := config.Line{Key: "database", Source: "default"}
	switch {
	case a.flags.db != "":
		db.Source = "flag --db"
	case os.Getenv("CTXLAB_DB") != "":
		db.Source = "env CTXLAB_DB"
	}
	p, err := ctxapp.DBPath(a.flags.db)
	switch {
	case err != nil:
		db.Value = "(none: " + err.Error() + ")"
	case p == store.Memory:
		db.Value = p + " (kept nowhere)"
	default:
		db.Value = exists(p)
	}
	return []config.Line{cfg, db}
}

func (a *app) modelsCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the models the configured server offers",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			names, err := ctxapp.ServerModels(cmd.Context(), a.modelFlags())
			if err != nil {
				return err
			}
			for _, n := range names {
				if asJSON {
					if err := writeJSONLine(a.stdout, struct {
						ID string `json:"id"`
					}{n}); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintln(a.stdout, inert.VisibleLine(n)) // the server's ids, untrusted
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per model ({\"id\": …}), one per line")
	return cmd
}
