package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// MemStore is a Store kept in memory. Over a base store it reads through to the base and
// keeps every write to itself, so a script can be dry-run against a saved chat without
// touching it; over nothing it is simply an in-memory store (ctxlab prompt, tests,
// embedders). It is safe for concurrent use.
type MemStore struct {
	base Reader

	mu          sync.Mutex
	chats       map[string]chat.Chat
	branches    map[string][]chat.Branch // per chat, in creation order
	messages    map[string]chat.Message
	turns       map[string][]chat.Turn // per chat
	checkpoints map[string]map[string]chat.Checkpoint
}

// NewMemStore returns an in-memory store over base (nil for none). The base is only read.
func NewMemStore(base Reader) *MemStore {
	return &MemStore{base: base, chats: map[string]chat.Chat{}, branches: map[string][]chat.Branch{},
		messages: map[string]chat.Message{}, turns: map[string][]chat.Turn{},
		checkpoints: map[string]map[string]chat.Checkpoint{}}
}

func memNotFound(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), chat.ErrNotFound)
}

// CreateChat saves a new chat with its active branch.
func (m *MemStore) CreateChat(ctx context.Context, c chat.Chat) error {
	if err := chat.CheckName("chat id", c.ID); err != nil {
		return err
	}
	if err := chat.CheckName("branch name", c.ActiveBranch); err != nil {
		return fmt.Errorf("chat %q: %w", c.ID, err)
	}
	if err := chat.CheckTitle(c.Title); err != nil {
		return fmt.Errorf("chat %q: %w", c.ID, err)
	}
	if _, err := m.Chat(ctx, c.ID); err == nil {
		return fmt.Errorf("chat %q already exists: %w", c.ID, chat.ErrConflict)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.chats[c.ID] = c
	m.branches[c.ID] = []chat.Branch{{Name: c.ActiveBranch, CreatedAt: c.CreatedAt}}
	return nil
}

// Chat returns a chat.
func (m *MemStore) Chat(ctx context.Context, id string) (chat.Chat, error) {
	m.mu.Lock()
	c, ok := m.chats[id]
	m.mu.Unlock()
	if ok {
		return c, nil
	}
	if m.base != nil {
		return m.base.Chat(ctx, id)
	}
	return chat.Chat{}, memNotFound("chat %q", id)
}

// chatCopy returns the chat for a write, copying it from the base on first write.
func (m *MemStore) chatCopy(ctx context.Context, id string) (chat.Chat, error) {
	c, err := m.Chat(ctx, id)
	if err != nil {
		return c, err
	}
	m.mu.Lock()
	m.chats[id] = c
	m.mu.Unlock()
	return c, nil
}

// Branches returns a chat's branches, the base's first.
func (m *MemStore) Branches(ctx context.Context, chatID string) ([]chat.BranchInfo, error) {
	if _, err := m.Chat(ctx, chatID); err != nil {
		return nil, err
	}
	var out []chat.BranchInfo
	seen := map[string]int{}
	if m.base != nil {
		base, err := m.base.Branches(ctx, chatID)
		if err != nil && !isNotFound(err) {
			return nil, err
		}
		for i, b := range base {
			seen[b.Name] = i
		}
		out = base
	}
	m.mu.Lock()
	mine := append([]chat.Branch(nil), m.branches[chatID]...)
	m.mu.Unlock()
	for _, b := range mine {
		path, err := m.Path(ctx, chatID, b.Head)
		if err != nil {
			return nil, err
		}
		info := chat.BranchInfo{Branch: b, Messages: len(path), Turns: countUsers(path)}
		if i, ok := seen[b.Name]; ok {
			out[i] = info
			continue
		}
		seen[b.Name] = len(out)
		out = append(out, info)
	}
	return out, nil
}

func countUsers(path []chat.Message) int {
	n := 0
	for i := range path {
		if path[i].Role == chat.RoleUser {
			n++
		}
	}
	return n
}

// Branch returns one branch.
func (m *MemStore) Branch(ctx context.Context, chatID, name string) (chat.Branch, error) {
	m.mu.Lock()
	for _, b := range m.branches[chatID] {
		if b.Name == name {
			m.mu.Unlock()
			return b, nil
		}
	}
	m.mu.Unlock()
	if m.base != nil {
		return m.base.Branch(ctx, chatID, name)
	}
	return chat.Branch{}, memNotFound("chat %q: branch %q", chatID, name)
}

// PathWithTurns walks from head towards the root, stopping before the first message
// known returns true for (nil: none), and returns the messages walked and their turns in
// path order, and the fork.
func (m *MemStore) PathWithTurns(ctx context.Context, chatID, head string, known func(id string) bool) ([]chat.Message, []chat.Turn, string, error) {
	if known == nil {
		known = func(string) bool { return false }
	}
	var rev []chat.Message
	id := head
	m.mu.Lock()
	for id != "" && !known(id) {
		msg, ok := m.messages[id]
		if !ok {
			break
		}
		rev = append(rev, msg)
		id = msg.ParentID
	}
	m.mu.Unlock()
	var path []chat.Message
	var turns []chat.Turn
	fork := ""
	switch {
	case id == "":
	case known(id):
		fork = id
	case m.base == nil:
		return nil, nil, "", memNotFound("chat %q: message %q", chatID, id)
	default:
		var err error
		if path, turns, fork, err = m.base.PathWithTurns(ctx, chatID, id, known); err != nil {
			return nil, nil, "", err
		}
	}
	for i := len(rev) - 1; i >= 0; i-- {
		path = append(path, rev[i])
	}
	pos := make(map[string]int, len(rev))
	for i := range rev {
		pos[rev[i].ID] = i
	}
	m.mu.Lock()
	var mine []chat.Turn
	for _, t := range m.turns[chatID] {
		if _, ok := pos[t.AssistantMessageID]; ok {
			mine = append(mine, t)
		}
	}
	m.mu.Unlock()
	sort.SliceStable(mine, func(i, j int) bool { return pos[mine[i].AssistantMessageID] > pos[mine[j].AssistantMessageID] })
	return path, append(turns, mine...), fork, nil
}

// CompleteTurns returns the complete records of the turns of a path: the turns whose
// assistant message is on the path or, for a turn without one, whose user message is, in
// path order, and in commit order for one message (the base's first).
func (m *MemStore) CompleteTurns(ctx context.Context, chatID string, path []chat.Message) ([]chat.Turn, error) {
	var turns []chat.Turn
	if m.base != nil {
		var err error
		if turns, err = m.base.CompleteTurns(ctx, chatID, path); err != nil && !isNotFound(err) {
			return nil, err
		}
	}
	pos := make(map[string]int, len(path))
	for i := range path {
		pos[path[i].ID] = i
	}
	m.mu.Lock()
	for _, t := range m.turns[chatID] {
		if _, ok := pos[turnMessage(&t)]; ok {
			turns = append(turns, t)
		}
	}
	m.mu.Unlock()
	sort.SliceStable(turns, func(i, j int) bool { return pos[turnMessage(&turns[i])] < pos[turnMessage(&turns[j])] })
	return turns, nil
}

// ChatUsage sums the usage of every turn of the chat.
func (m *MemStore) ChatUsage(ctx context.Context, chatID string) (chat.Usage, error) {
	var u chat.Usage
	if m.base != nil {
		b, err := m.base.ChatUsage(ctx, chatID)
		if err != nil && !isNotFound(err) {
			return u, err
		}
		u = b
	}
	m.mu.Lock()
	for _, t := range m.turns[chatID] {
		u = u.Add(t.Counted())
	}
	m.mu.Unlock()
	return u, nil
}

// Commit applies a step: new branch, messages, turns and head, or nothing.
func (m *MemStore) Commit(ctx context.Context, c chat.Commit) (err error) {
	if err := checkCommit(&c); err != nil {
		return err
	}
	if c.NewChat != nil {
		if err := m.CreateChat(ctx, *c.NewChat); err != nil {
			return err
		}
		defer func() { // the chat is created with its first step, or not at all
			if err != nil {
				m.mu.Lock()
				delete(m.chats, c.ChatID)
				delete(m.branches, c.ChatID)
				m.mu.Unlock()
			}
		}()
	}
	ch, err := m.chatCopy(ctx, c.ChatID)
	if err != nil {
		return err
	}
	var b chat.Branch
	if c.NewBranch != nil {
		if _, err := m.Branch(ctx, c.ChatID, c.NewBranch.Name); err == nil {
			return fmt.Errorf("chat %q: branch %q already exists: %w", c.ChatID, c.NewBranch.Name, chat.ErrConflict)
		}
		b = *c.NewBranch
	} else {
		b, err = m.Branch(ctx, c.ChatID, c.Branch)
		if err != nil {
			return err
		}
		if b.Head != c.ExpectHead {
			return fmt.Errorf("chat %q: branch %q head moved: %w", c.ChatID, c.Branch, chat.ErrConflict)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range c.Messages {
		if _, dup := m.messages[msg.ID]; dup {
			return fmt.Errorf("message %q already exists: %w", msg.ID, chat.ErrConflict)
		}
	}
	for _, msg := range c.Messages {
		m.messages[msg.ID] = msg
	}
	m.turns[c.ChatID] = append(m.turns[c.ChatID], c.Turns...)
	b.Head = c.NewHead
	m.putBranch(c.ChatID, b)
	if c.Activate {
		ch.ActiveBranch = b.Name
	}
	for _, msg := range c.Messages {
		if msg.CreatedAt.After(ch.UpdatedAt) {
			ch.UpdatedAt = msg.CreatedAt
		}
	}
	m.chats[c.ChatID] = ch
	return nil
}

// checkCommit refuses the ids and names of a step that the database store refuses (see
// chat.CheckName), so that a dry run finds a step that could not be saved.
func checkCommit(c *chat.Commit) error {
	if err := chat.CheckName("chat id", c.ChatID); err != nil {
		return err
	}
	branch := c.Branch
	if c.NewBranch != nil {
		branch = c.NewBranch.Name
	}
	names := []struct{ kind, name string }{{"branch name", branch}}
	for _, msg := range c.Messages {
		names = append(names, struct{ kind, name string }{"message id", msg.ID})
	}
	for _, t := range c.Turns {
		names = append(names, struct{ kind, name string }{"turn id", t.ID})
	}
	for _, n := range names {
		if err := chat.CheckName(n.kind, n.name); err != nil {
			return fmt.Errorf("chat %q: %w", c.ChatID, err)
		}
	}
	return nil
}

// putBranch stores a branch, replacing one of the same name. The caller holds mu.
func (m *MemStore) putBranch(chatID string, b chat.Branch) {
	list := m.branches[chatID]
	for i := range list {
		if list[i].Name == b.Name {
			list[i] = b
			return
		}
	}
	m.branches[chatID] = append(list, b)
}

// CreateBranch saves a new branch.
func (m *MemStore) CreateBranch(ctx context.Context, chatID string, b chat.Branch, activate bool) error {
	return m.Commit(ctx, chat.Commit{ChatID: chatID, Branch: b.Name, NewBranch: &b, NewHead: b.Head, Activate: activate})
}

// SetActiveBranch switches the chat's active branch.
func (m *MemStore) SetActiveBranch(ctx context.Context, chatID, name string) error {
	if _, err := m.Branch(ctx, chatID, name); err != nil {
		return err
	}
	c, err := m.chatCopy(ctx, chatID)
	if err != nil {
		return err
	}
	m.mu.Lock()
	c.ActiveBranch = name
	m.chats[chatID] = c
	m.mu.Unlock()
	return nil
}

// SetCheckpoint names a message; the same name is overwritten.
func (m *MemStore) SetCheckpoint(ctx context.Context, chatID, name, messageID string) error {
	if err := chat.CheckName("checkpoint name", name); err != nil {
		return err
	}
	if _, err := m.Chat(ctx, chatID); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.checkpoints[chatID] == nil {
		m.checkpoints[chatID] = map[string]chat.Checkpoint{}
	}
	m.checkpoints[chatID][name] = chat.Checkpoint{Name: name, MessageID: messageID}
	return nil
}

// Checkpoint returns a named checkpoint.
func (m *MemStore) Checkpoint(ctx context.Context, chatID, name string) (chat.Checkpoint, error) {
	m.mu.Lock()
	cp, ok := m.checkpoints[chatID][name]
	m.mu.Unlock()
	if ok {
		return cp, nil
	}
	if m.base != nil {
		return m.base.Checkpoint(ctx, chatID, name)
	}
	return chat.Checkpoint{}, memNotFound("chat %q: checkpoint %q", chatID, name)
}

// Turn returns a complete turn record.
func (m *MemStore) Turn(ctx context.Context, chatID, turnID string) (chat.Turn, error) {
	m.mu.Lock()
	for _, t := range m.turns[chatID] {
		if t.ID == turnID {
			m.mu.Unlock()
			return t, nil
		}
	}
	m.mu.Unlock()
	if m.base != nil {
		return m.base.Turn(ctx, chatID, turnID)
	}
	return chat.Turn{}, memNotFound("chat %q: turn %q", chatID, turnID)
}

// Path returns the messages from the root to head.
func (m *MemStore) Path(ctx context.Context, chatID, head string) ([]chat.Message, error) {
	path, _, _, err := m.PathWithTurns(ctx, chatID, head, nil)
	return path, err
}
