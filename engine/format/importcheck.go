package format

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/decision"
	"github.com/ctxlab/ctxlab/engine/jsonpos"
)

// Limits on what an import accepts, so that a hostile file cannot exhaust the store.
const (
	maxMessages = 2 << 20        // messages of one imported chat
	maxTurns    = 2 << 20        // turns of one imported chat
	maxBranches = 1 << 16        // branches or checkpoints of one imported chat
	maxTokens   = 1e12           // a count of tokens of an imported turn
	maxLatency  = 24 * time.Hour // the time to the first token, or the latency, of an imported turn
)

// A chat's usage totals add up, per turn, at most 2*maxTokens (a total taken as prompt
// plus completion): the sums over an imported chat fit in an int64, in Go and in SQLite.
const _ uint64 = math.MaxInt64 - maxTurns*2*maxTokens

// importPlan is a checked export, ready to write.
type importPlan struct {
	order   []int          // message indexes, parents before children, file order kept where it can be
	inOrder bool           // order is the file order
	turnsOf map[string]int // message id -> the user messages on the path to it, itself included
	index   map[string]int // message id -> index in the export's messages
	// replied holds the user messages that have a reply (an assistant message child).
	replied map[string]bool
}

// CheckExport checks e as ImportChat does, without a database, so that a command can
// refuse a file before it opens one: nil when ImportChat would store e, unless its chat id
// is taken. A problem is an *ExportError with the path of the offending value.
func CheckExport(e *Export) error {
	_, err := planImport(e)
	return err
}

// planImport checks an export completely, before anything is written: each record, and
// that the whole is a chat ctxlab could have made (see checkTurnGraph and endProblem).
// Its errors are *ExportErrors with the path of the offending value.
func planImport(e *Export) (*importPlan, error) {
	if err := checkHeader(e.Format, e.Version); err != nil {
		return nil, err
	}
	c := &e.Chat
	if err := checkImportedChat(c); err != nil {
		return nil, err
	}
	switch {
	case len(e.Messages) > maxMessages:
		return nil, exportErr(jsonpos.Path{"messages", maxMessages}, "more than %d messages", maxMessages)
	case len(e.Turns) > maxTurns:
		return nil, exportErr(jsonpos.Path{"turns", maxTurns}, "more than %d turns", maxTurns)
	case len(e.Branches) > maxBranches:
		return nil, exportErr(jsonpos.Path{"branches", maxBranches}, "more than %d branches", maxBranches)
	case len(e.Checkpoints) > maxBranches:
		return nil, exportErr(jsonpos.Path{"checkpoints", maxBranches}, "more than %d checkpoints", maxBranches)
	}
	p := &importPlan{turnsOf: make(map[string]int, len(e.Messages))}
	if c.Metadata != nil {
		if _, err := json.Marshal(c.Metadata); err != nil {
			return nil, exportErr(jsonpos.Path{"chat", "metadata"}, "metadata: %v", err)
		}
	}
	if err := p.planMessages(e.Messages); err != nil {
		return nil, err
	}
	branches, err := p.checkBranches(e)
	if err != nil {
		return nil, err
	}
	if err := p.checkCheckpoints(e); err != nil {
		return nil, err
	}
	if err := p.checkTurns(e, branches); err != nil {
		return nil, err
	}
	return p, nil
}

// checkBranches checks the branches of an export and returns their names.
func (p *importPlan) checkBranches(e *Export) (map[string]bool, error) {
	branches := make(map[string]bool, len(e.Branches))
	for i, b := range e.Branches {
		if err := chat.CheckName("branch name", b.Name); err != nil {
			return nil, at(err, "branches", i, "name")
		}
		if branches[b.Name] {
			return nil, exportErr(jsonpos.Path{"branches", i, "name"}, "branch %q twice", b.Name)
		}
		branches[b.Name] = true
		if err := chat.CheckTime(b.CreatedAt, "branch "+chat.Quote(b.Name)); err != nil {
			return nil, at(err, "branches", i, "created_at")
		}
		if why := p.endProblem(e.Messages, b.Head); b.Head != "" && why != "" {
			return nil, exportErr(jsonpos.Path{"branches", i, "head"}, "branch %q: head %q %s", b.Name, b.Head, why)
		}
	}
	for i, b := range e.Branches {
		if b.Parent != "" && (!branches[b.Parent] || b.Parent == b.Name) {
			return nil, exportErr(jsonpos.Path{"branches", i, "parent"}, "branch %q: parent branch %q is not another branch of the chat", b.Name, b.Parent)
		}
	}
	if active := e.Chat.ActiveBranch; !branches[active] {
		return nil, exportErr(jsonpos.Path{"chat", "active_branch"}, "active branch %q is not a branch of the chat", active)
	}
	return branches, nil
}

// checkCheckpoints checks the checkpoints of an export.
func (p *importPlan) checkCheckpoints(e *Export) error {
	checkpoints := make(map[string]bool, len(e.Checkpoints))
	for i, k := range e.Checkpoints {
		if err := chat.CheckName("checkpoint name", k.Name); err != nil {
			return at(err, "checkpoints", i, "name")
		}
		if checkpoints[k.Name] {
			return exportErr(jsonpos.Path{"checkpoints", i, "name"}, "checkpoint %q twice", k.Name)
		}
		checkpoints[k.Name] = true
		if why := p.endProblem(e.Messages, k.MessageID); why != "" {
			return exportErr(jsonpos.Path{"checkpoints", i, "message_id"}, "checkpoint %q: message %q %s", k.Name, k.MessageID, why)
		}
		if err := chat.CheckTime(k.CreatedAt, "checkpoint "+chat.Quote(k.Name)); err != nil {
			return at(err, "checkpoints", i, "created_at")
		}
	}
	return nil
}

// endProblem says why the message id cannot be a branch head or a checkpoint, "" when it
// can: a branch ends at a reply, or at a user message that has none (a turn that failed,
// the last message of an imported request).
func (p *importPlan) endProblem(msgs []chat.Message, id string) string {
	i, ok := p.index[id]
	switch {
	case !ok:
		return "is not a message of the chat"
	case msgs[i].Role == chat.RoleUser && p.replied[id]:
		return "is a user message that has a reply (a branch ends at a reply, or at a user message that has none)"
	}
	return ""
}

// checkTurns checks the turns of an export.
func (p *importPlan) checkTurns(e *Export, branches map[string]bool) error {
	ids := make(map[string]bool, len(e.Turns))
	replies := make(map[string]string, len(e.Turns)) // assistant message id -> its turn's id
	for i := range e.Turns {
		t := &e.Turns[i]
		if err := chat.CheckTurn(t); err != nil {
			return at(err, "turns", i)
		}
		if ids[t.ID] {
			return exportErr(jsonpos.Path{"turns", i, "id"}, "turn %q twice", t.ID)
		}
		ids[t.ID] = true
		if t.ChatID != e.Chat.ID {
			return exportErr(jsonpos.Path{"turns", i, "chat_id"}, "turn %q: chat id %q, want %q", t.ID, t.ChatID, e.Chat.ID)
		}
		if !branches[t.Branch] {
			return exportErr(jsonpos.Path{"turns", i, "branch"}, "turn %q: branch %q is not a branch of the chat", t.ID, t.Branch)
		}
		for _, f := range []struct{ key, id string }{{"user_message_id", t.UserMessageID}, {"assistant_message_id", t.AssistantMessageID}} {
			if _, ok := p.index[f.id]; f.id != "" && !ok {
				return exportErr(jsonpos.Path{"turns", i, f.key}, "turn %q: message %q is not a message of the chat", t.ID, f.id)
			}
		}
		if err := p.checkTurnGraph(e.Messages, t, replies); err != nil {
			return at(err, "turns", i)
		}
		if err := checkTurnNumbers(t); err != nil {
			return at(err, "turns", i)
		}
		if err := checkDecisions(t, jsonpos.Path{"turns", i, "decisions"}); err != nil {
			return err
		}
	}
	return nil
}

// checkTurnGraph checks that a turn record is one the engine writes: its user message is
// a user message, numbered as the user messages on the path to it; its assistant message
// answers it (its child), and is the reply of no other turn (replies maps the replies seen
// to their turns); only a turn that failed, with its error, has no assistant message. Its
// errors are *chat.FieldErrors naming the field of the turn at fault.
func (p *importPlan) checkTurnGraph(msgs []chat.Message, t *chat.Turn, replies map[string]string) error {
	if t.UserMessageID == "" {
		return invalidAt(jsonpos.Path{"user_message_id"}, "turn %q: no user message", t.ID)
	}
	if u := &msgs[p.index[t.UserMessageID]]; u.Role != chat.RoleUser {
		return invalidAt(jsonpos.Path{"user_message_id"}, "turn %q: user message %q is an %s message", t.ID, u.ID, u.Role)
	}
	if want := p.turnsOf[t.UserMessageID]; t.Number != want {
		return invalidAt(jsonpos.Path{"turn"}, "turn %q: number %d, want %d (the user messages on the path to %q)", t.ID, t.Number, want, t.UserMessageID)
	}
	if t.AssistantMessageID == "" {
		if t.Error == "" {
			return invalidAt(jsonpos.Path{"assistant_message_id"}, "turn %q: no assistant message and no error (only a turn that failed has no reply)", t.ID)
		}
		return nil
	}
	a := &msgs[p.index[t.AssistantMessageID]]
	switch {
	case a.Role != chat.RoleAssistant:
		return invalidAt(jsonpos.Path{"assistant_message_id"}, "turn %q: assistant message %q is a %s message", t.ID, a.ID, a.Role)
	case a.ParentID != t.UserMessageID:
		return invalidAt(jsonpos.Path{"assistant_message_id"}, "turn %q: assistant message %q does not answer user message %q (its parent is %q)", t.ID, a.ID, t.UserMessageID, a.ParentID)
	}
	if other, taken := replies[a.ID]; taken {
		return invalidAt(jsonpos.Path{"assistant_message_id"}, "turn %q: message %q is already the reply of turn %q", t.ID, a.ID, other)
	}
	replies[a.ID] = t.ID
	return nil
}

// checkTurnNumbers checks the usage and latency of a turn and of each of its responses:
// token counts from 0 to maxTokens, durations from 0 to maxLatency. Its errors are *chat.FieldErrors naming the
// field of the turn at fault.
func checkTurnNumbers(t *chat.Turn) error {
	type number struct {
		path     jsonpos.Path
		n, limit int64
		unit     string
	}
	var list []number
	tokens := func(path jsonpos.Path, u *chat.Usage) {
		if u == nil {
			return
		}
		for _, f := range []struct {
			key string
			n   int
		}{{"prompt_tokens", u.PromptTokens}, {"completion_tokens", u.CompletionTokens}, {"total_tokens", u.TotalTokens},
			{"cached_tokens", u.CachedTokens}, {"reasoning_tokens", u.ReasoningTokens}} {
			list = append(list, number{path.Append(f.key), int64(f.n), maxTokens, "tokens"})
		}
	}
	tokens(jsonpos.Path{"reported"}, t.Reported)
	tokens(jsonpos.Path{"estimated"}, &t.Estimated)
	tokens(jsonpos.Path{"request", "chat_usage"}, &t.Request.ChatUsage)
	if e := t.Request.Estimate; e != nil {
		at := jsonpos.Path{"request", "estimate"}
		sizes := e.Sources()
		for _, f := range append(sizes[:], chat.SourceSize{Name: "total", Tokens: e.Total}) {
			list = append(list, number{at.Append(f.Name), int64(f.Tokens), maxTokens, "tokens"})
		}
		for i, f := range e.EachFragment {
			list = append(list, number{at.Append("each_fragment").Append(i).Append("tokens"), int64(f.Tokens), maxTokens, "tokens"})
		}
	}
	duration := func(path jsonpos.Path, d time.Duration) {
		list = append(list, number{path, int64(d), int64(maxLatency), "ns, " + maxLatency.String()})
	}
	list = append(list, number{jsonpos.Path{"request", "max_tokens"}, int64(t.Request.MaxTokens), maxTokens, "tokens"})
	duration(jsonpos.Path{"ttft"}, t.TTFT)
	duration(jsonpos.Path{"latency"}, t.Latency)
	for i := range t.Responses {
		r := &t.Responses[i]
		at := jsonpos.Path{"responses", i}
		tokens(at.Append("usage"), r.Usage)
		list = append(list, number{at.Append("estimated_prompt_tokens"), int64(r.EstimatedPrompt), maxTokens, "tokens"})
		duration(at.Append("ttft"), r.TTFT)
		duration(at.Append("latency"), r.Latency)
	}
	for _, x := range list {
		if x.n < 0 || x.n > x.limit {
			return invalidAt(x.path, "turn %q: %s %d is out of range (want 0 to %d %s)", t.ID, x.path, x.n, x.limit, x.unit)
		}
	}
	return nil
}

// decisionsType is the type of a turn's decisions, as the engine records them, without
// the JSON methods (decision.Fields), so that a walk over it sees every field.
var decisionsType = reflect.TypeFor[[]decision.Fields]()

// checkDecisions checks that the decisions of a turn, at path in the export, are a list of
// decisions in the form the engine records (decision.Fields, no unknown field), each
// with an id and a known source, so that a replay can read them. Its errors are *ExportErrors at
// the offending value.
func checkDecisions(t *chat.Turn, path jsonpos.Path) error {
	if len(t.Decisions) == 0 {
		return nil
	}
	var ds []decision.Fields
	dec := json.NewDecoder(bytes.NewReader(t.Decisions))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ds); err != nil {
		if p, ok := jsonpos.FirstProblem(t.Decisions, decisionsType); ok {
			return problemError(path, p)
		}
		return exportErr(path, "turn %q: decisions: %v", t.ID, err)
	}
	for j, d := range ds {
		switch {
		case d.ID == "":
			return exportErr(path.Append(j, "id"), "turn %q: decision %d: empty id", t.ID, j)
		case d.Source != decision.SourceReminder && d.Source != decision.SourceInstruction:
			return exportErr(path.Append(j, "source"), "turn %q: decision %q: source %q, want \"reminder\" or \"instruction\"", t.ID, d.ID, d.Source)
		}
	}
	return nil
}

// checkImportedChat checks the chat record of an export, as a store does (chat.CheckChat),
// naming the field at fault.
func checkImportedChat(c *chat.Chat) error {
	return at(chat.CheckChat(c), "chat")
}

// checkImportedMessage checks a message of an export, as a store does (chat.CheckMessage),
// and that it is one a chat holds: a user or assistant message (the system prompt is
// recorded with each turn, tool calls and their results in the assistant message) with
// parts. Its errors are *chat.FieldErrors naming the field of the message at fault.
func checkImportedMessage(m *chat.Message) error {
	if err := chat.CheckMessage(m); err != nil {
		return err
	}
	switch {
	case m.Role != chat.RoleUser && m.Role != chat.RoleAssistant:
		return invalidAt(jsonpos.Path{"role"}, "message %q: a chat holds user and assistant messages, not %s messages "+
			"(the system prompt is recorded with each turn, tool calls and their results in the assistant message)", m.ID, m.Role)
	case len(m.Parts) == 0:
		return invalidAt(jsonpos.Path{"parts"}, "message %q: no parts", m.ID)
	}
	return checkReminderSpans(m)
}

// checkReminderSpans checks that the reminder spans of a message (chat.CheckMessage has
// checked that each lies within its part) cover text that was injected, as the engine
// bakes reminders (engine.bake) or an OpenAI import finds them (findReminders):
//
//   - only a user message has spans, each on a text part, inline or part;
//   - a span covers exactly one <system-reminder>…</system-reminder> block: it starts
//     with the opening tag and ends with the closing one;
//   - the spans of a part come in order and do not overlap; a part span starts its part;
//   - a span with a reminder id (baked by the engine) is followed in its part by nothing
//     but further spans: the engine appends reminders after the user's words, never
//     inside them. (An OpenAI import records the blocks it finds where they are, without
//     an id.)
//
// A span laid over the user's own words would show them as a reminder, and the
// reminder as the user's. Its errors are *chat.FieldErrors naming the field at fault.
func checkReminderSpans(m *chat.Message) error {
	if len(m.Reminders) > 0 && m.Role != chat.RoleUser {
		return invalidAt(jsonpos.Path{"reminders", 0}, "message %q: reminders are baked into user messages only, not %s messages", m.ID, m.Role)
	}
	for i, sp := range m.Reminders {
		field := func(key string) jsonpos.Path { return jsonpos.Path{"reminders", i, key} }
		part := &m.Parts[sp.Part]
		text := part.Text
		switch {
		case part.Type != chat.PartText:
			return invalidAt(field("part_index"), "message %q: reminder %q: part %d is a %s part, not text", m.ID, sp.ID, sp.Part, part.Type)
		case sp.Mode != chat.SpanInline && sp.Mode != chat.SpanPart:
			return invalidAt(field("mode"), "message %q: reminder %q: mode %q, want %q or %q", m.ID, sp.ID, sp.Mode, chat.SpanInline, chat.SpanPart)
		case !isReminderBlock(text[sp.Start:sp.End]):
			return invalidAt(field("start"), "message %q: reminder %q: span [%d,%d) of part %d is not a %s…%s block "+
				"(a span covers exactly the text a reminder injected)", m.ID, sp.ID, sp.Start, sp.End, sp.Part, openTag, closeTag)
		case sp.Mode == chat.SpanPart && sp.Start != 0:
			return invalidAt(field("start"), "message %q: reminder %q: a part reminder starts its part, not at byte %d", m.ID, sp.ID, sp.Start)
		}
		if i > 0 {
			prev := m.Reminders[i-1]
			if sp.Part < prev.Part || (sp.Part == prev.Part && sp.Start < prev.End) {
				return invalidAt(field("start"), "message %q: reminder %q: span [%d,%d) of part %d overlaps or comes before the span before it ([%d,%d) of part %d)",
					m.ID, sp.ID, sp.Start, sp.End, sp.Part, prev.Start, prev.End, prev.Part)
			}
		}
		if sp.ID == "" || sp.End == len(text) {
			continue
		}
		if i+1 < len(m.Reminders) {
			if next := m.Reminders[i+1]; next.Part == sp.Part && next.Start == sp.End {
				continue
			}
		}
		return invalidAt(field("end"), "message %q: reminder %q: the span [%d,%d) of part %d is followed by text that is not a reminder "+
			"(the engine appends reminders after the user's words)", m.ID, sp.ID, sp.Start, sp.End, sp.Part)
	}
	return nil
}

// isReminderBlock reports whether s is one <system-reminder>…</system-reminder> block.
func isReminderBlock(s string) bool {
	return len(s) >= len(openTag)+len(closeTag) && strings.HasPrefix(s, openTag) && strings.HasSuffix(s, closeTag)
}

// checkMessageGraph checks that the messages form a graph ctxlab could have made, which
// a replay walks turn by turn: a chat starts with a user message, and an assistant
// message answers a user message (the tool rounds of a reply are parts of one message). A
// chat that starts with a reply, or a reply to a reply, would be stored and then left out
// of every turn. The parents are known to exist.
func checkMessageGraph(msgs []chat.Message, index map[string]int) error {
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.ParentID == "" && m.Role != chat.RoleUser:
			return exportErr(jsonpos.Path{"messages", i, "role"}, "message %q: a chat starts with a user message, not an %s message", m.ID, m.Role)
		case m.ParentID != "" && m.Role == chat.RoleAssistant && msgs[index[m.ParentID]].Role != chat.RoleUser:
			return exportErr(jsonpos.Path{"messages", i, "parent_id"}, "message %q: an assistant message answers a user message; its parent %q is an %s message",
				m.ID, m.ParentID, msgs[index[m.ParentID]].Role)
		}
	}
	return nil
}

// planMessages checks the messages of an export and sets the insertion order, in which
// parents come before children (the file order when it already is one), with the turnsOf,
// index and replied maps. A missing parent or a cycle is an error.
func (p *importPlan) planMessages(msgs []chat.Message) error {
	p.index = make(map[string]int, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if err := checkImportedMessage(m); err != nil {
			return at(err, "messages", i)
		}
		if _, dup := p.index[m.ID]; dup {
			return exportErr(jsonpos.Path{"messages", i, "id"}, "message %q twice", m.ID)
		}
		p.index[m.ID] = i
	}
	p.replied = make(map[string]bool)
	for i := range msgs {
		parent := msgs[i].ParentID
		if parent == "" {
			continue
		}
		j, ok := p.index[parent]
		if !ok {
			return exportErr(jsonpos.Path{"messages", i, "parent_id"}, "message %q: parent %q is not a message of the chat", msgs[i].ID, parent)
		}
		if msgs[i].Role == chat.RoleAssistant && msgs[j].Role == chat.RoleUser {
			p.replied[parent] = true
		}
	}
	p.order = make([]int, 0, len(msgs))
	var chain []int
	for i := range msgs {
		// Collect the not yet placed ancestors of i, then place them from the top down.
		chain = chain[:0]
		for j := i; ; {
			if _, done := p.turnsOf[msgs[j].ID]; done {
				break
			}
			chain = append(chain, j)
			if len(chain) > len(msgs) {
				return exportErr(jsonpos.Path{"messages", i, "parent_id"}, "message %q: its ancestors form a cycle", msgs[i].ID)
			}
			parent := msgs[j].ParentID
			if parent == "" {
				break
			}
			j = p.index[parent]
		}
		for k := len(chain) - 1; k >= 0; k-- {
			m := &msgs[chain[k]]
			n := 0
			if m.ParentID != "" {
				var ok bool
				if n, ok = p.turnsOf[m.ParentID]; !ok {
					return exportErr(jsonpos.Path{"messages", chain[k], "parent_id"}, "message %q: its ancestors form a cycle", m.ID)
				}
			}
			if m.Role == chat.RoleUser {
				n++
			}
			p.turnsOf[m.ID] = n
			p.order = append(p.order, chain[k])
		}
	}
	if err := checkMessageGraph(msgs, p.index); err != nil {
		return err
	}
	p.inOrder = true
	for i, j := range p.order {
		if i != j {
			p.inOrder = false
			break
		}
	}
	return nil
}
