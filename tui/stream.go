package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/inert"
)

// frameEvery is how often streamed events reach the UI at most (about 30 a second).
const frameEvery = 33 * time.Millisecond

// stream carries the events of one turn from the Cmd that sends it to Update: emit
// queues them (text deltas merged), and a Cmd that waits for the next batch is issued
// again after each, so the UI gets at most about 30 batches a second. The last event
// (saved or failed) is never dropped: the batch that reports the stream done holds every
// event emitted.
type stream struct {
	mu      sync.Mutex
	pending []engine.Event
	done    bool
	err     error // what the send returned
	notify  chan struct{}
	last    time.Time

	cancel context.CancelFunc
	item   *turnItem
	text   string
	// plan is the trace of the turn as planned (EventPlanned), shown while it streams;
	// loop the requests sent so far (EventRequest).
	plan *engine.Trace
	loop *turnLoop
	// final says EventSaved or EventFailed arrived.
	final bool
	// live says the turn is sent to the model (not a reply the user wrote).
	live bool
}

// streamMsg is a batch of a stream's events.
type streamMsg struct {
	s      *stream
	events []engine.Event
	done   bool
}

// emit queues an event; consecutive text deltas of a step are merged.
func (s *stream) emit(ev engine.Event) {
	s.mu.Lock()
	if t, ok := ev.(engine.EventText); ok && len(s.pending) > 0 {
		if prev, ok := s.pending[len(s.pending)-1].(engine.EventText); ok && prev.Step == t.Step {
			prev.Text += t.Text
			s.pending[len(s.pending)-1] = prev
			s.mu.Unlock()
			s.signal()
			return
		}
	}
	s.pending = append(s.pending, ev)
	s.mu.Unlock()
	s.signal()
}

func (s *stream) signal() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// finish marks the send returned.
func (s *stream) finish(err error) {
	s.mu.Lock()
	s.done, s.err = true, err
	s.mu.Unlock()
	s.signal()
}

// wait is the Cmd that returns the next batch of events.
func (s *stream) wait() tea.Cmd {
	return func() tea.Msg {
		<-s.notify
		s.mu.Lock()
		done, last := s.done, s.last
		s.mu.Unlock()
		if !done {
			if d := time.Until(last.Add(frameEvery)); d > 0 {
				time.Sleep(d)
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		evs := s.pending
		s.pending = nil
		s.last = time.Now()
		return streamMsg{s: s, events: evs, done: s.done}
	}
}

// startStream sends a turn in a Cmd (run calls the chat) and starts waiting for its
// events and the spinner; live says the turn goes to the model.
func (m *Model) startStream(text string, item *turnItem, live bool, run func(ctx context.Context, emit func(engine.Event)) error) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stream{notify: make(chan struct{}, 1), cancel: cancel, item: item, text: text, live: live}
	m.stream = s
	mu, wg := m.chatMu, m.sending
	wg.Add(1)
	send := func() tea.Msg {
		defer wg.Done()
		mu.Lock()
		defer mu.Unlock()
		s.finish(run(ctx, s.emit))
		return nil
	}
	m.tr.SetSpinner(m.spin.View())
	return tea.Batch(send, s.wait(), m.spin.Tick)
}

// streamed applies a batch of events to the turn being sent.
func (m *Model) streamed(msg streamMsg) tea.Cmd {
	s := msg.s
	if s != m.stream {
		return nil
	}
	it := s.item
	for _, ev := range msg.events {
		m.apply(s, it, ev)
	}
	if !msg.done {
		return s.wait()
	}
	s.cancel()
	m.stream = nil
	if !s.final && s.err != nil {
		m.fail(s.text, s.err)
		m.setErr(s.err)
	}
	it.live = nil
	it.version++
	return m.load(false)
}

// apply applies one event.
func (m *Model) apply(s *stream, it *turnItem, ev engine.Event) {
	lv := it.live
	switch ev := ev.(type) {
	case engine.EventPlanned:
		p := ev.Plan
		tr := engine.PlanTrace(m.chatID, p)
		s.plan = &tr
		u := p.User
		it.user, it.num = &u, p.Turn
	case engine.EventRequest:
		if lv != nil {
			lv.step, lv.finish = ev.Step, ""
		}
		var loop turnLoop
		if s.loop != nil {
			loop = *s.loop
		}
		loop.requests = append(loop.requests[:len(loop.requests):len(loop.requests)], ev.Request)
		s.loop = &loop
	case engine.EventResponse:
		if s.loop != nil { // a scripted reply sends nothing: no request, no response shown
			loop := *s.loop
			loop.responses = append(loop.responses[:len(loop.responses):len(loop.responses)], engine.TraceResponse(ev.Response))
			s.loop = &loop
		}
		if lv != nil {
			lv.finish = ev.Response.FinishReason
		}
	case engine.EventText:
		m.tr.AddText(it, ev.Text)
	case engine.EventToolCall:
		if lv != nil {
			if lv.calls == nil {
				lv.calls = map[int]liveCall{}
			}
			c := lv.calls[ev.Index]
			if ev.Name != "" {
				c.name = ev.Name
			}
			c.args += ev.Arguments
			lv.calls[ev.Index] = c
		}
	case engine.EventToolAnswered:
		if lv != nil {
			lv.tools = append(lv.tools, ev.Part)
			lv.calls = nil
		}
	case engine.EventSaved:
		s.final = true
		if r := ev.Result; r != nil {
			tr := r.Trace(r.Turn.ChatID)
			m.traces[r.Plan.User.ID] = &tr
			m.sent[r.Plan.User.ID] = &tr
			// The reply as saved, with how it ended, until the chat is read again.
			reply := r.Assistant
			it.reply = &reply
			if s.loop != nil && len(s.loop.requests) > 1 {
				m.loops[r.Plan.User.ID] = s.loop
			}
			if r.PlannedOn != "" {
				m.notice = fmt.Sprintf("another writer changed branch %s while this turn was sent: it is saved on a new branch, %s (now active)",
					inert.DisplayLine(r.PlannedOn), inert.DisplayLine(r.Turn.Branch))
			}
		}
		if ev.Err != nil {
			if errors.Is(ev.Err, context.Canceled) {
				m.setErr(fmt.Errorf("reply cancelled: the partial reply is saved, marked interrupted"))
			} else {
				m.setErr(ev.Err)
			}
		}
	case engine.EventFailed:
		s.final = true
		if u := (*engine.UnsavedError)(nil); errors.As(ev.Err, &u) {
			m.keepUnsaved(it, u)
			return
		}
		err := ev.Err
		if errors.Is(err, context.Canceled) {
			err = fmt.Errorf("cancelled before any reply: nothing saved, the message is back in the composer")
		}
		m.fail(s.text, err)
		m.setErr(err)
	}
}
