package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// MemStore is a Store kept in memory. Over a base store it reads through to the base and
// keeps every write to itself, so a script can be dry-run against a saved chat without
// touching it; over nothing it is simply an in-memory store (ctxlab prompt, tests,
// embedders). It behaves as the database store does (enginetest.TestStore runs the same
// conformance suite on both), with one difference: it has no clock, so a time the caller
// leaves zero stays zero. It is safe for concurrent use.
type MemStore struct {
	base Reader

	// wmu serializes writers, so that what a write checks still holds when it writes; mu
	// guards the maps for readers and writers alike.
	wmu         sync.Mutex
	mu          sync.Mutex
	chats       map[string]chat.Chat
	branches    map[string][]chat.Branch // per chat, in creation order
	messages    map[memKey]chat.Message
	turns       map[string][]chat.Turn // per chat, in commit order
	turnIDs     map[memKey]bool
	checkpoints map[string]map[string]chat.Checkpoint
	// created holds the chats created here: the base had none of their records, so a
	// lookup of their ids need not read it.
	created map[string]bool
}

// memKey is an id scoped by its chat: the same message or turn id may be in two chats.
type memKey struct{ chat, id string }

// defaultBranch is the active branch of a chat created without one, as in the database.
const defaultBranch = "main"

var _ Store = (*MemStore)(nil)

// NewMemStore returns an in-memory store over base (nil for none). The base is only read.
func NewMemStore(base Reader) *MemStore {
	return &MemStore{base: base, chats: map[string]chat.Chat{}, branches: map[string][]chat.Branch{},
		messages: map[memKey]chat.Message{}, turns: map[string][]chat.Turn{}, turnIDs: map[memKey]bool{},
		checkpoints: map[string]map[string]chat.Checkpoint{}, created: map[string]bool{}}
}

func memNotFound(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), chat.ErrNotFound)
}

func memConflict(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), chat.ErrConflict)
}

func memInvalid(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), chat.ErrInvalid)
}

// CreateChat saves a new chat with its active branch ("main" when c.ActiveBranch is
// empty), empty.
func (m *MemStore) CreateChat(ctx context.Context, c chat.Chat) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return m.createChat(ctx, c)
}

// createChat is CreateChat for a caller holding wmu.
func (m *MemStore) createChat(ctx context.Context, c chat.Chat) error {
	if err := chat.CheckName("chat id", c.ID); err != nil {
		return err
	}
	if c.ActiveBranch == "" {
		c.ActiveBranch = defaultBranch
	}
	if err := chat.CheckName("branch name", c.ActiveBranch); err != nil {
		return fmt.Errorf("chat %q: %w", c.ID, err)
	}
	if err := chat.CheckTitle(c.Title); err != nil {
		return fmt.Errorf("chat %q: %w", c.ID, err)
	}
	if _, err := m.Chat(ctx, c.ID); err == nil {
		return memConflict("chat %q already exists", c.ID)
	} else if !isNotFound(err) {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.chats[c.ID] = c
	m.branches[c.ID] = []chat.Branch{{Name: c.ActiveBranch, CreatedAt: c.CreatedAt}}
	m.created[c.ID] = true
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

// hasMessage reports whether message id is in the chat, here or in the base.
func (m *MemStore) hasMessage(ctx context.Context, chatID, id string) (bool, error) {
	m.mu.Lock()
	_, ok := m.messages[memKey{chatID, id}]
	own := m.created[chatID]
	m.mu.Unlock()
	if ok || own || m.base == nil {
		return ok, nil
	}
	// The walk from id stops before its parent: it reads one message.
	_, _, _, err := m.base.PathWithTurns(ctx, chatID, id, func(x string) bool { return x != id })
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// hasTurn reports whether turn id is in the chat, here or in the base.
func (m *MemStore) hasTurn(ctx context.Context, chatID, id string) (bool, error) {
	m.mu.Lock()
	ok := m.turnIDs[memKey{chatID, id}]
	own := m.created[chatID]
	m.mu.Unlock()
	if ok || own || m.base == nil {
		return ok, nil
	}
	_, err := m.base.Turn(ctx, chatID, id)
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
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
		msg, ok := m.messages[memKey{chatID, id}]
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
	// One turn an assistant message, the last committed (as the database keeps it).
	m.mu.Lock()
	last := map[string]int{}
	var mine []chat.Turn
	for _, t := range m.turns[chatID] {
		if _, ok := pos[t.AssistantMessageID]; !ok {
			continue
		}
		if i, ok := last[t.AssistantMessageID]; ok {
			mine[i] = t
			continue
		}
		last[t.AssistantMessageID] = len(mine)
		mine = append(mine, t)
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
	if _, err := m.Chat(ctx, chatID); err != nil {
		return u, err
	}
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

// Commit applies a step: new chat, new branch, messages, turns and head, or nothing. It
// checks what the database checks, in the same order (see store.DB.Commit).
func (m *MemStore) Commit(ctx context.Context, c chat.Commit) (err error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return m.commit(ctx, c)
}

// commit is Commit for a caller holding wmu.
func (m *MemStore) commit(ctx context.Context, c chat.Commit) (err error) {
	if err := checkCommit(&c); err != nil {
		return err
	}
	if c.NewChat != nil {
		if err := m.createChat(ctx, *c.NewChat); err != nil {
			return err
		}
		defer func() { // the chat is created with its first step, or not at all
			if err != nil {
				m.mu.Lock()
				delete(m.chats, c.ChatID)
				delete(m.created, c.ChatID)
				delete(m.branches, c.ChatID)
				m.mu.Unlock()
			}
		}()
	}
	ch, err := m.Chat(ctx, c.ChatID)
	if err != nil {
		return err
	}
	var b chat.Branch
	if c.NewBranch != nil {
		b = *c.NewBranch
		b.Name = c.Branch
		if err := m.checkNewBranch(ctx, c.ChatID, &b); err != nil {
			return err
		}
	} else {
		b, err = m.Branch(ctx, c.ChatID, c.Branch)
		if err != nil {
			return err
		}
		if b.Head != c.ExpectHead {
			return memConflict("chat %q: branch %q head moved (expected %q, found %q)", c.ChatID, c.Branch, c.ExpectHead, b.Head)
		}
	}
	added := make(map[string]bool, len(c.Messages))
	for _, msg := range c.Messages {
		if ok, err := m.hasMessage(ctx, c.ChatID, msg.ID); err != nil || ok {
			if err == nil {
				err = memConflict("chat %q: message %q already exists", c.ChatID, msg.ID)
			}
			return err
		}
		if msg.ParentID != "" && !added[msg.ParentID] {
			if ok, err := m.hasMessage(ctx, c.ChatID, msg.ParentID); err != nil || !ok {
				if err == nil {
					err = memNotFound("chat %q: message %q: parent %q", c.ChatID, msg.ID, msg.ParentID)
				}
				return err
			}
		}
		added[msg.ID] = true
	}
	for i, t := range c.Turns {
		if ok, err := m.hasTurn(ctx, c.ChatID, t.ID); err != nil || ok || slices.ContainsFunc(c.Turns[:i], func(u chat.Turn) bool { return u.ID == t.ID }) {
			if err == nil {
				err = memConflict("chat %q: turn %q already exists", c.ChatID, t.ID)
			}
			return err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var at time.Time
	for _, msg := range c.Messages {
		m.messages[memKey{c.ChatID, msg.ID}] = msg
		if msg.CreatedAt.After(at) {
			at = msg.CreatedAt
		}
	}
	for _, t := range c.Turns {
		m.turnIDs[memKey{c.ChatID, t.ID}] = true
		if t.At.After(at) {
			at = t.At
		}
	}
	m.turns[c.ChatID] = append(m.turns[c.ChatID], c.Turns...)
	b.Head = c.NewHead
	m.putBranch(c.ChatID, b)
	if c.Activate {
		ch.ActiveBranch = b.Name
	}
	if !at.IsZero() { // the clock of the step
		ch.UpdatedAt = at
	}
	m.chats[c.ChatID] = ch
	return nil
}

// checkNewBranch checks that a new branch's name is free and that the message and the
// branch it is made from exist.
func (m *MemStore) checkNewBranch(ctx context.Context, chatID string, b *chat.Branch) error {
	if _, err := m.Branch(ctx, chatID, b.Name); err == nil {
		return memConflict("chat %q: branch %q already exists", chatID, b.Name)
	} else if !isNotFound(err) {
		return err
	}
	if b.Parent != "" {
		if _, err := m.Branch(ctx, chatID, b.Parent); err != nil {
			return err
		}
	}
	if b.Head != "" {
		if ok, err := m.hasMessage(ctx, chatID, b.Head); err != nil || !ok {
			if err == nil {
				err = memNotFound("chat %q: message %q", chatID, b.Head)
			}
			return err
		}
	}
	return nil
}

// checkCommit refuses what the database store refuses before it writes anything: ids and
// names chat.CheckName refuses, unknown roles, a message twice in one step, a turn of
// another chat, a step creating another chat or branch than it names. It fills the
// commit's defaults as the database does: the branch from NewBranch, the expected head
// of a new branch, the chat and branch of each turn.
func checkCommit(c *chat.Commit) error {
	if err := chat.CheckName("chat id", c.ChatID); err != nil {
		return err
	}
	if c.NewChat != nil && c.NewChat.ID != c.ChatID {
		return memInvalid("chat %q: commit creates chat %q", c.ChatID, c.NewChat.ID)
	}
	if c.NewBranch != nil {
		if c.Branch == "" {
			c.Branch = c.NewBranch.Name
		}
		if c.NewBranch.Name != "" && c.NewBranch.Name != c.Branch {
			return memInvalid("chat %q: commit to branch %q creates branch %q", c.ChatID, c.Branch, c.NewBranch.Name)
		}
		c.ExpectHead = c.NewBranch.Head
	}
	if err := chat.CheckName("branch name", c.Branch); err != nil {
		return fmt.Errorf("chat %q: %w", c.ChatID, err)
	}
	seen := make(map[string]bool, len(c.Messages))
	for i := range c.Messages {
		msg := &c.Messages[i]
		if err := checkMessageIDs(msg); err != nil {
			return fmt.Errorf("chat %q: %w", c.ChatID, err)
		}
		if seen[msg.ID] {
			return memInvalid("chat %q: message %q twice in one commit", c.ChatID, msg.ID)
		}
		seen[msg.ID] = true
	}
	turns := make([]chat.Turn, len(c.Turns)) // a copy: the caller's slice is left as it was
	for i, t := range c.Turns {
		if t.ChatID == "" {
			t.ChatID = c.ChatID
		}
		if t.Branch == "" {
			t.Branch = c.Branch
		}
		if t.ChatID != c.ChatID {
			return memInvalid("chat %q: turn %q belongs to chat %q", c.ChatID, t.ID, t.ChatID)
		}
		if err := chat.CheckName("turn id", t.ID); err != nil {
			return fmt.Errorf("chat %q: %w", c.ChatID, err)
		}
		turns[i] = t
	}
	c.Turns = turns
	return nil
}

// checkMessageIDs checks a message's ids and role.
func checkMessageIDs(msg *chat.Message) error {
	if err := chat.CheckName("message id", msg.ID); err != nil {
		return err
	}
	if msg.ParentID != "" {
		if err := chat.CheckName("parent id", msg.ParentID); err != nil {
			return fmt.Errorf("message %q: %w", msg.ID, err)
		}
	}
	switch msg.Role {
	case chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleTool:
		return nil
	}
	return memInvalid("message %q: unknown role %q", msg.ID, msg.Role)
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
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return m.commit(ctx, chat.Commit{ChatID: chatID, Branch: b.Name, NewBranch: &b, NewHead: b.Head, Activate: activate})
}

// SetActiveBranch switches the chat's active branch.
func (m *MemStore) SetActiveBranch(ctx context.Context, chatID, name string) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
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
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if _, err := m.Chat(ctx, chatID); err != nil {
		return err
	}
	if ok, err := m.hasMessage(ctx, chatID, messageID); err != nil || !ok {
		if err == nil {
			err = memNotFound("chat %q: message %q", chatID, messageID)
		}
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
