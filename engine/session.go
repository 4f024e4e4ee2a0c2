package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/predicates"
)

// Session is one chat opened by an engine, with its active branch held in memory. A
// Session is not safe for concurrent use.
type Session struct {
	e     *Engine
	chat  chat.Chat
	view  *branchView
	usage chat.Usage
	// decisions encodes each turn's decisions for its record.
	decisions *listEncoder
	// views keeps the branches visited most recently (the active one included), so that
	// switching back and forth reads only what another writer added since.
	views []*branchView
	// draft marks a chat not saved yet: its first committed step creates it.
	draft bool
	// ahead is the plan of the next turn, made while the turn before committed (WithNext).
	ahead *plannedAhead
}

// maxViews bounds the branches a session keeps in memory.
const maxViews = 8

// setView makes v the active branch and the most recently used one.
func (s *Session) setView(v *branchView) {
	s.view = v
	s.chat.ActiveBranch = v.name
	kept := []*branchView{v}
	for _, o := range s.views {
		if o.name != v.name && len(kept) < maxViews {
			kept = append(kept, o)
		}
	}
	s.views = kept
}

// cached returns the kept view of a branch, or nil.
func (s *Session) cached(name string) *branchView {
	for _, v := range s.views {
		if v.name == name {
			return v
		}
	}
	return nil
}

// Create saves a new chat (with its active branch, "main" unless set) and opens it.
func (e *Engine) Create(ctx context.Context, c chat.Chat) (*Session, error) {
	e.fillChat(&c)
	if err := e.store.CreateChat(ctx, c); err != nil {
		return nil, fmt.Errorf("create chat %q: %w", c.ID, err)
	}
	return e.Open(ctx, c.ID)
}

// Start opens a new chat without saving it: the chat is saved with its first turn, so a
// first turn that fails leaves nothing behind. Until then the session has no branch but
// its empty active one, and the chat is not in the store.
func (e *Engine) Start(c chat.Chat) *Session {
	e.fillChat(&c)
	s := &Session{e: e, chat: c, draft: true}
	s.setView(newBranchView(c.ActiveBranch, nil, nil))
	return s
}

// fillChat sets a new chat's defaults: an id, the branch "main", the clock.
func (e *Engine) fillChat(c *chat.Chat) {
	if c.ID == "" {
		c.ID = e.newID()
	}
	if c.ActiveBranch == "" {
		c.ActiveBranch = "main"
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = e.now()
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = c.CreatedAt
	}
}

// Saved reports whether the chat is in the store (false for a chat Start opened until its
// first turn is saved).
func (s *Session) Saved() bool { return !s.draft }

// Open loads a saved chat on its active branch.
func (e *Engine) Open(ctx context.Context, chatID string) (*Session, error) {
	c, err := e.store.Chat(ctx, chatID)
	if err != nil {
		return nil, fmt.Errorf("open chat %q: %w", chatID, err)
	}
	s := &Session{e: e, chat: c}
	if err := s.load(ctx, c.ActiveBranch); err != nil {
		return nil, err
	}
	u, err := e.store.ChatUsage(ctx, chatID)
	if err != nil {
		return nil, fmt.Errorf("open chat %q: usage: %w", chatID, err)
	}
	s.usage = u
	return s, nil
}

// load reads a branch into memory. A branch kept from an earlier visit is reused if its
// head has not moved; otherwise only the messages after the fork from a kept branch are
// read.
func (s *Session) load(ctx context.Context, name string) error {
	b, err := s.e.store.Branch(ctx, s.chat.ID, name)
	if err != nil {
		return fmt.Errorf("chat %q: branch %q: %w", s.chat.ID, name, err)
	}
	if v := s.cached(name); v != nil && v.head == b.Head {
		s.setView(v)
		return nil
	}
	var from *branchView
	var known func(id string) bool // nil: nothing kept, the whole path is read
	if len(s.views) > 0 {
		known = func(id string) bool {
			for _, v := range s.views {
				if _, ok := v.index[id]; ok {
					from = v
					return true
				}
			}
			return false
		}
	}
	tail, turns, fork, err := s.e.store.PathWithTurns(ctx, s.chat.ID, b.Head, known)
	if err != nil {
		return fmt.Errorf("chat %q: load branch %q: %w", s.chat.ID, name, err)
	}
	var v *branchView
	if fork != "" && from != nil {
		v = from.prefix(name, from.index[fork]+1)
	} else {
		v = newBranchView(name, nil, nil)
	}
	for i := range tail {
		v.append(&tail[i])
	}
	for i := range turns {
		v.addTurn(&turns[i])
	}
	s.setView(v)
	return nil
}

// Chat returns the chat's record.
func (s *Session) Chat() chat.Chat { return s.chat }

// Branch returns the active branch name.
func (s *Session) Branch() string { return s.view.name }

// Head returns the id of the active branch's last message ("" when it has none).
func (s *Session) Head() string { return s.view.head }

// Usage returns the chat's accumulated usage over all branches.
func (s *Session) Usage() chat.Usage { return s.usage }

// Messages returns the active branch, root to head. The messages must not be modified.
func (s *Session) Messages() []*chat.Message { return s.view.path }

// Turns returns the turn records of the active branch, oldest first, without their
// decisions. They must not be modified.
func (s *Session) Turns() []*chat.Turn { return s.view.turns }

// TurnCount returns the number of user turns on the active branch.
func (s *Session) TurnCount() int { return len(s.view.users) }

// UserInput is a user message to send.
type UserInput struct {
	Text   string
	At     time.Time    // the clock of the turn; zero means now
	Locale *chat.Locale // stored as the message's locale
}

// whenContext builds the WhenContext of the turn that would send user now.
func (s *Session) whenContext(user *chat.Message) *predicates.WhenContext {
	v := s.view
	wc := &predicates.WhenContext{
		Turn:                 len(v.users) + 1,
		Content:              user.PlainText(),
		CurrentMessage:       user,
		LastAssistantMessage: v.lastReply(),
		LastAssistantReplies: v.replies,
		Usage:                s.usage,
		Branch:               v.name,
		MessageCount:         len(v.path) + 1,
		Chat: predicates.ChatInfo{ID: s.chat.ID, Title: s.chat.Title, Metadata: s.chat.Metadata,
			CreatedAt: s.chat.CreatedAt, UpdatedAt: s.chat.UpdatedAt},
		Now:       user.CreatedAt,
		FiredOnce: v.latches,
		Memo:      v.memo,
	}
	if last := v.lastUser(); last != nil {
		wc.LastMessage = last
		at := last.CreatedAt
		wc.LastMessageAt = &at
		el := user.CreatedAt.Sub(at)
		wc.Elapsed = &el
	}
	return wc
}

// ErrConflict is returned for a chat id that is taken (Create), or when another writer
// kept taking the names of the new branches a step tried. A turn whose branch another
// writer moved is not lost: it is saved on a new branch (see TurnResult.PlannedOn).
var ErrConflict = chat.ErrConflict
