package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/inert"
)

// A copy (c, y) goes to the terminal's clipboard with OSC 52, in the form the terminal
// will take, and the status line never says more than is known of where it went:
//
//   - inside tmux, tmux is asked (its server, from $TMUX) what it takes: with
//     set-clipboard on, a plain OSC 52, which tmux keeps in its paste buffer (checked) and
//     passes on to the terminal's clipboard; else with allow-passthrough on, the sequence
//     wrapped for passthrough, sent on to the terminal; else nothing: the status line says
//     how to enable it, and the text is saved to a file;
//   - inside GNU screen ($STY), the sequence wrapped in screen's passthrough, in pieces
//     screen's string buffer takes;
//   - elsewhere, a plain OSC 52.
//
// A terminal never answers an OSC 52 write: outside tmux's buffer, the status line says the
// text was sent, not that it arrived, and where to look when it did not (README, Copy).
// Where nothing can be sent (TERM=dumb, no terminal) the text is saved to a file.

// copiedMsg says where a copy went: a notice, or an error (with the file the text was
// saved to, when it was).
type copiedMsg struct {
	notice string
	err    error
}

// clipState is the workbench's: what a copy asks of the process, and the error the last
// copy left in the status line (the next one that works clears it).
type clipState struct {
	env clipEnv
	err string
}

// clipEnv is what a copy asks of the process around it; the zero value is the real one,
// tests replace parts of it.
type clipEnv struct {
	getenv func(string) string
	// tmux runs a tmux command on the server whose socket is given and returns what it
	// printed, trimmed.
	tmux func(ctx context.Context, socket string, args ...string) (string, error)
	// dir is where a copy that could not be sent is saved ("": the OS temp directory).
	dir string
	// wait bounds the questions to tmux.
	wait time.Duration
}

func (e clipEnv) withDefaults() clipEnv {
	if e.getenv == nil {
		e.getenv = os.Getenv
	}
	if e.tmux == nil {
		e.tmux = runTmux
	}
	if e.wait <= 0 {
		e.wait = time.Second
	}
	return e
}

// runTmux runs tmux -S socket args.
func runTmux(ctx context.Context, socket string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-S", socket}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, msg)
		}
		return "", fmt.Errorf("tmux %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(out.String()), nil
}

// clip is one copy: what it is ("the reply"), the file name it is saved under when it
// cannot be sent (a pattern for os.CreateTemp), and its text.
type clip struct {
	what, file, text string
}

// copyText copies c to the terminal's clipboard in a Cmd (which may ask tmux).
func (m *Model) copyText(c clip) tea.Cmd {
	w, env := m.opt.Clipboard, m.clip.env.withDefaults()
	return func() tea.Msg { return sendClip(w, env, c) }
}

// sendClip sends c to the clipboard through w, the terminal, as the terminal takes it.
func sendClip(w io.Writer, env clipEnv, c clip) copiedMsg {
	size := c.what + " (" + thousands(len(c.text)) + " bytes)"
	unconfirmed := "; no terminal says whether it took it: if it is not there, see Copy in the README"
	if term := env.getenv("TERM"); w == nil || term == "dumb" {
		return saveClip(env, c, "this terminal cannot take the clipboard (OSC 52 needs a terminal; TERM=dumb or no terminal here)")
	}
	seq := osc52.New(c.text)
	if tm := env.getenv("TMUX"); tm != "" {
		return sendTmux(w, env, c, seq, socketOf(tm))
	}
	how := "to the terminal's clipboard (OSC 52)"
	if env.getenv("STY") != "" { // GNU screen passes a DCS string on to the terminal
		seq, how = seq.Screen(), "through screen to the terminal's clipboard (OSC 52)"
	}
	if _, err := seq.WriteTo(w); err != nil {
		return saveClip(env, c, fmt.Sprintf("copy: %v", err))
	}
	return copiedMsg{notice: "sent " + size + " " + how + unconfirmed}
}

// sendTmux sends c inside tmux, in the form tmux's options let through.
func sendTmux(w io.Writer, env clipEnv, c clip, seq osc52.Sequence, socket string) copiedMsg {
	size := c.what + " (" + thousands(len(c.text)) + " bytes)"
	ctx, cancel := context.WithTimeout(context.Background(), env.wait)
	defer cancel()
	setClip, err := env.tmux(ctx, socket, "show-options", "-gv", "set-clipboard")
	if err == nil && setClip == "on" {
		if _, err := seq.WriteTo(w); err != nil {
			return saveClip(env, c, fmt.Sprintf("copy: %v", err))
		}
		if !tmuxHolds(ctx, env, socket, c.text) {
			return saveClip(env, c, "tmux did not keep the copy in its paste buffer (set-clipboard is on; the text may be too long for it)")
		}
		return copiedMsg{notice: "copied " + size + " into tmux's paste buffer (OSC 52, set-clipboard on); " +
			"tmux passes it on to the terminal's clipboard when the terminal takes OSC 52"}
	}
	if err != nil {
		_, _ = seq.WriteTo(w) // tmux may take it; the file is there if not
		return saveClip(env, c, fmt.Sprintf("could not ask tmux whether it takes OSC 52 (%v): sent it anyway", err))
	}
	passArgs := []string{"show-options", "-gv", "allow-passthrough"}
	if pane := env.getenv("TMUX_PANE"); pane != "" {
		passArgs = []string{"show-options", "-Apv", "-t", pane, "allow-passthrough"}
	}
	pass, err := env.tmux(ctx, socket, passArgs...)
	switch {
	case err != nil && strings.Contains(err.Error(), "invalid option"):
		pass = "always (tmux before 3.3)" // passthrough had no option: it was always on
	case err != nil:
		_, _ = seq.WriteTo(w)
		return saveClip(env, c, fmt.Sprintf("could not ask tmux whether it takes OSC 52 (%v): sent it anyway", err))
	}
	if pass == "on" || pass == "all" || strings.HasPrefix(pass, "always") {
		if _, err := seq.Tmux().WriteTo(w); err != nil {
			return saveClip(env, c, fmt.Sprintf("copy: %v", err))
		}
		return copiedMsg{notice: "sent " + size + " through tmux to the terminal's clipboard (OSC 52, allow-passthrough " + pass +
			"); no terminal says whether it took it: if it is not there, see Copy in the README"}
	}
	return saveClip(env, c, fmt.Sprintf("tmux takes no OSC 52 here (set-clipboard %s, allow-passthrough %s), so nothing was copied: "+
		"`tmux set -g set-clipboard on` enables it", setClip, pass))
}

// tmuxHolds reports whether tmux's newest paste buffer holds text, asking until it does
// or ctx ends (tmux reads the sequence from the pane after it was written).
func tmuxHolds(ctx context.Context, env clipEnv, socket, text string) bool {
	for {
		if buf, err := env.tmux(ctx, socket, "show-buffer"); err == nil && buf == strings.TrimSpace(text) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// socketOf is the socket path of $TMUX ("/tmp/tmux-1000/default,1234,0").
func socketOf(tmux string) string {
	if i := strings.IndexByte(tmux, ','); i >= 0 {
		return tmux[:i]
	}
	return tmux
}

// saveClip saves c to a new file (mode 0600) and says why, and where.
func saveClip(env clipEnv, c clip, why string) copiedMsg {
	dir := env.dir
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, c.file)
	if err != nil {
		return copiedMsg{err: fmt.Errorf("%s; saving %s to a file failed too: %w", why, c.what, err)}
	}
	_, werr := f.WriteString(c.text)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return copiedMsg{err: fmt.Errorf("%s; saving %s to a file failed too: %w", why, c.what, err)}
	}
	return copiedMsg{err: fmt.Errorf("%s; %s is saved in %s", why, c.what, f.Name())}
}

// copied says in the status line where the copy went.
func (m *Model) copied(msg copiedMsg) {
	if msg.err != nil {
		m.setErr(msg.err)
		m.clip.err = m.lastErr
		return
	}
	if m.clip.err != "" && m.lastErr == m.clip.err {
		m.lastErr = ""
	}
	m.clip.err = ""
	m.notice = msg.notice
}

// copyMessage copies the selected turn's reply, or its user message when it has none, as
// the transcript shows it (inert.Visible): without escape sequences or control characters
// but newline and tab, its invisible and bidi characters shown where they could mislead,
// its emoji sequences as they were typed. Pasted into a shell, it can neither end a
// bracketed paste nor press enter.
func (m *Model) copyMessage() tea.Cmd {
	it := m.tr.Item(m.tr.Current())
	switch {
	case it == nil:
		m.setErr(fmt.Errorf("copy: no turn is selected"))
		return nil
	case it.reply != nil:
		return m.copyText(clip{"the reply", fmt.Sprintf("ctxlab-turn-%d-reply-*.md", it.num), inert.Visible(messageText(it.reply))})
	case it.user != nil:
		return m.copyText(clip{"the user message", fmt.Sprintf("ctxlab-turn-%d-message-*.md", it.num), inert.Visible(userText(it.user))})
	}
	return nil
}

// copyRequest copies the selected turn's request JSON as the Request tab shows it (it
// holds no API key): the body on the wire for a turn sent to a model, the request as the
// trace records it for one that sent nothing; of a tool loop, the request the tab shows;
// while `n` shows it, what the reloaded file would send. Always whole, even while `d` shows
// only what is new; every control, bidi and invisible character in it escaped
// (inert.JSON): the same JSON, safe to paste.
func (m *Model) copyRequest() tea.Cmd {
	v := m.reevalViewIn(m.itemView(m.tr.Current()), tabRequest)
	t := v.Trace
	if t == nil {
		m.setErr(fmt.Errorf("copy: the selected turn has no request recorded"))
		return nil
	}
	k := 0
	if shown := m.insp.turn; shown.Trace != nil && !shown.Preview && shown.Trace.UserMessageID == t.UserMessageID {
		k = m.insp.shownStep()
	}
	raw, err := v.requestJSON(v.request(k))
	if err != nil {
		m.setErr(fmt.Errorf("copy: %w", err))
		return nil
	}
	return m.copyText(clip{"the request JSON", fmt.Sprintf("ctxlab-turn-%d-request-*.json", t.Turn), string(inert.JSON(raw))})
}

// messageText is a message's text parts, joined by blank lines.
func messageText(msg *chat.Message) string {
	var parts []string
	for _, p := range msg.Parts {
		if p.Type == chat.PartText {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}
