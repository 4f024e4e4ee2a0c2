package engine

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/ctxlab/ctxlab/engine/chat"
	dec "github.com/ctxlab/ctxlab/engine/decision"
)

// DecisionPreparer is a Store that can do, ahead of a turn's Commit, the work the commit
// does on the turn's decision list (checking, cutting and packing it; store.DB can). The
// engine calls it on a goroutine of its own as soon as a turn's decisions are encoded,
// and then commits the turn with that very list, unchanged.
type DecisionPreparer interface {
	PrepareDecisions(list json.RawMessage)
}

// ListPreparer is a DecisionPreparer that can take a decision list as the engine encoded
// it (store.DB can): PrepareList is PrepareDecisions(l.JSON), trusting what l says of
// its JSON instead of scanning it again.
type ListPreparer interface {
	PrepareList(l *chat.EncodedList)
}

// LateCommitter is a Store whose commit can take the decision list of a step's turn once
// its transaction runs (store.DB can): CommitLate is Commit of c with the list of
// c.Turns[0] given by list, called once, in the transaction. The engine commits each turn
// so while its list is still being prepared (DecisionPreparer).
type LateCommitter interface {
	CommitLate(ctx context.Context, c chat.Commit, list func() json.RawMessage) error
}

// listEncoder encodes the decision list of each turn of a chat for its record. The list
// is known once the turn's decisions are made, before its request is even rendered: it is
// encoded and prepared for the commit on another goroutine from then on (start).
type listEncoder struct {
	mu sync.Mutex // one list at a time: each is compared with the one before
	// enc reuses the JSON of the decisions the turn before made the same way.
	enc dec.Encoder
	// prepared is closed once the list before is prepared: lists are prepared in the
	// order of their turns, also when a turn is planned while the one before commits.
	prepared chan struct{}
}

// start returns the function that gives the JSON of ds. For a store that is a
// DecisionPreparer, ds is encoded and prepared for the commit on another goroutine while
// the turn is rendered, answered and its other records written (or, for a turn planned
// ahead, while the turn before commits); a commit that needs the list before that
// goroutine began (both cores were busy) encodes and prepares it itself rather than wait.
// ds must not change after the call.
func (l *listEncoder) start(ds []Decision, st Store) func() json.RawMessage {
	p, ok := st.(DecisionPreparer)
	if !ok {
		raw := l.json(ds)
		return func() json.RawMessage { return raw }
	}
	var raw json.RawMessage
	done := make(chan struct{})
	l.mu.Lock()
	before := l.prepared
	l.prepared = done
	l.mu.Unlock()
	var taken atomic.Bool // by the goroutine or by the commit, whichever comes first
	prepare := func() {
		defer close(done)
		if before != nil {
			<-before // lists are encoded and prepared in the order of their turns
		}
		list := l.list(ds)
		raw = list.JSON
		if lp, ok := p.(ListPreparer); ok {
			lp.PrepareList(list)
		} else {
			p.PrepareDecisions(raw)
		}
	}
	go func() {
		if taken.CompareAndSwap(false, true) {
			prepare()
		}
	}()
	return func() json.RawMessage {
		if taken.CompareAndSwap(false, true) {
			prepare()
		}
		<-done
		return raw
	}
}

// json returns the JSON of ds.
func (l *listEncoder) json(ds []Decision) json.RawMessage { return l.list(ds).JSON }

// list returns ds encoded.
func (l *listEncoder) list(ds []Decision) *dec.List {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enc.EncodeList(ds)
}

// encoder returns the session's list encoder, made on first use.
func (s *Session) encoder() *listEncoder {
	if s.decisions == nil {
		s.decisions = new(listEncoder)
	}
	return s.decisions
}

// commitTurn commits c, a step of one turn whose decision list list gives, and sets that
// list in c: while it is being encoded, a LateCommitter store writes the rest of the step.
func (s *Session) commitTurn(ctx context.Context, c *chat.Commit, list func() json.RawMessage) error {
	if lc, ok := s.e.store.(LateCommitter); ok {
		err := lc.CommitLate(ctx, *c, list)
		c.Turns[0].Decisions = list()
		return err
	}
	c.Turns[0].Decisions = list()
	return s.e.store.Commit(ctx, *c)
}
