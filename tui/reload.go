package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/engine/inert"
	"github.com/ctxlab/ctxlab/themes"
)

// reloader is a chat that can move to a reloaded context file (*app.Chat is one).
type reloader interface {
	File() *ctxfile.File
	Reload(ctx context.Context, file *ctxfile.File) error
	Reevaluation(file *ctxfile.File, progress func(done, total int)) func(context.Context) ([]engine.Trace, error)
}

// reloadState is the workbench's reload of the context file: the watch, the error
// overlay, and the past turns re-evaluated under the reloaded file until the next send.
type reloadState struct {
	// file is the context file the chat is on, as the UI knows it (the chat's own is read
	// only in Cmds, which may be moving it).
	file    *ctxfile.File
	seq     int  // numbers reloads: a stale result is ignored
	running bool // a reload is in flight
	// progress is the re-evaluation of the reload in flight, as its Cmd counts it; done
	// and total are what the status line shows, read from it on each progress tick.
	progress    *reloadProgress
	done, total int
	// sentDuring is the seq of a reload in flight when the user sent: its re-evaluation,
	// of the turns before the send, is not shown.
	sentDuring int

	// The watch of the file's sources: gen numbers watches (a new file starts a new one);
	// stop ends the current one.
	watchGen int
	stop     context.CancelFunc
	watched  []string
	watchCh  <-chan struct{}

	// errs are the errors of the last reload that failed, shown in an overlay until esc.
	errs     []string
	errsFile string

	// reeval are the turns re-evaluated under the reloaded file, by user message id
	// (nil: none; the recorded traces are shown); summary says what changed.
	reeval  map[string]*engine.Trace
	summary string
	// what says what the re-evaluation in flight is for, in the status line: "" for a
	// reload, else that the file changed since turns of the chat opened were sent.
	what string
	// opened is the digest of the file in force when the chat was opened: a turn that
	// recorded none (saved before ctxlab did) was sent before that, so the file changed
	// since when the file in force is no longer that one (see fileChangeOf).
	opened string
	// recheck asks the next read of the traces to compare the digest each turn recorded
	// with the file in force (compareRecorded): on opening a chat, on a branch switch.
	recheck bool
	// builtInPath is the path of the built-in demo context (Options.BuiltIn), whose
	// name the header does not show.
	builtInPath string
	// wouldSend shows, in the Request and Prompt tabs, what the reloaded file would have
	// sent instead of what was recorded (n in the Request tab).
	wouldSend bool
}

// watchStartedMsg is a watch started (or failed to).
type watchStartedMsg struct {
	gen   int
	ch    <-chan struct{}
	paths []string
	err   error
}

// watchEventMsg is a change to a watched file; closed says the watch ended.
type watchEventMsg struct {
	gen    int
	closed bool
}

// reloadedMsg is the result of a reload.
type reloadedMsg struct {
	seq    int
	file   *ctxfile.File
	err    error // the file does not load: its errors
	traces []engine.Trace
	moved  bool  // the chat is on the new file
	rerr   error // the file loads, but moving the chat to it or re-evaluating failed
}

// reevaluatedMsg is the result of a re-evaluation of the branch under the file in force
// (reevaluate).
type reevaluatedMsg struct {
	seq    int
	traces []engine.Trace
	err    error
}

// startWatch watches the chat's context file and the files it references, in a Cmd;
// nil when the workbench does not watch or the chat has no file.
func (m *Model) startWatch() tea.Cmd {
	f := m.rl.file
	if !m.opt.Watch || f == nil || f.Path == "" {
		return nil
	}
	paths := f.Sources()
	if len(paths) == 0 {
		paths = []string{f.Path}
	}
	if slices.Equal(paths, m.rl.watched) && m.rl.stop != nil {
		return nil
	}
	if m.rl.stop != nil {
		m.rl.stop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.rl.watchGen++
	m.rl.stop, m.rl.watched = cancel, paths
	gen := m.rl.watchGen
	return func() tea.Msg {
		ch, err := ctxapp.Watch(ctx, paths)
		return watchStartedMsg{gen: gen, ch: ch, paths: paths, err: err}
	}
}

// waitWatch waits for the next change of a watch.
func waitWatch(gen int, ch <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		_, ok := <-ch
		return watchEventMsg{gen: gen, closed: !ok}
	}
}

// reloadProgress counts the turns a reload's re-evaluation has done, for the status line.
type reloadProgress struct{ done, total atomic.Int64 }

// reloadTickMsg asks to show the progress of reload seq.
type reloadTickMsg struct{ seq int }

// reloadTick is the next progress tick of reload seq.
func reloadTick(seq int) tea.Cmd {
	return tea.Tick(reloadTickEvery, func(time.Time) tea.Msg { return reloadTickMsg{seq: seq} })
}

// reloadTickEvery is how often the status line shows a reload's progress.
const reloadTickEvery = 100 * time.Millisecond

// reload loads the context file again, off the UI loop: on success the chat moves to
// it and its turns are re-evaluated under it, the status line counting them.
func (m *Model) reload() tea.Cmd {
	r, ok := m.chat.(reloader)
	if !ok || m.rl.file == nil {
		m.setErr(fmt.Errorf("reload: this chat has no context file on disk"))
		return nil
	}
	if m.stream != nil {
		m.setErr(fmt.Errorf("reload: wait for the reply to finish (esc cancels it)"))
		return nil
	}
	m.rl.seq++
	m.rl.running = true
	m.rl.progress, m.rl.done, m.rl.total = &reloadProgress{}, 0, 0
	seq, mu, path, pr := m.rl.seq, m.chatMu, m.rl.file.Path, m.rl.progress
	work := func() tea.Msg {
		if path == "" { // a plain chat: the file the rule would choose now (ctxlab init)
			if path = ctxapp.ChooseContext("", nil).Path; path == "" {
				return reloadedMsg{seq: seq, rerr: fmt.Errorf("no context file: `ctxlab init` writes a starter ./%s", ctxapp.DefaultContextFile)}
			}
		}
		file, err := ctxfile.Load(path)
		if err != nil {
			return reloadedMsg{seq: seq, err: err}
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		msg := reloadedMsg{seq: seq, file: file}
		type result struct {
			traces []engine.Trace
			err    error
		}
		done := make(chan result, 1)
		mu.Lock()
		// The re-evaluation reads only the database and the branch as the chat has it
		// now: it runs while the chat moves to the file, and after, while the chat is free
		// (the draft's preview, a send).
		reeval := r.Reevaluation(file, func(d, t int) { pr.done.Store(int64(d)); pr.total.Store(int64(t)) })
		go func() {
			traces, err := reeval(ctx)
			done <- result{traces, err}
		}()
		msg.rerr = r.Reload(ctx, file)
		msg.moved = msg.rerr == nil
		mu.Unlock()
		if !msg.moved {
			cancel()
		}
		res := <-done
		if msg.rerr == nil {
			msg.traces, msg.rerr = res.traces, res.err
		}
		return msg
	}
	return tea.Batch(work, reloadTick(seq))
}

// reloadTicked shows the progress of the reload in flight, and asks for the next tick.
func (m *Model) reloadTicked(msg reloadTickMsg) tea.Cmd {
	if msg.seq != m.rl.seq || !m.rl.running || m.rl.progress == nil {
		return nil
	}
	m.rl.done, m.rl.total = int(m.rl.progress.done.Load()), int(m.rl.progress.total.Load())
	return reloadTick(msg.seq)
}

// reloaded takes a reload's result.
func (m *Model) reloaded(msg reloadedMsg) tea.Cmd {
	if msg.seq != m.rl.seq {
		return nil
	}
	m.rl.running, m.rl.progress = false, nil
	if msg.err != nil {
		m.rl.errs = diagLines(msg.err)
		m.rl.errsFile = m.contextName()
		return nil
	}
	m.rl.errs = nil
	if msg.rerr != nil {
		m.setErr(fmt.Errorf("reload: %w", msg.rerr))
	}
	if !msg.moved {
		return nil
	}
	if strings.HasPrefix(m.lastErr, "reload: ") { // an earlier reload's error is out of date
		m.lastErr = ""
	}
	m.rl.file, m.rl.recheck = msg.file, false // the reload re-evaluated the branch
	if !(m.opt.BuiltIn && msg.file.Path == m.rl.builtInPath) {
		m.opt.ContextName = filepath.Base(msg.file.Path)
	}
	if m.rl.sentDuring != msg.seq {
		m.setReevaluated(msg.traces, "reload: "+inert.DisplayLine(m.contextName()))
	}
	return tea.Batch(m.load(true), m.startWatch())
}

// setReevaluated shows the turns re-evaluated under the file in force, and sums up what
// changed after what they were re-evaluated for (what).
func (m *Model) setReevaluated(traces []engine.Trace, what string) {
	m.rl.reeval = make(map[string]*engine.Trace, len(traces))
	decisions, turns := 0, 0
	for i := range traces {
		t := &traces[i]
		m.rl.reeval[t.UserMessageID] = t
		n := len(t.Removed)
		for _, d := range t.Decisions {
			if d.Was != nil {
				n++
			}
		}
		decisions += n
		if n > 0 {
			turns++
		}
	}
	m.rl.summary = fmt.Sprintf("%s · %s changed in %d of %s", what, countNoun(decisions, "decision"), turns, countNoun(len(traces), "turn"))
	if len(traces) == 0 {
		m.rl.summary = what + " · the next turn uses it"
	}
}

// sentClearsReload goes back to the recorded traces once the user sends: nothing is
// re-evaluated again until the next reload, chat or branch.
func (m *Model) sentClearsReload() {
	m.rl.reeval, m.rl.summary, m.rl.wouldSend, m.rl.recheck = nil, "", false, false
	if m.rl.running {
		m.rl.sentDuring = m.rl.seq
	}
}

// recordedRead follows a load: when it read the traces of a chat opened or a branch
// switched to (recheck), they are compared with the file in force.
func (m *Model) recordedRead(withTraces bool) tea.Cmd {
	if !withTraces || !m.rl.recheck {
		return nil
	}
	return m.compareRecorded()
}

// contextName is the context file's name as the header shows it.
func (m *Model) contextName() string { return m.opt.ContextName }

// diagLines are the lines of a context file's errors (FILE:LINE:COL: message), inert.
func diagLines(err error) []string {
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			out = append(out, inert.DisplayLine(l))
		}
	}
	return out
}

// reevalView shows a past turn as the reloaded file would have decided it: in Why, and in
// Request and Prompt when wouldSend is on. Usage stays as recorded.
func (m *Model) reevalView(v turnView) turnView { return m.reevalViewIn(v, m.insp.Tab()) }

// reevalViewIn is reevalView as the inspector's tab shows it.
func (m *Model) reevalViewIn(v turnView, tab inspectorTab) turnView {
	if v.Preview || v.Trace == nil || m.rl.reeval == nil {
		return v
	}
	re := m.rl.reeval[v.Trace.UserMessageID]
	if re == nil {
		return v
	}
	name := inert.DisplayLine(m.contextName())
	switch tab {
	case tabWhy:
		v.Trace = re
		v.Note = "re-evaluated under " + name + " (replay --context) · was → now"
	case tabRequest, tabPrompt:
		if m.rl.wouldSend {
			v.Trace, v.Loop, v.Unsent = re, nil, true // what the file would send is the first request
			v.Live = !m.scripted                      // sent to the chat's model, if it has one
			if v.Prev != nil {
				if p := m.rl.reeval[v.Prev.UserMessageID]; p != nil {
					v.Prev = p
				}
			}
			v.Note = "WOULD SEND under " + name + " · n: as recorded"
		} else if tab == tabRequest {
			v.Note = "AS RECORDED · n: what " + name + " would send"
		}
	}
	return v
}

// fileMark is the header's mark when the context file in force is not the one the
// selected turn was sent with, as the turn's record says (see fileChangeOf), or when
// that is not known.
func (m *Model) fileMark() string {
	it := m.tr.Item(m.tr.Current())
	if it == nil || it.user == nil {
		return ""
	}
	switch m.fileChangeOf(it.user.ID) {
	case fileChanged:
		return " (changed)"
	case fileUnknown:
		return " (changed?)" // the status line says why, on opening
	}
	return ""
}

// fileChange is whether the context file changed since a turn was sent.
type fileChange int

const (
	fileSame    fileChange = iota // it is the file the turn was sent with (or the turn's record is not read yet)
	fileChanged                   // it is not
	fileUnknown                   // the turn recorded no digest, and the file did not change since the chat opened
)

// fileChangeOf says whether the file in force is the one the turn of user message id was
// sent with: the digest its record keeps (chat.Turn.ContextDigest) against the file's.
// A turn saved before ctxlab recorded digests was sent before the chat opened: if the file
// changed since (a reload), it changed since the turn too; else it is not known, unless
// there is no file at all now.
func (m *Model) fileChangeOf(id string) fileChange {
	t := m.traces[id]
	if t == nil {
		return fileSame
	}
	now := m.fileDigest()
	switch d := t.ContextDigest; {
	case d != nil && *d != now, d == nil && now != m.rl.opened:
		return fileChanged
	case d == nil && now != "":
		return fileUnknown
	}
	return fileSame
}

// fileDigest is the digest of the context file in force ("" for none).
func (m *Model) fileDigest() string {
	if m.rl.file == nil {
		return ""
	}
	return m.rl.file.Digest()
}

// compareRecorded follows the read of the traces of a chat opened, or of a branch switched
// to: it compares the digest each turn recorded with the file in force. When the file
// changed since a turn was sent, the branch is re-evaluated under it in the background
// (reevaluate), so the Why tab shows was → now, as after a reload. Turns that recorded
// no digest are said so in the status line, and are not re-evaluated for themselves
// alone (ctrl+r does it).
func (m *Model) compareRecorded() tea.Cmd {
	m.rl.recheck = false
	changed, unknown := 0, 0
	for id := range m.traces {
		switch m.fileChangeOf(id) {
		case fileChanged:
			changed++
		case fileUnknown:
			unknown++
		}
	}
	name, total := inert.DisplayLine(m.contextName()), len(m.traces)
	if changed == 0 {
		if unknown > 0 {
			note := fmt.Sprintf("not known if %s changed since %d of %s %s sent (ctxlab did not record it then) · %s re-evaluates them",
				name, unknown, countNoun(total, "turn"), wasWere(unknown), m.keys.Reload.Help().Key)
			m.notice = strings.TrimPrefix(m.notice+" · "+note, " · ")
		}
		return nil
	}
	what := fmt.Sprintf("%s changed since %d of %s %s sent", name, changed, countNoun(total, "turn"), wasWere(changed))
	if unknown > 0 {
		what += fmt.Sprintf(", not known for %d", unknown)
	}
	return m.reevaluate(what)
}

// wasWere is the verb for n things.
func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// reevaluate re-evaluates the chat's branch under the file in force, off the UI loop, as
// a reload does without loading the file again: the status line counts the turns, then
// sums up what changed after what.
func (m *Model) reevaluate(what string) tea.Cmd {
	r, ok := m.chat.(reloader)
	if !ok || m.rl.file == nil || m.stream != nil {
		return nil
	}
	m.rl.seq++
	m.rl.running, m.rl.what = true, what
	m.rl.progress, m.rl.done, m.rl.total = &reloadProgress{}, 0, 0
	seq, mu, file, pr := m.rl.seq, m.chatMu, m.rl.file, m.rl.progress
	work := func() tea.Msg {
		mu.Lock()
		// As in a reload, it reads the branch as the chat has it now, then runs while
		// the chat is free.
		reeval := r.Reevaluation(file, func(d, t int) { pr.done.Store(int64(d)); pr.total.Store(int64(t)) })
		mu.Unlock()
		traces, err := reeval(context.Background())
		return reevaluatedMsg{seq: seq, traces: traces, err: err}
	}
	return tea.Batch(work, reloadTick(seq))
}

// reevaluated takes the result of reevaluate.
func (m *Model) reevaluated(msg reevaluatedMsg) {
	if msg.seq != m.rl.seq {
		return
	}
	what := m.rl.what
	m.rl.running, m.rl.progress, m.rl.what = false, nil, ""
	if msg.err != nil {
		m.setErr(fmt.Errorf("re-evaluate under %s: %w", inert.DisplayLine(m.contextName()), msg.err))
		return
	}
	if m.rl.sentDuring != msg.seq {
		m.setReevaluated(msg.traces, what)
	}
}

// closeReloadErrors closes the overlay of the reload errors; the status line goes on
// saying that the file has errors, and which version is in force, until the next reload.
func (m *Model) closeReloadErrors() {
	if len(m.rl.errs) > 0 {
		m.lastErr = fmt.Sprintf("the context file has %s (%s); %s stays in force · %s reloads it",
			countNoun(len(m.rl.errs), "error"), m.rl.errs[0], inert.DisplayLine(m.rl.errsFile), m.keys.Reload.Help().Key)
	}
	m.rl.errs = nil
}

// reloadOverlay draws the reload errors in width x height.
func (m *Model) reloadOverlay(width, height int) []string {
	th := m.th
	out := []string{
		" " + th.Render(themes.Error, "the context file has errors") +
			th.Render(themes.Muted, " · "+inert.DisplayLine(m.rl.errsFile)+" stays in force · esc closes"),
		"",
	}
	for _, l := range m.rl.errs {
		for _, w := range wrapToWidth(l, max(width-4, 8)) {
			out = append(out, "  "+th.Render(themes.Error, w))
		}
	}
	out = append(out, "", " "+th.Render(themes.Muted, "fix the file and save it (or press ctrl+r) to reload"))
	return fitBlock(out, width, height)
}
