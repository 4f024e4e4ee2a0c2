package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/themes"
	"github.com/ctxlab/ctxlab/tui"
	"github.com/ctxlab/ctxlab/tui/burst"
	"github.com/ctxlab/ctxlab/tui/keybind"
	"github.com/ctxlab/ctxlab/tui/pace"
)

// demoFS is the built-in demo: its context file (with the skills it references) and the
// scripts `ctxlab demo` plays.
//
//go:embed testdata/demo/support.ctx.yaml testdata/demo/schema.sql testdata/demo/skills testdata/demo/support.script.yaml testdata/demo/branching.script.yaml testdata/demo/continue/continue.script.yaml
var demoFS embed.FS

// demoChat is the chat `ctxlab demo` opens.
const demoChat = "demo-1"

// workbenchFlags are the flags of the workbench (ctxlab with no command, and demo).
type workbenchFlags struct {
	context string
	chat    string
	cont    bool
	theme   string
	present bool
}

// presentHelp documents --present.
const presentHelp = "presentation mode: the transcript starts empty, space plays the next turn, backspace steps back"

// notTerminalError is the workbench started without a terminal.
const notTerminalError = "the workbench needs a terminal on stdin and stdout; without one, use the headless commands: " +
	"run, replay, prompt, chats, branches, export, import, config, models (ctxlab help)"

// addWorkbench makes the root command open the workbench, and adds `ctxlab demo`.
func (a *app) addWorkbench(root *cobra.Command) {
	var wf workbenchFlags
	// root.Args stays cobra's default, which refuses an unknown command with suggestions.
	root.Long += "\n\nWith no command, ctxlab opens the workbench, the terminal UI; `ctxlab demo` opens it on a\n" +
		"demo chat. The commands below are the headless ones, for scripts and pipes."
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.workbench(cmd.Context(), wf, false)
	}
	f := root.Flags()
	f.StringVar(&wf.context, "context", "", "context file (default: for a saved chat the file it was last used with, else ./ctxlab.ctx.yaml, else none: a plain chat)")
	f.StringVar(&wf.chat, "chat", "", "open this saved chat on its active branch")
	f.BoolVarP(&wf.cont, "continue", "c", false, "open the most recently updated chat")
	f.StringVar(&wf.theme, "theme", "auto", "colours: auto, dark, light or mono (NO_COLOR gives mono)")
	f.BoolVar(&wf.present, "present", false, presentHelp)
	// Each fails only for an unknown flag.
	_ = root.RegisterFlagCompletionFunc("chat", a.completeChatIDs)
	_ = root.RegisterFlagCompletionFunc("theme", completeThemes)
	_ = root.MarkFlagFilename("context", "yaml", "yml")

	var df workbenchFlags
	demo := &cobra.Command{
		Use:   "demo",
		Short: "Open the workbench on the built-in demo chat (in memory: nothing is written)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.workbench(cmd.Context(), df, true)
		},
	}
	demo.Flags().StringVar(&df.theme, "theme", "auto", "colours: auto, dark, light or mono (NO_COLOR gives mono)")
	demo.Flags().BoolVar(&df.present, "present", false, presentHelp)
	_ = demo.RegisterFlagCompletionFunc("theme", completeThemes)
	root.AddCommand(demo, a.keysCommand())
}

// isTerminal reports whether r or w is a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// workbench opens the workbench (demo: the built-in demo chat, in memory).
func (a *app) workbench(ctx context.Context, wf workbenchFlags, demo bool) error {
	// A long-running program with a long chat open: keep the heap near what is live
	// instead of twice it (a 10,000-message chat keeps about 48 MB live: the process's
	// resident memory stays near 120 MB instead of 135). GOMEMLIMIT overrides.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(80 << 20)
	}
	collect := pauseCollector()
	defer collect()
	th, err := themes.ByName(wf.theme, os.Getenv("NO_COLOR") != "", lipgloss.HasDarkBackground)
	if err != nil {
		return &usageError{err.Error()}
	}
	opt, cleanup, err := a.openWorkbench(ctx, wf, demo)
	defer cleanup()
	if err != nil {
		return err
	}
	opt.Theme = th
	opt.Present = wf.present
	// The terminal's auto-wrap is off while the workbench runs, and on again however Run
	// ends (a line drawn wider than measured is cut, instead of scrolling the screen).
	_, _ = io.WriteString(a.stdout, tui.AutoWrapOff)
	defer io.WriteString(a.stdout, tui.AutoWrapOn)
	opt.AutoWrapOff = true
	drawn := make(chan struct{})
	opt.FirstFrame = drawn
	m := tui.New(opt)
	// The program draws a first frame before it reads the window's size: with the size
	// known, that frame is the whole screen, not an empty one followed by the screen.
	if f, ok := a.stdout.(*os.File); ok {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 && h > 0 {
			m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		}
	}
	firstDrawn := sync.OnceFunc(func() { collect(); close(drawn) })
	// Text that arrives in one burst reaches the workbench as a paste, never as keys
	// (tui/burst).
	input := a.stdin
	if f, ok := input.(*os.File); ok {
		input = burst.NewReader(f)
	}
	ff := &firstFrame{Model: m, drawn: firstDrawn}
	p := tea.NewProgram(ff, tea.WithAltScreen(), tea.WithMouseCellMotion(),
		tea.WithInput(input), tea.WithOutput(a.stdout), tea.WithContext(ctx),
		// The command's context ends on SIGINT, SIGTERM and SIGHUP (main.go), which ends
		// the program. Bubble Tea's own handler would race it for SIGINT and SIGTERM: when
		// the context won, its handler blocked for ever sending a quit that nothing read,
		// and the program never ended.
		tea.WithoutSignalHandler())
	ff.program = p
	m.Notify(p.Send) // a Markdown layout done off the UI goroutine redraws its turn
	_, err = p.Run()
	m.Close() // a reply cut short by the end of the program is saved, marked interrupted
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("workbench: %w", err)
	}
	return nil
}

// openWorkbench resolves the context file, the database, the model and the chat, and
// returns the workbench's options; cleanup removes what it made (always call it).
func (a *app) openWorkbench(ctx context.Context, wf workbenchFlags, demo bool) (tui.Options, func(), error) {
	var closers []func()
	cleanup := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	var opt tui.Options
	dbFlag := a.flags.db
	if demo {
		dbFlag = ":memory:"
	}
	st, err := a.workbenchStart(ctx, wf, demo, func(f func()) { closers = append(closers, f) })
	if err != nil {
		return opt, cleanup, err
	}
	choice, file, ws := st.choice, st.file, st.ws
	// Checked after the context and config files, so their errors are reported with or
	// without a terminal, and before anything is opened or written.
	if !isTerminal(a.stdin) || !isTerminal(a.stdout) {
		return opt, cleanup, &usageError{notTerminalError}
	}
	if ws == nil {
		if ws, err = ctxapp.Open(ctx, ctxapp.Options{DB: dbFlag, Flags: a.workbenchModelFlags()}); err != nil {
			return opt, cleanup, err
		}
		closers = append(closers, func() { ws.Close() })
	}
	s, err := ws.Settings(file, false)
	if err != nil {
		return opt, cleanup, err
	}
	model, err := ws.Model(ctx, &s)
	if err != nil {
		return opt, cleanup, err
	}
	e, err := ws.Engine(file, s)
	if err != nil {
		return opt, cleanup, err
	}
	id := wf.chat
	if id != "" && !demo { // an id, a unique prefix of one, or last
		if id, err = ws.ResolveChat(ctx, id); err != nil {
			return opt, cleanup, err
		}
	}
	if wf.cont && id == "" {
		if id, err = ws.LastChat(ctx); err != nil {
			return opt, cleanup, err
		}
		if id == "" {
			opt.Notice = "--continue: no chat is saved yet; this is a new chat"
		}
	}
	if demo {
		if err := playDemo(ctx, e, st.demoDir); err != nil {
			return opt, cleanup, fmt.Errorf("demo: %w", err)
		}
		id, opt.Badge = demoChat, "DEMO"
	}
	var c *ctxapp.Chat
	if id != "" {
		if c, err = ws.OpenChat(ctx, s, e, model, id); err != nil {
			return opt, cleanup, err
		}
	} else {
		c = ws.NewChat(s, e, model)
		if model == nil && opt.Notice == "" {
			if last, err := ws.LastChat(ctx); err == nil && last == "" {
				opt.Notice = "No model is configured: you write the replies (see ctxlab config). New here? `ctxlab demo` opens a demo chat."
			}
		}
	}
	opt.Chat = c
	opt.Keys = s.Keys // the config file's keys: section, checked when it was read
	opt.Library = workbenchLibrary(ws, s, model, file)
	opt.Watch, opt.BuiltIn = !demo, demo
	opt.Clipboard = a.stdout
	opt.ContextName = choice.Label()
	switch {
	case demo:
		opt.ContextName = "built-in demo context"
	case choice.Path == "":
		opt.Hint = plainChatHint(s)
	}
	if choice.Gone != "" && opt.Notice == "" {
		opt.Notice = fmt.Sprintf("The chat's context file %s is gone; using %s.", inert.DisplayLine(choice.Gone), inert.DisplayLine(choice.Label()))
	}
	if w, ok := ctxapp.ContextWindow(s.ModelName()); ok {
		opt.ContextWindow = w
	}
	return opt, cleanup, nil
}

// startContext is what the workbench starts on, resolved before it opens or writes
// anything: the context file chosen by the rule every command follows
// (ctxapp.ChooseContext), loaded, and the model settings under it, resolved offline.
// `ctxlab config` shows the same, so it names the model the workbench uses.
type startContext struct {
	choice   ctxapp.ContextChoice
	file     *ctxfile.File
	settings ctxapp.Settings
	// ws is the database when it was opened to read the file a saved chat was last used
	// with (nil otherwise); demoDir the copy of the built-in demo (demo only).
	ws      *ctxapp.Workspace
	demoDir string
}

// workbenchStart resolves the startContext of the workbench (demo: the built-in demo);
// closer receives what must be closed or removed once the workbench ends, even on error.
// A context or config file with errors is reported here (FILE:LINE:COL, exit 2).
func (a *app) workbenchStart(ctx context.Context, wf workbenchFlags, demo bool, closer func(func())) (startContext, error) {
	var st startContext
	if demo {
		dir, err := writeDemo()
		if err != nil {
			return st, err
		}
		closer(func() { os.RemoveAll(dir) })
		st.demoDir = dir
		st.choice = ctxapp.ContextChoice{Path: filepath.Join(dir, "support.ctx.yaml"), Source: ctxapp.ContextNamed}
	} else {
		st.choice = ctxapp.ChooseContext(wf.context, func() string {
			path, ws := a.recordedContext(ctx, wf) // the file a saved chat was last used with
			if ws != nil {
				closer(func() { ws.Close() })
			}
			st.ws = ws
			return path
		})
	}
	var err error
	if st.file, err = ctxapp.LoadContext(st.choice); err != nil {
		return st, err
	}
	// The config file too (its keys: section, its profiles), offline: nothing is run.
	st.settings, err = ctxapp.ResolveSettings(a.workbenchModelFlags(), st.file, true)
	return st, err
}

// plainChatHint is what the status line says while a chat with no context file is
// empty: what that means, and how to start a context file.
func plainChatHint(s ctxapp.Settings) string {
	hint := "No context file: a plain chat (no system prompt, no tools). `ctxlab init` writes a starter ./" +
		ctxapp.DefaultContextFile
	if k := keybind.Label(keybind.Apply(s.Keys)["reload"]); k != "" {
		hint += ", which " + k + " then loads"
	}
	return hint + "."
}

// workbenchModelFlags are the model flags of the command line.
func (a *app) workbenchModelFlags() ctxapp.Flags {
	return ctxapp.Flags{Model: a.flags.model, BaseURL: a.flags.baseURL, APIKeyEnv: a.flags.apiKeyEnv,
		Profile: a.flags.profile, Config: a.flags.config, ConnectTimeout: a.flags.connectTimeout,
		FirstTokenTimeout: a.flags.firstTokenTimeout, IdleTimeout: a.flags.idleTimeout, AllowHTTPKey: a.flags.allowHTTPKey}
}

// writeDemo writes the built-in demo to a new temp directory (the context loader reads
// the skills it references from disk) and returns it.
func writeDemo() (string, error) {
	dir, err := os.MkdirTemp("", "ctxlab-demo-")
	if err != nil {
		return "", fmt.Errorf("write the demo context: %w", err)
	}
	sub, err := fs.Sub(demoFS, "testdata/demo")
	if err == nil {
		err = os.CopyFS(dir, sub)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("write the demo context: %w", err)
	}
	return dir, nil
}

// playDemo plays the demo scripts into the engine's (in-memory) database: the support chat,
// then its continuation, which checkpoints it and branches it twice (an edit and a
// regenerate) before going on on main, so the chat the demo opens has versions to step
// through; and the branching demo, a chat of its own.
func playDemo(ctx context.Context, e *engine.Engine, dir string) error {
	for _, name := range []string{"support.script.yaml", filepath.Join("continue", "continue.script.yaml"), "branching.script.yaml"} {
		sc, err := script.Load(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		r := script.Runner{Engine: e}
		if _, err := r.Run(ctx, sc); err != nil {
			return err
		}
	}
	return nil
}

// pauseCollector turns the garbage collector off until the function it returns is called
// (once; later calls do nothing), unless GOGC sets it. Opening a long chat allocates its
// messages once, all live: collecting while they are read cost the first frame of a
// 10,000-message chat about a third of its time. The memory limit still holds: the
// collector runs when the heap nears it.
func pauseCollector() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(-1)
	return sync.OnceFunc(func() { debug.SetGCPercent(prev) })
}

// firstFrame is the workbench's model, which calls drawn once it has drawn its first frame
// (a View with the window's size known), and gives every frame to the pacer of the
// program's renderer, which stops its ticker while the screen is still (tui/pace).
type firstFrame struct {
	tea.Model
	drawn func()
	// program is the program to attach the pacer to, at the first View.
	program *tea.Program
	pacer   *pace.Pacer
}

// Update keeps the wrapper: the program would otherwise go on with the model Update
// returns.
func (f *firstFrame) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := f.Model.Update(msg)
	return f, cmd
}

// View draws the model's frame.
func (f *firstFrame) View() string {
	v := f.Model.View()
	if v != "" {
		f.drawn()
	}
	if f.pacer == nil && f.program != nil {
		// The renderer runs by now: Bubble Tea starts it before it asks for a view. A
		// renderer the pacer does not know goes on ticking, as before.
		f.pacer, _ = pace.Attach(f.program)
		f.program = nil
	}
	if f.pacer != nil {
		f.pacer.Frame()
	}
	return v
}
