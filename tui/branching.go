package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
)

// Branch without fear: in the transcript, e edits the selected turn's message, r
// regenerates its reply, R corrects the reply by hand, left and right step through the
// turn's versions, w rewinds to it and x names a checkpoint there. Each makes or
// switches to a branch: nothing is ever deleted, and the status line says which branch
// holds the result.

// brancher is what the branching actions need of the chat (the application layer's
// *app.Chat has it all).
type brancher interface {
	Edit(ctx context.Context, n int, text string, reply *string, emit func(engine.Event)) (*engine.TurnResult, error)
	RegenerateTurn(ctx context.Context, n int, reply *string, emit func(engine.Event)) (*engine.TurnResult, error)
	Rewind(ctx context.Context, n int) error
	CheckpointTurn(ctx context.Context, n int, name string) error
	Restore(ctx context.Context, name string) error
	AllVersions(ctx context.Context) (map[int][]engine.Version, error)
	Checkpoints(ctx context.Context) ([]chat.Checkpoint, error)
}

// branchOp is what the composer's text is for during a branching action.
type branchOp int

const (
	opNone       branchOp = iota
	opEdit                // the edited user message of turn br.turn
	opEditReply           // the scripted reply to the edited message br.text
	opRegenReply          // the scripted new reply to turn br.turn
	opCorrect             // the corrected reply of turn br.turn
	opCheckpoint          // the name of a checkpoint at turn br.turn
)

// branchingState is the root model's state for branching.
type branchingState struct {
	op    branchOp
	turn  int
	text  string // the edited message (opEditReply)
	saved string // the draft put aside while the composer is used for op

	// The versions of the turns of branch versionsOf, by turn number, and the chat's
	// checkpoints, as the last read gave them.
	versions   map[int][]engine.Version
	versionsOf string
	readSeq    int
	// checkpoints are listed in the Branches tab.
	checkpoints []chat.Checkpoint

	// done is the outcome of the edit or regenerate streaming (its notice is set once
	// the turn is saved); needTraces asks the next load to read every trace again.
	done       *branchDone
	needTraces bool
}

// branchDone is what a branching send reports once saved: the status line's notice.
type branchDone struct{ notice string }

// branchOpMsg is a rewind, checkpoint, restore or version switch done.
type branchOpMsg struct {
	notice string
	err    error
	// traces says the branch's turns changed beyond what is known: read every trace.
	traces bool
	// keepSelection keeps the selected turn (stepping through its versions).
	keepSelection bool
	// loaded is the branch as read in the same Cmd (nil: load it).
	loaded *loadedMsg
}

// versionsMsg is what readVersions read.
type versionsMsg struct {
	seq         int
	branch      string
	versions    map[int][]engine.Version
	checkpoints []chat.Checkpoint
	err         error
}

// restoreAction asks the root model to restore a checkpoint (enter on it in the Branches
// tab).
type restoreAction struct{ Name string }

// branching returns the chat's branching actions, or nil when it has none.
func (m *Model) branching() brancher {
	b, _ := m.chat.(brancher)
	return b
}

// branchingKey handles the branching keys: in the transcript on a selected turn, and in
// the composer while it is used for a branching action; ok is false for other keys.
func (m *Model) branchingKey(k tea.KeyMsg) (tea.Cmd, bool) {
	km := m.keys
	if m.opt.Present {
		return m.presentKey(k)
	}
	if m.focus == areaComposer && m.br.op != opNone {
		switch {
		case key.Matches(k, km.Esc) && m.stream == nil:
			m.endOp()
			m.notice = "cancelled: nothing changed"
			return nil, true
		case m.comp.mode != composeReply && key.Matches(k, km.Send),
			m.comp.mode == composeReply && key.Matches(k, km.SaveReply): // a reply written for the model
			return m.branchSend(), true
		case !k.Alt && (k.Paste || editingKeys[k.Type]):
			// Text for the action: no preview of it as a new message, and the
			// inspector stays on the selected turn.
			return m.comp.Update(k), true
		}
		return nil, false
	}
	if m.focus != areaTranscript || m.branching() == nil || m.help {
		return nil, false
	}
	acts := []key.Binding{km.EditTurn, km.Regenerate, km.Correct, km.PrevVersion, km.NextVersion, km.Rewind, km.Checkpoint}
	which := -1
	for i, b := range acts {
		if key.Matches(k, b) {
			which = i
		}
	}
	if which < 0 {
		return nil, false
	}
	it := m.tr.Item(m.tr.Current())
	if it != nil && (it.live != nil || it.pendingReply) {
		m.setErr(fmt.Errorf("turn %d is not saved yet: wait for its reply", it.num))
		return nil, true
	}
	if it == nil || it.user == nil || it.num < 1 || it.err != "" {
		m.setErr(fmt.Errorf("select a saved turn first (up/down in the transcript)"))
		return nil, true
	}
	if m.stream != nil {
		m.setErr(fmt.Errorf("a reply is still streaming (esc cancels it)"))
		return nil, true
	}
	if m.comp.mode == composeReply && m.br.op == opNone {
		m.setErr(fmt.Errorf("finish the scripted reply first (enter saves it, esc leaves the message unanswered)"))
		return nil, true
	}
	n := it.num
	switch which {
	case 0: // edit
		m.startOp(opEdit, n, userText(it.user), fmt.Sprintf("editing turn %d: sending makes a new branch (esc cancels)", n))
	case 1: // regenerate
		if it.reply == nil {
			m.setErr(fmt.Errorf("turn %d has no reply to regenerate", n))
			return nil, true
		}
		if !m.scripted {
			return m.branchStream(opRegenReply, n, userText(it.user), nil), true
		}
		m.startOp(opRegenReply, n, "", "")
		m.comp.AskReply(userText(it.user))
		m.comp.banner = fmt.Sprintf("new reply to turn %d: saved on a new branch (esc cancels)", n)
	case 2: // correct
		if it.reply == nil {
			m.setErr(fmt.Errorf("turn %d has no reply to correct", n))
			return nil, true
		}
		m.startOp(opCorrect, n, it.reply.PlainText(), fmt.Sprintf("correcting the reply of turn %d: saved as a new version on a new branch (esc cancels)", n))
	case 3: // prevversion
		return m.stepVersion(n, -1), true
	case 4: // nextversion
		return m.stepVersion(n, 1), true
	case 5: // rewind
		return m.rewind(n), true
	case 6: // checkpoint
		m.startOp(opCheckpoint, n, "", fmt.Sprintf("name a checkpoint at turn %d (enter saves, esc cancels)", n))
	}
	return nil, true
}

// opHints are the composer's placeholders during each branching action: what its text
// is for (the keys are added).
var opHints = map[branchOp]string{
	opEdit:       "the edited message",
	opEditReply:  "the reply to the edited message",
	opRegenReply: "the new reply",
	opCorrect:    "the corrected reply",
	opCheckpoint: "the checkpoint's name",
}

// editingKeys are the keys that edit the composer's text.
var editingKeys = map[tea.KeyType]bool{tea.KeyRunes: true, tea.KeySpace: true, tea.KeyBackspace: true, tea.KeyDelete: true,
	tea.KeyLeft: true, tea.KeyRight: true, tea.KeyUp: true, tea.KeyDown: true, tea.KeyHome: true, tea.KeyEnd: true,
	tea.KeyCtrlA: true, tea.KeyCtrlE: true, tea.KeyCtrlK: true, tea.KeyCtrlU: true, tea.KeyCtrlW: true}

// startOp gives the composer to a branching action: text in it, banner as its title, the
// draft put aside.
func (m *Model) startOp(op branchOp, n int, text, banner string) {
	saved := m.comp.Value()
	if m.br.op != opNone { // another action was under way: its text goes, the draft stays aside
		saved = m.br.saved
		if m.comp.mode == composeReply {
			m.comp.EndReply()
		}
	}
	m.br.op, m.br.turn, m.br.saved = op, n, saved
	m.comp.Reset()
	m.comp.SetValue(text)
	m.comp.banner = banner
	m.comp.SetHint(opHints[op])
	m.preview, m.previewText = nil, ""
	m.setFocus(areaComposer)
}

// endOp gives the composer back: the draft put aside returns.
func (m *Model) endOp() {
	if m.comp.mode == composeReply {
		m.comp.EndReply()
	}
	m.comp.Reset()
	if m.br.saved != "" {
		m.comp.SetValue(m.br.saved)
	}
	m.comp.banner = ""
	m.comp.SetHint("")
	m.br.op, m.br.turn, m.br.text, m.br.saved = opNone, 0, "", ""
}

// branchSend is enter in the composer during a branching action.
func (m *Model) branchSend() tea.Cmd {
	text := strings.TrimSpace(m.comp.Value())
	if m.stream != nil {
		m.setErr(fmt.Errorf("a reply is still streaming (esc cancels it)"))
		return nil
	}
	n := m.br.turn
	switch m.br.op {
	case opEdit:
		if text == "" {
			m.setErr(fmt.Errorf("the edited message is empty (esc cancels the edit)"))
			return nil
		}
		m.sentClearsReload()
		if !m.scripted {
			return m.branchStream(opEdit, n, text, nil)
		}
		m.br.op, m.br.text = opEditReply, text
		m.comp.AskReply(text)
		m.comp.SetHint(opHints[opEditReply])
		m.comp.banner = fmt.Sprintf("reply as the model to edited turn %d: saved on a new branch (esc cancels)", n)
		return nil
	case opEditReply, opRegenReply, opCorrect:
		if text == "" {
			m.setErr(fmt.Errorf("write the reply (esc cancels)"))
			return nil
		}
		op, msg := m.br.op, m.br.text
		if op != opEditReply {
			if it := m.turnItemOf(n); it != nil && it.user != nil {
				msg = userText(it.user)
			}
		}
		return m.branchStream(op, n, msg, &text)
	case opCheckpoint:
		if err := chat.CheckName("checkpoint name", text); err != nil {
			m.setErr(err)
			return nil
		}
		m.endOp()
		b, mu := m.branching(), m.chatMu
		return func() tea.Msg {
			mu.Lock()
			defer mu.Unlock()
			if err := b.CheckpointTurn(context.Background(), n, text); err != nil {
				return branchOpMsg{err: fmt.Errorf("checkpoint turn %d: %w", n, err)}
			}
			return branchOpMsg{notice: fmt.Sprintf("checkpoint %s at turn %d (the Branches tab restores it)", inert.DisplayLine(text), n), keepSelection: true}
		}
	}
	return nil
}

// turnItemOf returns the transcript's item of turn n, or nil.
func (m *Model) turnItemOf(n int) *turnItem {
	for i := range m.tr.Len() {
		if it := m.tr.Item(i); it.num == n {
			return it
		}
	}
	return nil
}

// branchStream sends an edit (op opEdit, opEditReply) or a regenerate (opRegenReply,
// opCorrect) of turn n, streamed like a send: the transcript shows the turns before n and
// the new turn; reply is the user's (nil: the live model's).
func (m *Model) branchStream(op branchOp, n int, text string, reply *string) tea.Cmd {
	m.endOp()
	m.lastErr, m.failed = "", nil
	m.dropFailed()
	m.preview, m.previewText = nil, ""
	var user *chat.Message
	if old := m.turnItemOf(n); old != nil && (op == opRegenReply || op == opCorrect) {
		user = old.user
	}
	if user == nil {
		user = &chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: m.now()}
	}
	for m.tr.Len() > 0 && (m.tr.Last().num >= n || m.tr.Last().num == 0) {
		m.tr.RemoveLast()
	}
	item := &turnItem{num: n, user: user, live: &liveTurn{sent: m.now()}}
	m.tr.Append(item)
	verb := map[branchOp]string{opEdit: "edited turn %d", opEditReply: "edited turn %d", opRegenReply: "regenerated turn %d",
		opCorrect: "corrected the reply of turn %d"}[op]
	verb = fmt.Sprintf(verb, n)
	done := &branchDone{}
	m.br.done = done
	b, c := m.branching(), m.chat
	return m.startStream(text, item, reply == nil && !m.scripted, func(ctx context.Context, emit func(engine.Event)) error {
		var res *engine.TurnResult
		var err error
		if op == opEdit || op == opEditReply {
			res, err = b.Edit(ctx, n, text, reply, emit)
		} else {
			res, err = b.RegenerateTurn(ctx, n, reply, emit)
		}
		if res != nil {
			done.notice = newBranchNotice(ctx, c, verb)
		}
		return err
	})
}

// newBranchNotice says what an action did and where: "regenerated turn 3 on new branch
// main-v2 (3 branches)". The caller holds the chat.
func newBranchNotice(ctx context.Context, c Chat, verb string) string {
	n := 0
	if list, err := c.Branches(ctx); err == nil {
		n = len(list)
	}
	return fmt.Sprintf("%s on new branch %s (%s)", verb, inert.DisplayLine(c.Session().Branch()), branchCount(n))
}

// stepVersion switches to the version d steps from the active one of turn n.
func (m *Model) stepVersion(n, d int) tea.Cmd {
	if m.br.versionsOf != m.branch {
		m.notice = "reading the versions of the turns…"
		return nil
	}
	vs := m.br.versions[n]
	at := -1
	for i, v := range vs {
		if v.Current {
			at = i
		}
	}
	if len(vs) < 2 || at < 0 {
		m.notice = fmt.Sprintf("turn %d has one version (e edits it, r regenerates it)", n)
		return nil
	}
	to := at + d
	if to < 0 || to >= len(vs) {
		which := "first"
		if to >= len(vs) {
			which = "last"
		}
		m.notice = fmt.Sprintf("turn %d: version %d/%d is the %s", n, at+1, len(vs), which)
		return nil
	}
	target, mu, c := vs[to], m.chatMu, m.chat
	m.br.needTraces = true
	m.rl.recheck = true // the branch's turns are compared with the file in force
	// The switch and the read of the branch in one Cmd, for the next frame: the traces
	// are read after it (needTraces), and the cost, which a switch does not change (it
	// covers every branch), is kept.
	m.loadSeq++
	seq, cost, costOK := m.loadSeq, m.cost, m.costOK
	return func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		ctx := context.Background()
		if err := c.Switch(ctx, target.Branch); err != nil {
			return branchOpMsg{err: fmt.Errorf("switch to version %d of turn %d: %w", to+1, n, err)}
		}
		s := c.Session()
		lm := &loadedMsg{seq: seq, chatID: s.Chat().ID, title: s.Chat().Title, branch: s.Branch(), path: s.Messages(),
			turns: s.Turns(), usage: c.Usage(), cost: cost, costOK: costOK}
		var err error
		if lm.branches, err = c.Branches(ctx); err != nil {
			lm.err = fmt.Errorf("load the chat: %w", err)
		}
		return branchOpMsg{notice: fmt.Sprintf("turn %d: version %d/%d, on branch %s", n, to+1, len(vs), inert.DisplayLine(target.Branch)),
			keepSelection: true, loaded: lm}
	}
}

// rewind makes a new branch ending at turn n.
func (m *Model) rewind(n int) tea.Cmd {
	b, c, mu := m.branching(), m.chat, m.chatMu
	return func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		ctx := context.Background()
		if err := b.Rewind(ctx, n); err != nil {
			return branchOpMsg{err: fmt.Errorf("rewind to turn %d: %w", n, err)}
		}
		return branchOpMsg{notice: newBranchNotice(ctx, c, fmt.Sprintf("rewound to turn %d", n)), keepSelection: true}
	}
}

// restore makes a new branch at a checkpoint.
func (m *Model) restore(name string) tea.Cmd {
	b := m.branching()
	if b == nil {
		return nil
	}
	if m.stream != nil {
		m.setErr(fmt.Errorf("restore: wait for the reply to finish (esc cancels it)"))
		return nil
	}
	m.rl.recheck = true // the new branch's turns are compared with the file in force
	c, mu := m.chat, m.chatMu
	return func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		ctx := context.Background()
		if err := b.Restore(ctx, name); err != nil {
			return branchOpMsg{err: fmt.Errorf("restore checkpoint %s: %w", inert.DisplayLine(name), err)}
		}
		return branchOpMsg{notice: newBranchNotice(ctx, c, "restored checkpoint "+inert.DisplayLine(name)), traces: true}
	}
}

// branchingMsg handles the messages of the branching actions; ok is false for others.
func (m *Model) branchingMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case branchOpMsg:
		if msg.err != nil {
			m.setErr(msg.err)
			m.br.needTraces = false
			return nil, true
		}
		m.lastErr = ""
		m.notice = msg.notice
		if !msg.keepSelection {
			m.tr.ClearSelection()
		}
		if msg.loaded != nil {
			return m.loaded(*msg.loaded), true
		}
		return m.load(msg.traces), true
	case presentTickMsg:
		return m.presentTicked(msg), true
	case versionsMsg:
		if msg.seq != m.br.readSeq {
			return nil, true
		}
		if msg.err != nil {
			m.setErr(msg.err)
		}
		m.br.versions, m.br.versionsOf, m.br.checkpoints = msg.versions, msg.branch, msg.checkpoints
		m.markVersions()
		return nil, true
	}
	return nil, false
}

// markVersions gives the transcript the ‹k/N› marks of the turns with versions.
func (m *Model) markVersions() {
	marks := map[string]string{}
	if m.br.versionsOf == m.branch {
		for _, vs := range m.br.versions {
			for i, v := range vs {
				if v.Current {
					marks[v.UserID] = fmt.Sprintf("‹%d/%d›", i+1, len(vs))
				}
			}
		}
	}
	m.tr.versions = marks
	m.tr.gen++
}

// branchLoaded follows a load: the notice of a branching send once it is saved, the
// traces of a version switched to, and the versions and checkpoints read again.
func (m *Model) branchLoaded() tea.Cmd {
	present := m.presentLoaded()
	if d := m.br.done; d != nil && m.stream == nil {
		if d.notice != "" {
			m.notice = d.notice
		}
		m.br.done = nil
	}
	cmds := []tea.Cmd{present}
	if m.br.needTraces {
		m.br.needTraces = false
		cmds = append(cmds, m.load(true))
	}
	m.markVersions()
	if b := m.branching(); b != nil && m.stream == nil {
		m.br.readSeq++
		seq, mu, c := m.br.readSeq, m.chatMu, m.chat
		cmds = append(cmds, func() tea.Msg {
			mu.Lock()
			defer mu.Unlock()
			if !c.Session().Saved() {
				return versionsMsg{seq: seq, branch: c.Session().Branch()}
			}
			ctx := context.Background()
			msg := versionsMsg{seq: seq, branch: c.Session().Branch()}
			var err1, err2 error
			msg.versions, err1 = b.AllVersions(ctx)
			msg.checkpoints, err2 = b.Checkpoints(ctx)
			if err := errors.Join(err1, err2); err != nil {
				msg.err = fmt.Errorf("read the versions and checkpoints: %w", err)
			}
			return msg
		})
	}
	return tea.Batch(cmds...)
}
