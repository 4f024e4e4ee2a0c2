package tui

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTmux answers tmux's questions for the tests: options by name, and the paste buffer
// (which holds what the workbench wrote when keep is set).
type fakeTmux struct {
	options map[string]string // a missing option: an "invalid option" error
	fail    error             // every command fails so
	keep    bool
	written *bytes.Buffer
	calls   []string
	sockets []string
}

func (f *fakeTmux) run(_ context.Context, socket string, args ...string) (string, error) {
	f.calls = append(f.calls, strings.Join(args, " "))
	f.sockets = append(f.sockets, socket)
	if f.fail != nil {
		return "", f.fail
	}
	if args[0] == "show-buffer" {
		if !f.keep {
			return "", errors.New("tmux show-buffer: exit status 1: no buffers")
		}
		seqs := strings.SplitAfter(f.written.String(), "\a")
		text, ok := decodeOSC52(seqs[max(len(seqs)-2, 0)]) // the last one written
		if !ok {
			return "", errors.New("tmux show-buffer: exit status 1: no buffers")
		}
		return strings.TrimSpace(text), nil
	}
	name := args[len(args)-1]
	v, ok := f.options[name]
	if !ok {
		return "", errors.New("tmux show-options: exit status 1: invalid option: " + name)
	}
	return v, nil
}

// TestCopyTo: c and y send what the terminal takes, and the status line says no more than
// is known: inside tmux, what tmux's options let through (asked in the Cmd, not in
// Update), tmux's paste buffer checked; when nothing can be sent, how to enable it and the
// file the text is saved to (mode 0600).
func TestCopyTo(t *testing.T) {
	const socket = "/tmp/tmux-1/default"
	tests := []struct {
		name string
		env  map[string]string
		tmux *fakeTmux
		key  string
		nilW bool
		// seq is the form written ("plain", "tmux", "screen", "" for nothing)
		seq                string
		notice, err, never string
		saved              bool
	}{
		{name: "a terminal: sent, not confirmed", env: map[string]string{"TERM": "xterm-256color"}, key: "c", seq: "plain",
			notice: "sent the reply (56 bytes) to the terminal's clipboard (OSC 52); no terminal says whether it took it: if it is not there, see Copy in the README",
			never:  "copied"},
		{name: "the request", env: map[string]string{"TERM": "xterm-256color"}, key: "y", seq: "plain", notice: "sent the request JSON ("},
		{name: "screen", env: map[string]string{"TERM": "screen", "STY": "1234.pts-0.host"}, key: "c", seq: "screen",
			notice: "sent the reply (56 bytes) through screen to the terminal's clipboard (OSC 52); no terminal says"},
		{name: "TERM=screen outside screen and tmux (ssh from a tmux pane)", env: map[string]string{"TERM": "screen-256color"}, key: "c", seq: "plain",
			notice: "to the terminal's clipboard (OSC 52)"},
		{name: "tmux, set-clipboard on: in its buffer",
			env:  map[string]string{"TERM": "tmux-256color", "TMUX": socket + ",42,0", "TMUX_PANE": "%3"},
			tmux: &fakeTmux{options: map[string]string{"set-clipboard": "on"}, keep: true}, key: "c", seq: "plain",
			notice: "copied the reply (56 bytes) into tmux's paste buffer (OSC 52, set-clipboard on); tmux passes it on to the terminal's clipboard when the terminal takes OSC 52"},
		{name: "tmux, set-clipboard on, but its buffer does not hold it",
			env:  map[string]string{"TERM": "tmux-256color", "TMUX": socket + ",42,0"},
			tmux: &fakeTmux{options: map[string]string{"set-clipboard": "on"}}, key: "c", seq: "plain",
			err: "tmux did not keep the copy in its paste buffer", saved: true},
		{name: "tmux, passthrough on in the pane",
			env:  map[string]string{"TERM": "screen", "TMUX": socket + ",42,0", "TMUX_PANE": "%3"},
			tmux: &fakeTmux{options: map[string]string{"set-clipboard": "external", "allow-passthrough": "on"}}, key: "c", seq: "tmux",
			notice: "sent the reply (56 bytes) through tmux to the terminal's clipboard (OSC 52, allow-passthrough on); no terminal says", never: "copied"},
		{name: "tmux before 3.3: passthrough has no option, it is always on",
			env:  map[string]string{"TERM": "screen", "TMUX": socket + ",42,0"},
			tmux: &fakeTmux{options: map[string]string{"set-clipboard": "external"}}, key: "c", seq: "tmux",
			notice: "allow-passthrough always (tmux before 3.3)"},
		{name: "tmux takes neither: nothing sent, how to enable it, saved",
			env:  map[string]string{"TERM": "tmux-256color", "TMUX": socket + ",42,0", "TMUX_PANE": "%3"},
			tmux: &fakeTmux{options: map[string]string{"set-clipboard": "external", "allow-passthrough": "off"}}, key: "y", seq: "",
			err: "tmux takes no OSC 52 here (set-clipboard external, allow-passthrough off), so nothing was copied: `tmux set -g set-clipboard on` enables it; the request JSON is saved in ", saved: true},
		{name: "tmux cannot be asked: sent anyway, and saved",
			env:  map[string]string{"TERM": "tmux-256color", "TMUX": socket + ",42,0"},
			tmux: &fakeTmux{fail: errors.New("exec: \"tmux\": executable file not found in $PATH")}, key: "c", seq: "plain",
			err: "could not ask tmux whether it takes OSC 52", saved: true},
		{name: "dumb terminal", env: map[string]string{"TERM": "dumb"}, key: "c", seq: "",
			err: "this terminal cannot take the clipboard", saved: true},
		{name: "no terminal", env: map[string]string{"TERM": "xterm"}, key: "y", nilW: true, seq: "",
			err: "this terminal cannot take the clipboard", saved: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newEnv(t)
			v.playScript(t, "support.script.yaml")
			var buf bytes.Buffer
			opt := Options{}
			if !tt.nilW {
				opt.Clipboard = &buf
			}
			m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, opt)
			dir := t.TempDir()
			m.clip.env = clipEnv{getenv: func(k string) string { return tt.env[k] }, dir: dir, wait: 300 * time.Millisecond}
			if tt.tmux != nil {
				tt.tmux.written = &buf
				m.clip.env.tmux = tt.tmux.run
			} else {
				m.clip.env.tmux = func(context.Context, string, ...string) (string, error) {
					t.Error("tmux asked outside tmux")
					return "", errors.New("no tmux")
				}
			}
			press(m, "tab", "up", "up")
			_, cmd := m.Update(keyMsg(tt.key))
			if tt.tmux != nil && len(tt.tmux.calls) > 0 {
				t.Fatalf("tmux asked in Update: %v", tt.tmux.calls)
			}
			drive(m, cmd)
			want := "The first query was refused; the second returned 2 rows."
			if tt.key == "y" {
				want = `"messages":`
			}
			out := buf.String()
			switch tt.seq {
			case "":
				if out != "" {
					t.Errorf("wrote %q, want nothing", out)
				}
			case "plain":
				if got := copiedText(t, out); !strings.Contains(got, want) {
					t.Errorf("copied %q, want it to hold %q", got, want)
				}
			case "tmux":
				if !strings.HasPrefix(out, "\x1bPtmux;\x1b\x1b]52;c;") || !strings.HasSuffix(out, "\x1b\\") {
					t.Errorf("wrote %q, want OSC 52 wrapped for tmux's passthrough", out)
				}
			case "screen":
				if !strings.HasPrefix(out, "\x1bP\x1b]52;c;") || !strings.HasSuffix(out, "\x1b\\") {
					t.Errorf("wrote %q, want OSC 52 wrapped for screen", out)
				}
			}
			if tt.notice != "" && !strings.Contains(m.notice, tt.notice) {
				t.Errorf("notice %q, want %q", m.notice, tt.notice)
			}
			if tt.never != "" && strings.Contains(m.notice, tt.never) {
				t.Errorf("notice %q says %q", m.notice, tt.never)
			}
			if tt.err != "" && !strings.Contains(m.lastErr, tt.err) {
				t.Errorf("error %q, want %q", m.lastErr, tt.err)
			}
			if tt.err == "" && m.lastErr != "" {
				t.Errorf("error %q, want none", m.lastErr)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			if !tt.saved {
				if len(files) != 0 {
					t.Errorf("saved %v, want nothing saved", files)
				}
				return
			}
			if len(files) != 1 {
				t.Fatalf("saved %v, want one file", files)
			}
			name := filepath.Base(files[0])
			wantName := "ctxlab-turn-2-reply-"
			if tt.key == "y" {
				wantName = "ctxlab-turn-2-request-"
			}
			if !strings.HasPrefix(name, wantName) || !strings.Contains(m.lastErr, files[0]) {
				t.Errorf("saved %s; error %q; want %s… named in the error", files[0], m.lastErr, wantName)
			}
			b, err := os.ReadFile(files[0])
			if err != nil || !strings.Contains(string(b), want) {
				t.Errorf("the file holds %q (%v), want %q", b, err, want)
			}
			if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("the file's mode: %v (%v), want 0600", fi.Mode().Perm(), err)
			}
			if tt.tmux != nil && tt.tmux.fail == nil {
				for _, s := range tt.tmux.sockets {
					if s != socket {
						t.Errorf("asked tmux at %q, want the server of $TMUX, %q", s, socket)
					}
				}
			}
		})
	}
}

func TestCopyAsksThePane(t *testing.T) {
	f := &fakeTmux{options: map[string]string{"set-clipboard": "external", "allow-passthrough": "on"}, written: &bytes.Buffer{}}
	env := clipEnv{getenv: func(k string) string {
		return map[string]string{"TMUX": "/s,1,0", "TMUX_PANE": "%7", "TERM": "screen"}[k]
	}, tmux: f.run, dir: t.TempDir()}.withDefaults()
	sendClip(f.written, env, clip{"x", "x-*", "text"})
	if got := strings.Join(f.calls, " | "); got != "show-options -gv set-clipboard | show-options -Apv -t %7 allow-passthrough" {
		t.Errorf("asked tmux %q", got)
	}
}

// TestCopyClearsItsError: a copy that works clears the error a copy before it left in the
// status line, and no other error.
func TestCopyClearsItsError(t *testing.T) {
	v := newEnv(t)
	v.playScript(t, "support.script.yaml")
	var buf bytes.Buffer
	m := newModel(t, v, v.chat(t, "demo-1", nil), 120, 40, Options{Clipboard: &buf})
	f := &fakeTmux{options: map[string]string{"set-clipboard": "external", "allow-passthrough": "off"}, written: &buf}
	env := map[string]string{"TERM": "tmux-256color", "TMUX": "/s,1,0"}
	m.clip.env = clipEnv{getenv: func(k string) string { return env[k] }, tmux: f.run, dir: t.TempDir()}
	press(m, "tab", "c")
	if !strings.Contains(m.lastErr, "tmux takes no OSC 52") {
		t.Fatalf("error %q, want tmux's refusal", m.lastErr)
	}
	f.options["set-clipboard"], f.keep = "on", true
	press(m, "c")
	if m.lastErr != "" || !strings.Contains(m.notice, "copied the reply") {
		t.Errorf("after a copy that worked: error %q, notice %q", m.lastErr, m.notice)
	}
	m.setErr(errors.New("model: 401 Unauthorized"))
	press(m, "c")
	if m.lastErr != "model: 401 Unauthorized" {
		t.Errorf("a copy cleared another error: %q", m.lastErr)
	}
}
