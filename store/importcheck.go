package store

import (
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/jsonpos"
)

// importPlan is a checked export, ready to write.
type importPlan struct {
	meta  any
	order []int              // message indexes, parents before children, file order kept where it can be
	infos map[string]msgInfo // by message id
	turns []encodedTurn
	usage chat.Usage
}

// CheckExport checks e as ImportChat does, without a database, so that a command can
// refuse a file before it opens one: nil when ImportChat would store e, unless its chat id
// is taken. A problem is an *ExportError with the path of the offending value.
func CheckExport(e *Export) error {
	_, err := planImport(e)
	return err
}

// planImport checks an export completely, before anything is written. Its errors are
// *ExportErrors with the path of the offending value.
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
	p := &importPlan{infos: make(map[string]msgInfo, len(e.Messages))}
	var err error
	if p.meta, err = encMetadata(c.Metadata); err != nil {
		return nil, exportErr(jsonpos.Path{"chat", "metadata"}, "metadata: %v", err)
	}
	if p.order, err = planMessages(e.Messages, p.infos); err != nil {
		return nil, err
	}

	branches := make(map[string]bool, len(e.Branches))
	for i, b := range e.Branches {
		if err := checkName("branch name", b.Name); err != nil {
			return nil, at(err, "branches", i, "name")
		}
		if branches[b.Name] {
			return nil, exportErr(jsonpos.Path{"branches", i, "name"}, "branch %q twice", b.Name)
		}
		branches[b.Name] = true
		if err := checkTime(b.CreatedAt, "branch "+quote(b.Name)); err != nil {
			return nil, at(err, "branches", i, "created_at")
		}
		if _, ok := p.infos[b.Head]; b.Head != "" && !ok {
			return nil, exportErr(jsonpos.Path{"branches", i, "head"}, "branch %q: head %q is not a message of the chat", b.Name, b.Head)
		}
	}
	for i, b := range e.Branches {
		if b.Parent != "" && (!branches[b.Parent] || b.Parent == b.Name) {
			return nil, exportErr(jsonpos.Path{"branches", i, "parent"}, "branch %q: parent branch %q is not another branch of the chat", b.Name, b.Parent)
		}
	}
	if !branches[c.ActiveBranch] {
		return nil, exportErr(jsonpos.Path{"chat", "active_branch"}, "active branch %q is not a branch of the chat", c.ActiveBranch)
	}

	checkpoints := make(map[string]bool, len(e.Checkpoints))
	for i, k := range e.Checkpoints {
		if err := checkName("checkpoint name", k.Name); err != nil {
			return nil, at(err, "checkpoints", i, "name")
		}
		if checkpoints[k.Name] {
			return nil, exportErr(jsonpos.Path{"checkpoints", i, "name"}, "checkpoint %q twice", k.Name)
		}
		checkpoints[k.Name] = true
		if _, ok := p.infos[k.MessageID]; !ok {
			return nil, exportErr(jsonpos.Path{"checkpoints", i, "message_id"}, "checkpoint %q: message %q is not a message of the chat", k.Name, k.MessageID)
		}
		if err := checkTime(k.CreatedAt, "checkpoint "+quote(k.Name)); err != nil {
			return nil, at(err, "checkpoints", i, "created_at")
		}
	}

	turns := make(map[string]bool, len(e.Turns))
	p.turns = make([]encodedTurn, len(e.Turns))
	for i := range e.Turns {
		t := &e.Turns[i]
		if err := checkTurn(t); err != nil {
			return nil, at(err, "turns", i)
		}
		if turns[t.ID] {
			return nil, exportErr(jsonpos.Path{"turns", i, "id"}, "turn %q twice", t.ID)
		}
		turns[t.ID] = true
		if t.ChatID != c.ID {
			return nil, exportErr(jsonpos.Path{"turns", i, "chat_id"}, "turn %q: chat id %q, want %q", t.ID, t.ChatID, c.ID)
		}
		if !branches[t.Branch] {
			return nil, exportErr(jsonpos.Path{"turns", i, "branch"}, "turn %q: branch %q is not a branch of the chat", t.ID, t.Branch)
		}
		for _, f := range []struct{ key, id string }{{"user_message_id", t.UserMessageID}, {"assistant_message_id", t.AssistantMessageID}} {
			if _, ok := p.infos[f.id]; f.id != "" && !ok {
				return nil, exportErr(jsonpos.Path{"turns", i, f.key}, "turn %q: message %q is not a message of the chat", t.ID, f.id)
			}
		}
		if p.turns[i], err = encodeTurn(t); err != nil {
			return nil, at(err, "turns", i)
		}
		p.usage = p.usage.Add(t.Counted())
	}
	return p, nil
}

// checkImportedChat checks the chat record of an export, as checkChat does, naming the
// field at fault.
func checkImportedChat(c *chat.Chat) error {
	if err := checkName("chat id", c.ID); err != nil {
		return at(err, "chat", "id")
	}
	if err := checkName("branch name", c.ActiveBranch); err != nil {
		return exportErr(jsonpos.Path{"chat", "active_branch"}, "chat %q: active branch: %v", c.ID, err)
	}
	if len(c.Title) > maxTitleLen {
		return exportErr(jsonpos.Path{"chat", "title"}, "chat %q: title longer than %d bytes", c.ID, maxTitleLen)
	}
	if err := checkTime(c.CreatedAt, "chat "+quote(c.ID)); err != nil {
		return at(err, "chat", "created_at")
	}
	if err := checkTime(c.UpdatedAt, "chat "+quote(c.ID)); err != nil {
		return at(err, "chat", "updated_at")
	}
	return at(checkChat(c), "chat") // whatever else the store checks of a chat
}

// planMessages checks the messages of an export and returns an insertion order in which
// parents come before children (the file order when it already is one), filling infos.
// A missing parent or a cycle is an error.
func planMessages(msgs []chat.Message, infos map[string]msgInfo) ([]int, error) {
	index := make(map[string]int, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if err := checkMessage(m); err != nil {
			return nil, at(err, "messages", i)
		}
		if _, dup := index[m.ID]; dup {
			return nil, exportErr(jsonpos.Path{"messages", i, "id"}, "message %q twice", m.ID)
		}
		index[m.ID] = i
	}
	for i := range msgs {
		if p := msgs[i].ParentID; p != "" {
			if _, ok := index[p]; !ok {
				return nil, exportErr(jsonpos.Path{"messages", i, "parent_id"}, "message %q: parent %q is not a message of the chat", msgs[i].ID, p)
			}
		}
	}
	order := make([]int, 0, len(msgs))
	var chain []int
	for i := range msgs {
		// Collect the not yet placed ancestors of i, then place them from the top down.
		chain = chain[:0]
		for j := i; ; {
			if _, done := infos[msgs[j].ID]; done {
				break
			}
			chain = append(chain, j)
			if len(chain) > len(msgs) {
				return nil, exportErr(jsonpos.Path{"messages", i, "parent_id"}, "message %q: its ancestors form a cycle", msgs[i].ID)
			}
			p := msgs[j].ParentID
			if p == "" {
				break
			}
			j = index[p]
		}
		for k := len(chain) - 1; k >= 0; k-- {
			m := &msgs[chain[k]]
			var parent *msgInfo
			if m.ParentID != "" {
				in, ok := infos[m.ParentID]
				if !ok {
					return nil, exportErr(jsonpos.Path{"messages", chain[k], "parent_id"}, "message %q: its ancestors form a cycle", m.ID)
				}
				parent = &in
			}
			infos[m.ID] = parent.child(m)
			order = append(order, chain[k])
		}
	}
	return order, nil
}
