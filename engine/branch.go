package engine

import (
	"maps"
	"sort"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/predicates"
)

// fireCount is how often a reminder fired on a branch, and the turn it last fired.
type fireCount struct {
	count int
	last  int
}

// branchView is the active branch, kept in memory between turns: its messages root to
// head, its turn records, and the counters and latches derived from them.
type branchView struct {
	name    string
	head    string
	path    []*chat.Message
	turns   []*chat.Turn // one per user message on the path that has a recorded turn
	users   []*chat.Message
	replies []*chat.Message
	fires   map[string]fireCount
	latches map[string]bool
	index   map[string]int // message id -> position on the path
	// wire caches the request form of the path's messages, one after the other, with
	// wireEnd[i] the end of path message i's part of it and tokensTo[i] the estimated size
	// of the path's messages up to i. Requests share it (Session.setMessages): it is only
	// appended to, and a position once filled is never written again.
	wire     []chat.WireMessage
	wireEnd  []int
	tokensTo []int
	// memo keeps what predicates derived from the branch's replies, for the next turn.
	memo *predicates.Memo
}

// newBranchView derives a branch's state from its path and the turns recorded on it.
func newBranchView(name string, path []*chat.Message, turns []*chat.Turn) *branchView {
	v := &branchView{name: name, fires: map[string]fireCount{}, latches: map[string]bool{}, index: make(map[string]int, len(path)),
		memo: predicates.NewMemo()}
	v.append(path...)
	for _, t := range turns {
		v.addTurn(t)
	}
	return v
}

// prefix returns a view of this branch's first n messages under another name, reusing
// what is cached: the path, its users and replies are shared (capped, so that appending
// copies them), and a long prefix's index is this one's, cloned, less the rest.
func (v *branchView) prefix(name string, n int) *branchView {
	p := &branchView{name: name, fires: map[string]fireCount{}, latches: map[string]bool{}, path: v.path[:n:n],
		memo: v.memo} // its replies are a prefix of v's: the memo checks what it may reuse
	if n > 0 {
		p.head = v.path[n-1].ID
	}
	if n > len(v.path)/2 {
		p.index = maps.Clone(v.index)
		for _, m := range v.path[n:] {
			delete(p.index, m.ID)
		}
	} else {
		p.index = make(map[string]int, n)
		for i, m := range p.path {
			p.index[m.ID] = i
		}
	}
	before := func(ms []*chat.Message) []*chat.Message { // the messages of ms (in path order) on the prefix
		k := sort.Search(len(ms), func(i int) bool { return v.index[ms[i].ID] >= n })
		return ms[:k:k]
	}
	p.users, p.replies = before(v.users), before(v.replies)
	for _, t := range v.turns {
		if i, ok := v.index[t.AssistantMessageID]; ok && i < n {
			p.addTurn(t)
		}
	}
	if len(v.wireEnd) >= n {
		end := 0
		if n > 0 {
			end = v.wireEnd[n-1]
		}
		p.wire, p.wireEnd, p.tokensTo = v.wire[:end:end], v.wireEnd[:n:n], v.tokensTo[:n:n]
	}
	return p
}

// indexOf returns the position of a message on the path, or -1.
func (v *branchView) indexOf(id string) int {
	if i, ok := v.index[id]; ok {
		return i
	}
	return -1
}

// addTurn counts a turn's fired reminders and latches.
func (v *branchView) addTurn(t *chat.Turn) {
	v.turns = append(v.turns, t)
	for _, f := range t.Fired {
		c := v.fires[f.ID]
		c.count++
		c.last = t.Number
		v.fires[f.ID] = c
		for _, l := range f.Latches {
			v.latches[l] = true
		}
	}
}

// append adds saved messages to the path.
func (v *branchView) append(msgs ...*chat.Message) {
	for _, m := range msgs {
		v.index[m.ID] = len(v.path)
		v.path = append(v.path, m)
		switch m.Role {
		case chat.RoleUser:
			v.users = append(v.users, m)
		case chat.RoleAssistant:
			v.replies = append(v.replies, m)
		}
		v.head = m.ID
	}
}

// lastUser returns the last saved user message, or nil.
func (v *branchView) lastUser() *chat.Message {
	if len(v.users) == 0 {
		return nil
	}
	return v.users[len(v.users)-1]
}

// lastReply returns the last saved assistant message, or nil.
func (v *branchView) lastReply() *chat.Message {
	if len(v.replies) == 0 {
		return nil
	}
	return v.replies[len(v.replies)-1]
}
