package ctxfile

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.md", "some notes\n")
	write("rem.md", "a reminder's text\n")
	write("skills/one/SKILL.md", "---\nname: one\ndescription: the first skill\n---\nbody\n")
	tests := []struct {
		name, text string
		want       []string
	}{
		{"plain", "system:\n  - role: you help\n", []string{"c.ctx.yaml"}},
		{"file fragment", "system:\n  - fragment: {name: notes, file: notes.md}\n", []string{"c.ctx.yaml", "notes.md"}},
		{"skills", "system:\n  - skills: ./skills\n", []string{"c.ctx.yaml", "skills", "skills/one/SKILL.md"}},
		{"reminder fragment", "reminders:\n  - id: r\n    when: everyNTurns(3)\n    fragment: {fragment: {name: n, file: rem.md}}\n",
			[]string{"c.ctx.yaml", "rem.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "c.ctx.yaml")
			write("c.ctx.yaml", tt.text)
			f, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(dir, w))
			}
			if got := f.Sources(); !reflect.DeepEqual(got, want) {
				t.Errorf("Sources: got %q, want %q", got, want)
			}
		})
	}
	if got := (&File{}).Sources(); len(got) != 0 {
		t.Errorf("a File not loaded: got %q, want none", got)
	}
}
