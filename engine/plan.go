package engine

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
)

// Plan is a turn decided and rendered but not sent: steps 1 to 4 of the pipeline. A
// preview stops here and changes nothing.
type Plan struct {
	Turn   int
	Branch string
	At     time.Time
	// User is the user message to save, with its inline and part reminders baked in.
	User chat.Message
	// SystemPrompt is the content of the request's system message (run-start reminders
	// included); SystemInject the system-placement reminder message ("" for none).
	SystemPrompt string
	SystemInject string
	Request      chat.Request
	Decisions    []Decision
	// Estimate is the estimated prompt size, by source.
	Estimate Estimate

	fired     []chat.Fired
	chatUsage chat.Usage // the usage the decisions saw
	// totalOnly marks an Estimate that has only its Total (a regenerated turn's, taken
	// from the record).
	totalOnly bool
	// encoded, when set, waits for the JSON of Decisions, being encoded (planToSend).
	encoded func() json.RawMessage
	// contextDigest is the digest of the context file the request was made under, which
	// the turn records (chat.Turn.ContextDigest); nil when not known.
	contextDigest *string
}

// Estimate is the estimated token count of a request, by source (chat.PromptEstimate: a
// turn's record keeps it).
type Estimate = chat.PromptEstimate

// FragmentTokens is the estimated size of one fragment of the system prompt.
type FragmentTokens = chat.FragmentTokens

// Preview plans the turn that would send in now, without sending or saving anything.
func (s *Session) Preview(in UserInput) *Plan {
	return s.plan(in)
}

func (s *Session) plan(in UserInput) *Plan { return s.planFor(in, false) }

// planToSend is plan for a turn about to be sent: the JSON of its decisions is encoded
// (and prepared for the commit) while the rest of the turn is planned and answered.
func (s *Session) planToSend(in UserInput) *Plan { return s.planFor(in, true) }

func (s *Session) planFor(in UserInput, send bool) *Plan {
	e := s.e
	at := in.At
	if at.IsZero() {
		at = e.now()
	}
	user := chat.Message{ID: e.newID(), ParentID: s.view.head, Role: chat.RoleUser,
		Parts: []chat.Part{chat.TextPart(in.Text)}, Locale: in.Locale, CreatedAt: at}
	wc := s.whenContext(&user)
	ev := turnEval{file: e.file, cache: e.cache, wc: wc, fires: s.view.fires}
	ds := ev.decide()
	p := &Plan{Turn: wc.Turn, Branch: s.view.name, At: at, Decisions: ds.all(), chatUsage: wc.Usage, contextDigest: e.digest}
	if send {
		p.encoded = s.encoder().start(p.Decisions, e.store)
	}
	s.render(p, &user, ds)
	return p
}

// render builds the system prompt, bakes inline and part reminders into the user message,
// and assembles the request.
func (s *Session) render(p *Plan, user *chat.Message, ds *decisions) {
	e, file := s.e, s.e.file
	userTokens := e.cache.count(user.PlainText())
	prompt := e.cache.prompt(file, ds.applied)
	system := prompt.system

	var runStart, systemInject []byte
	bk := baker{m: user, part: -1}
	for i := range ds.reminders {
		d := &ds.reminders[i]
		if !d.Fired {
			continue
		}
		switch d.Placement {
		case ctxfile.PlaceRunStart:
			runStart = appendTagged(appendSep(runStart), d.Text)
		case ctxfile.PlaceSystem:
			systemInject = appendTagged(appendSep(systemInject), d.Text)
		default:
			bk.add(d.ID, d.Placement, d.Text)
		}
	}
	bk.flush()
	if len(runStart) > 0 {
		system = strings.TrimRight(string(runStart)+"\n\n"+system, "\n")
	}
	p.fired = ds.fired()
	p.User = *user
	p.SystemPrompt = system
	p.SystemInject = string(systemInject)

	p.Request = chat.Request{Model: e.model, Tools: e.cache.tools, Temperature: e.params.Temperature, TopP: e.params.TopP,
		MaxTokens: e.params.MaxTokens, Seed: e.params.Seed}
	s.setMessages(&p.Request, system, p.SystemInject, user)
	p.Estimate = s.estimate(p, prompt, ds, userTokens, len(s.view.wire))
}

// Tags of a reminder in a request.
const (
	openTag  = "<system-reminder>"
	closeTag = "</system-reminder>"
)

// appendTagged appends a reminder's text in its tags.
func appendTagged(dst []byte, text string) []byte {
	dst = append(dst, openTag...)
	dst = append(dst, text...)
	return append(dst, closeTag...)
}

// appendSep appends the blank line that separates tagged reminders joined in one message,
// unless dst is empty.
func appendSep(dst []byte) []byte {
	if len(dst) == 0 {
		return dst
	}
	return append(dst, "\n\n"...)
}

// baker bakes tagged reminders into a user message: inline, appended to its last text
// part with no separator; part, as a new text part. Each span is recorded with the
// message. The text of the part inline reminders go to is built once, not once per
// reminder.
type baker struct {
	m    *chat.Message
	part int // the part whose text buf holds (-1: none)
	buf  []byte
}

func (b *baker) add(id, placement, text string) {
	m := b.m
	n := len(openTag) + len(text) + len(closeTag)
	if placement == ctxfile.PlacePart {
		m.Parts = append(m.Parts, chat.TextPart(string(appendTagged(make([]byte, 0, n), text))))
		m.Reminders = append(m.Reminders, chat.ReminderSpan{ID: id, Part: len(m.Parts) - 1, Start: 0, End: n, Mode: chat.SpanPart})
		return
	}
	last := -1
	for i := len(m.Parts) - 1; i >= 0; i-- {
		if m.Parts[i].Type == chat.PartText {
			last = i
			break
		}
	}
	if last < 0 {
		m.Parts = append(m.Parts, chat.TextPart(""))
		last = len(m.Parts) - 1
	}
	if last != b.part {
		b.flush()
		b.part = last
		b.buf = append(b.buf[:0], m.Parts[last].Text...)
	}
	start := len(b.buf)
	b.buf = appendTagged(b.buf, text)
	m.Reminders = append(m.Reminders, chat.ReminderSpan{ID: id, Part: last, Start: start, End: start + n, Mode: chat.SpanInline})
}

// flush writes the text built for a part into it.
func (b *baker) flush() {
	if b.part >= 0 {
		b.m.Parts[b.part].Text = string(b.buf)
		b.part = -1
	}
}

// historyWire returns the request form of the active branch, computing each message's
// form (and token estimate) once. The slice is the view's cache, which the requests
// built on the branch share (setMessages): callers do not change it or its messages. It
// is capped, so appending to it copies.
func (s *Session) historyWire() []chat.WireMessage {
	v := s.view
	for i := len(v.wireEnd); i < len(v.path); i++ {
		w := v.path[i].Wire()
		for j := range w {
			w[j] = w[j].Encoded() // sent again on every later turn: encode it once
		}
		v.wire = append(v.wire, w...)
		v.wireEnd = append(v.wireEnd, len(v.wire))
		v.tokensTo = append(v.tokensTo, v.historyTokens()+wireTokens(s.e.cache.count, w))
	}
	return v.wire[:len(v.wire):len(v.wire)]
}

// historyTokens is the estimated size of the history cached in wire.
func (v *branchView) historyTokens() int {
	if len(v.tokensTo) == 0 {
		return 0
	}
	return v.tokensTo[len(v.tokensTo)-1]
}

// setMessages sets the messages of a request on the active branch: the system message
// (none for an empty system prompt) as its Head, the history as its Shared part, and the
// injected system message (none for an empty inject) and the user message as its
// Messages.
//
// The history is the view's cache (historyWire), which is only ever appended to: a
// request does not copy it, whatever its placements, so planning a turn costs the same
// on turn 100 and on turn 5,000, and the requests of a chat, kept in its plans and traces,
// share one copy of its history. The slice is capped, so that appending to one request's
// messages never writes another's, and the positions it holds are never written again:
// a request handed out does not change when later turns are planned or sent.
func (s *Session) setMessages(req *chat.Request, system, inject string, user *chat.Message) {
	own := make([]chat.WireMessage, 0, 3)
	if system != "" {
		own = append(own, chat.WireMessage{Role: chat.RoleSystem, Content: system})
	}
	head := len(own)
	if inject != "" {
		own = append(own, chat.WireMessage{Role: chat.RoleSystem, Content: inject})
	}
	own = append(own, user.UserWire())
	req.Head = own[:head:head]
	if head == 0 {
		req.Head = nil
	}
	req.Shared = s.historyWire()
	req.Messages = own[head:len(own):len(own)]
}

// estimate sizes the request by source, from cached counts.
func (s *Session) estimate(p *Plan, prompt *systemPrompt, ds *decisions, userTokens, histMsgs int) Estimate {
	c := s.e.cache
	var est Estimate
	est.Fragments = c.fragmentTokens()
	est.EachFragment = c.eachFragment()
	est.Instructions = prompt.instrTokens
	for i := range ds.reminders {
		if ds.reminders[i].Fired {
			est.Reminders += ds.reminders[i].Tokens + 8 // the <system-reminder> tags
		}
	}
	est.History = s.view.historyTokens()
	est.User = userTokens
	est.Tools = toolTokens(c.count, p.Request.Tools)
	est.Framing = 4*(p.Request.Len()-histMsgs) + 3
	est.Total = est.Fragments + est.Instructions + est.Reminders + est.History + est.User + est.Tools + est.Framing
	return est
}
