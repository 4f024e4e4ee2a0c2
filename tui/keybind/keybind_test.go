package keybind

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestNamedKeysAreBubbleTeas: the key names accepted are exactly Bubble Tea's (but
// "runes" and " ", a character here).
func TestNamedKeysAreBubbleTeas(t *testing.T) {
	want := map[string]bool{}
	for i := -200; i < 200; i++ {
		if s := tea.KeyType(i).String(); s != "" && s != "runes" && s != " " {
			want[s] = true
		}
	}
	for k := range want {
		if !named[k] {
			t.Errorf("Bubble Tea names %q: add it to namedKeys", k)
		}
	}
	for k := range named {
		if !want[k] {
			t.Errorf("namedKeys has %q, which Bubble Tea does not name", k)
		}
	}
}

// TestDefaultsDoNotCollide: in every situation, no two actions in force share a default
// key, none is a reserved key, and none types text where typing is text.
func TestDefaultsDoNotCollide(t *testing.T) {
	for _, s := range situations {
		owner := map[string]string{}
		for _, r := range s.reserved {
			owner[r] = "(reserved)"
		}
		for _, a := range actions {
			if !s.in(a) {
				continue
			}
			for _, k := range a.Keys {
				if s.typing && printable(k) {
					t.Errorf("%s: %s's %q is typed text", s.name, a.Name, k)
				}
				if o, ok := owner[k]; ok {
					t.Errorf("%s: %s and %s share %q", s.name, o, a.Name, k)
				}
				owner[k] = a.Name
			}
		}
	}
	if p := Check(nil); len(p) != 0 {
		t.Errorf("Check(nil) = %v", p)
	}
}

// TestNames: every action has a unique snake_case name, keys and a description.
func TestNames(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range actions {
		if seen[a.Name] {
			t.Errorf("%s twice", a.Name)
		}
		seen[a.Name] = true
		if strings.Trim(a.Name, "abcdefghijklmnopqrstuvwxyz_") != "" || a.Desc == "" || len(a.Keys) == 0 || a.Label == "" {
			t.Errorf("%+v: want a snake_case name, keys, a label and a description", a)
		}
		for _, k := range a.Keys {
			if n, err := Normalize(k); err != nil || n != k {
				t.Errorf("%s: default key %q: %q %v", a.Name, k, n, err)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	type P = Problem
	tests := []struct {
		name string
		bs   []Binding
		want []Problem
	}{
		{"a free key", []Binding{{"send", []string{"ctrl+s"}}}, nil},
		{"two keys", []Binding{{"regenerate", []string{"r", "ctrl+g"}}}, nil},
		{"space and alt+space", []Binding{{"present_next", []string{"space", "l"}}, {"chats", []string{"alt+space"}}}, nil},
		{"moving a key frees it", []Binding{{"chats", []string{"ctrl+p"}}, {"send", []string{"ctrl+o"}}}, nil},
		{"same key in areas never in force together", []Binding{{"copy_message", []string{"d"}}}, nil},
		{"unknown action", []Binding{{"sned", []string{"ctrl+s"}}},
			[]P{{0, -1, `keys: unknown action "sned"; did you mean send?`}}},
		{"no key", []Binding{{"send", nil}}, []P{{0, -1, "keys: send needs at least one key"}}},
		{"invalid key", []Binding{{"send", []string{"ctrl+enter"}}},
			[]P{{0, 0, `keys: send: "ctrl+enter" is not a key name (keys are spelled as Bubble Tea names them: enter, ctrl+s, alt+enter, shift+tab, f2, pgdown, space, or one character)`}}},
		{"an alias", []Binding{{"send", []string{"ctrl+m"}}}, []P{{0, 0, `keys: send: "ctrl+m" is not a key name: the terminal sends it as "enter"`}}},
		{"listed twice", []Binding{{"regenerate", []string{"r", "ctrl+g", "r"}}}, []P{{0, 2, "keys: regenerate: r is listed twice"}}},
		{"collides with an anywhere key", []Binding{{"send", []string{"ctrl+o"}}},
			[]P{{0, 0, "keys: send: ctrl+o collides with chats in the composer"}}},
		{"an anywhere key collides with an area's", []Binding{{"reload", []string{"ctrl+x"}}},
			[]P{{0, 0, "keys: reload: ctrl+x collides with editor in the composer"}}},
		{"anywhere with a transcript key", []Binding{{"chats", []string{"ctrl+g"}}, {"regenerate", []string{"ctrl+g"}}},
			[]P{{1, 0, "keys: regenerate: ctrl+g collides with chats in the transcript"}}},
		{"in one area", []Binding{{"rewind", []string{"e"}}},
			[]P{{0, 0, "keys: rewind: e collides with edit in the transcript"}}},
		{"printable in the composer", []Binding{{"send", []string{"s"}}},
			[]P{{0, 0, "keys: send: s is typed text in the composer: bind a key with ctrl or alt, or a named key"}}},
		{"printable anywhere", []Binding{{"help", []string{"h"}}},
			[]P{{0, 0, "keys: help: h is typed text in the composer: bind a key with ctrl or alt, or a named key"}}},
		{"outside the composer may be printable", []Binding{{"help_short", []string{"h"}}}, nil},
		{"the chats overlay's own keys", []Binding{{"chats_new", []string{"down"}}},
			[]P{{0, 0, "keys: chats_new: down is the chats overlay's own key in the chats overlay"}}},
		{"inspector and present", []Binding{{"present_next", []string{"d"}}},
			[]P{{0, 0, "keys: present_next: d collides with only_new in presentation mode's inspector"}}},
		{"scripted step", []Binding{{"no_reply", []string{"ctrl+x"}}},
			[]P{{0, 0, "keys: no_reply: ctrl+x collides with editor in the scripted reply step"}}},
		{"bound twice", []Binding{{"send", []string{"ctrl+s"}}, {"send", []string{"ctrl+t"}}},
			[]P{{1, -1, "keys: send is bound twice"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(tt.bs)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Check = %+v\nwant    %+v", got, tt.want)
			}
		})
	}
}

func TestApply(t *testing.T) {
	keys := Apply([]Binding{{"regenerate", []string{"r", "ctrl+g"}}, {"present_next", []string{"space"}}})
	if got := keys["regenerate"]; !slices.Equal(got, []string{"r", "ctrl+g"}) {
		t.Errorf("regenerate = %q", got)
	}
	if got := keys["present_next"]; !slices.Equal(got, []string{" "}) {
		t.Errorf("present_next = %q", got)
	}
	if got := keys["send"]; !slices.Equal(got, []string{"enter"}) {
		t.Errorf("send = %q", got)
	}
	if got := Label([]string{" ", "ctrl+g"}); got != "space/ctrl+g" {
		t.Errorf("Label = %q", got)
	}
}
