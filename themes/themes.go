// Package themes holds the workbench's lipgloss styles by role, for a dark, a light and a
// monochrome terminal. Panes ask for a role (the user's words, an injected reminder, a fired
// decision), never for a colour, so a theme changes every pane at once.
package themes

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"
)

// Role is what a piece of text is on screen.
type Role int

// The roles a pane can ask for.
const (
	Text        Role = iota // ordinary text
	Muted                   // secondary text: times, ids, hints
	User                    // what the user typed
	Reply                   // the model's reply
	Reminder                // a reminder injected into a user message or a request
	Fired                   // a decision that fired
	NotFired                // a decision that did not fire
	Error                   // errors, failed tool calls
	Warning                 // interrupted replies, changed files
	Focus                   // the focused area's title or mark
	Selected                // the selected line or turn
	Header                  // the header bar
	Status                  // the status bar
	Key                     // a key in the help overlay or the status line
	TabActive               // the active inspector tab
	Tab                     // an inactive inspector tab
	Border                  // pane borders
	FocusBorder             // the border of the focused pane
	Added                   // what is new (request diff, `now` of a re-evaluation)
	Removed                 // what went away (`was` of a re-evaluation)
	Tool                    // a tool call block
	Accent                  // badges: PREVIEW, SCRIPTED, DEMO
	numRoles
)

// Theme is a set of styles, one per role.
type Theme struct {
	// Name is dark, light or mono.
	Name string
	// Glamour names the glamour style that suits the theme (dark, light or notty).
	Glamour string
	styles  [numRoles]lipgloss.Style
}

// Style returns the style of a role.
func (t *Theme) Style(r Role) lipgloss.Style { return t.styles[r] }

// Render renders s in the style of a role.
func (t *Theme) Render(r Role, s string) string { return t.styles[r].Render(s) }

// palette is the colours of a coloured theme.
type palette struct {
	text, muted, user, reply, reminder, fired, notFired, errC, warn, focus, selBG, barBG, barFG,
	key, border, added, removed, tool, accent string
}

var darkPalette = palette{
	text: "252", muted: "245", user: "117", reply: "252", reminder: "179", fired: "114", notFired: "243",
	errC: "203", warn: "215", focus: "213", selBG: "237", barBG: "236", barFG: "252", key: "81",
	border: "240", added: "114", removed: "203", tool: "147", accent: "213",
}

var lightPalette = palette{
	text: "235", muted: "242", user: "25", reply: "235", reminder: "130", fired: "28", notFired: "246",
	errC: "160", warn: "166", focus: "127", selBG: "254", barBG: "253", barFG: "235", key: "25",
	border: "250", added: "28", removed: "160", tool: "61", accent: "127",
}

func colored(name, glamour string, p palette) *Theme {
	c := func(s string) lipgloss.Color { return lipgloss.Color(s) }
	t := &Theme{Name: name, Glamour: glamour}
	s := &t.styles
	s[Text] = lipgloss.NewStyle().Foreground(c(p.text))
	s[Muted] = lipgloss.NewStyle().Foreground(c(p.muted))
	s[User] = lipgloss.NewStyle().Foreground(c(p.user)).Bold(true)
	s[Reply] = lipgloss.NewStyle().Foreground(c(p.reply))
	s[Reminder] = lipgloss.NewStyle().Foreground(c(p.reminder)).Italic(true)
	s[Fired] = lipgloss.NewStyle().Foreground(c(p.fired)).Bold(true)
	s[NotFired] = lipgloss.NewStyle().Foreground(c(p.notFired))
	s[Error] = lipgloss.NewStyle().Foreground(c(p.errC)).Bold(true)
	s[Warning] = lipgloss.NewStyle().Foreground(c(p.warn))
	s[Focus] = lipgloss.NewStyle().Foreground(c(p.focus)).Bold(true)
	s[Selected] = lipgloss.NewStyle().Background(c(p.selBG))
	s[Header] = lipgloss.NewStyle().Foreground(c(p.barFG)).Background(c(p.barBG)).Bold(true)
	s[Status] = lipgloss.NewStyle().Foreground(c(p.barFG)).Background(c(p.barBG))
	s[Key] = lipgloss.NewStyle().Foreground(c(p.key)).Bold(true)
	s[TabActive] = lipgloss.NewStyle().Foreground(c(p.focus)).Bold(true).Underline(true)
	s[Tab] = lipgloss.NewStyle().Foreground(c(p.muted))
	s[Border] = lipgloss.NewStyle().Foreground(c(p.border))
	s[FocusBorder] = lipgloss.NewStyle().Foreground(c(p.focus))
	s[Added] = lipgloss.NewStyle().Foreground(c(p.added))
	s[Removed] = lipgloss.NewStyle().Foreground(c(p.removed)).Strikethrough(true)
	s[Tool] = lipgloss.NewStyle().Foreground(c(p.tool))
	s[Accent] = lipgloss.NewStyle().Foreground(c(p.accent)).Bold(true).Reverse(true)
	return t
}

// Dark is the theme for a dark background.
func Dark() *Theme { return colored("dark", "dark", darkPalette) }

// Light is the theme for a light background.
func Light() *Theme { return colored("light", "light", lightPalette) }

// Mono is the theme without colour (NO_COLOR, --theme mono): roles are told apart by
// weight, underline and reverse video; the panes add marks, since a terminal without
// attributes shows none of these.
func Mono() *Theme {
	t := &Theme{Name: "mono", Glamour: "notty"}
	plain := lipgloss.NewStyle()
	for i := range t.styles {
		t.styles[i] = plain
	}
	s := &t.styles
	s[User] = plain.Bold(true)
	s[Reminder] = plain.Italic(true)
	s[Fired] = plain.Bold(true)
	s[Error] = plain.Bold(true)
	s[Focus] = plain.Bold(true)
	s[Selected] = plain.Reverse(true)
	s[Header] = plain.Reverse(true)
	s[Status] = plain.Reverse(true)
	s[Key] = plain.Bold(true)
	s[TabActive] = plain.Bold(true).Underline(true)
	s[Removed] = plain.Strikethrough(true)
	s[Accent] = plain.Reverse(true)
	return t
}

// Names are the values of --theme.
var Names = []string{"auto", "dark", "light", "mono"}

// ByName returns the theme a --theme value names. "auto" (or "") picks dark or light with
// darkBackground, which is asked at most once and only for auto; noColor (NO_COLOR set)
// makes every choice mono.
func ByName(name string, noColor bool, darkBackground func() bool) (*Theme, error) {
	switch name {
	case "", "auto", "dark", "light", "mono":
	default:
		return nil, fmt.Errorf("unknown theme %q (want auto, dark, light or mono)", name)
	}
	switch {
	case noColor || name == "mono":
		return Mono(), nil
	case name == "dark":
		return Dark(), nil
	case name == "light":
		return Light(), nil
	case darkBackground == nil || darkBackground():
		return Dark(), nil
	}
	return Light(), nil
}
