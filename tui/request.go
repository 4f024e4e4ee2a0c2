package tui

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// Tags of an injected reminder, as the request holds them.
const (
	reminderOpenTag  = "<system-reminder>"
	reminderCloseTag = "</system-reminder>"
)

// renderRequest renders the Request tab: the request of the turn exactly as it went to
// the model, the body llm's client put on the wire (ctxapp.WireBody: "stream" and
// "stream_options" added, an empty "tools" left out), or, when nothing was sent (a
// scripted reply, a chat with no model), the request as the trace records it; a pinned
// line says which (turnView.bodyForm). Indented, with every <system-reminder> block
// highlighted; with d, only what is new since the previous request. Pinned above it, what
// came back to the request: how the reply ended, the usage the server reported, the time
// to its first token and its time. A turn of a live tool loop sent several requests: the
// tab shows one of them ("request 2/3"), the key steps to the next; the previous request
// of its second is its first, not the previous turn's.
func (in *inspector) renderRequest(bb *tabBuilder) {
	t := in.turn.Trace
	if t == nil {
		in.noTurnLine(bb)
		return
	}
	in.turnHeader(bb, t)
	k := in.shownStep()
	req := in.turn.request(k)
	var prev *chat.Request
	since := ""
	if p := in.turn.Prev; p != nil {
		prev, since = &p.Request, "turn "+strconv.Itoa(p.Turn)+"'s request"
	}
	if n := in.loopLen(); n > 1 {
		step := ""
		if in.loopKey != nil {
			step = " · " + in.loopKey.Help().Key + ": the next"
		}
		bb.headSegs(tabSeg{themes.Accent, "request " + strconv.Itoa(k+1) + "/" + strconv.Itoa(n)},
			tabSeg{themes.Muted, " of the tool loop" + step})
		if k > 0 {
			prev, since = in.turn.request(k-1), "request "+strconv.Itoa(k)
		}
	}
	bb.head(themes.Muted, "model "+inert.DisplayLine(req.Model)+" · "+countNoun(req.Len(), "message")+" · "+
		countNoun(len(req.Tools), "tool"))
	bb.head(themes.Muted, in.turn.bodyForm())
	in.responseHead(bb, k)
	if in.onlyNew {
		in.renderNew(bb, req, prev, since)
		return
	}
	raw, err := in.turn.requestJSON(req)
	if err != nil {
		bb.text(themes.Error, 0, 2, "the request cannot be shown: "+inert.Display(err.Error()))
		return
	}
	addJSONLines(bb, raw)
}

// shownStep is the request of the turn's tool loop the tab shows (0-based; 0 without a
// loop).
func (in *inspector) shownStep() int { return min(in.reqStep, in.loopLen()-1) }

// request returns request k (0-based) of the turn: of its tool loop, or its one request.
func (v *turnView) request(k int) *chat.Request {
	if l := v.Loop; l != nil && len(l.requests) > 1 && k < len(l.requests) {
		return &l.requests[k]
	}
	return &v.Trace.Request
}

// onWire reports whether the request shown went, or would go, to a model: the tab then
// shows the body the client put (or would put) on the wire.
func (v *turnView) onWire() bool {
	switch {
	case v.Trace == nil:
		return false
	case v.Preview || v.Unsent || v.Streaming:
		return v.Live
	}
	return v.Trace.Sent
}

// requestJSON returns a request of the turn as the Request tab shows it, and `y` copies
// it: the body on the wire when it went (or would go) to a model, else as recorded.
func (v *turnView) requestJSON(req *chat.Request) ([]byte, error) {
	if v.onWire() {
		return ctxapp.WireBody(req)
	}
	return req.AppendJSON(nil)
}

// bodyForm says which form of the request the tab shows, and why.
func (v *turnView) bodyForm() string {
	t := v.Trace
	switch {
	case v.onWire() && (v.Preview || v.Unsent):
		return "would send: the exact body on the wire"
	case v.onWire():
		return "sent: the exact body on the wire"
	case v.Preview || v.Unsent:
		return "no model configured: the request as the trace would record it"
	case t.NotRecorded:
		return "nothing known of what was sent: the request as the trace has it"
	case t.Assistant == nil && !v.Streaming:
		return "nothing sent (no reply): the request as the trace records it"
	}
	return "nothing sent (a scripted reply): the request as the trace records it"
}

// responseHead adds the pinned lines of what came back to request k (0-based) of the turn
// shown: its finish reason, the usage the server reported for it beside the estimate of
// its prompt, and its times; or why that is not shown.
func (in *inspector) responseHead(bb *tabBuilder, k int) {
	v, rs := in.turn, in.responses()
	t := v.Trace
	switch {
	case v.Preview || v.Unsent:
		return // nothing was sent
	case k < len(rs):
	case v.Streaming:
		bb.head(themes.Warning, "response: streaming; its finish reason, usage and time come when it ends")
		return
	case t.Assistant == nil:
		bb.head(themes.Muted, "response: none (the turn has no reply)")
		return
	case t.NotRecorded:
		bb.head(themes.Muted, "response: not recorded (an imported turn)")
		return
	default:
		bb.head(themes.Muted, "response: not recorded for each request (the turn was saved before ctxlab kept them); Usage has the turn's")
		return
	}
	r := rs[k]
	line := []tabSeg{{themes.Muted, "response: "}, {themes.Text, finishName(r.FinishReason)}}
	if r.FinishReason == "length" || r.FinishReason == "content_filter" {
		line = append(line, tabSeg{themes.Warning, " ⚠ " + engine.FinishNote(r.FinishReason, 0)})
	}
	if r.Latency.TTFT > 0 || r.Latency.Total > 0 {
		line = append(line, tabSeg{themes.Muted, " · first token "}, tabSeg{themes.Text, millisText(r.Latency.TTFT)},
			tabSeg{themes.Muted, " · "}, tabSeg{themes.Text, millisText(r.Latency.Total)}, tabSeg{themes.Muted, " in all"})
	} else {
		line = append(line, tabSeg{themes.Muted, " · not timed (no model was called)"})
	}
	bb.headSegs(line...)
	est := tabSeg{themes.Muted, " · estimated prompt ~" + strconv.Itoa(r.EstimatedPromptTokens)}
	u := r.Usage
	if u == nil {
		bb.headSegs(tabSeg{themes.Muted, "usage: "}, tabSeg{themes.Warning, "not reported"}, est)
		return
	}
	usage := "prompt " + strconv.Itoa(u.PromptTokens) + " · completion " + strconv.Itoa(u.CompletionTokens)
	if u.CachedTokens > 0 {
		usage += " · cached " + strconv.Itoa(u.CachedTokens)
	}
	if u.ReasoningTokens > 0 {
		usage += " · reasoning " + strconv.Itoa(u.ReasoningTokens)
	}
	bb.headSegs(tabSeg{themes.Muted, "usage reported: "}, tabSeg{themes.Text, usage}, est)
}

// finishName is a finish reason as the tabs write it: "none" when the server gave none.
func finishName(reason string) string {
	if reason == "" {
		return "none"
	}
	return inert.DisplayLine(reason)
}

// renderNew renders what a request adds to the previous request (prev, since names it;
// nil: there is none): the system prompt when it changed, and the messages after those
// the two share.
func (in *inspector) renderNew(bb *tabBuilder, req, prev *chat.Request, since string) {
	if prev == nil {
		bb.head(themes.Added, "only what is new: no previous turn on this branch, all of it is new")
		raw, err := in.turn.requestJSON(req)
		if err != nil {
			bb.text(themes.Error, 0, 2, "the request cannot be shown: "+inert.Display(err.Error()))
			return
		}
		addJSONLines(bb, raw)
		return
	}
	// sys returns a request's system prompt as JSON ("" for none) and the position of the
	// message after it.
	sys := func(r *chat.Request) (string, int) {
		if r.Len() > 0 {
			if m := r.At(0); m.Role == chat.RoleSystem {
				return string(m.AppendJSON(nil)), 1
			}
		}
		return "", 0
	}
	curSys, curRest := sys(req)
	oldSys, oldRest := sys(prev)
	// The history the previous request sent, without its injected system messages:
	// those are sent once, with their turn.
	var history [][]byte
	for i, m := range prev.All() {
		if i >= oldRest && m.Role != chat.RoleSystem {
			history = append(history, m.AppendJSON(nil))
		}
	}
	shared := 0
	for ; curRest+shared < req.Len() && shared < len(history); shared++ {
		if m := req.At(curRest + shared); !bytes.Equal(m.AppendJSON(nil), history[shared]) {
			break
		}
	}
	first := curRest + shared
	added := req.Len() - first
	what := strconv.Itoa(added) + " messages added"
	if added == 1 {
		what = "1 message added"
	}
	if curSys != oldSys {
		what += ", the system prompt changed"
	} else {
		what += ", the system prompt unchanged"
	}
	bb.head(themes.Added, "only what is new since "+since+": "+what)
	if curSys != oldSys && curSys != "" {
		bb.segs(0, tabSeg{themes.Added, "+ messages[0]"}, tabSeg{themes.Muted, " system prompt, changed"})
		addJSONLines(bb, []byte(curSys))
	}
	for i := first; i < req.Len(); i++ {
		m := req.At(i)
		bb.segs(0, tabSeg{themes.Added, "+ messages[" + strconv.Itoa(i) + "]"}, tabSeg{themes.Muted, " " + string(m.Role)})
		addJSONLines(bb, m.AppendJSON(nil))
	}
}

// addJSONLines adds compact JSON indented two spaces a level, each line wrapped to the width
// with its continuation under its text, reminder blocks highlighted.
func addJSONLines(bb *tabBuilder, raw []byte) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		bb.text(themes.Error, 0, 2, "the request is not valid JSON: "+inert.Display(err.Error()))
		return
	}
	inside := false
	for _, line := range strings.Split(inert.Display(buf.String()), "\n") {
		lead := len(line) - len(strings.TrimLeft(line, " "))
		mask := make([]bool, len(line))
		inside = reminderMask(line, mask, inside)
		first, w := roomFor(lead, bb.width)
		next, w2 := roomFor(lead+2, bb.width)
		rest, restMask := line[lead:], mask[lead:]
		var pieces [][2]int
		for _, part := range escapedLines(rest) { // a string's lines, each on lines of its own
			from := part[0]
			if len(pieces) == 0 { // the first line at the JSON's indent, the rest under it
				p := wrapRanges(rest[from:part[1]], w)[0]
				pieces = append(pieces, [2]int{from + p[0], from + p[1]})
				for from += p[1]; from < part[1] && rest[from] == ' '; from++ {
				}
				if from >= part[1] {
					continue
				}
			}
			for _, p := range wrapRanges(rest[from:part[1]], w2) {
				pieces = append(pieces, [2]int{from + p[0], from + p[1]})
			}
		}
		for i, p := range pieces {
			pad := first
			if i > 0 {
				pad = next
			}
			bb.add(strings.Repeat(" ", pad) + paintMasked(bb, rest[p[0]:p[1]], restMask[p[0]:p[1]]))
		}
	}
}

// reminderMask marks the bytes of line inside a <system-reminder> block (tags included),
// starting inside one when inside is set; it returns whether the line ends inside one.
func reminderMask(line string, mask []bool, inside bool) bool {
	for i := 0; i < len(line); {
		if !inside {
			j := strings.Index(line[i:], reminderOpenTag)
			if j < 0 {
				return false
			}
			i += j
			inside = true
			continue
		}
		j := strings.Index(line[i:], reminderCloseTag)
		end := len(line)
		if j >= 0 {
			end = i + j + len(reminderCloseTag)
		}
		for k := i; k < end; k++ {
			mask[k] = true
		}
		i = end
		if j < 0 {
			return true
		}
		inside = false
	}
	return inside
}

// paintMasked renders s with the bytes the mask marks as reminders, the rest as text.
func paintMasked(bb *tabBuilder, s string, mask []bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && mask[j] == mask[i] {
			j++
		}
		role := themes.Text
		if mask[i] {
			role = themes.Reminder
		}
		b.WriteString(bb.paint(role, s[i:j]))
		i = j
	}
	return b.String()
}

// escapedLines splits a line of JSON after each \n escape, so a string's lines show as
// lines; it returns the byte ranges of the parts.
func escapedLines(s string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(s)-1; i++ {
		if s[i] != '\\' {
			continue
		}
		if s[i+1] == 'n' && i+2 < len(s) {
			out = append(out, [2]int{start, i + 2})
			start = i + 2
		}
		i++ // the escaped character
	}
	return append(out, [2]int{start, len(s)})
}
