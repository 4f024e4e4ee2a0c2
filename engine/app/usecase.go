package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/script"
	"github.com/ctxlab/ctxlab/llm/tokens"
)

// LoadSettings resolves the model settings under flags, with the model block of the
// context file at contextPath when it is not "" (see ResolveSettings).
func LoadSettings(flags Flags, contextPath string, offline bool) (Settings, error) {
	var file *ctxfile.File
	if contextPath != "" {
		f, err := ctxfile.Load(contextPath)
		if err != nil {
			return Settings{}, err
		}
		file = f
	}
	return ResolveSettings(flags, file, offline)
}

// ErrNoServer is asking a model server when none is configured: for its models, or for a
// reply in a chat with no model.
var ErrNoServer = errors.New("no model server is configured: set --base-url or OPENAI_API_KEY, or a config profile (see ctxlab config)")

// ServerModels lists the models the server the flags configure offers (ErrNoServer when
// none is configured). A failure of the server is an error beginning "model: ".
func ServerModels(ctx context.Context, flags Flags) ([]string, error) {
	s, err := ResolveSettings(flags, nil, false)
	if err != nil {
		return nil, err
	}
	if !s.Configured() {
		return nil, ErrNoServer
	}
	names, err := Models(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return names, nil
}

// PromptResult is a first turn planned and not sent: what `ctxlab prompt` shows.
type PromptResult struct {
	// Context is the context file chosen (ChooseContext); File is it loaded.
	Context ContextChoice
	File    *ctxfile.File
	Plan    *engine.Plan
	Trace   engine.Trace
}

// Prompt plans the first turn of a new chat, with user as the user's text, at the RFC
// 3339 time at ("": now), offline: nothing is sent or saved. The context file is
// contextPath, else the one ChooseContext picks for a new chat (./ctxlab.ctx.yaml, else
// none: an empty system prompt and no decisions). A malformed at is a *UsageError.
func Prompt(ctx context.Context, flags Flags, contextPath, user, at string) (*PromptResult, error) {
	choice := ChooseContext(contextPath, nil)
	file, err := LoadContext(choice)
	if err != nil {
		return nil, err
	}
	settings, err := ResolveSettings(flags, file, true)
	if err != nil {
		return nil, err
	}
	eng, err := NewEngine(file, engine.NewMemStore(nil), settings, nil)
	if err != nil {
		return nil, err
	}
	sess, err := eng.Create(ctx, chat.Chat{ID: "prompt"})
	if err != nil {
		return nil, err
	}
	in := engine.UserInput{Text: user}
	if at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return nil, &UsageError{fmt.Sprintf("--at %q is not an RFC 3339 time like 2026-03-27T14:30:00Z", at)}
		}
		in.At = t
	}
	plan := sess.Preview(in)
	return &PromptResult{Context: choice, File: file, Plan: plan, Trace: engine.PlanTrace("", plan)}, nil
}

// ReplayStats counts what a replay walked.
type ReplayStats struct {
	Turns int
	// Changed counts the decisions a re-evaluation changed or removed.
	Changed int
}

// Replay walks the active branch of a saved chat in the database opt names and calls fn
// with each turn's trace: as recorded when contextPath is "", else re-evaluated under the
// context file at contextPath (engine.Replay). chatID may be a unique prefix or "last"
// (Workspace.ResolveChat). It never writes to the chat; a database
// that does not exist is a *NoDatabaseError.
func Replay(ctx context.Context, opt Options, chatID, contextPath string, fn func(*engine.Trace) error) (ReplayStats, error) {
	var stats ReplayStats
	file := &ctxfile.File{Renderer: replayFile.Renderer}
	if contextPath != "" {
		f, err := ctxfile.Load(contextPath)
		if err != nil {
			return stats, err
		}
		file = f
	}
	settings, err := ResolveSettings(opt.Flags, file, true)
	if err != nil {
		return stats, err
	}
	w, err := OpenSaved(ctx, opt)
	if err != nil {
		return stats, err
	}
	defer w.Close()
	if chatID, err = w.ResolveChat(ctx, chatID); err != nil {
		return stats, err
	}
	eng, err := w.Engine(file, settings)
	if err != nil {
		return stats, err
	}
	err = eng.Replay(ctx, chatID, contextPath != "", func(t *engine.Trace) error {
		stats.Turns++
		for _, d := range t.Decisions {
			if d.Was != nil {
				stats.Changed++
			}
		}
		stats.Changed += len(t.Removed)
		return fn(t)
	})
	return stats, err
}

// Branches returns a saved chat and its branches with their turn counts and heads.
func (w *Workspace) Branches(ctx context.Context, chatID string) (chat.Chat, []chat.BranchInfo, error) {
	c, err := w.db.Chat(ctx, chatID)
	if err != nil {
		return chat.Chat{}, nil, err
	}
	list, err := w.db.Branches(ctx, c.ID)
	if err != nil {
		return chat.Chat{}, nil, err
	}
	return c, list, nil
}

// ScriptRun is a script to play (`ctxlab run`).
type ScriptRun struct {
	// Path is the script file, or, when Data is not nil, the name its errors give it
	// ("<stdin>"): a context file it names is then resolved against the working directory.
	Path string
	// Data is the script's text when it is not read from Path (a script on stdin).
	Data []byte
	// Context is the context file; "" takes the script's context:.
	Context string
	// OnTurn is called after each turn (and regenerated reply) is saved; OnStep after each
	// branch operation, with a line describing it. Either may be nil.
	OnTurn func(st *script.Step, res *engine.TurnResult)
	// OnUnsaved is called with a turn whose reply came but could not be saved; the run then
	// ends with the error.
	OnUnsaved func(st *script.Step, res *engine.TurnResult)
	OnStep    func(st *script.Step, what string)
	// OnEvent, when not nil, receives each turn's events as it runs (script.Runner's
	// OnEvent): what a streaming output prints as the reply arrives.
	OnEvent func(st *script.Step, chatID string, ev engine.Event)
	// OnNotice, when not nil, receives the script runner's notices (script.Runner's
	// OnNotice): continuing a saved chat, a clock going backwards.
	OnNotice func(st *script.Step, msg string)
}

// ScriptResult is a script played.
type ScriptResult struct {
	// Session is the script's chat, on the branch the script left active.
	Session *engine.Session
	// RunCost is the cost of the turns this run sent; RunPriced is false when none had a
	// price.
	RunCost   float64
	RunPriced bool
	// ChatCost is the cost of the whole chat (every branch, every run); ChatPriced is
	// false when the price of some model it used is unknown.
	ChatCost   float64
	ChatPriced bool
	// DBPath is the database the chat was saved in.
	DBPath string
}

// RunScript plays a script: it loads it and its context file, resolves the settings (a
// script whose turns all have scripted replies resolves them offline), checks the script
// against the file and the settings, names the server's model when a turn needs it and no
// setting names one, then plays the script in memory over the database (a dry run: a step
// that cannot be done is found before anything is sent or written), and only then for
// real. Problems of the script are *diag.Error at their step; nothing is written when
// there is one.
func RunScript(ctx context.Context, opt Options, r ScriptRun) (*ScriptResult, error) {
	data := r.Data
	if data == nil {
		var err error
		if data, err = script.Read(r.Path); err != nil {
			return nil, err
		}
	}
	// The context file loads while the script parses, from the path the script most
	// likely names; the parse decides, and a wrong guess is loaded again.
	guess := r.Context
	if guess == "" {
		guess = script.ContextHint(r.Path, data)
	}
	var early chan loadedContext
	if guess != "" {
		early = make(chan loadedContext, 1)
		go func() {
			f, err := ctxfile.Load(guess)
			early <- loadedContext{f, err}
		}()
	}
	// The vocabulary takes longer to load than the files take to parse (16-20 ms): it
	// starts loading now, after the context file (which the other core takes first), for
	// the encoding the flags and the config file name; a context file that names another
	// model has its own loaded once it is read.
	go func() {
		if s, err := ResolveSettings(opt.Flags, nil, true); err == nil {
			tokens.Preload(s.Counter().Encoding())
		}
	}()
	sc, err := script.Parse(r.Path, data)
	if err != nil {
		return nil, err
	}
	named := r.Context
	if named == "" {
		named = sc.Context
		if _, err := os.Stat(named); named != "" && errors.Is(err, fs.ErrNotExist) {
			return nil, diag.Errorf(sc.Path, sc.ContextAt.Line, sc.ContextAt.Col, "context: %s: no such file", named)
		}
	}
	// A script that names no file plays under the one rule of every command: the file
	// the chat it continues was last used with, else ./ctxlab.ctx.yaml, else none.
	choice := ChooseContext(named, func() string { return savedChatContext(ctx, opt, sc.Chat.ID, false) })
	contextPath := choice.Path
	var file *ctxfile.File
	if early != nil && contextPath == guess {
		l := <-early
		file, err = l.file, l.err
	} else {
		file, err = LoadContext(choice)
	}
	if err != nil {
		return nil, err
	}
	asks := NeedsModel(sc)
	settings, err := ResolveSettings(opt.Flags, file, !asks)
	if err != nil {
		return nil, err
	}
	if err := script.Check(sc, file, settings.Configured()); err != nil {
		return nil, err
	}
	// The vocabulary loads while the database opens and the dry run plays.
	tokens.Preload(settings.Counter().Encoding())
	if asks && settings.Configured() && !settings.Model.IsSet() {
		if err := NameServerModel(ctx, &settings); err != nil {
			return nil, err
		}
	}
	w, err := Open(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer w.Close()

	dry, err := newEngine(dryRunFile(file), engine.NewMemStore(w.db), settings, opt.Now, nil)
	if err != nil {
		return nil, err
	}
	dryRun := script.Runner{Engine: dry, Model: &engine.Scripted{Text: "(dry run)"}}
	if _, err := dryRun.Run(ctx, sc); err != nil {
		if diag.IsInvalidInput(err) {
			return nil, err
		}
		return nil, fmt.Errorf("checking the script: %w", err)
	}

	eng, err := w.Engine(file, settings)
	if err != nil {
		return nil, err
	}
	res := &ScriptResult{DBPath: w.DBPath()}
	// The chat's cost is summed over its turns when it can have one: when the chat was
	// saved before the run, or when the run sent a turn to a model. A new chat of scripted
	// turns has none (another process writing to it meanwhile may have added some: its
	// cost shows the next time).
	costly := false
	if sc.Chat.ID != "" {
		_, err := w.db.Chat(ctx, sc.Chat.ID)
		costly = err == nil
	}
	runner := script.Runner{Engine: eng, Model: LiveModel(settings), PlanAhead: true, OnStep: r.OnStep, OnEvent: r.OnEvent, OnNotice: r.OnNotice,
		OnUnsaved: r.OnUnsaved}
	runner.OnTurn = func(st *script.Step, tr *engine.TurnResult) {
		if _, priced := tr.Turn.Priced(); priced {
			costly = true
		}
		if usd := tr.CostUSD(); usd != nil {
			res.RunCost += *usd
			res.RunPriced = true
		}
		if r.OnTurn != nil {
			r.OnTurn(st, tr)
		}
	}
	res.Session, err = runner.Run(ctx, sc)
	if sess := res.Session; sess != nil && sess.Saved() {
		// The workbench opens a chat on the context file it was last used with.
		if rerr := recordChatContext(ctx, w, sess.Chat().ID, contextPath); err == nil {
			err = rerr
		}
	}
	if err != nil {
		return nil, err
	}
	if !costly {
		return res, nil
	}
	if usd, known, err := w.ChatCost(ctx, settings, res.Session.Chat().ID); err == nil {
		res.ChatCost, res.ChatPriced = usd, known
	}
	return res, nil
}

// savedChatContext is the context file recorded on the saved chat ref names in the
// database opt names: the chat with that id, or with resolve, also a unique prefix of one
// or last (Workspace.ResolveChat). It is "" when ref is "", or when the database or the
// chat cannot be read (opening the chat then says why). Nothing is created.
func savedChatContext(ctx context.Context, opt Options, ref string, resolve bool) string {
	if ref == "" {
		return ""
	}
	w, err := OpenSaved(ctx, opt)
	if err != nil {
		return ""
	}
	defer w.Close()
	if resolve {
		if ref, err = w.ResolveChat(ctx, ref); err != nil {
			return ""
		}
	}
	return w.RecordedContext(ctx, ref)
}

// loadedContext is a context file loaded on another goroutine.
type loadedContext struct {
	file *ctxfile.File
	err  error
}

// dryRunFile is the context file a script's dry run plays under: the file without what
// only decides and renders a turn (reminders, instructions, modes, fragments, skills). A
// dry run looks for the steps the chat cannot do, which depend on the script and the chat
// alone; the decisions it would make are thrown away, so it makes none. Its engine counts
// tokens roughly (a nil counter), for the same reason.
func dryRunFile(f *ctxfile.File) *ctxfile.File {
	dry := *f
	dry.System, dry.Skills, dry.SkillIndex, dry.Classifiers = nil, nil, nil, nil
	dry.Modes, dry.Instructions, dry.Reminders = nil, nil, nil
	return &dry
}

// NeedsModel reports whether some step of the script asks the model.
func NeedsModel(sc *script.Script) bool {
	for _, st := range sc.Steps {
		switch st.Kind {
		case script.StepTurn, script.StepEdit, script.StepRegenerate:
			if st.Reply == nil {
				return true
			}
		}
	}
	return false
}
