// Package predicates holds the WhenContext of a turn, every predicate of the context-file
// language, the combinators, BM25 scoring, calendar logic, and the parser of predicate
// expressions. Evaluating a predicate never fails the turn: it returns a Result tree that
// says what was compared, and an error string when something could not be evaluated.
package predicates

import (
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// ChatInfo describes the chat a turn belongs to.
type ChatInfo struct {
	ID        string
	Title     string
	Metadata  map[string]any
	CreatedAt time.Time
	UpdatedAt time.Time
}

// WhenContext is everything a predicate may look at for one turn. The engine builds it from
// the active branch; tests build it by hand.
type WhenContext struct {
	// Turn counts the real user messages on the active branch, saved ones plus the one
	// being sent (turn 1 is the first message).
	Turn int
	// Content is the plain text of the current user message (text parts joined with a space).
	Content string
	// CurrentMessage is the user message being sent, with its locale.
	CurrentMessage *chat.Message
	// LastMessage is the previous saved user message; nil on turn 1.
	LastMessage *chat.Message
	// LastMessageAt is LastMessage's time; nil on turn 1.
	LastMessageAt *time.Time
	// Elapsed is Now minus LastMessageAt; nil on turn 1.
	Elapsed *time.Duration
	// LastAssistantMessage is the last saved assistant message; nil when there is none.
	LastAssistantMessage *chat.Message
	// LastAssistantReplies are the saved assistant replies of the branch, oldest first.
	LastAssistantReplies []*chat.Message
	// Usage is the accumulated token usage of the whole chat, whatever the branch.
	Usage chat.Usage
	// Branch is the active branch name.
	Branch string
	// MessageCount is every saved message of the branch plus the pending one.
	MessageCount int
	// Chat describes the chat.
	Chat ChatInfo
	// Now is the clock of the turn.
	Now time.Time
	// FiredOnce holds the once('id') latches already set on this branch.
	FiredOnce map[string]bool
	// Memo, when set, keeps what predicates derived from LastAssistantReplies for the
	// next turn of the branch (see Memo); nil derives everything from the replies.
	Memo *Memo

	// Per-turn caches, filled on first use.
	lowerContent  *string
	contentTokens []string
	tokenized     bool
	asciiContent  uint8 // 0 not known yet, 1 ASCII, 2 not
	// patterns holds the matches of the content's regexes by literal (patternsOf), for
	// the content patternsFor.
	patterns    map[string][]int
	patternsFor string
}
