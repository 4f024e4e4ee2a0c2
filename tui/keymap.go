package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/ctxlab/ctxlab/tui/keybind"
)

// keyMap is the one keymap of the workbench: every binding the root model acts on is
// here, and the help overlay and the status line are made from it, so a key cannot be
// bound without being documented. Each binding is an action of tui/keybind's table, by
// its name there; the config file's keys: section rebinds any of them (newKeyMap).
type keyMap struct {
	// Anywhere.
	NextFocus, PrevFocus key.Binding
	Tabs                 [5]key.Binding // alt+1 … alt+5
	TabDigits            [5]key.Binding // 1 … 5 outside the composer
	Inspector            key.Binding    // alt+i below 100 columns
	Esc, Quit            key.Binding
	Help, HelpQ          key.Binding
	Reload, Chats        key.Binding
	SaveAgain            key.Binding // a reply that could not be saved

	// Composer.
	Send, Newline, Editor, History key.Binding

	// The scripted-reply step of the composer.
	SaveReply, Unanswered key.Binding

	// Transcript.
	Up, Down, Top, Bottom, PageUp, PageDown key.Binding
	ToggleTool, Spans                       key.Binding
	Copy, CopyRequest                       key.Binding
	// Branching (tui/branching.go).
	EditTurn, Regenerate, Correct, PrevVersion, NextVersion, Rewind, Checkpoint key.Binding

	// The focused inspector (its Keys give them the help of the tab shown).
	Insp inspectorKeys

	// Presentation mode (--present).
	PresentNext, PresentBack key.Binding

	// Inspector, after a reload: the Request tab as recorded or as the file would send.
	WouldSend key.Binding
	// Inspector, Request tab: the next request of a tool loop.
	NextRequest key.Binding

	// The chats overlay (ctrl+o).
	ChatsOpen, ChatsNew, ChatsRename, ChatsDelete, ChatsExport, ChatsClose key.Binding

	// Help overlay.
	CloseHelp key.Binding
}

// newKeyMap returns the keymap with the rebindings applied (checked by keybind.Check:
// the config did; an action or key that is not valid is left out).
func newKeyMap(rebound []keybind.Binding) *keyMap {
	keys := keybind.Apply(rebound)
	changed := map[string]bool{}
	for _, r := range rebound {
		changed[r.Action] = true
	}
	b := func(name string) key.Binding {
		a, _ := keybind.Lookup(name)
		label, desc := a.Label, a.Desc
		if changed[name] {
			label = keybind.Label(keys[name])
			if i := strings.Index(desc, " (also "); i >= 0 { // the other default key
				desc = desc[:i]
			}
		}
		return key.NewBinding(key.WithKeys(keys[name]...), key.WithHelp(label, desc))
	}
	k := &keyMap{
		NextFocus: b("next_area"),
		PrevFocus: b("previous_area"),
		Inspector: b("toggle_inspector"),
		Esc:       b("cancel"),
		Quit:      b("quit"),
		Help:      b("help"),
		HelpQ:     b("help_short"),
		Reload:    b("reload"),
		Chats:     b("chats"),
		SaveAgain: b("save_again"),

		Send:    b("send"),
		Newline: b("new_line"),
		Editor:  b("editor"),
		History: b("history"),

		SaveReply:  b("save_reply"),
		Unanswered: b("no_reply"),

		Up:          b("previous_turn"),
		Down:        b("next_turn"),
		Top:         b("first_turn"),
		Bottom:      b("last_turn"),
		PageUp:      b("page_up"),
		PageDown:    b("page_down"),
		ToggleTool:  b("toggle_tools"),
		Spans:       b("toggle_reminders"),
		Copy:        b("copy_message"),
		CopyRequest: b("copy_request"),
		EditTurn:    b("edit"),
		Regenerate:  b("regenerate"),
		Correct:     b("correct"),
		PrevVersion: b("previous_version"),
		NextVersion: b("next_version"),
		Rewind:      b("rewind"),
		Checkpoint:  b("checkpoint"),

		Insp: inspectorKeys{
			Up:       b("inspector_up"),
			Down:     b("inspector_down"),
			PageUp:   b("inspector_page_up"),
			PageDown: b("inspector_page_down"),
			Home:     b("inspector_top"),
			End:      b("inspector_bottom"),
			Enter:    b("inspector_enter"),
			OnlyNew:  b("only_new"),
		},

		PresentNext: b("present_next"),
		PresentBack: b("present_back"),

		WouldSend:   b("would_send"),
		NextRequest: b("next_request"),

		ChatsOpen:   b("chats_open"),
		ChatsNew:    b("chats_new"),
		ChatsRename: b("chats_rename"),
		ChatsDelete: b("chats_delete"),
		ChatsExport: b("chats_export"),
		ChatsClose:  b("chats_close"),

		CloseHelp: b("close_help"),
	}
	names := [5]string{"why", "prompt", "request", "branches", "usage"}
	for i, n := range names {
		k.Tabs[i] = b("tab_" + n)
		k.TabDigits[i] = b("tab_" + n + "_short")
	}
	return k
}

// useKeys gives the panes the keymap's keys. Rebindings keybind.Check refuses (the
// config checked them: only a program embedding the workbench can pass such) leave the
// default keys in force, and the status line says why.
func (m *Model) useKeys() {
	if probs := keybind.Check(m.opt.Keys); len(probs) > 0 {
		m.keys = newKeyMap(nil)
		m.lastErr = probs[0].Msg + " (the default keys are in force)"
	}
	m.insp.keys = m.keys.Insp
	m.comp.SetKeys(m.keys)
}

// helpGroup is a titled list of bindings in the help overlay.
type helpGroup struct {
	Title string
	Keys  []key.Binding
	// Extra rows document what is not a key (the mouse).
	Extra []helpRow
}

// anywhere returns the bindings that work in every area (the five tabs' bindings of a
// kind are one row in the help).
func (k *keyMap) anywhere() []key.Binding {
	out := []key.Binding{k.NextFocus, k.PrevFocus}
	out = append(out, k.Tabs[:]...)
	out = append(out, k.TabDigits[:]...)
	return append(out, k.Inspector, k.Reload, k.Chats, k.SaveAgain, k.Esc, k.Quit, k.Help, k.HelpQ)
}

// composer returns the composer's bindings.
func (k *keyMap) composer() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.Editor, k.History}
}

// scripted returns the bindings of the scripted-reply step.
func (k *keyMap) scripted() []key.Binding {
	return []key.Binding{k.SaveReply, k.Unanswered, k.Newline, k.Editor}
}

// transcript returns the transcript's bindings.
func (k *keyMap) transcript() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown, k.ToggleTool, k.Spans, k.Copy, k.CopyRequest,
		k.EditTurn, k.Regenerate, k.Correct, k.PrevVersion, k.NextVersion, k.Rewind, k.Checkpoint}
}

// present returns presentation mode's bindings.
func (k *keyMap) present() []key.Binding {
	return []key.Binding{k.PresentNext, k.PresentBack, k.Help, k.Quit}
}

// chats returns the chats overlay's bindings.
func (k *keyMap) chats() []key.Binding {
	return []key.Binding{k.ChatsOpen, k.ChatsNew, k.ChatsRename, k.ChatsDelete, k.ChatsExport, k.ChatsClose}
}
