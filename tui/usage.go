package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/themes"
)

// renderUsage renders the Usage tab: the turn's tokens reported and estimated side by
// side, the estimate by source as bars, cost and timing; then the chat's totals and the
// share of the context window the turn's largest prompt used.
func (in *inspector) renderUsage(bb *tabBuilder) {
	t := in.turn.Trace
	if t == nil {
		in.noTurnLine(bb)
	} else {
		in.turnHeader(bb, t)
		in.turnUsage(bb, t)
		bb.blank()
	}
	in.chatUsage(bb, t)
}

// turnUsage adds the turn's part of the Usage tab. A turn of several requests (a tool
// loop) adds them up, says so, and lists each; the estimate by source is its first
// request's.
func (in *inspector) turnUsage(bb *tabBuilder, t *engine.Trace) {
	u := &t.Usage
	est := u.Estimated
	rs := in.responses()
	n := max(in.loopLen(), len(rs)) // the requests sent (so far)
	switch {
	case in.turn.Preview:
		bb.text(themes.Muted, 0, 2, "nothing sent yet: estimates only")
	case in.turn.Streaming:
		bb.text(themes.Warning, 0, 2, "the reply is streaming: the server's usage comes when it ends; estimates only so far")
	case u.Reported == nil:
		bb.text(themes.Warning, 0, 2, "usage not reported (a scripted reply, or the server sent none): estimates only")
	}
	if n > 1 && !in.turn.Streaming {
		bb.text(themes.Muted, 0, 2, "the turn sent "+strconv.Itoa(n)+" requests (a tool loop): the figures add them up")
	}
	rows := [][4]string{{"", "reported", "estimated", "diff"}}
	prompt := [4]string{"prompt", "—", "~" + strconv.Itoa(est.PromptTokens), ""}
	completion := [4]string{"completion", "—", "~" + strconv.Itoa(est.CompletionTokens), ""}
	if r := u.Reported; r != nil {
		prompt[1], completion[1] = strconv.Itoa(r.PromptTokens), strconv.Itoa(r.CompletionTokens)
		if u.Difference != nil {
			prompt[3] = signedText(*u.Difference)
		} else {
			prompt[3] = "n/a"
		}
		completion[3] = signedText(r.CompletionTokens - est.CompletionTokens)
	}
	rows = append(rows, prompt, completion)
	if r := u.Reported; r != nil && r.CachedTokens > 0 {
		rows = append(rows, [4]string{"cached", strconv.Itoa(r.CachedTokens), "", ""})
	}
	if r := u.Reported; r != nil && r.ReasoningTokens > 0 {
		rows = append(rows, [4]string{"reasoning", strconv.Itoa(r.ReasoningTokens), "", ""})
	}
	usageTable(bb, rows)
	if u.Reported != nil && u.Difference == nil {
		bb.text(themes.Muted, 0, 2, "n/a: re-evaluated, the report was for the request as sent")
	}
	if len(rs) > 1 {
		in.byRequest(bb, rs)
	}

	bb.blank()
	if s := est.BySource; s != nil {
		title := "ESTIMATE BY SOURCE"
		if n > 1 {
			title += ", REQUEST 1 OF " + strconv.Itoa(n)
		}
		bb.segs(0, tabSeg{themes.Muted, title}, tabSeg{themes.Muted, " ~" + strconv.Itoa(s.Total) + " tokens"})
		numW := len(strconv.Itoa(s.Total))
		for _, src := range s.Sources() {
			in.bar(bb, src.Name, src.Tokens, s.Total, numW)
		}
		if n > 1 && !in.turn.Streaming {
			bb.text(themes.Muted, 0, 2, laterRequests(est.PromptTokens, s.Total, rs, n))
		}
	} else {
		bb.text(themes.Muted, 0, 2, "estimate by source: not recorded (a saved turn keeps its total)")
	}

	bb.blank()
	switch {
	case u.CostUSD != nil:
		bb.segs(0, tabSeg{themes.Muted, "cost "}, tabSeg{themes.Text, costText(*u.CostUSD)})
	case in.turn.Streaming:
		bb.text(themes.Muted, 0, 2, "cost not known yet (the reply is streaming)")
	default:
		bb.text(themes.Muted, 0, 2, "cost not known (no price for the model, or nothing was sent)")
	}
	lat := t.Latency
	switch {
	case in.turn.Streaming:
		bb.text(themes.Muted, 0, 2, "time: the reply is streaming (the transcript counts it)")
	case lat.Total > 0 || lat.TTFT > 0:
		bb.segs(0, tabSeg{themes.Muted, "first token "}, tabSeg{themes.Text, millisText(lat.TTFT)},
			tabSeg{themes.Muted, " · total "}, tabSeg{themes.Text, millisText(lat.Total)})
	default:
		bb.text(themes.Muted, 0, 2, "time not measured (no model was called)")
	}
	if rate, ok := tokensPerSecond(t); ok && !in.turn.Streaming {
		bb.segs(0, tabSeg{themes.Muted, "speed "}, tabSeg{themes.Text, rate})
	}
}

// byRequest adds a line for each request of a tool loop: its prompt and completion as
// the server reported them (— when it did not) beside the estimate of its prompt, and
// how its reply ended.
func (in *inspector) byRequest(bb *tabBuilder, rs []engine.ResponseTrace) {
	for i, r := range rs {
		p, c := "—", "—"
		if u := r.Usage; u != nil {
			p, c = strconv.Itoa(u.PromptTokens), strconv.Itoa(u.CompletionTokens)
		}
		bb.segs(0, tabSeg{themes.Muted, "request " + strconv.Itoa(i+1) + "  "},
			tabSeg{themes.Text, "prompt " + p}, tabSeg{themes.Muted, " / ~" + strconv.Itoa(r.EstimatedPromptTokens)},
			tabSeg{themes.Text, " · completion " + c}, tabSeg{themes.Muted, " · " + finishName(r.FinishReason)})
	}
}

// laterRequests says how a tool loop's estimated prompt (total) adds up beyond its first
// request's (first, which the estimate by source splits): each request's estimate when
// the responses (rs) give them, else the later requests' together.
func laterRequests(total, first int, rs []engine.ResponseTrace, n int) string {
	const why = " (each sends the prompt again, with the tool rounds so far)"
	if len(rs) == n {
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = "request " + strconv.Itoa(i+1) + " ~" + strconv.Itoa(r.EstimatedPromptTokens)
		}
		return "the estimated prompt ~" + strconv.Itoa(total) + " adds up the " + strconv.Itoa(n) + " requests" + why +
			": " + strings.Join(parts, " + ")
	}
	later := "the tool loop's later request"
	if n > 2 {
		later = "the tool loop's " + strconv.Itoa(n-1) + " later requests"
	}
	return "the estimated prompt ~" + strconv.Itoa(total) + " is request 1's ~" + strconv.Itoa(first) + " and ~" +
		strconv.Itoa(total-first) + " for " + later + why
}

// tokensPerSecond is the completion tokens (reported, else estimated) over the time
// after the first token, when that time and those tokens are known.
func tokensPerSecond(t *engine.Trace) (string, bool) {
	gen := t.Latency.Total - t.Latency.TTFT
	n, approx := t.Usage.Estimated.CompletionTokens, "~"
	if r := t.Usage.Reported; r != nil {
		n, approx = r.CompletionTokens, ""
	}
	if gen <= 0 || t.Latency.TTFT <= 0 || n <= 0 {
		return "", false
	}
	return approx + strconv.FormatFloat(float64(n)*1000/float64(gen), 'f', 1, 64) + " tokens/s", true
}

// chatUsage adds the chat's part of the Usage tab.
func (in *inspector) chatUsage(bb *tabBuilder, t *engine.Trace) {
	c := &in.chat
	bb.segs(0, tabSeg{themes.Muted, "CHAT (all branches)"})
	tot := c.Totals
	bb.segs(0, tabSeg{themes.Muted, "prompt "}, tabSeg{themes.Text, strconv.Itoa(tot.PromptTokens)},
		tabSeg{themes.Muted, " · completion "}, tabSeg{themes.Text, strconv.Itoa(tot.CompletionTokens)},
		tabSeg{themes.Muted, " · total "}, tabSeg{themes.Text, strconv.Itoa(tot.Total())})
	if c.CostKnown {
		bb.segs(0, tabSeg{themes.Muted, "cost "}, tabSeg{themes.Text, costText(c.CostUSD)})
	} else {
		bb.text(themes.Muted, 0, 2, "cost not known")
	}
	if t == nil {
		return
	}
	if c.ContextWindow <= 0 {
		bb.text(themes.Muted, 0, 2, "context window not known for this model")
		return
	}
	used, what, which, ok := in.largestPrompt(t)
	if !ok {
		bb.text(themes.Muted, 0, 2, "context window: not known for each request of this turn (saved before ctxlab kept them)")
		return
	}
	share := float64(used) * 100 / float64(c.ContextWindow)
	line := fmt.Sprintf("context window: %s used %d of %d tokens (%s, %.1f%%)", which, used, c.ContextWindow, what, share)
	if in.turn.Streaming {
		line += " so far: the reply is streaming"
	}
	bb.text(themes.Text, 0, 2, line)
	in.bar(bb, "window", used, c.ContextWindow, len(strconv.Itoa(used)))
}

// largestPrompt is the prompt of the turn's largest request, which is what must fit the
// context window (a tool loop sends several; their sum fits nothing): its tokens, as
// reported or else estimated (what), and which request it is (the prompt of a turn of one
// request). ok is false when the turn sent several and what each sent is not known (a
// turn saved before ctxlab kept them).
func (in *inspector) largestPrompt(t *engine.Trace) (used int, what, which string, ok bool) {
	rs := in.responses()
	n := max(in.loopLen(), len(rs))
	if len(rs) == 0 {
		if n > 1 && !in.turn.Streaming {
			return 0, "", "", false
		}
		used, what = t.Usage.Estimated.PromptTokens, "estimated"
		if r := t.Usage.Reported; r != nil && !in.turn.Streaming {
			used, what = r.PromptTokens, "reported"
		}
		return used, what, "this prompt", true
	}
	at := 0
	for i, r := range rs {
		p, w := r.EstimatedPromptTokens, "estimated"
		if r.Usage != nil {
			p, w = r.Usage.PromptTokens, "reported"
		}
		if i == 0 || p > used {
			used, what, at = p, w, i
		}
	}
	which = "this prompt"
	if n > 1 {
		which = "the largest prompt, request " + strconv.Itoa(at+1) + " of " + strconv.Itoa(n) + ","
	}
	return used, what, which, true
}

// usageTable adds rows of a label and three right-aligned columns; when the width is short,
// each row becomes a line of label: values.
func usageTable(bb *tabBuilder, rows [][4]string) {
	const label, col = 11, 10
	if bb.width >= label+3*col {
		for i, r := range rows {
			role := themes.Text
			if i == 0 {
				role = themes.Muted
			}
			bb.segs(0, tabSeg{themes.Muted, fmt.Sprintf("%-*s", label, r[0])},
				tabSeg{role, fmt.Sprintf("%*s%*s%*s", col, r[1], col, r[2], col, r[3])})
		}
		return
	}
	head := rows[0]
	for _, r := range rows[1:] {
		var parts []string
		for i := 1; i < 4; i++ {
			if r[i] != "" {
				parts = append(parts, r[i]+" "+head[i])
			}
		}
		bb.text(themes.Text, 0, 2, r[0]+": "+strings.Join(parts, " · "))
	}
}

// bar adds a labelled bar of n out of total, in eighths of a cell, with n after it.
func (in *inspector) bar(bb *tabBuilder, name string, n, total, numW int) {
	const label = 13
	room := min(bb.width-label-numW-1, 40)
	if room < 4 { // too narrow for a bar: the numbers alone
		bb.text(themes.Text, 0, 2, name+" "+strconv.Itoa(n))
		return
	}
	eighths := 0
	if total > 0 && n > 0 {
		eighths = max(1, n*room*8/total)
	}
	eighths = min(eighths, room*8)
	b := strings.Repeat("█", eighths/8)
	if r := eighths % 8; r > 0 {
		b += string([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	cells := eighths/8 + min(1, eighths%8)
	bb.segs(0, tabSeg{themes.Muted, fmt.Sprintf("%-*s", label, name)}, tabSeg{themes.Key, b},
		tabSeg{themes.Text, strings.Repeat(" ", room-cells+1) + fmt.Sprintf("%*d", numW, n)})
}

// signedText writes n with its sign.
func signedText(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// costText writes a cost as the headless commands do: six decimals under a cent.
func costText(v float64) string {
	if v < 0.01 {
		return fmt.Sprintf("$%.6f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// millisText writes milliseconds, as seconds from 10 s.
func millisText(n int64) string {
	if n >= 10000 {
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " s"
	}
	return strconv.FormatInt(n, 10) + " ms"
}
