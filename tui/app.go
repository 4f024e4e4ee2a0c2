// Package tui is ctxlab's workbench: a full-screen Bubble Tea app where a developer chats
// with a model and sees, for every turn, what was sent and why (spec/tui.md). One root
// model (Model) owns focus, layout and overlays; the panes are plain structs it draws.
// Everything that touches the chat (sending, loading, previews, switching branches) runs
// in a tea.Cmd through the Chat interface, which the application layer implements; the
// package never touches SQL or HTTP.
package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
	"github.com/ctxlab/ctxlab/tui/keybind"
)

// Chat is the chat the workbench drives: an engine session with the model that answers
// it (the application layer's *app.Chat). It is not safe for concurrent use; the
// workbench calls it from one tea.Cmd at a time.
type Chat interface {
	Session() *engine.Session
	Scripted() bool
	Preview(text string, at time.Time) engine.Trace
	Send(ctx context.Context, text string, emit func(engine.Event)) (*engine.TurnResult, error)
	SendScripted(ctx context.Context, text, reply string, emit func(engine.Event)) (*engine.TurnResult, error)
	SendUnanswered(ctx context.Context, text string) error
	// SaveAgain saves a turn whose reply came but could not be saved.
	SaveAgain(ctx context.Context, u *engine.UnsavedError) (*engine.TurnResult, error)
	// LightTraces are the recorded traces of the active branch without their decisions
	// (nil); TurnDetail reads one turn's, with the requests of its tool loop.
	LightTraces(ctx context.Context) ([]engine.Trace, error)
	TurnDetail(ctx context.Context, t *engine.Trace) (ctxapp.TurnDetail, error)
	Branches(ctx context.Context) ([]chat.BranchInfo, error)
	Switch(ctx context.Context, name string) error
	Usage() chat.Usage
	Cost(ctx context.Context) (usd float64, known bool, err error)
	ModelLabel() string
}

// Options configure the workbench.
type Options struct {
	// Chat is the chat to open (required).
	Chat Chat
	// Theme styles every pane (nil: dark).
	Theme *themes.Theme
	// Badge is shown in the header instead of the model: "DEMO" for `ctxlab demo`; empty
	// shows the model, or SCRIPTED when there is none.
	Badge string
	// ContextName is the context file's name for the header ("built-in demo context" for
	// the embedded one, app.NoContextLabel for none).
	ContextName string
	// ContextWindow is the model's context window in tokens (0: unknown).
	ContextWindow int
	// Notice is shown in the status line until the first key.
	Notice string
	// Hint is shown in the status line, muted, while the chat has no turn and no context
	// file: how to start one (`ctxlab init`).
	Hint string
	// Library is the saved chats the chats overlay (ctrl+o) works on (nil: none).
	Library Library
	// Watch watches the context file and the files it references, reloading on a change.
	Watch bool
	// BuiltIn says the context file is the built-in demo context (its path is not shown).
	BuiltIn bool
	// Clipboard is the terminal OSC 52 copies are written to (nil: no clipboard).
	Clipboard io.Writer
	// AutoWrapOff says the terminal's auto-wrap is off while the workbench runs (see
	// AutoWrapOff): $EDITOR then runs with it on, and it is turned off again after.
	AutoWrapOff bool
	// ExportDir is where the chats overlay writes exports ("": the current directory).
	ExportDir string
	// Present is presentation mode (`--present`): the transcript starts empty, space
	// plays the next turn, backspace steps back (tui/present.go).
	Present bool
	// Keys rebind actions of the keymap by name (the config file's keys: section; see
	// tui/keybind). Rebindings keybind.Check refuses are ignored, and said so.
	Keys []keybind.Binding
	// Now is the clock (nil: time.Now); Location the zone of times shown (nil: local).
	Now      func() time.Time
	Location *time.Location
	// FirstFrame, when set, is closed once the program has drawn its first frame: the
	// traces of the chat opened are read after it (or after firstFrameWait), so that on a
	// long chat their read, which the first frame does not need, does not compete with it.
	FirstFrame <-chan struct{}
}

// firstFrameWait bounds the wait for Options.FirstFrame.
const firstFrameWait = 250 * time.Millisecond

// area is a focusable part of the screen.
type area int

const (
	areaComposer area = iota
	areaTranscript
	areaInspector
)

// Model is the workbench's root tea.Model.
type Model struct {
	opt   Options
	chat  Chat
	th    *themes.Theme
	keys  *keyMap
	now   func() time.Time
	width int
	hgt   int

	tr         *transcript
	comp       *composer
	insp       *inspector
	spin       spinner.Model
	focus      area
	help       bool
	helpScroll int
	// showInspector shows the inspector instead of the transcript below 100 columns.
	showInspector bool

	// chatMu keeps two Cmds from using the chat at once; sending counts the sends in
	// flight (Close waits for them).
	chatMu  *sync.Mutex
	sending *sync.WaitGroup

	// What the last load read: the header and the inspector draw from these, never from
	// the chat (which a Cmd may be using).
	chatID   string
	model    string
	scripted bool
	title    string
	branch   string
	branches []chat.BranchInfo
	usage    chat.Usage
	cost     float64
	costOK   bool
	// traces are the recorded traces by user message id; read without their decisions
	// (nil), which are read for the turn the inspector shows (detail.go).
	traces map[string]*engine.Trace
	// sent are the traces of the turns sent in this session, as sent.
	sent    map[string]*engine.Trace
	loadSeq int
	// loops are the requests of each turn's tool loop, by user message id: from the
	// events of a turn sent, or read with the turn's decisions; details are the reads in
	// flight or failed (detail.go).
	loops   map[string]*turnLoop
	details map[string]bool

	// The stream of the turn being sent.
	stream *stream
	// failed is a turn that saved nothing, kept under the transcript until the next send;
	// unsaved is its reply when it came but could not be saved (save_again tries again).
	failed  *turnItem
	unsaved *engine.UnsavedError

	// The draft preview: seq numbers the requests; inFlight says one runs.
	previewSeq      int
	previewInFlight bool
	previewText     string
	preview         *engine.Trace

	lastErr string
	notice  string
	// clip is what a copy asks of the process, and the error it left (clipboard.go).
	clip clipState

	// The reload of the context file, and the chats overlay.
	rl    reloadState
	chats chatsOverlay
	// br is the state of edit, regenerate, versions, rewind and checkpoints.
	br branchingState
	// pr is presentation mode's state.
	pr presentState

	// The transcript's rectangle on screen in the last frame (for the mouse).
	trX, trY, trW, trH int
	inX, inY, inW, inH int
}

// New returns the workbench on a chat.
func New(opt Options) *Model {
	th := opt.Theme
	if th == nil {
		th = themes.Dark()
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	loc := opt.Location
	if loc == nil {
		loc = time.Local
	}
	sp := spinner.New(spinner.WithSpinner(spinner.Dot))
	m := &Model{opt: opt, chat: opt.Chat, th: th, keys: newKeyMap(opt.Keys), now: now,
		tr: newTranscript(th, loc, now), comp: newComposer(th), insp: newInspector(th), spin: sp,
		chatMu: &sync.Mutex{}, sending: &sync.WaitGroup{}, traces: map[string]*engine.Trace{}, sent: map[string]*engine.Trace{},
		loops: map[string]*turnLoop{}, details: map[string]bool{}, notice: opt.Notice}
	m.useKeys()
	m.tr.emptyHint = "no turns yet: type a message below and press " + keybind.Label(m.keys.Send.Keys()[:1])
	m.insp.emptyHint = "type a message to see what it would send"
	if opt.Present {
		next := keybind.Label(m.keys.PresentNext.Keys()[:1])
		m.tr.emptyHint = "nothing played yet: " + next + " plays the first turn"
		m.insp.emptyHint = next + " plays the first turn"
	}
	m.comp.Focus()
	if opt.Present {
		m.setFocus(areaTranscript) // there is no composer to type in
	}
	m.insp.loopKey = &m.keys.NextRequest
	s := opt.Chat.Session()
	m.title, m.chatID, m.model = s.Chat().Title, s.Chat().ID, opt.Chat.ModelLabel()
	m.scripted = opt.Chat.Scripted()
	m.branch = s.Branch()
	m.usage = s.Usage()
	m.tr.SetMessages(s.Messages(), s.Turns())
	return m
}

// Close cancels a reply still streaming and waits until it is saved (marked
// interrupted): call it after the program ends, however it ended.
func (m *Model) Close() {
	if m.stream != nil {
		m.stream.cancel()
	}
	m.sending.Wait()
}

// Init loads the chat's traces (after the first frame, with Options.FirstFrame),
// branches and cost.
func (m *Model) Init() tea.Cmd {
	load := m.load(true)
	if ch := m.opt.FirstFrame; ch != nil {
		read := load
		load = func() tea.Msg {
			select {
			case <-ch:
			case <-time.After(firstFrameWait):
			}
			return read()
		}
	}
	return tea.Batch(load, m.initExtras())
}

// loadedMsg is what a load read from the chat.
type loadedMsg struct {
	seq    int
	chatID string
	title  string
	branch string
	path   []*chat.Message
	turns  []*chat.Turn
	traces []engine.Trace
	// withTraces says traces were read (else the traces known are kept).
	withTraces bool
	branches   []chat.BranchInfo
	usage      chat.Usage
	cost       float64
	costOK     bool
	err        error
}

// load reads the chat's state in a Cmd: the path and turns of the active branch, its
// branches, usage and cost, and with traces the recorded trace of every turn (which
// replays the whole branch: on opening and after a branch switch only; a turn sent
// brings its own trace).
func (m *Model) load(traces bool) tea.Cmd {
	m.loadSeq++
	seq, c, mu := m.loadSeq, m.chat, m.chatMu
	return func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		ctx := context.Background()
		s := c.Session()
		msg := loadedMsg{seq: seq, chatID: s.Chat().ID, title: s.Chat().Title, branch: s.Branch(), path: s.Messages(),
			turns: s.Turns(), usage: c.Usage(), withTraces: traces}
		var errs []string
		var err error
		if s.Saved() {
			if traces {
				if msg.traces, err = c.LightTraces(ctx); err != nil {
					errs = append(errs, err.Error())
				}
			}
			if msg.branches, err = c.Branches(ctx); err != nil {
				errs = append(errs, err.Error())
			}
			if msg.cost, msg.costOK, err = c.Cost(ctx); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) > 0 {
			msg.err = fmt.Errorf("load the chat: %s", strings.Join(errs, "; "))
		}
		return msg
	}
}

// previewMsg is a draft's preview.
type previewMsg struct {
	seq   int
	text  string
	trace engine.Trace
}

// startPreview computes the preview of the draft in a Cmd, unless one is in flight (it
// starts the next when it returns) or a turn is being sent.
func (m *Model) startPreview() tea.Cmd {
	draft := m.comp.Draft()
	if draft == "" || m.stream != nil || m.previewInFlight || draft == m.previewText {
		return nil
	}
	m.previewSeq++
	m.previewInFlight = true
	seq, c, mu, at := m.previewSeq, m.chat, m.chatMu, m.now()
	return func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		return previewMsg{seq: seq, text: draft, trace: c.Preview(draft, at)}
	}
}

// switchedMsg is a branch switch done.
type switchedMsg struct{ err error }

// unansweredMsg is a user message saved without a reply.
type unansweredMsg struct {
	text string
	err  error
}

// editorMsg is the draft back from $EDITOR.
type editorMsg struct {
	text string
	err  error
}

// Update handles a message, then reads the decisions of the turn the inspector shows when
// they are not read yet.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	if d := m.readDetail(); d != nil {
		cmd = tea.Batch(cmd, d)
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.hgt = msg.Width, msg.Height
		if m.focus == areaInspector && !m.inspectorVisible() {
			// Narrowed below 100 columns while reading the inspector: keep showing it
			// (alt+i goes back to the transcript) rather than focus a hidden pane.
			m.showInspector = true
		}
		return m, nil
	case tea.KeyMsg:
		msg = asText(msg)
		if cmd, ok := m.extraKey(msg); ok {
			return m, cmd
		}
		return m, m.key(msg)
	case tea.MouseMsg:
		if cmd, ok := m.overlayMouse(msg); ok {
			return m, cmd
		}
		m.mouse(msg)
		return m, nil
	case loadedMsg:
		return m, m.loaded(msg)
	case detailMsg:
		m.detailRead(msg)
		return m, nil
	case detailsMsg:
		for _, d := range msg {
			m.detailRead(d)
		}
		return m, nil
	case previewMsg:
		m.previewInFlight = false
		if msg.seq == m.previewSeq && msg.text == m.comp.Draft() {
			tr := msg.trace
			m.preview, m.previewText = &tr, msg.text
		}
		return m, m.startPreview()
	case streamMsg:
		return m, m.streamed(msg)
	case markdownReadyMsg:
		m.tr.MarkdownReady()
		return m, nil
	case spinner.TickMsg:
		if m.stream == nil {
			return m, nil // idle means idle: the spinner stops with the stream
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		m.tr.SetSpinner(m.spin.View())
		return m, cmd
	case switchedMsg:
		if msg.err != nil {
			m.setErr(fmt.Errorf("switch branch: %w", msg.err))
		}
		m.tr.ClearSelection()
		m.rl.recheck = msg.err == nil // the branch's turns are compared with the file in force
		return m, m.load(true)
	case unansweredMsg:
		if msg.err != nil {
			m.setErr(msg.err)
			m.fail(msg.text, msg.err)
		}
		// SendUnanswered gives no trace of the turn: read them all (rare: scripted
		// chats only).
		return m, m.load(true)
	case savedAgainMsg:
		return m, m.savedAgain(msg)
	case editorMsg:
		if msg.err != nil {
			m.setErr(fmt.Errorf("editor: %w", msg.err))
			return m, nil
		}
		m.comp.SetValue(strings.TrimRight(msg.text, "\n"))
		return m, m.draftChanged()
	}
	if cmd, ok := m.extraMsg(msg); ok {
		return m, cmd
	}
	return m, nil
}

// loaded takes what a load read.
func (m *Model) loaded(msg loadedMsg) tea.Cmd {
	if msg.seq != m.loadSeq {
		return nil
	}
	if msg.err != nil {
		m.setErr(msg.err)
	}
	m.title, m.branch, m.usage, m.chatID = msg.title, msg.branch, msg.usage, msg.chatID
	if msg.branches != nil {
		m.branches = msg.branches
	}
	m.cost, m.costOK = msg.cost, msg.costOK
	if msg.withTraces {
		m.traces = make(map[string]*engine.Trace, len(msg.traces)+len(m.sent))
		for i := range msg.traces {
			t := &msg.traces[i]
			m.traces[t.UserMessageID] = t
		}
		// A turn sent in this session keeps the trace it was sent with
		// (TurnResult.Trace), which has what a saved record lacks (the estimate by
		// source).
		for id, t := range m.sent {
			if _, ok := m.traces[id]; ok {
				m.traces[id] = t
			}
		}
		m.forgetDetails()
	}
	m.tr.SetTraces(m.traces)
	if m.stream == nil {
		pend := m.tr.Last()
		keep := pend != nil && pend.pendingReply
		m.tr.SetMessages(msg.path, msg.turns)
		if m.failed != nil {
			m.tr.Append(m.failed)
		}
		if keep {
			m.tr.Append(pend)
		}
	}
	m.preview, m.previewText = nil, ""
	details := m.readHeaderDetails()
	if m.opt.Present {
		details = m.readAllDetails()
	}
	return tea.Batch(m.startPreview(), m.branchLoaded(), details, m.recordedRead(msg.withTraces))
}

func (m *Model) setErr(err error) {
	if err != nil {
		m.lastErr = inert.DisplayLine(err.Error())
	}
}

// fail shows a turn that saved nothing: the error under the user message, the text
// back in the composer.
func (m *Model) fail(text string, err error) {
	if last := m.tr.Last(); last != nil && (last.live != nil || last.pendingReply) {
		m.tr.RemoveLast()
	}
	m.failed = &turnItem{user: &chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: m.now()},
		err: err.Error()}
	m.tr.Append(m.failed)
	m.comp.Restore(text)
}

// draftChanged follows the draft: typing takes the inspector back to the preview.
func (m *Model) draftChanged() tea.Cmd {
	if m.comp.Draft() == "" {
		m.preview, m.previewText = nil, ""
		return nil
	}
	if m.focus == areaComposer {
		m.tr.explicit = false
	}
	return m.startPreview()
}

// asText marks a key event that holds several characters as a paste: text that arrived
// in one burst, which is never a binding, even when it spells a key's name ("enter",
// "tab", "ctrl+c"): Bubble Tea names such an event by its characters, which key.Matches
// would take for the key (spec/tui.md, Keys). The workbench's input (tui/burst) brackets
// every burst as a paste before Bubble Tea reads it; this covers the words of a burst
// read without it.
func asText(k tea.KeyMsg) tea.KeyMsg {
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 {
		k.Paste = true
	}
	return k
}

// key handles a key press.
func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	km := m.keys
	m.notice = ""
	if m.help {
		switch {
		case key.Matches(k, km.CloseHelp):
			m.help = false
		case k.String() == "down" || k.String() == "j":
			m.helpScroll++
		case k.String() == "up" || k.String() == "k":
			m.helpScroll = max(0, m.helpScroll-1)
		case key.Matches(k, km.Quit):
			return m.quitOrCancel()
		}
		return nil
	}
	inComposer := m.focus == areaComposer
	if k.Paste && (!inComposer || m.opt.Present) {
		if !m.opt.Present {
			m.notice = "text is not a key: type it in the composer (" + km.Esc.Help().Key + " focuses it)"
		}
		return nil
	}
	switch {
	case key.Matches(k, km.Quit):
		return m.quitOrCancel()
	case key.Matches(k, km.SaveAgain):
		return m.saveAgain()
	case key.Matches(k, km.Help), !inComposer && key.Matches(k, km.HelpQ):
		m.help, m.helpScroll = true, 0
		return nil
	case key.Matches(k, km.NextFocus):
		m.setFocus(m.nextArea(1))
		return nil
	case key.Matches(k, km.PrevFocus):
		m.setFocus(m.nextArea(-1))
		return nil
	case key.Matches(k, km.Inspector):
		m.showInspector = !m.showInspector
		if !m.showInspector && m.focus == areaInspector {
			m.setFocus(areaTranscript)
		}
		return nil
	}
	for i := range km.Tabs {
		if key.Matches(k, km.Tabs[i]) || (!inComposer && key.Matches(k, km.TabDigits[i])) {
			m.insp.SetTab(inspectorTab(i))
			return nil
		}
	}
	if inComposer && m.comp.mode == composeReply && key.Matches(k, km.Unanswered) {
		return m.sendUnanswered()
	}
	if key.Matches(k, km.Esc) {
		switch {
		case m.stream != nil:
			m.stream.cancel()
			return nil
		case inComposer && m.comp.mode == composeReply:
			return nil // the scripted step's own keys end it
		case !inComposer:
			m.setFocus(areaComposer)
			return nil
		}
		return nil
	}
	switch m.focus {
	case areaComposer:
		return m.composerKey(k)
	case areaTranscript:
		m.transcriptKey(k)
	case areaInspector:
		m.syncInspector() // the key acts on what is on screen, also before a frame is drawn
		return m.act(m.insp.HandleKey(k))
	}
	return nil
}

func (m *Model) quitOrCancel() tea.Cmd {
	if m.stream != nil {
		m.stream.cancel()
		return nil
	}
	return tea.Quit
}

// nextArea is the area d steps from the focused one, skipping a hidden inspector.
func (m *Model) nextArea(d int) area {
	areas := []area{areaComposer, areaTranscript}
	if m.inspectorVisible() {
		areas = append(areas, areaInspector)
	}
	i := 0
	for j, a := range areas {
		if a == m.focus {
			i = j
		}
	}
	return areas[(i+d+len(areas))%len(areas)]
}

func (m *Model) setFocus(a area) {
	m.focus = a
	if a == areaComposer {
		m.comp.Focus()
	} else {
		m.comp.Blur()
	}
}

// act carries out what the inspector asks.
func (m *Model) act(a inspectorAction) tea.Cmd {
	if r, ok := a.(restoreAction); ok {
		return m.restore(r.Name)
	}
	sw, ok := a.(switchBranchAction)
	if !ok || sw.Name == "" {
		return nil
	}
	if m.stream != nil {
		m.setErr(fmt.Errorf("switch branch: wait for the reply to finish (esc cancels it)"))
		return nil
	}
	c, mu, name := m.chat, m.chatMu, sw.Name
	return func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		return switchedMsg{err: c.Switch(context.Background(), name)}
	}
}

func (m *Model) transcriptKey(k tea.KeyMsg) {
	km := m.keys
	switch {
	case key.Matches(k, km.Up):
		m.tr.Move(-1)
	case key.Matches(k, km.Down):
		m.tr.Move(1)
	case key.Matches(k, km.Top):
		m.tr.Select(0)
	case key.Matches(k, km.Bottom):
		m.tr.Select(m.tr.Len() - 1)
	case key.Matches(k, km.PageUp):
		m.tr.ScrollBy(-max(m.tr.height-1, 1))
		m.tr.Select(m.tr.TopTurn())
	case key.Matches(k, km.PageDown):
		m.tr.ScrollBy(max(m.tr.height-1, 1))
		m.tr.Select(m.tr.BottomTurn())
	case key.Matches(k, km.ToggleTool):
		m.tr.ToggleTools()
	case key.Matches(k, km.Spans):
		m.tr.ToggleSpans()
	}
}

// composerKey handles a key in the composer: send, the editor, the scripted step, or
// text for the textarea.
func (m *Model) composerKey(k tea.KeyMsg) tea.Cmd {
	km := m.keys
	switch {
	case m.comp.mode == composeReply && key.Matches(k, km.SaveReply):
		return m.sendScripted()
	case m.comp.mode != composeReply && key.Matches(k, km.Send):
		return m.send()
	case key.Matches(k, km.Editor):
		return m.editor()
	}
	before := m.comp.Value()
	cmd := m.comp.Update(k)
	if m.comp.Value() != before {
		return tea.Batch(cmd, m.draftChanged())
	}
	return cmd
}

// send sends the draft: to the model, or (no model) on to the scripted-reply step.
func (m *Model) send() tea.Cmd {
	text := strings.TrimSpace(m.comp.Value())
	if text == "" {
		return nil
	}
	if m.stream != nil {
		m.setErr(fmt.Errorf("a reply is still streaming (esc cancels it)"))
		return nil
	}
	m.lastErr = ""
	m.failed, m.unsaved = nil, nil
	m.dropFailed()
	m.comp.Sent(text)
	m.preview, m.previewText = nil, ""
	item := &turnItem{user: &chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: m.now()}}
	if m.scripted {
		item.pendingReply = true
		m.tr.Append(item)
		m.comp.AskReply(text)
		return nil
	}
	item.live = &liveTurn{sent: m.now()}
	m.tr.Append(item)
	c := m.chat
	return m.startStream(text, item, true, func(ctx context.Context, emit func(engine.Event)) error {
		_, err := c.Send(ctx, text, emit)
		return err
	})
}

// dropFailed removes a failed turn shown under the transcript.
func (m *Model) dropFailed() {
	if last := m.tr.Last(); last != nil && (last.err != "" || last.unsaved != "") && last.rec == nil {
		m.tr.RemoveLast()
	}
}

// sendScripted saves the user message with the reply the user wrote.
func (m *Model) sendScripted() tea.Cmd {
	reply := strings.TrimSpace(m.comp.Value())
	if reply == "" {
		m.setErr(fmt.Errorf("write the model's reply, or press esc to leave the message unanswered"))
		return nil
	}
	text := m.comp.pending
	item := m.tr.Last()
	if item == nil || !item.pendingReply {
		item = &turnItem{user: &chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.TextPart(text)}, CreatedAt: m.now()}}
		m.tr.Append(item)
	}
	item.pendingReply = false
	item.live = &liveTurn{sent: m.now()}
	item.version++
	m.comp.EndReply()
	c := m.chat
	return m.startStream(text, item, false, func(ctx context.Context, emit func(engine.Event)) error {
		_, err := c.SendScripted(ctx, text, reply, emit)
		return err
	})
}

// sendUnanswered saves the user message waiting for its scripted reply without one.
func (m *Model) sendUnanswered() tea.Cmd {
	text := m.comp.pending
	if last := m.tr.Last(); last != nil && last.pendingReply {
		last.pendingReply = false
		last.version++
	}
	m.comp.EndReply()
	c, mu := m.chat, m.chatMu
	return func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		return unansweredMsg{text: text, err: c.SendUnanswered(context.Background(), text)}
	}
}

// editor opens the draft in $VISUAL or $EDITOR.
func (m *Model) editor() tea.Cmd {
	cmd, path, err := editorCommand(m.comp.Value())
	if err != nil {
		m.setErr(err)
		return nil
	}
	return tea.Exec(&terminalExec{cmd: cmd, autoWrapOff: m.opt.AutoWrapOff}, func(err error) tea.Msg {
		return readEditorFile(path, err)
	})
}

// mouse scrolls the pane under the pointer, and selects the turn clicked.
func (m *Model) mouse(msg tea.MouseMsg) {
	in := func(x, y, w, h int) bool { return msg.X >= x && msg.X < x+w && msg.Y >= y && msg.Y < y+h }
	overTr := in(m.trX, m.trY, m.trW, m.trH)
	overIn := in(m.inX, m.inY, m.inW, m.inH)
	switch {
	case msg.Button == tea.MouseButtonWheelUp && overTr:
		m.tr.ScrollBy(-3)
	case msg.Button == tea.MouseButtonWheelDown && overTr:
		m.tr.ScrollBy(3)
	case msg.Button == tea.MouseButtonWheelUp && overIn:
		m.insp.ScrollBy(-3)
	case msg.Button == tea.MouseButtonWheelDown && overIn:
		m.insp.ScrollBy(3)
	case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress && overTr:
		if i := m.tr.TurnAt(msg.Y - m.trY); i >= 0 {
			m.tr.Select(i)
			m.setFocus(areaTranscript)
		}
	case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress && overIn:
		m.setFocus(areaInspector)
		_ = m.act(m.insp.ClickAt(msg.Y - m.inY))
	}
}

// inspectorVisible reports whether the inspector is on screen.
func (m *Model) inspectorVisible() bool { return m.width >= 100 || m.showInspector }

// syncInspector gives the inspector the current turn (or the draft's preview) and the
// chat.
func (m *Model) syncInspector() {
	m.insp.SetTurn(m.reevalView(m.turnView()))
	m.insp.SetChat(chatView{Branches: m.branches, Checkpoints: m.br.checkpoints, Active: m.branch, Totals: m.usage, CostUSD: m.cost,
		CostKnown: m.costOK, ContextWindow: m.opt.ContextWindow})
}

// turnView is what the inspector shows of the current turn (or the draft's preview).
func (m *Model) turnView() turnView {
	if m.preview != nil && !m.tr.Explicit() && m.comp.Draft() != "" && m.stream == nil {
		v := turnView{Trace: m.preview, Preview: true, Live: !m.scripted}
		if it := m.tr.Last(); it != nil && it.user != nil {
			v.Prev = m.traces[it.user.ID]
		}
		return v
	}
	return m.itemView(m.tr.Current())
}

// itemView is what the inspector shows of the transcript's turn i (none for -1).
func (m *Model) itemView(i int) turnView {
	v := turnView{Live: !m.scripted}
	it := m.tr.Item(i)
	if it == nil {
		return v
	}
	if it.user != nil {
		v.Trace, v.Loop = m.traces[it.user.ID], m.loops[it.user.ID]
		if it.live != nil && m.stream != nil && m.stream.plan != nil {
			v.Trace, v.Loop, v.Streaming, v.Live = m.stream.plan, m.stream.loop, true, m.stream.live
		}
	}
	if p := m.tr.Item(i - 1); p != nil && p.user != nil {
		v.Prev = m.traces[p.user.ID]
	}
	return v
}

// View draws the screen.
func (m *Model) View() string {
	w, h := m.width, m.hgt
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < 60 || h < 16 {
		return m.tooSmall(w, h)
	}
	m.syncInspector() // the status line shows the keys of the turn on screen
	status := m.statusLines(w)
	header := m.headerLine(w)
	bodyH := h - 1 - len(status)
	var body []string
	if ov, ok := m.overlayView(w, bodyH); ok && !m.help {
		body = ov
	} else if m.help {
		body = m.renderHelp(w, bodyH)
	} else if m.opt.Present {
		body = m.presentBody(w, bodyH)
	} else {
		body = m.body(w, bodyH)
	}
	out := make([]string, 0, h)
	out = append(out, header)
	out = append(out, body...)
	out = append(out, status...)
	return strings.Join(out, "\n")
}

// tooSmall is the screen below 60x16.
func (m *Model) tooSmall(w, h int) string {
	msg := []string{"terminal too small", fmt.Sprintf("%dx%d, need 60x16", w, h)}
	lines := make([]string, h)
	top := max(0, (h-len(msg))/2)
	for i := range lines {
		l := ""
		if j := i - top; j >= 0 && j < len(msg) {
			l = msg[j]
			if pad := (w - len([]rune(l))) / 2; pad > 0 {
				l = strings.Repeat(" ", pad) + l
			}
		}
		lines[i] = fitLine(l, w)
	}
	return strings.Join(lines, "\n")
}

// body draws transcript, composer and inspector in w x h.
func (m *Model) body(w, h int) []string {
	m.syncInspector()
	inspW := 0
	switch {
	case w >= 120:
		inspW = w * 40 / 100
	case w >= 100:
		inspW = w * 35 / 100
	}
	leftW := w
	if inspW > 0 {
		leftW = w - inspW - 1
	}
	narrowInsp := inspW == 0 && m.showInspector
	compH := m.comp.Height(max(h/3, 2))
	topH := h - compH - 1
	var top []string
	if narrowInsp {
		top = strings.Split(m.insp.Render(leftW, topH, m.focus == areaInspector), "\n")
		m.inX, m.inY, m.inW, m.inH = 0, 1, leftW, topH
		m.trW, m.trH = 0, 0
	} else {
		top = strings.Split(m.tr.Render(leftW, topH, m.focus == areaTranscript), "\n")
		m.trX, m.trY, m.trW, m.trH = 0, 1, leftW, topH
	}
	sepRole := themes.Border
	if m.focus == areaComposer {
		sepRole = themes.FocusBorder
	}
	left := make([]string, 0, h)
	left = append(left, fitBlock(top, leftW, topH)...)
	left = append(left, m.th.Render(sepRole, strings.Repeat("─", leftW)))
	left = append(left, fitBlock(strings.Split(m.comp.Render(leftW, compH, m.focus == areaComposer), "\n"), leftW, compH)...)
	if inspW == 0 {
		if !narrowInsp {
			m.inW, m.inH = 0, 0
		}
		return left
	}
	right := fitBlock(strings.Split(m.insp.Render(inspW, h, m.focus == areaInspector), "\n"), inspW, h)
	m.inX, m.inY, m.inW, m.inH = leftW+1, 1, inspW, h
	bar := themes.Border
	if m.focus == areaInspector {
		bar = themes.FocusBorder
	}
	sep := m.th.Render(bar, "│")
	out := make([]string, h)
	for i := range out {
		out[i] = left[i] + sep + right[i]
	}
	return out
}
