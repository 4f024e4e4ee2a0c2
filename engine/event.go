package engine

import "github.com/ctxlab/ctxlab/engine/chat"

// Event is something that happened while a turn ran. A send given an emit callback (see
// WithEvents) delivers them in order, on the goroutine that sends: EventPlanned first,
// then what the replier reports (EventRequest, EventText, EventToolCall,
// EventToolAnswered, EventUsage, EventResponse), and last exactly one of EventSaved or EventFailed,
// which is never dropped. Events share memory with the session (the plan, the requests,
// the result): a receiver reads them and does not change them, and one that keeps them
// past the send (another goroutine) copies what it needs or waits for the send to return.
//
// A reply cut short (cancelled, the stream broken) is saved, marked interrupted: it ends
// with EventSaved whose Err is the error that cut it, not with a separate event.
type Event interface{ isEvent() }

// EventPlanned is the turn planned (steps 1 to 4: its decisions, system prompt and first
// request), before anything is sent.
type EventPlanned struct{ Plan *Plan }

// EventRequest is a request to the model started: step 1 is the planned request, each
// later step a tool round sent back.
type EventRequest struct {
	Step    int
	Request chat.Request
}

// EventText is a piece of the reply's text, as it streams.
type EventText struct {
	Step int
	Text string
}

// EventToolCall is a piece of a tool call, as it streams: ID and Name come with the
// first piece of a call, Arguments is a fragment of its JSON arguments. Index tells the
// calls of one step apart.
type EventToolCall struct {
	Step, Index         int
	ID, Name, Arguments string
}

// EventToolAnswered is a tool call answered: Part holds the call with its canned result
// (state output-available) or its error (output-error).
type EventToolAnswered struct {
	Step int
	Part chat.Part
}

// EventUsage is the usage one request reported (a request that reports none has no
// event).
type EventUsage struct {
	Step  int
	Usage chat.Usage
}

// EventResponse is a request ended: how its reply ended, the usage the server reported
// for it (nil when none), its prompt's estimate and its timing. Every request sent has
// one, failed or not, after its streamed pieces and its EventUsage; a scripted reply has
// one too (step 1).
type EventResponse struct {
	Step     int
	Response chat.Response
}

// EventSaved is the turn saved: the last event of a turn that was. Err is set when the
// reply was cut short (Result.Assistant.Interrupted): the send returns the same error.
type EventSaved struct {
	Result *TurnResult
	Err    error
}

// EventFailed is a turn that saved nothing: the model failed before any reply arrived, or
// the turn could not be saved (Err is then an *UnsavedError holding the reply). Err is the
// error the send returns.
type EventFailed struct{ Err error }

func (EventPlanned) isEvent()      {}
func (EventRequest) isEvent()      {}
func (EventText) isEvent()         {}
func (EventToolCall) isEvent()     {}
func (EventToolAnswered) isEvent() {}
func (EventUsage) isEvent()        {}
func (EventResponse) isEvent()     {}
func (EventSaved) isEvent()        {}
func (EventFailed) isEvent()       {}

// SendOption configures one send (Send, Edit, Regenerate).
type SendOption func(*sendConfig)

type sendConfig struct {
	emit func(Event)
	next *UserInput // see WithNext
}

// WithEvents delivers the turn's events to emit (nil delivers none).
func WithEvents(emit func(Event)) SendOption {
	return func(c *sendConfig) { c.emit = emit }
}

// sendOptions applies opts; the emit callback it returns is never nil.
func sendOptions(opts []SendOption) sendConfig {
	var c sendConfig
	for _, o := range opts {
		o(&c)
	}
	if c.emit == nil {
		c.emit = func(Event) {}
	}
	return c
}
