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
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/themes"
	"github.com/ctxlab/ctxlab/tui"
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
	f.StringVar(&wf.context, "context", "", "context file (default: ./ctxlab.ctx.yaml, else the built-in demo context)")
	f.StringVar(&wf.chat, "chat", "", "open this saved chat on its active branch")
	f.BoolVarP(&wf.cont, "continue", "c", false, "open the most recently updated chat")
	f.StringVar(&wf.theme, "theme", "auto", "colours: auto, dark, light or mono (NO_COLOR gives mono)")
	f.BoolVar(&wf.present, "present", false, presentHelp)

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
	p := tea.NewProgram(&firstFrame{Model: m, drawn: firstDrawn}, tea.WithAltScreen(), tea.WithMouseCellMotion(),
		tea.WithInput(a.stdin), tea.WithOutput(a.stdout), tea.WithContext(ctx))
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
	path, builtIn := wf.context, false
	var ws *ctxapp.Workspace // the database, when it was opened to read the recorded file
	if path == "" && !demo {
		path, ws = a.recordedContext(ctx, wf) // the file a saved chat was last used with
		if ws != nil {
			closers = append(closers, func() { ws.Close() })
		}
	}
	if path == "" && !demo {
		if _, err := os.Stat("ctxlab.ctx.yaml"); err == nil {
			path = "ctxlab.ctx.yaml"
		}
	}
	var demoDir string
	if path == "" || demo {
		dir, err := writeDemo()
		if err != nil {
			return opt, cleanup, err
		}
		closers = append(closers, func() { os.RemoveAll(dir) })
		demoDir = dir
		if path == "" {
			path, builtIn = filepath.Join(dir, "support.ctx.yaml"), true
		}
	}
	file, err := ctxfile.Load(path)
	if err != nil {
		return opt, cleanup, err // FILE:LINE:COL: message, exit 2
	}
	// The config file too (its keys: section, its profiles), offline: nothing is run.
	if _, err := ctxapp.ResolveSettings(a.workbenchModelFlags(), file, true); err != nil {
		return opt, cleanup, err
	}
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
		if err := playDemo(ctx, e, demoDir); err != nil {
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
	opt.Watch, opt.BuiltIn = !builtIn && !demo, builtIn || demo
	opt.Clipboard = a.stdout
	opt.ContextName = filepath.Base(path)
	if builtIn || demo {
		opt.ContextName = "built-in demo context"
	}
	if w, ok := ctxapp.ContextWindow(s.ModelName()); ok {
		opt.ContextWindow = w
	}
	return opt, cleanup, nil
}

// workbenchModelFlags are the model flags of the command line.
func (a *app) workbenchModelFlags() ctxapp.Flags {
	return ctxapp.Flags{Model: a.flags.model, BaseURL: a.flags.baseURL, APIKeyEnv: a.flags.apiKeyEnv,
		Profile: a.flags.profile, Config: a.flags.config, ConnectTimeout: a.flags.connectTimeout,
		FirstTokenTimeout: a.flags.firstTokenTimeout, IdleTimeout: a.flags.idleTimeout}
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
// (a View with the window's size known).
type firstFrame struct {
	tea.Model
	drawn func()
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
	return v
}
