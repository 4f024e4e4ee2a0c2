// Command ctxlab is a terminal workbench for context engineering: it chats with any
// OpenAI-compatible model and shows, for every turn, exactly what the model was sent and
// why. Run `ctxlab help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/llm/config"
)

func main() {
	// Ctrl-C, a stop (timeout, a container, CI) and a closed terminal all end a run the same
	// way: the reply that was streaming is saved, marked interrupted.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes of spec/headless.md.
const (
	exitOK      = 0
	exitFailure = 1
	exitInvalid = 2
)

// run executes the command line and returns the exit code: 0 success, 2 invalid input
// (FILE:LINE:COL: message on stderr, nothing written), 1 any other failure.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{stdin: stdin, stdout: stdout, stderr: stderr, terminal: fileTerminal}).execute(ctx, args)
}

// execute runs the command line on a's streams and returns the exit code (see run).
func (app *app) execute(ctx context.Context, args []string) int {
	stdout, stderr, stdin := app.stdout, app.stderr, app.stdin
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if diag.IsInvalidInput(err) {
		// FILE:LINE:COL: message at the start of every line, as editors expect.
		fmt.Fprintln(stderr, inert.Visible(err.Error()))
		return exitInvalid
	}
	// Errors quote servers, models and files: printed inert, never able to drive the terminal.
	fmt.Fprintln(stderr, "ctxlab: "+inert.Visible(err.Error()))
	var usage *usageError
	var appUsage *ctxapp.UsageError
	var setting *config.SettingError
	var ambiguous *ctxapp.AmbiguousChatError
	if errors.As(err, &usage) || errors.As(err, &appUsage) || errors.As(err, &setting) || errors.As(err, &ambiguous) || strings.HasPrefix(err.Error(), "unknown command ") {
		return exitInvalid // cobra's unknown command error has no type of its own
	}
	return exitFailure
}

// usageError is a bad command line (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// app holds what every command shares: the streams and the global flags.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	flags          globalFlags
	// terminal reports whether w is a terminal, and its width (nil: never one).
	terminal func(w io.Writer) (width int, ok bool)
}

// globalFlags are the flags every command accepts.
type globalFlags struct {
	db        string
	model     string
	baseURL   string
	apiKeyEnv string
	profile   string
	config    string
	// The client's timeouts; zero leaves them to the config file or the defaults.
	connectTimeout, firstTokenTimeout, idleTimeout time.Duration
	allowHTTPKey                                   bool
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "ctxlab",
		Short: "A terminal workbench for context engineering",
		Long: "ctxlab chats with any OpenAI-compatible model and shows, for every turn, exactly what the\n" +
			"model was sent and why: which reminders fired and the reason for each, the rendered system\n" +
			"prompt, the branches of the chat, and the token usage.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}

	root.PersistentPreRunE = checkFlags
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.db, "db", "", "chat database (default: ctxlab.db in the user's data directory; :memory: for none)")
	pf.StringVar(&a.flags.model, "model", "", "model name (overrides OPENAI_MODEL, the config file and the context file)")
	pf.StringVar(&a.flags.baseURL, "base-url", "", "OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1")
	pf.StringVar(&a.flags.apiKeyEnv, "api-key-env", "", "name of the environment variable that holds the API key")
	pf.StringVar(&a.flags.profile, "profile", "", "profile of the config file to use")
	pf.StringVar(&a.flags.config, "config", "", "config file (default: $CTXLAB_CONFIG, else ctxlab/config.yaml in the user's config directory)")
	pf.DurationVar(&a.flags.connectTimeout, "connect-timeout", 0, "limit on connecting to the model server (default: the profile's connect_timeout, else 10s)")
	pf.DurationVar(&a.flags.firstTokenTimeout, "first-token-timeout", 0, "limit on the wait for the first token (default: the profile's first_token_timeout, else 60s)")
	pf.DurationVar(&a.flags.idleTimeout, "idle-timeout", 0, "limit on a silence mid-stream (default: the profile's idle_timeout, else 30s)")
	pf.BoolVar(&a.flags.allowHTTPKey, "allow-http-key", false, "send the API key over plain http to another machine (default: only to this one; or the profile's allow_http_key)")
	root.AddCommand(a.promptCommand(), a.runCommand(), a.replayCommand(), a.configCommand(), a.modelsCommand(),
		a.chatsCommand(), a.branchesCommand(), a.exportCommand(), a.importCommand(), a.askCommand(),
		a.versionCommand(), a.initCommand())
	root.Version = buildVersion()
	root.SetVersionTemplate("{{.Version}}\n")
	a.addWorkbench(root) // ctxlab with no command, and ctxlab demo
	return root
}

// exactArgs is cobra.ExactArgs with a usage error (exit code 2).
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return &usageError{err.Error()}
		}
		return nil
	}
}
