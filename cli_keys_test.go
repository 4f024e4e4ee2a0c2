package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxlab/ctxlab/tui/keybind"
)

// TestKeysConfigErrors: a bad keys: section in the config file is an input error at
// FILE:LINE:COL, exit 2, for the workbench (with or without a terminal) and every
// command that reads the config.
func TestKeysConfigErrors(t *testing.T) {
	isolateCtxlabEnv(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	collide := write("collide.yaml", "keys:\n  send: ctrl+s\n  regenerate: [r, ctrl+o]\n")
	unknown := write("unknown.yaml", "keys:\n  regenrate: ctrl+g\n")
	invalid := write("invalid.yaml", "keys:\n  send: ctrl+return\n")
	ctxPath := "testdata/demo/support.ctx.yaml"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"the workbench", []string{"--config", collide, "--context", ctxPath},
			collide + ":3:19: keys: regenerate: ctrl+o collides with chats in the transcript\n"},
		{"the demo", []string{"demo", "--config", unknown},
			unknown + `:2:3: keys: unknown action "regenrate"; did you mean regenerate?` + "\n"},
		{"keys", []string{"keys", "--config", invalid},
			invalid + `:2:9: keys: send: "ctrl+return" is not a key name (keys are spelled as Bubble Tea names them: enter, ctrl+s, alt+enter, shift+tab, f2, pgdown, space, or one character)` + "\n"},
		{"config", []string{"config", "--config", collide},
			collide + ":3:19: keys: regenerate: ctrl+o collides with chats in the transcript\n"},
		{"prompt", []string{"prompt", "--config", unknown, "--context", ctxPath},
			unknown + `:2:3: keys: unknown action "regenrate"; did you mean regenerate?` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCtxlab(t, tt.args...)
			if r.code != 2 || r.stderr != tt.want {
				t.Errorf("ctxlab %s: exit %d, stderr %q; want exit 2, %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.want)
			}
		})
	}
}

// TestKeysCommand: `ctxlab keys` lists every action with the keys in force, the config's
// rebindings marked.
func TestKeysCommand(t *testing.T) {
	isolateCtxlabEnv(t)
	cfg := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(cfg, []byte("keys:\n  send: ctrl+s\n  regenerate: [r, ctrl+g]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := mustRunCtxlab(t, "keys", "--config", cfg)
	for _, want := range []string{"ACTION", "send ", "ctrl+s (config)", "r/ctrl+g (config)", "present_next", "space ", "chats_rename", "ctrl+e/f2 "} {
		if !strings.Contains(out, want) {
			t.Errorf("ctxlab keys lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(strings.TrimSpace(mustRunCtxlab(t, "keys", "--json")), "\n")
	var first keyLine
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Action != "next_area" || first.Keys[0] != "tab" || first.Rebound {
		t.Errorf("first line %s: %+v, %v", lines[0], first, err)
	}
}

// TestKeysDocumented: WORKBENCH.md names every action.
func TestKeysDocumented(t *testing.T) {
	doc, err := os.ReadFile("WORKBENCH.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range keybind.Actions() {
		if !strings.Contains(string(doc), "| `"+a.Name+"` |") {
			t.Errorf("WORKBENCH.md does not list the action %s", a.Name)
		}
	}
}
