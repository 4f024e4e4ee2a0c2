package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// TestEveryBindingIsInTheHelp: every binding of the keymap (each field, by reflection, so
// a new one cannot be forgotten) is listed in the help overlay, with keys and a
// description.
func TestEveryBindingIsInTheHelp(t *testing.T) {
	v := newEnv(t)
	m := newModel(t, v, v.chat(t, "", nil), 160, 60, Options{})
	listed := map[string]bool{}
	var helps []string
	// The inspector's keys are in the help of the tab they act in.
	for tab := range numTabs {
		m.insp.SetTab(tab)
		for _, g := range m.helpGroups() {
			for _, b := range g.Keys {
				listed[b.Help().Key+"\x00"+b.Help().Desc] = true
			}
		}
		helps = append(helps, m.helpLines(200)...)
	}
	help := strings.Join(helps, "\n")
	km := reflect.ValueOf(m.keys).Elem()
	check := func(name string, b key.Binding) {
		h := b.Help()
		if len(b.Keys()) == 0 || h.Key == "" || h.Desc == "" {
			t.Errorf("%s: binding without keys or help", name)
			return
		}
		if !listed[h.Key+"\x00"+h.Desc] {
			t.Errorf("%s (%s) is not in the help overlay", name, h.Key)
		}
		if !strings.Contains(help, h.Desc) && !strings.HasPrefix(h.Desc, "tab ") {
			t.Errorf("%s: the help does not show %q", name, h.Desc)
		}
	}
	for i := range km.NumField() {
		f, name := km.Field(i), km.Type().Field(i).Name
		switch b := f.Interface().(type) {
		case key.Binding:
			check(name, b)
		case [5]key.Binding:
			for _, x := range b {
				check(name, x)
			}
		case inspectorKeys:
			ik := reflect.ValueOf(b)
			for j := range ik.NumField() {
				check(name+"."+ik.Type().Field(j).Name, ik.Field(j).Interface().(key.Binding))
			}
		default:
			t.Errorf("keyMap.%s is a %T: teach this test about it", name, b)
		}
	}
}

// TestFocusAndTabs: tab and shift+tab cycle the areas (the inspector only when shown),
// alt+N picks a tab anywhere, N and ? only outside the composer.
func TestFocusAndTabs(t *testing.T) {
	tests := []struct {
		name      string
		width     int
		keys      []string
		focus     area
		tab       inspectorTab
		help      bool
		composerV string
	}{
		{"tab once", 120, []string{"tab"}, areaTranscript, tabWhy, false, ""},
		{"tab twice", 120, []string{"tab", "tab"}, areaInspector, tabWhy, false, ""},
		{"tab thrice wraps", 120, []string{"tab", "tab", "tab"}, areaComposer, tabWhy, false, ""},
		{"shift+tab goes back", 120, []string{"shift+tab"}, areaInspector, tabWhy, false, ""},
		{"narrow: no inspector", 80, []string{"tab", "tab"}, areaComposer, tabWhy, false, ""},
		{"narrow with alt+i", 80, []string{"alt+i", "tab", "tab"}, areaInspector, tabWhy, false, ""},
		{"alt+3 in the composer", 120, []string{"alt+3"}, areaComposer, tabRequest, false, ""},
		{"3 in the composer is text", 120, []string{"3"}, areaComposer, tabWhy, false, "3"},
		{"5 in the transcript", 120, []string{"tab", "5"}, areaTranscript, tabUsage, false, ""},
		{"? in the composer is text", 120, []string{"?"}, areaComposer, tabWhy, false, "?"},
		{"? in the transcript is help", 120, []string{"tab", "?"}, areaTranscript, tabWhy, true, ""},
		{"f1 in the composer is help", 120, []string{"f1"}, areaComposer, tabWhy, true, ""},
		{"esc goes back to the composer", 120, []string{"tab", "esc"}, areaComposer, tabWhy, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newEnv(t)
			m := newModel(t, v, v.chat(t, "", nil), tt.width, 40, Options{})
			m.View()
			press(m, tt.keys...)
			if m.focus != tt.focus || m.insp.Tab() != tt.tab || m.help != tt.help || m.comp.Value() != tt.composerV {
				t.Errorf("focus %v tab %v help %v composer %q; want %v %v %v %q",
					m.focus, m.insp.Tab(), m.help, m.comp.Value(), tt.focus, tt.tab, tt.help, tt.composerV)
			}
		})
	}
}
