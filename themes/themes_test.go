package themes

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestByName(t *testing.T) {
	dark := func() bool { return true }
	light := func() bool { return false }
	tests := []struct {
		name    string
		noColor bool
		bg      func() bool
		want    string
	}{
		{"auto", false, dark, "dark"},
		{"auto", false, light, "light"},
		{"", false, light, "light"},
		{"dark", false, light, "dark"},
		{"light", false, dark, "light"},
		{"mono", false, dark, "mono"},
		{"dark", true, dark, "mono"},
		{"auto", true, dark, "mono"},
	}
	for _, tt := range tests {
		th, err := ByName(tt.name, tt.noColor, tt.bg)
		if err != nil {
			t.Fatalf("ByName(%q): %v", tt.name, err)
		}
		if th.Name != tt.want {
			t.Errorf("ByName(%q, noColor=%v) = %s, want %s", tt.name, tt.noColor, th.Name, tt.want)
		}
	}
	if _, err := ByName("neon", false, dark); err == nil {
		t.Error("ByName(neon) gave no error")
	}
}

func TestAutoAsksOnlyWhenNeeded(t *testing.T) {
	asked := 0
	bg := func() bool { asked++; return true }
	for _, name := range []string{"dark", "light", "mono"} {
		if _, err := ByName(name, false, bg); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 0 {
		t.Errorf("the background was asked %d times for explicit themes", asked)
	}
}

func TestEveryRoleStyled(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	for _, th := range []*Theme{Dark(), Light()} {
		for r := Role(0); r < numRoles; r++ {
			if th.Render(r, "x") == "x" {
				t.Errorf("%s theme: role %d renders unstyled", th.Name, r)
			}
		}
	}
}
