package store

import (
	"github.com/ctxlab/ctxlab/engine/chat"
)

// importPlan is a checked export, ready to write.
type importPlan struct {
	meta  any
	order []int              // message indexes, parents before children, file order kept where it can be
	infos map[string]msgInfo // by message id
	turns []encodedTurn
	usage chat.Usage
}

// planImport checks an export completely, before anything is written.
func planImport(e *Export) (*importPlan, error) {
	if err := checkHeader(e.Format, e.Version); err != nil {
		return nil, err
	}
	c := &e.Chat
	if err := checkChat(c); err != nil {
		return nil, err
	}
	switch {
	case len(e.Messages) > maxMessages:
		return nil, invalidf("more than %d messages", maxMessages)
	case len(e.Turns) > maxTurns:
		return nil, invalidf("more than %d turns", maxTurns)
	case len(e.Branches) > maxBranches || len(e.Checkpoints) > maxBranches:
		return nil, invalidf("more than %d branches or checkpoints", maxBranches)
	}
	p := &importPlan{infos: make(map[string]msgInfo, len(e.Messages))}
	var err error
	if p.meta, err = encMetadata(c.Metadata); err != nil {
		return nil, invalidf("metadata: %v", err)
	}
	if p.order, err = planMessages(e.Messages, p.infos); err != nil {
		return nil, err
	}

	branches := make(map[string]bool, len(e.Branches))
	for _, b := range e.Branches {
		if err := checkName("branch name", b.Name); err != nil {
			return nil, err
		}
		if branches[b.Name] {
			return nil, invalidf("branch %q twice", b.Name)
		}
		branches[b.Name] = true
		if err := checkTime(b.CreatedAt, "branch "+quote(b.Name)); err != nil {
			return nil, err
		}
		if _, ok := p.infos[b.Head]; b.Head != "" && !ok {
			return nil, invalidf("branch %q: head %q is not a message of the chat", b.Name, b.Head)
		}
	}
	for _, b := range e.Branches {
		if b.Parent != "" && (!branches[b.Parent] || b.Parent == b.Name) {
			return nil, invalidf("branch %q: parent branch %q is not another branch of the chat", b.Name, b.Parent)
		}
	}
	if !branches[c.ActiveBranch] {
		return nil, invalidf("active branch %q is not a branch of the chat", c.ActiveBranch)
	}

	checkpoints := make(map[string]bool, len(e.Checkpoints))
	for _, k := range e.Checkpoints {
		if err := checkName("checkpoint name", k.Name); err != nil {
			return nil, err
		}
		if checkpoints[k.Name] {
			return nil, invalidf("checkpoint %q twice", k.Name)
		}
		checkpoints[k.Name] = true
		if _, ok := p.infos[k.MessageID]; !ok {
			return nil, invalidf("checkpoint %q: message %q is not a message of the chat", k.Name, k.MessageID)
		}
		if err := checkTime(k.CreatedAt, "checkpoint "+quote(k.Name)); err != nil {
			return nil, err
		}
	}

	turns := make(map[string]bool, len(e.Turns))
	p.turns = make([]encodedTurn, len(e.Turns))
	for i := range e.Turns {
		t := &e.Turns[i]
		if err := checkTurn(t); err != nil {
			return nil, err
		}
		if turns[t.ID] {
			return nil, invalidf("turn %q twice", t.ID)
		}
		turns[t.ID] = true
		if t.ChatID != c.ID {
			return nil, invalidf("turn %q: chat id %q, want %q", t.ID, t.ChatID, c.ID)
		}
		if !branches[t.Branch] {
			return nil, invalidf("turn %q: branch %q is not a branch of the chat", t.ID, t.Branch)
		}
		for _, id := range []string{t.UserMessageID, t.AssistantMessageID} {
			if _, ok := p.infos[id]; id != "" && !ok {
				return nil, invalidf("turn %q: message %q is not a message of the chat", t.ID, id)
			}
		}
		if p.turns[i], err = encodeTurn(t); err != nil {
			return nil, err
		}
		p.usage = p.usage.Add(t.Counted())
	}
	return p, nil
}

// planMessages checks the messages of an export and returns an insertion order in which
// parents come before children (the file order when it already is one), filling infos.
// A missing parent or a cycle is an error.
func planMessages(msgs []chat.Message, infos map[string]msgInfo) ([]int, error) {
	index := make(map[string]int, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if err := checkMessage(m); err != nil {
			return nil, err
		}
		if _, dup := index[m.ID]; dup {
			return nil, invalidf("message %q twice", m.ID)
		}
		index[m.ID] = i
	}
	for i := range msgs {
		if p := msgs[i].ParentID; p != "" {
			if _, ok := index[p]; !ok {
				return nil, invalidf("message %q: parent %q is not a message of the chat", msgs[i].ID, p)
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
				return nil, invalidf("message %q: its ancestors form a cycle", msgs[i].ID)
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
					return nil, invalidf("message %q: its ancestors form a cycle", m.ID)
				}
				parent = &in
			}
			infos[m.ID] = parent.child(m)
			order = append(order, chain[k])
		}
	}
	return order, nil
}
