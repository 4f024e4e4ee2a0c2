package script

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/diag"
)

// Check finds the problems of a script that need no chat to see: scripted tool calls of
// tools the context file does not declare (a nil file declares none), and turns that ask a
// model when none is configured. Steps that cannot be done on the chat (an unknown
// checkpoint, a turn that does not exist) are found by a dry run: see Runner.
func Check(s *Script, file *ctxfile.File, modelConfigured bool) error {
	var errs diag.List
	for i := range s.Steps {
		st := &s.Steps[i]
		asks := st.Kind == StepTurn || st.Kind == StepEdit || st.Kind == StepRegenerate
		if asks && st.Reply == nil && !modelConfigured {
			errs = append(errs, diag.Errorf(s.Path, st.Line, st.Col,
				"%s step has no scripted assistant reply and no model is configured (set --base-url or OPENAI_API_KEY, or add assistant:)", st.Kind))
		}
		if st.Reply == nil {
			continue
		}
		for j, t := range st.Reply.Tools {
			if file == nil || file.Tool(t.Name) == nil {
				pos := st.Reply.ToolsAt[j]
				errs = append(errs, diag.Errorf(s.Path, pos.Line, pos.Col, "tool %q is not declared in %s%s",
					t.Name, contextName(file), diag.DidYouMean(t.Name, toolNames(file))))
			}
		}
	}
	return errs.Err()
}

// contextName names the context file in messages.
func contextName(f *ctxfile.File) string {
	if f == nil {
		return "the context file"
	}
	return f.Path
}

func toolNames(f *ctxfile.File) []string {
	if f == nil {
		return nil
	}
	out := make([]string, len(f.Tools))
	for i, t := range f.Tools {
		out[i] = t.Name
	}
	return out
}

// Runner plays a script on an engine.
type Runner struct {
	Engine *engine.Engine
	// Model answers turns without a scripted reply (nil: such turns fail).
	Model engine.Replier
	// OnTurn is called after each turn (and regenerated reply) is saved.
	OnTurn func(st *Step, res *engine.TurnResult)
	// OnUnsaved is called with a turn whose reply came but could not be saved (the run
	// then ends with the error), so that the reply is not lost.
	OnUnsaved func(st *Step, res *engine.TurnResult)
	// OnStep is called after each branch operation, with a line describing it.
	OnStep func(st *Step, what string)
	// OnEvent, when not nil, receives the events of each turn as it runs (engine.Event),
	// with the id of the script's chat.
	OnEvent func(st *Step, chatID string, ev engine.Event)
	// PlanAhead plans each turn that follows a turn while the one before it commits
	// (engine.WithNext): the other core's work with a database file, whose commits take
	// most of a turn; nothing gained with a store in memory.
	PlanAhead bool
	// OnNotice, when not nil, receives what a user may not expect, as a line to show
	// (nothing of it goes into the traces): a script continuing a saved chat (st nil), a
	// step whose clock is earlier than the user message before it on its branch.
	OnNotice func(st *Step, msg string)
}

// Run opens the script's chat (creating it when it does not exist, continuing it on its
// active branch when it does) and plays the steps. A step that cannot be done on the chat
// is a *diag.Error at the step. It returns the session, also when a step failed.
func (r *Runner) Run(ctx context.Context, s *Script) (*engine.Session, error) {
	sess, err := r.open(ctx, s)
	if err != nil {
		return nil, err
	}
	if sess.Saved() {
		r.notice(nil, "continuing chat %s at turn %d on branch %s", sess.Chat().ID, sess.TurnCount()+1, sess.Branch())
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		if err := ctx.Err(); err != nil { // a long script answers a signal at the next step
			return sess, fmt.Errorf("%s:%d:%d: %s: %w", s.Path, st.Line, st.Col, st.Kind, err)
		}
		r.checkClock(s, sess, st)
		var next *Step
		if i+1 < len(s.Steps) {
			next = &s.Steps[i+1]
		}
		if err := r.step(ctx, sess, st, next); err != nil {
			if errors.Is(err, chat.ErrNotFound) || errors.Is(err, chat.ErrInvalid) {
				return sess, diag.Errorf(s.Path, st.Line, st.Col, "%s: %v", st.Kind, err)
			}
			return sess, fmt.Errorf("%s:%d:%d: %s: %w", s.Path, st.Line, st.Col, st.Kind, err)
		}
	}
	return sess, nil
}

func (r *Runner) open(ctx context.Context, s *Script) (*engine.Session, error) {
	if s.Chat.ID != "" {
		sess, err := r.Engine.Open(ctx, s.Chat.ID)
		if err == nil {
			return sess, nil
		}
		if !errors.Is(err, chat.ErrNotFound) {
			return nil, err
		}
	}
	title := s.Chat.Title
	if title == "" && len(s.Steps) > 0 {
		title = firstUser(s)
	}
	c := chat.Chat{ID: s.Chat.ID, Title: title, Metadata: s.Chat.Metadata}
	if len(s.Steps) > 0 {
		c.CreatedAt = s.Steps[0].At // the script's clock, when it sets one (else now)
	}
	return r.Engine.Start(c), nil // saved with its first turn: a failed first turn leaves no chat
}

// firstUser is the title a chat gets from its first user message.
func firstUser(s *Script) string {
	for _, st := range s.Steps {
		if st.User != "" {
			return chat.TitleFrom(st.User)
		}
	}
	return ""
}

func (r *Runner) replier(st *Step) engine.Replier {
	if st.Reply == nil {
		return r.Model
	}
	sc := &engine.Scripted{Text: st.Reply.Text, Usage: st.Reply.Usage}
	for _, t := range st.Reply.Tools {
		sc.Tools = append(sc.Tools, engine.ScriptedTool{Name: t.Name, Input: t.Input, Output: t.Output, Error: t.Error, Failed: t.Failed})
	}
	return sc
}

// input is the user input a turn or edit step sends.
func input(st *Step) engine.UserInput {
	return engine.UserInput{Text: st.User, At: st.At, Locale: st.Locale}
}

// step plays st; next is the step after it (nil for the last): with PlanAhead, a turn
// that follows a turn is planned while the one before it commits.
func (r *Runner) step(ctx context.Context, sess *engine.Session, st, next *Step) error {
	rep := r.replier(st)
	if rep == nil && (st.Kind == StepTurn || st.Kind == StepEdit || st.Kind == StepRegenerate) {
		return errors.New("no scripted reply and no model configured")
	}
	in := input(st)
	var opts []engine.SendOption
	if r.OnEvent != nil {
		opts = append(opts, engine.WithEvents(func(ev engine.Event) { r.OnEvent(st, sess.Chat().ID, ev) }))
	}
	if r.PlanAhead && next != nil && next.Kind == StepTurn {
		opts = append(opts, engine.WithNext(input(next)))
	}
	var res *engine.TurnResult
	var err error
	switch st.Kind {
	case StepTurn:
		res, err = sess.Send(ctx, in, rep, opts...)
	case StepEdit:
		res, err = sess.Edit(ctx, st.Turn, in, rep, opts...)
	case StepRegenerate:
		res, err = sess.Regenerate(ctx, rep, st.At, opts...)
	case StepCheckpoint:
		err = sess.Checkpoint(ctx, st.Name)
		r.note(st, err, "checkpoint %s at %s", st.Name, sess.Branch())
	case StepRestore:
		err = sess.Restore(ctx, st.Name)
		r.note(st, err, "restored checkpoint %s: now on branch %s", st.Name, sess.Branch())
	case StepSwitch:
		err = sess.Switch(ctx, st.Name)
		turns := "turns"
		if sess.TurnCount() == 1 {
			turns = "turn"
		}
		r.note(st, err, "switched to branch %s (%d %s)", st.Name, sess.TurnCount(), turns)
	case StepRewind:
		err = sess.Rewind(ctx, st.Turn)
		r.note(st, err, "rewound to turn %d: now on branch %s", st.Turn, sess.Branch())
	}
	if res != nil && r.OnTurn != nil {
		r.OnTurn(st, res)
	}
	var unsaved *engine.UnsavedError
	if res == nil && errors.As(err, &unsaved) && r.OnUnsaved != nil {
		r.OnUnsaved(st, unsaved.Result)
	}
	return err
}

func (r *Runner) notice(st *Step, format string, args ...any) {
	if r.OnNotice != nil {
		r.OnNotice(st, fmt.Sprintf(format, args...))
	}
}

// checkClock gives a notice when a turn or edit sets a clock earlier than the message
// before it on its branch: the chat's time would go backwards.
func (r *Runner) checkClock(s *Script, sess *engine.Session, st *Step) {
	if r.OnNotice == nil || st.At.IsZero() || (st.Kind != StepTurn && st.Kind != StepEdit) {
		return
	}
	path := sess.Messages()
	before := len(path) // a turn follows the branch's last message
	if st.Kind == StepEdit {
		before = -1
		n := 0
		for i, m := range path {
			if m.Role == chat.RoleUser {
				if n++; n == st.Turn {
					before = i
					break
				}
			}
		}
	}
	// The clock to compare with is the last user message's: a live reply is stamped with the
	// wall clock, which a script's clocks are not meant to follow.
	last := -1
	for i := before - 1; i >= 0 && last < 0; i-- {
		if path[i].Role == chat.RoleUser {
			last = i
		}
	}
	if last < 0 {
		return
	}
	prev := path[last].CreatedAt
	if st.At.Before(prev) {
		r.notice(st, "%s:%d:%d: warning: at: %s is earlier than the user message before it on branch %s (%s)",
			s.Path, st.Line, st.Col, engine.FormatTime(st.At), sess.Branch(), engine.FormatTime(prev))
	}
}

func (r *Runner) note(st *Step, err error, format string, args ...any) {
	if err == nil && r.OnStep != nil {
		r.OnStep(st, fmt.Sprintf(format, args...))
	}
}
