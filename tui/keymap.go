package tui

import (
	"github.com/charmbracelet/bubbles/key"
)

// keyMap is the one keymap of the workbench: every binding the root model acts on is
// here, and the help overlay and the status line are made from it, so a key cannot be
// bound without being documented. Bindings of a later issue (edit, regenerate, versions,
// rewind, checkpoint, chats, copy, reload) get a field of their own here when they are
// implemented, in the group of the area they act in.
type keyMap struct {
	// Anywhere.
	NextFocus, PrevFocus key.Binding
	Tabs                 [5]key.Binding // alt+1 … alt+5
	TabDigits            [5]key.Binding // 1 … 5 outside the composer
	Inspector            key.Binding    // alt+i below 100 columns
	Esc, Quit            key.Binding
	Help, HelpQ          key.Binding
	Reload, Chats        key.Binding

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

func newKeyMap() *keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := &keyMap{
		NextFocus: b("tab", "next area", "tab"),
		PrevFocus: b("shift+tab", "previous area", "shift+tab"),
		Inspector: b("alt+i", "inspector/transcript (narrow screens)", "alt+i"),
		Esc:       b("esc", "cancel the reply, or back to the composer", "esc"),
		Quit:      b("ctrl+c", "cancel the reply, or quit", "ctrl+c"),
		Help:      b("f1", "help", "f1"),
		HelpQ:     b("?", "help (outside the composer)", "?"),
		Reload:    b("ctrl+r", "reload the context file", "ctrl+r"),
		Chats:     b("ctrl+o", "chats: find, open, new, rename, delete", "ctrl+o"),

		Send:    b("enter", "send", "enter"),
		Newline: b("alt+enter", "new line (also ctrl+j)", "alt+enter", "ctrl+j"),
		Editor:  b("ctrl+x", "$EDITOR", "ctrl+x"),
		History: b("up", "messages sent (empty draft)", "up"),

		SaveReply:  b("enter", "save as the reply", "enter"),
		Unanswered: b("esc", "no reply", "esc"),

		Up:          b("↑/k", "previous turn", "up", "k"),
		Down:        b("↓/j", "next turn", "down", "j"),
		Top:         b("home/g", "first", "home", "g"),
		Bottom:      b("end/G", "last", "end", "G"),
		PageUp:      b("pgup", "page up", "pgup"),
		PageDown:    b("pgdown", "page down", "pgdown"),
		ToggleTool:  b("enter", "open/close tool calls", "enter"),
		Spans:       b("s", "show/hide injected reminders", "s"),
		Copy:        b("c", "copy the message", "c"),
		CopyRequest: b("y", "copy the request JSON", "y"),
		EditTurn:    b("e", "edit the message: a new branch", "e"),
		Regenerate:  b("r", "regenerate the reply: a new branch", "r"),
		Correct:     b("R", "correct the reply by hand: a new branch", "R"),
		PrevVersion: b("←/[", "previous version of the turn", "left", "["),
		NextVersion: b("→/]", "next version of the turn", "right", "]"),
		Rewind:      b("w", "rewind: a new branch ending here", "w"),
		Checkpoint:  b("x", "checkpoint the turn (asks a name)", "x"),

		PresentNext: b("space", "play the next turn", " "),
		PresentBack: b("backspace", "step back a turn", "backspace"),

		WouldSend:   b("n", "Request: as recorded / would send", "n"),
		NextRequest: b("t", "Request: the loop's next request", "t"),

		ChatsOpen:   b("enter", "open", "enter"),
		ChatsNew:    b("ctrl+n", "new chat", "ctrl+n"),
		ChatsRename: b("ctrl+e/f2", "rename", "ctrl+e", "f2"),
		ChatsDelete: b("ctrl+d", "delete (asks)", "ctrl+d"),
		ChatsExport: b("ctrl+s", "export to a file", "ctrl+s"),
		ChatsClose:  b("esc", "close", "esc"),

		CloseHelp: b("esc/f1/?", "close help", "esc", "f1", "?", "q"),
	}
	names := [5]string{"Why", "Prompt", "Request", "Branches", "Usage"}
	for i := range k.Tabs {
		d := string(rune('1' + i))
		k.Tabs[i] = b("alt+"+d, "tab "+names[i], "alt+"+d)
		k.TabDigits[i] = b(d, "tab "+names[i]+" (outside the composer)", d)
	}
	return k
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
	return append(out, k.Inspector, k.Reload, k.Chats, k.Esc, k.Quit, k.Help, k.HelpQ)
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
