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
	for _, g := range m.helpGroups() {
		for _, b := range g.Keys {
			listed[b.Help().Key+"\x00"+b.Help().Desc] = true
		}
	}
	help := strings.Join(m.helpLines(200), "\n")
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
		default:
			t.Errorf("keyMap.%s is a %T: teach this test about it", name, b)
		}
	}
}
