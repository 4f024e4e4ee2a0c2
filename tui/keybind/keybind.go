// Package keybind is the workbench's action table: every action a key does, by a stable
// snake_case name, with the area it acts in and its default keys. The workbench builds its
// one keymap from it (tui/keymap.go), and the config file's keys: section rebinds actions
// by these names (llm/config); Check tells which rebindings cannot be used: an unknown
// action, an invalid key, or two actions in force at the same time on one key.
//
// It is a leaf (it imports nothing of ctxlab), so the config can check the keys: section
// without depending on the workbench.
//
// Keys are named as Bubble Tea's tea.KeyMsg.String() names them: "enter", "ctrl+s",
// "alt+enter", "shift+tab", "f2", "pgdown", a single character ("r", "R", "?"), "alt+" and
// a character; "space" is accepted for " ".
package keybind

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxlab/ctxlab/engine/diag"
)

// Area is where an action acts.
type Area string

// The areas of the workbench.
const (
	Anywhere        Area = "anywhere"
	OutsideComposer Area = "outside the composer"
	Composer        Area = "composer"
	ScriptedReply   Area = "composer, scripted reply step"
	Transcript      Area = "transcript"
	Inspector       Area = "inspector"
	Present         Area = "presentation"
	Chats           Area = "chats overlay"
	Help            Area = "help overlay"
)

// Action is one thing a key does.
type Action struct {
	// Name is the action's stable name in the config file's keys: section.
	Name string
	Area Area
	// Keys are the default keys; Label is how the help shows them when they are not
	// rebound ("↑/k").
	Keys  []string
	Label string
	// Desc says what the action does.
	Desc string
}

func act(name string, area Area, label, desc string, keys ...string) Action {
	return Action{Name: name, Area: area, Keys: keys, Label: label, Desc: desc}
}

// tabNames are the inspector's tabs, in order.
var tabNames = [5]string{"why", "prompt", "request", "branches", "usage"}

// actions is the table, in the order the help lists them.
var actions = func() []Action {
	a := []Action{
		act("next_area", Anywhere, "tab", "next area", "tab"),
		act("previous_area", Anywhere, "shift+tab", "previous area", "shift+tab"),
	}
	for i, n := range tabNames {
		d := string(rune('1' + i))
		a = append(a, act("tab_"+n, Anywhere, "alt+"+d, "tab "+titled(n), "alt+"+d))
	}
	for i, n := range tabNames {
		d := string(rune('1' + i))
		a = append(a, act("tab_"+n+"_short", OutsideComposer, d, "tab "+titled(n)+" (outside the composer)", d))
	}
	return append(a,
		act("toggle_inspector", Anywhere, "alt+i", "inspector/transcript (narrow screens)", "alt+i"),
		act("reload", Anywhere, "ctrl+r", "reload the context file", "ctrl+r"),
		act("chats", Anywhere, "ctrl+o", "chats: find, open, new, rename, delete", "ctrl+o"),
		act("cancel", Anywhere, "esc", "cancel the reply, or back to the composer", "esc"),
		act("quit", Anywhere, "ctrl+c", "cancel the reply, or quit", "ctrl+c"),
		act("help", Anywhere, "f1", "help", "f1"),
		act("help_short", OutsideComposer, "?", "help (outside the composer)", "?"),
		act("save_again", Anywhere, "alt+s", "save again a reply that could not be saved", "alt+s"),

		act("send", Composer, "enter", "send", "enter"),
		act("new_line", Composer, "alt+enter", "new line (also ctrl+j)", "alt+enter", "ctrl+j"),
		act("editor", Composer, "ctrl+x", "$EDITOR", "ctrl+x"),
		act("history", Composer, "up", "messages sent (empty draft)", "up"),

		act("save_reply", ScriptedReply, "enter", "save as the reply", "enter"),
		act("no_reply", ScriptedReply, "esc", "no reply", "esc"),

		act("previous_turn", Transcript, "↑/k", "previous turn", "up", "k"),
		act("next_turn", Transcript, "↓/j", "next turn", "down", "j"),
		act("first_turn", Transcript, "home/g", "first", "home", "g"),
		act("last_turn", Transcript, "end/G", "last", "end", "G"),
		act("page_up", Transcript, "pgup", "page up", "pgup"),
		act("page_down", Transcript, "pgdown", "page down", "pgdown"),
		act("toggle_tools", Transcript, "enter", "open/close tool calls", "enter"),
		act("toggle_reminders", Transcript, "s", "show/hide injected reminders", "s"),
		act("copy_message", Transcript, "c", "copy the message", "c"),
		act("copy_request", Transcript, "y", "copy the request JSON", "y"),
		act("edit", Transcript, "e", "edit the message: a new branch", "e"),
		act("regenerate", Transcript, "r", "regenerate the reply: a new branch", "r"),
		act("correct", Transcript, "R", "correct the reply by hand: a new branch", "R"),
		act("previous_version", Transcript, "←/[", "previous version of the turn", "left", "["),
		act("next_version", Transcript, "→/]", "next version of the turn", "right", "]"),
		act("rewind", Transcript, "w", "rewind: a new branch ending here", "w"),
		act("checkpoint", Transcript, "x", "checkpoint the turn (asks a name)", "x"),

		act("inspector_up", Inspector, "↑/k", "up", "up", "k"),
		act("inspector_down", Inspector, "↓/j", "down", "down", "j"),
		act("inspector_page_up", Inspector, "pgup", "page up", "pgup"),
		act("inspector_page_down", Inspector, "pgdown", "page down", "pgdown"),
		act("inspector_top", Inspector, "home/g", "top", "home", "g"),
		act("inspector_bottom", Inspector, "end/G", "bottom", "end", "G"),
		act("inspector_enter", Inspector, "enter", "expand the predicate tree", "enter"),
		act("only_new", Inspector, "d", "only what is new", "d"),
		act("would_send", Inspector, "n", "Request: as recorded / would send", "n"),
		act("next_request", Inspector, "t", "Request: the loop's next request", "t"),

		act("present_next", Present, "space", "play the next turn", " "),
		act("present_back", Present, "backspace", "step back a turn", "backspace"),

		act("chats_open", Chats, "enter", "open", "enter"),
		act("chats_new", Chats, "ctrl+n", "new chat", "ctrl+n"),
		act("chats_rename", Chats, "ctrl+e/f2", "rename", "ctrl+e", "f2"),
		act("chats_delete", Chats, "ctrl+d", "delete (asks)", "ctrl+d"),
		act("chats_export", Chats, "ctrl+s", "export to a file", "ctrl+s"),
		act("chats_close", Chats, "esc", "close", "esc"),

		act("close_help", Help, "esc/f1/?", "close help", "esc", "f1", "?", "q"),
	)
}()

func titled(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// Actions returns every action, in the order the help lists them.
func Actions() []Action { return slices.Clone(actions) }

// Lookup returns the action named name.
func Lookup(name string) (Action, bool) {
	for _, a := range actions {
		if a.Name == name {
			return a, true
		}
	}
	return Action{}, false
}

// Names returns every action's name, in table order.
func Names() []string {
	out := make([]string, len(actions))
	for i, a := range actions {
		out[i] = a.Name
	}
	return out
}

// Binding is one rebinding: an action and the keys it takes instead of its defaults.
type Binding struct {
	Action string
	Keys   []string
}

// Problem is a rebinding that cannot be used: Binding is its index in the list given to
// Check; Key the index of the key in its Keys, or -1 when the problem is the action (its
// name, or no key at all).
type Problem struct {
	Binding, Key int
	Msg          string
}

// Normalize returns the key as tea.KeyMsg.String() spells it ("space" is " "), or an
// error when no key press is spelled so.
func Normalize(k string) (string, error) {
	if k == "space" || k == "alt+space" {
		return strings.TrimSuffix(k, "space") + " ", nil
	}
	if named[k] {
		return k, nil
	}
	base := strings.TrimPrefix(k, "alt+")
	if named[base] {
		return k, nil
	}
	if r, size := utf8.DecodeRuneInString(base); size > 0 && size == len(base) && r != utf8.RuneError && unicode.IsPrint(r) {
		return k, nil
	}
	if alias, ok := aliases[k]; ok {
		return "", fmt.Errorf("%q is not a key name: the terminal sends it as %q", k, alias)
	}
	return "", fmt.Errorf("%q is not a key name (keys are spelled as Bubble Tea names them: enter, ctrl+s, alt+enter, shift+tab, f2, pgdown, space, or one character)", k)
}

// aliases are names of keys the terminal sends as another key.
var aliases = map[string]string{"ctrl+i": "tab", "ctrl+m": "enter", "ctrl+[": "esc", "ctrl+space": "ctrl+@",
	"return": "enter", "escape": "esc", "del": "delete", "pageup": "pgup", "pagedown": "pgdown", "bs": "backspace"}

// Label is how the help shows keys: joined by "/", " " as "space".
func Label(keys []string) string {
	shown := make([]string, len(keys))
	for i, k := range keys {
		shown[i] = strings.ReplaceAll(k, " ", "space")
	}
	return strings.Join(shown, "/")
}

// situation is a set of actions in force at the same time: two of them on one key
// collide. typing says printable keys are text there; reserved are keys the situation
// uses for itself (the chats overlay's and the help's own navigation).
type situation struct {
	name     string
	areas    []Area
	plus     []string // actions in force besides those of the areas
	minus    []string // actions of the areas not in force
	typing   bool
	reserved []string
}

// situations are the workbench's states, each with the actions in force in it.
var situations = []situation{
	{name: "the composer", areas: []Area{Anywhere, Composer}, typing: true},
	{name: "the scripted reply step", areas: []Area{Anywhere, ScriptedReply}, plus: []string{"new_line", "editor"}, minus: []string{"cancel"}, typing: true},
	{name: "the transcript", areas: []Area{Anywhere, OutsideComposer, Transcript}},
	{name: "the inspector", areas: []Area{Anywhere, OutsideComposer, Inspector}},
	{name: "presentation mode", areas: []Area{Anywhere, OutsideComposer, Transcript, Present}},
	{name: "presentation mode's inspector", areas: []Area{Anywhere, OutsideComposer, Inspector, Present}},
	{name: "the chats overlay", areas: []Area{Chats}, plus: []string{"quit"}, typing: true,
		reserved: []string{"up", "down", "pgup", "pgdown", "backspace"}},
	{name: "the help overlay", areas: []Area{Help}, plus: []string{"quit"}, reserved: []string{"up", "down", "j", "k"}},
}

// in reports whether action a is in force in the situation.
func (s situation) in(a Action) bool {
	if slices.Contains(s.minus, a.Name) {
		return false
	}
	return slices.Contains(s.areas, a.Area) || slices.Contains(s.plus, a.Name)
}

// Apply returns the keys of every action, by name, with the rebindings applied. Check
// them first: Apply takes the rebindings as they are.
func Apply(bs []Binding) map[string][]string {
	out := make(map[string][]string, len(actions))
	for _, a := range actions {
		out[a.Name] = a.Keys
	}
	for _, b := range bs {
		keys := make([]string, 0, len(b.Keys))
		for _, k := range b.Keys {
			if n, err := Normalize(k); err == nil {
				keys = append(keys, n)
			}
		}
		if _, ok := out[b.Action]; ok && len(keys) > 0 {
			out[b.Action] = keys
		}
	}
	return out
}

// Check returns the problems of a list of rebindings, in list order: an unknown action,
// an action rebound twice or to no key, an invalid key, a key listed twice, and a key
// that collides with another action in force at the same time (anywhere keys collide
// with every area's; in the composer, its scripted reply step and the chats overlay a
// printable key is text, not an action). A collision is reported at the rebinding that
// makes it: the later of the two when both are rebound.
func Check(bs []Binding) []Problem {
	var probs []Problem
	add := func(b, k int, format string, args ...any) {
		probs = append(probs, Problem{Binding: b, Key: k, Msg: fmt.Sprintf(format, args...)})
	}
	// where[action] is the index of its rebinding; only valid ones are applied.
	where := map[string]int{}
	var valid []Binding
	for i, b := range bs {
		a, ok := Lookup(b.Action)
		switch {
		case !ok:
			add(i, -1, "keys: unknown action %q%s", b.Action, hint(b.Action))
			continue
		case len(b.Keys) == 0:
			add(i, -1, "keys: %s needs at least one key", b.Action)
			continue
		}
		if _, dup := where[a.Name]; dup {
			add(i, -1, "keys: %s is bound twice", b.Action)
			continue
		}
		seen := map[string]bool{}
		ok = true
		for ki, k := range b.Keys {
			n, err := Normalize(k)
			if err != nil {
				add(i, ki, "keys: %s: %v", b.Action, err)
				ok = false
				continue
			}
			if seen[n] {
				add(i, ki, "keys: %s: %s is listed twice", b.Action, Label([]string{n}))
				ok = false
			}
			seen[n] = true
		}
		if ok {
			where[a.Name] = i
			valid = append(valid, b)
		}
	}
	keys := Apply(valid)
	reported := map[[2]string]bool{}
	for _, s := range situations {
		owner := map[string]string{} // key -> the first action in force on it
		for _, r := range s.reserved {
			owner[r] = ""
		}
		for _, a := range actions {
			if !s.in(a) {
				continue
			}
			for _, k := range keys[a.Name] {
				bi, rebound := where[a.Name]
				if s.typing && printable(k) {
					if rebound && !reported[[2]string{a.Name, k + "\x00typing"}] {
						reported[[2]string{a.Name, k + "\x00typing"}] = true
						add(bi, slices.Index(normalized(bs[bi].Keys), k), "keys: %s: %s is typed text in %s: bind a key with ctrl or alt, or a named key",
							a.Name, Label([]string{k}), s.name)
					}
					continue
				}
				other, taken := owner[k]
				if !taken {
					owner[k] = a.Name
					continue
				}
				if other == a.Name {
					continue
				}
				// Report at the rebinding that makes the collision: the later one.
				at, with := a.Name, other
				if ob, orebound := where[other]; orebound && (!rebound || ob > bi) {
					at, with = other, a.Name
				} else if !rebound {
					continue // two defaults: the table is checked by its tests
				}
				pair := [2]string{at + "\x00" + with, k}
				if reported[pair] {
					continue
				}
				reported[pair] = true
				ai := where[at]
				what := "collides with " + with
				if with == "" {
					what = "is " + s.name + "'s own key"
				}
				add(ai, slices.Index(normalized(bs[ai].Keys), k), "keys: %s: %s %s in %s", at, Label([]string{k}), what, s.name)
			}
		}
	}
	slices.SortStableFunc(probs, func(x, y Problem) int {
		if x.Binding != y.Binding {
			return x.Binding - y.Binding
		}
		return x.Key - y.Key
	})
	return probs
}

// normalized returns keys normalized (an invalid key as it is).
func normalized(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		if n, err := Normalize(k); err == nil {
			out[i] = n
		} else {
			out[i] = k
		}
	}
	return out
}

// printable reports whether k is a key that types text: one printable character (or
// space) without alt.
func printable(k string) bool {
	r, size := utf8.DecodeRuneInString(k)
	return size > 0 && size == len(k) && unicode.IsPrint(r)
}

// hint suggests the nearest action names, else says where the list is.
func hint(name string) string {
	if h := diag.DidYouMean(name, Names()); h != "" {
		return h
	}
	return " (ctxlab keys lists every action)"
}

// named are the keys Bubble Tea names (tea.KeyType's names but "runes" and " ", which is a
// character here).
var named = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(namedKeys) {
		m[k] = true
	}
	return m
}()

// namedKeys are Bubble Tea v1's key names (its keyNames table; a test checks them).
const namedKeys = `ctrl+@ ctrl+a ctrl+b ctrl+c ctrl+d ctrl+e ctrl+f ctrl+g ctrl+h tab ctrl+j ctrl+k ctrl+l
enter ctrl+n ctrl+o ctrl+p ctrl+q ctrl+r ctrl+s ctrl+t ctrl+u ctrl+v ctrl+w ctrl+x ctrl+y ctrl+z
esc ctrl+\ ctrl+] ctrl+^ ctrl+_ backspace
up down right left shift+tab home end ctrl+home ctrl+end shift+home shift+end ctrl+shift+home
ctrl+shift+end pgup pgdown ctrl+pgup ctrl+pgdown delete insert ctrl+up ctrl+down ctrl+right
ctrl+left shift+up shift+down shift+right shift+left ctrl+shift+up ctrl+shift+down
ctrl+shift+left ctrl+shift+right f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 f16 f17
f18 f19 f20`
