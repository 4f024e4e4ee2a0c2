package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/tui/keybind"
)

// TestParseKeysErrors: each problem of the keys: section, at its exact position.
func TestParseKeysErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown action", "keys:\n  sned: ctrl+s\n",
			`cfg.yaml:2:3: keys: unknown action "sned"; did you mean send?`},
		{"invalid key", "keys:\n  send: ctrl+enter\n",
			`cfg.yaml:2:9: keys: send: "ctrl+enter" is not a key name (keys are spelled as Bubble Tea names them: enter, ctrl+s, alt+enter, shift+tab, f2, pgdown, space, or one character)`},
		{"invalid key in a list", "keys:\n  regenerate: [r, ctrl+enter]\n",
			`cfg.yaml:2:19: keys: regenerate: "ctrl+enter" is not a key name (keys are spelled as Bubble Tea names them: enter, ctrl+s, alt+enter, shift+tab, f2, pgdown, space, or one character)`},
		{"collides with an anywhere key", "keys:\n  send: ctrl+o\n",
			`cfg.yaml:2:9: keys: send: ctrl+o collides with chats in the composer`},
		{"the later of two rebindings", "keys:\n  chats: ctrl+g\n  regenerate:\n    - r\n    - ctrl+g\n",
			`cfg.yaml:5:7: keys: regenerate: ctrl+g collides with chats in the transcript`},
		{"typed text", "keys:\n  send: s\n",
			`cfg.yaml:2:9: keys: send: s is typed text in the composer: bind a key with ctrl or alt, or a named key`},
		{"no key", "keys:\n  send: []\n",
			`cfg.yaml:2:3: keys: send needs at least one key`},
		{"not a string", "keys:\n  send: 5\n",
			`cfg.yaml:2:9: keys: send must be a string, found an integer`},
		{"not a mapping", "keys: [send]\n",
			`cfg.yaml:1:7: keys must be a mapping, found a list`},
		{"duplicate action", "keys:\n  send: ctrl+s\n  send: ctrl+t\n",
			`cfg.yaml:3:3: keys: duplicate key "send" (first at line 2)`},
		{"two problems", "keys:\n  rewind: e\n  quit: [ctrl+q, ctrl+q]\n",
			"cfg.yaml:2:11: keys: rewind: e collides with edit in the transcript\ncfg.yaml:3:18: keys: quit: ctrl+q is listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("cfg.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("Parse succeeded, want %q", tt.want)
			}
			if !diag.IsInvalidInput(err) {
				t.Errorf("error %v is not a positioned input error", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error = %q\nwant    %q", got, tt.want)
			}
		})
	}
}

// TestParseKeys: a valid keys: section, in file order, reaches the settings.
func TestParseKeys(t *testing.T) {
	f, err := Parse("cfg.yaml", []byte("keys:\n  send: ctrl+s\n  regenerate: [r, ctrl+g]\n  present_next: space\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []keybind.Binding{{Action: "send", Keys: []string{"ctrl+s"}}, {Action: "regenerate", Keys: []string{"r", "ctrl+g"}},
		{Action: "present_next", Keys: []string{"space"}}}
	if !slices.EqualFunc(f.Keys, want, func(a, b keybind.Binding) bool { return a.Action == b.Action && slices.Equal(a.Keys, b.Keys) }) {
		t.Errorf("Keys = %+v, want %+v", f.Keys, want)
	}
}

// TestResolveKeys: the settings carry the config file's keys, and a bad keys: section
// fails the resolution of every command, positioned.
func TestResolveKeys(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte("keys:\n  send: ctrl+s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("keys:\n  send: ctrl+o\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(string) (string, bool) { return "", false }
	s, err := Resolve(Inputs{Flags: Flags{Config: good}, LookupEnv: env, Offline: true})
	if err != nil || len(s.Keys) != 1 || s.Keys[0].Action != "send" {
		t.Errorf("Resolve = %+v, %v; want the send rebinding", s.Keys, err)
	}
	_, err = Resolve(Inputs{Flags: Flags{Config: bad}, LookupEnv: env, Offline: true})
	if want := bad + ":2:9: keys: send: ctrl+o collides with chats in the composer"; err == nil || err.Error() != want || !diag.IsInvalidInput(err) {
		t.Errorf("Resolve error = %v, want %s", err, want)
	}
}
