package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Branches lists the chat's branches with their turn counts and heads.
func (s *Session) Branches(ctx context.Context) ([]chat.BranchInfo, error) {
	return s.e.store.Branches(ctx, s.chat.ID)
}

// NextBranchName returns the name of a new branch made from branch from: from-vK with the
// smallest K >= 2 not yet taken (main-v2, main-v3, and from main-v2: main-v2-v2).
func NextBranchName(from string, taken []string) string {
	used := map[string]bool{}
	for _, t := range taken {
		used[t] = true
	}
	for k := 2; ; k++ {
		name := from + "-v" + strconv.Itoa(k)
		if !used[name] {
			return name
		}
	}
}

// newBranchName returns the name of a new branch made from branch from.
func (s *Session) newBranchName(ctx context.Context, from string) (string, error) {
	list, err := s.Branches(ctx)
	if err != nil {
		return "", fmt.Errorf("list branches: %w", err)
	}
	names := make([]string, len(list))
	for i, b := range list {
		names[i] = b.Name
	}
	return NextBranchName(from, names), nil
}

// maxNameTries bounds the names onNewBranch tries.
const maxNameTries = 10

// onNewBranch calls create with the name of a new branch made from branch from, and again
// with the next free name while another writer takes the name first (create returns
// ErrConflict), up to maxNameTries names.
func (s *Session) onNewBranch(ctx context.Context, from string, create func(name string) error) error {
	for try := 1; ; try++ {
		name, err := s.newBranchName(ctx, from)
		if err != nil {
			return err
		}
		err = create(name)
		if !errors.Is(err, chat.ErrConflict) || try == maxNameTries {
			return err
		}
	}
}

// userTurn returns the index on the path of turn n's user message.
func (s *Session) userTurn(n int) (int, error) {
	if n < 1 || n > len(s.view.users) {
		return 0, opError(ErrNotFound, "turn %d does not exist on branch %s (it has %s)", n, s.view.name, plural(len(s.view.users), "turn"))
	}
	return s.view.indexOf(s.view.users[n-1].ID), nil
}

// Edit replaces turn n's user message: a new branch from its parent, switched to, where
// the edited message is sent as a new turn. opts may deliver the turn's events
// (WithEvents).
func (s *Session) Edit(ctx context.Context, n int, in UserInput, r Replier, opts ...SendOption) (*TurnResult, error) {
	idx, err := s.userTurn(n)
	if err != nil {
		return nil, err
	}
	name, err := s.newBranchName(ctx, s.view.name)
	if err != nil {
		return nil, err
	}
	old := s.view
	parent := old.path[idx].ParentID
	s.view = old.prefix(name, idx)
	p := s.planToSend(in)
	nb := &chat.Branch{Name: name, Head: parent, Parent: old.name, CreatedAt: p.At}
	res, err := s.finish(ctx, p, r, nb, false, sendOptions(opts))
	if res == nil {
		s.view = old
		return nil, err
	}
	s.setView(s.view)
	return res, err
}

// Regenerate asks again for the last reply of the branch: a new sibling of the last
// assistant message, on a new branch, switched to. The request and decisions are those of
// the turn it regenerates; a reply the chat holds no record of (a chat imported from
// OpenAI messages) gets the request Replay shows for it, rebuilt from the messages. at is
// the clock of the new reply (zero: now). opts may deliver the turn's events
// (WithEvents).
func (s *Session) Regenerate(ctx context.Context, r Replier, at time.Time, opts ...SendOption) (*TurnResult, error) {
	turn, uidx, err := s.lastTurn(ctx)
	if err != nil {
		return nil, err
	}
	var ds []Decision
	if len(turn.Decisions) > 0 {
		if err := json.Unmarshal(turn.Decisions, &ds); err != nil {
			return nil, fmt.Errorf("read the decisions of turn %d: %w", turn.Number, err)
		}
	}
	name, err := s.newBranchName(ctx, s.view.name)
	if err != nil {
		return nil, err
	}
	if at.IsZero() {
		at = s.e.now()
	}
	old := s.view
	user := old.path[uidx]
	s.view = old.prefix(name, uidx)
	p := &Plan{Turn: turn.Number, Branch: name, At: at, User: *user, SystemPrompt: turn.Request.SystemPrompt,
		SystemInject: turn.Request.SystemInject, Decisions: ds, fired: turn.Fired, chatUsage: turn.Request.ChatUsage,
		Estimate: Estimate{Total: turn.Estimated.PromptTokens}, totalOnly: true, contextDigest: turn.ContextDigest}
	p.Request = s.rebuild(turn, user)
	switch {
	case turn.ID == "": // not recorded: no estimate either; the tools are the file's
		p.Estimate.Total = requestTokens(s.e.cache.count, &p.Request)
		p.contextDigest = s.e.digest
	case turn.Request.Estimate != nil: // the same request: the estimate it was sent with
		p.Estimate, p.totalOnly = *turn.Request.Estimate, false
	}
	s.view.append(user)
	nb := &chat.Branch{Name: name, Head: user.ID, Parent: old.name, CreatedAt: at}
	res, err := s.finish(ctx, p, r, nb, true, sendOptions(opts))
	if res == nil {
		s.view = old
		return nil, err
	}
	s.setView(s.view)
	return res, err
}

// lastTurn returns the complete record of the turn of the branch's last reply, and the
// position on the path of its user message. A reply the chat holds no record of gets one
// made from the messages (see unrecordedTurn).
func (s *Session) lastTurn(ctx context.Context) (*chat.Turn, int, error) {
	v := s.view
	last := v.lastReply()
	if last == nil {
		return nil, 0, opError(ErrInvalid, "branch %s has no reply to regenerate", v.name)
	}
	for _, t := range v.turns {
		if t.AssistantMessageID != last.ID {
			continue
		}
		uidx := v.indexOf(t.UserMessageID)
		if uidx < 0 {
			return nil, 0, opError(ErrInvalid, "the user message of turn %d is not on branch %s", t.Number, v.name)
		}
		full, err := s.e.store.Turn(ctx, s.chat.ID, t.ID)
		if err != nil {
			return nil, 0, fmt.Errorf("load turn %d: %w", t.Number, err)
		}
		return &full, uidx, nil
	}
	uidx := v.indexOf(last.ParentID)
	if uidx < 0 || v.path[uidx].Role != chat.RoleUser {
		return nil, 0, opError(ErrInvalid, "branch %s has no reply to regenerate: its last assistant message answers no user message", v.name)
	}
	number := 0
	for number < len(v.users) && v.users[number] != v.path[uidx] {
		number++
	}
	t := s.unrecordedTurn(number+1, v.path[uidx], last, s.usage)
	return &t, uidx, nil
}

// unrecordedTurn makes the record of a turn (a user message and its reply asst, nil when
// none answers it) that the chat holds none of, as in a chat imported from OpenAI
// messages: the system prompt the import kept in the chat's metadata, the engine's model,
// parameters and tools, and no decisions. usage is the chat's usage before the turn.
func (s *Session) unrecordedTurn(number int, user, asst *chat.Message, usage chat.Usage) chat.Turn {
	e := s.e
	system, _ := s.chat.Metadata["system_prompt"].(string)
	t := chat.Turn{Number: number, Branch: s.view.name, At: user.CreatedAt, UserMessageID: user.ID,
		Request: chat.SentRequest{Model: e.model, SystemPrompt: system, Tools: e.cache.tools, Temperature: e.params.Temperature,
			TopP: e.params.TopP, MaxTokens: e.params.MaxTokens, Seed: e.params.Seed, ChatUsage: usage}}
	if asst != nil {
		t.AssistantMessageID = asst.ID
	}
	return t
}

// rebuild makes the request a recorded turn sent, from its record and the branch path
// (the current view must hold the history before user).
func (s *Session) rebuild(t *chat.Turn, user *chat.Message) chat.Request {
	sr := t.Request
	req := chat.Request{Model: sr.Model, Tools: sr.Tools, Temperature: sr.Temperature, TopP: sr.TopP, MaxTokens: sr.MaxTokens, Seed: sr.Seed}
	s.setMessages(&req, sr.SystemPrompt, sr.SystemInject, user)
	return req
}

// Checkpoint names the head of the active branch; the same name is overwritten.
func (s *Session) Checkpoint(ctx context.Context, name string) error {
	if strings.TrimSpace(name) == "" {
		return opError(ErrInvalid, "a checkpoint needs a name")
	}
	if s.view.head == "" {
		return opError(ErrInvalid, "branch %s has no message to checkpoint", s.view.name)
	}
	return s.e.store.SetCheckpoint(ctx, s.chat.ID, name, s.view.head)
}

// Restore makes a new branch at a checkpoint and switches to it.
func (s *Session) Restore(ctx context.Context, name string) error {
	cp, err := s.e.store.Checkpoint(ctx, s.chat.ID, name)
	if isNotFound(err) {
		return opError(ErrNotFound, "unknown checkpoint %q", name)
	}
	if err != nil {
		return fmt.Errorf("checkpoint %q: %w", name, err)
	}
	return s.branchAt(ctx, cp.MessageID)
}

// Rewind makes a new branch at turn n's assistant message and switches to it.
func (s *Session) Rewind(ctx context.Context, n int) error {
	idx, err := s.userTurn(n)
	if err != nil {
		return err
	}
	if idx+1 >= len(s.view.path) || s.view.path[idx+1].Role != chat.RoleAssistant {
		return opError(ErrInvalid, "turn %d has no reply to rewind to", n)
	}
	return s.branchAt(ctx, s.view.path[idx+1].ID)
}

// branchAt creates a new branch whose head is message id, and switches to it.
func (s *Session) branchAt(ctx context.Context, id string) error {
	var name string
	err := s.onNewBranch(ctx, s.view.name, func(n string) error {
		name = n
		b := chat.Branch{Name: name, Head: id, Parent: s.view.name, CreatedAt: s.e.now()}
		return s.e.store.CreateBranch(ctx, s.chat.ID, b, true)
	})
	if err != nil {
		return fmt.Errorf("create branch %s: %w", name, err)
	}
	if i := s.view.indexOf(id); i >= 0 {
		s.setView(s.view.prefix(name, i+1))
		return nil
	}
	return s.load(ctx, name)
}

// Switch makes another branch the active one.
func (s *Session) Switch(ctx context.Context, name string) error {
	if s.draft { // not saved yet: its one branch is the active one
		if name == s.view.name {
			return nil
		}
		return opError(ErrNotFound, "no branch %q", name)
	}
	err := s.e.store.SetActiveBranch(ctx, s.chat.ID, name)
	if isNotFound(err) {
		return opError(ErrNotFound, "no branch %q", name)
	}
	if err != nil {
		return fmt.Errorf("switch to branch %q: %w", name, err)
	}
	return s.load(ctx, name)
}

// opErr is an operation that cannot be done on the chat as it is: its message says why,
// and errors.Is finds its kind (ErrNotFound or ErrInvalid).
type opErr struct {
	msg  string
	kind error
}

func (e *opErr) Error() string { return e.msg }
func (e *opErr) Unwrap() error { return e.kind }

func opError(kind error, format string, args ...any) error {
	return &opErr{msg: fmt.Sprintf(format, args...), kind: kind}
}

// plural writes "1 turn", "2 turns".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
