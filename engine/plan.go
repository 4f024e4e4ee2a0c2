package engine

import (
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
}

// Estimate is the estimated token count of a request, by source.
type Estimate struct {
	Fragments    int `json:"fragments"`
	Instructions int `json:"instructions"`
	Reminders    int `json:"reminders"`
	History      int `json:"history"`
	User         int `json:"user"`
	Tools        int `json:"tools"`
	Framing      int `json:"framing"`
	Total        int `json:"total"`
	// EachFragment sizes each top-level fragment of the system prompt, rendered alone.
	EachFragment []FragmentTokens `json:"each_fragment,omitempty"`
}

// FragmentTokens is the estimated size of one fragment of the system prompt.
type FragmentTokens struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// Preview plans the turn that would send in now, without sending or saving anything.
func (s *Session) Preview(in UserInput) *Plan {
	return s.plan(in)
}

func (s *Session) plan(in UserInput) *Plan {
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
	p := &Plan{Turn: wc.Turn, Branch: s.view.name, At: at, Decisions: ds.all(), chatUsage: wc.Usage}
	s.render(p, &user, ds)
	return p
}

// render builds the system prompt, bakes inline and part reminders into the user message,
// and assembles the request.
func (s *Session) render(p *Plan, user *chat.Message, ds *decisions) {
	e, file := s.e, s.e.file
	userTokens := e.cache.count(user.PlainText())
	instr := instructionsBlock(file, ds.applied)
	sections := make([]string, 0, 3)
	for _, sec := range []string{e.cache.fragments, instr} {
		if sec != "" {
			sections = append(sections, sec)
		}
	}
	if file.ExplainReminders {
		sections = append(sections, explanation)
	}
	system := strings.Join(sections, "\n\n")

	var runStart, systemInject []string
	for i := range ds.reminders {
		d := &ds.reminders[i]
		if !d.Fired {
			continue
		}
		tagged := "<system-reminder>" + d.Text + "</system-reminder>"
		switch d.Placement {
		case ctxfile.PlaceRunStart:
			runStart = append(runStart, tagged)
		case ctxfile.PlaceSystem:
			systemInject = append(systemInject, tagged)
		default:
			bake(user, d.ID, d.Placement, tagged)
		}
	}
	if len(runStart) > 0 {
		system = strings.TrimRight(strings.Join(runStart, "\n\n")+"\n\n"+system, "\n")
	}
	p.fired = ds.fired()
	p.User = *user
	p.SystemPrompt = system
	p.SystemInject = strings.Join(systemInject, "\n\n")

	hist := s.historyWire()
	req := chat.Request{Model: e.model, Tools: e.cache.tools, Temperature: e.params.Temperature,
		TopP: e.params.TopP, MaxTokens: e.params.MaxTokens, Seed: e.params.Seed}
	req.Messages = make([]chat.WireMessage, 0, len(hist)+3)
	if system != "" {
		req.Messages = append(req.Messages, chat.WireMessage{Role: chat.RoleSystem, Content: system})
	}
	req.Messages = append(req.Messages, hist...)
	if p.SystemInject != "" {
		req.Messages = append(req.Messages, chat.WireMessage{Role: chat.RoleSystem, Content: p.SystemInject})
	}
	req.Messages = append(req.Messages, user.UserWire())
	p.Request = req
	p.Estimate = s.estimate(p, instr, ds, userTokens, len(hist))
}

// bake appends a tagged reminder to the user message: inline, to its last text part with
// no separator; part, as a new text part. The span is recorded with the message.
func bake(m *chat.Message, id, placement, tagged string) {
	if placement == ctxfile.PlacePart {
		m.Parts = append(m.Parts, chat.TextPart(tagged))
		m.Reminders = append(m.Reminders, chat.ReminderSpan{ID: id, Part: len(m.Parts) - 1, Start: 0, End: len(tagged), Mode: chat.SpanPart})
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
	start := len(m.Parts[last].Text)
	m.Parts[last].Text += tagged
	m.Reminders = append(m.Reminders, chat.ReminderSpan{ID: id, Part: last, Start: start, End: start + len(tagged), Mode: chat.SpanInline})
}

// historyWire returns the request form of the active branch, computing each message's
// form (and token estimate) once. The slice is the view's cache: callers copy it, and do
// not change its messages.
func (s *Session) historyWire() []chat.WireMessage {
	v := s.view
	for i := len(v.wireEnd); i < len(v.path); i++ {
		w := v.path[i].Wire()
		for j := range w {
			w[j] = w[j].Encoded() // sent again on every later turn: encode it once
		}
		v.wire = append(v.wire, w...)
		v.wireEnd = append(v.wireEnd, len(v.wire))
		v.tokens = append(v.tokens, wireTokens(s.e.cache.count, w))
	}
	return v.wire[:len(v.wire):len(v.wire)]
}

// estimate sizes the request by source, from cached counts.
func (s *Session) estimate(p *Plan, instr string, ds *decisions, userTokens, histMsgs int) Estimate {
	c := s.e.cache
	var est Estimate
	est.Fragments = c.count(c.fragments)
	est.EachFragment = c.eachFragment()
	est.Instructions = c.count(instr)
	if s.e.file.ExplainReminders {
		est.Instructions += c.count(explanation)
	}
	for i := range ds.reminders {
		if ds.reminders[i].Fired {
			est.Reminders += ds.reminders[i].Tokens + 8 // the <system-reminder> tags
		}
	}
	for _, t := range s.view.tokens {
		est.History += t
	}
	est.User = userTokens
	est.Tools = toolTokens(c.count, p.Request.Tools)
	est.Framing = 4*(len(p.Request.Messages)-histMsgs) + 3
	est.Total = est.Fragments + est.Instructions + est.Reminders + est.History + est.User + est.Tools + est.Framing
	return est
}
