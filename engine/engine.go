// Package engine is ctxlab's context engine: for every user turn it decides which
// reminders and instructions of a context file apply and why, applies the policy (tiers,
// caps, spacing, budget), renders the system prompt, builds the exact request with the
// reminders injected at their placements, gets the reply (scripted or from a model), and
// records the whole turn. Headless commands and the TUI drive the same API.
package engine

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// Reader reads saved chats: what opening a chat, switching branch and replaying need, and
// all a MemStore reads through to its base, so a Reader alone is enough to run an engine
// over saved chats: NewMemStore(r) keeps every write in memory. Errors wrap
// chat.ErrNotFound for a chat, branch, checkpoint, message or turn that does not exist.
type Reader interface {
	// Chat returns a chat.
	Chat(ctx context.Context, id string) (chat.Chat, error)
	// ChatUsage returns the sum of Turn.Counted over every turn of the chat, every branch.
	ChatUsage(ctx context.Context, chatID string) (chat.Usage, error)
	// Branch returns one branch of a chat.
	Branch(ctx context.Context, chatID, name string) (chat.Branch, error)
	// Branches returns the branches of a chat in the order they were made, with the
	// messages and user turns on their paths.
	Branches(ctx context.Context, chatID string) ([]chat.BranchInfo, error)
	// Checkpoint returns a named checkpoint of a chat.
	Checkpoint(ctx context.Context, chatID, name string) (chat.Checkpoint, error)
	// Path returns the messages from the root to head, in order ("" gives none).
	Path(ctx context.Context, chatID, head string) ([]chat.Message, error)
	// PathWithTurns walks from head towards the root and stops before the first message
	// known returns true for (the fork, which it returns; known nil walks to the root). It
	// returns the messages walked and the turn records of its assistant messages, both in
	// path order. Light turn records (ID, Number, UserMessageID, AssistantMessageID, Fired)
	// are enough.
	PathWithTurns(ctx context.Context, chatID, head string, known func(id string) bool) ([]chat.Message, []chat.Turn, string, error)
	// CompleteTurns returns the complete records of the turns of a path (as Path returns
	// it): the turns whose assistant message is on the path or, for a turn without one (it
	// failed before any reply), whose user message is. They are in path order, and in
	// commit order for one message. A replay needs them all.
	CompleteTurns(ctx context.Context, chatID string, path []chat.Message) ([]chat.Turn, error)
	// Turn returns a complete turn record.
	Turn(ctx context.Context, chatID, turnID string) (chat.Turn, error)
}

// Committer saves chats and their steps: what creating a chat and sending a turn need.
// Errors wrap chat.ErrConflict for an id that is taken or a branch head that moved, and
// chat.ErrInvalid for ids and names chat.CheckName refuses.
type Committer interface {
	// CreateChat saves a new chat with its active branch, empty.
	CreateChat(ctx context.Context, c chat.Chat) error
	// Commit writes one step of a chat (see chat.Commit), all or nothing.
	Commit(ctx context.Context, c chat.Commit) error
}

// Brancher moves the names of a chat's graph: what the branch operations (switch, rewind,
// restore, checkpoint) need besides a Reader.
type Brancher interface {
	// CreateBranch adds a branch at b.Head, and makes it the active one if activate is set.
	CreateBranch(ctx context.Context, chatID string, b chat.Branch, activate bool) error
	// SetActiveBranch makes an existing branch the chat's active branch.
	SetActiveBranch(ctx context.Context, chatID, name string) error
	// SetCheckpoint names a message of the chat; the same name is overwritten.
	SetCheckpoint(ctx context.Context, chatID, name, messageID string) error
}

// Store is the persistence an Engine needs: all of Reader, Committer and Brancher.
// store.DB and MemStore satisfy it; enginetest.TestStore checks a Store against the
// contract.
type Store interface {
	Reader
	Committer
	Brancher
}

// TokenCounter estimates the tokens of a text. llm/tokens provides the real one.
type TokenCounter interface {
	Count(s string) int
}

// Options configure an Engine. Context and Store are required.
type Options struct {
	Context *ctxfile.File
	Store   Store
	// Tokens estimates token counts; nil uses a rough estimate of one token per four bytes.
	Tokens TokenCounter
	// Model is the model name put in requests ("scripted" when empty).
	Model string
	// Params override the context file's model parameters.
	Params Params
	// Now is the clock for turns without an explicit time; nil is time.Now.
	Now func() time.Time
	// NewID makes message, turn and tool-call ids; nil makes UUIDv7s. Like Now, it may be
	// called from another goroutine than the Send that asked (a turn planned while the one
	// before commits: WithNext), and must be safe for concurrent use.
	NewID func() string
	// MaxToolSteps bounds the tool loop of a live model (default 8).
	MaxToolSteps int
	// Cost prices a turn's usage in USD for a model (known false when the price is not
	// known); nil leaves costs out of traces.
	Cost func(model string, u chat.Usage) (usd float64, known bool)
}

// Params are the sampling parameters sent with each request.
type Params struct {
	Temperature *float64
	TopP        *float64
	MaxTokens   int
	Seed        *int
}

// Engine runs turns of chats under one context file.
type Engine struct {
	file   *ctxfile.File
	store  Store
	tokens TokenCounter
	model  string
	params Params
	now    func() time.Time
	newID  func() string
	steps  int
	cost   func(model string, u chat.Usage) (float64, bool)
	cache  *fileCache
	// digest is the context file's digest, which each turn planned records (shared by
	// them all: never written through).
	digest *string
}

// ErrNotFound is returned for a chat, branch, checkpoint or turn that does not exist.
var ErrNotFound = chat.ErrNotFound

// ErrInvalid is returned for an operation that cannot be done on the chat as it is
// (regenerating a chat with no reply, checkpointing an empty branch).
var ErrInvalid = chat.ErrInvalid

func isNotFound(err error) bool { return errors.Is(err, chat.ErrNotFound) }

// New returns an engine for a context file and a store.
func New(opt Options) (*Engine, error) {
	if opt.Context == nil {
		return nil, errors.New("engine: no context file")
	}
	if opt.Store == nil {
		return nil, errors.New("engine: no store")
	}
	e := &Engine{file: opt.Context, store: opt.Store, tokens: opt.Tokens, model: opt.Model,
		now: opt.Now, newID: opt.NewID, steps: opt.MaxToolSteps, cost: opt.Cost}
	if e.tokens == nil {
		e.tokens = roughCounter{}
	}
	if e.model == "" {
		e.model = opt.Context.Model.Name
	}
	if e.model == "" {
		e.model = "scripted"
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.newID == nil {
		e.newID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	if e.steps <= 0 {
		e.steps = 8
	}
	e.params = mergeParams(opt.Params, opt.Context.Model)
	digest := opt.Context.Digest()
	e.digest = &digest
	cache, err := newFileCache(opt.Context, e.tokens)
	if err != nil {
		return nil, err
	}
	e.cache = cache
	return e, nil
}

func mergeParams(p Params, m ctxfile.ModelDefaults) Params {
	if p.Temperature == nil {
		p.Temperature = m.Temperature
	}
	if p.TopP == nil {
		p.TopP = m.TopP
	}
	if p.MaxTokens == 0 {
		p.MaxTokens = m.MaxTokens
	}
	if p.Seed == nil {
		p.Seed = m.Seed
	}
	return p
}

// File returns the engine's context file.
func (e *Engine) File() *ctxfile.File { return e.file }

// roughCounter estimates one token per four bytes when no tokenizer is wired.
type roughCounter struct{}

func (roughCounter) Count(s string) int { return (len(s) + 3) / 4 }
