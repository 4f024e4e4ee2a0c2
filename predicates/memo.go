package predicates

import (
	"sync"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Memo remembers what predicates derived from the saved replies of one branch, so that
// the next turn reads only the replies saved since: a chat's thousandth turn costs what
// its tenth does. The engine keeps one per branch and sets it as WhenContext.Memo; a
// WhenContext without one computes everything from its replies. A Memo is safe for
// concurrent use.
//
// What a Memo holds is keyed by the predicate and checked against the replies it is
// given: it is used only when they extend the replies it was computed from (the same
// message, by identity, at the position it stopped at). Saved messages never change, so a
// message's position and its ancestors identify the replies before it.
type Memo struct {
	mu      sync.Mutex
	streaks map[*toolCount]streakState
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{} }

// streakState is a failure streak over replies[:n], whose last reply is last.
type streakState struct {
	n      int
	last   *chat.Message
	streak int
}

// streak returns the state a streak can resume from for replies: the state kept for p when
// replies extend the ones it covers, else the empty state.
func (m *Memo) streak(p *toolCount, replies []*chat.Message) streakState {
	m.mu.Lock()
	st, ok := m.streaks[p]
	m.mu.Unlock()
	if !ok || st.n == 0 || st.n > len(replies) || replies[st.n-1] != st.last {
		return streakState{}
	}
	return st
}

// setStreak keeps the streak of p over replies.
func (m *Memo) setStreak(p *toolCount, replies []*chat.Message, streak int) {
	if len(replies) == 0 {
		return
	}
	m.mu.Lock()
	if m.streaks == nil {
		m.streaks = make(map[*toolCount]streakState)
	}
	m.streaks[p] = streakState{n: len(replies), last: replies[len(replies)-1], streak: streak}
	m.mu.Unlock()
}
