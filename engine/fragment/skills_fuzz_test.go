package fragment

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// FuzzReadSkill: any SKILL.md gives a skill with a one-line name and a description, or
// errors inside the file (the front matter starts on line 2), never a panic.
func FuzzReadSkill(f *testing.F) {
	for _, p := range []string{"testdata/skills/sql/SKILL.md", "testdata/skills/charts/SKILL.md"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody\n", "---\nname: a\n", "no front matter\n",
		"\uFEFF---\r\nname: a\r\ndescription: b\r\n...\r\n", "---\nname: [a\n---\n",
		"---\nname: &n x\ndescription: *n\n---\n", "---\nname: \"a\nb\"\ndescription: c\n---\n",
		"---\n- a\n---\n", "---\n---\n", "---\nname: a\ndescription: {b: [c]}\nlicense: MIT\n---\n",
		"---\nname: " + strings.Repeat("[", 200) + "\n---\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(dir, "SKILL.md")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, nameAt, errs := readSkill(file)
		lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 2
		if len(errs) > 0 {
			for _, e := range errs {
				if e.File != file || e.Line < 1 || e.Line > lines || e.Col < 1 {
					t.Fatalf("error %v outside the file (%d lines)", e, lines)
				}
			}
			return
		}
		if s.Name == "" || strings.ContainsAny(s.Name, "\r\n") || s.Description == "" {
			t.Fatalf("got skill %+v, want a one-line name and a description", s)
		}
		if nameAt[0] < 2 || nameAt[1] < 1 {
			t.Fatalf("name at %v, want inside the front matter", nameAt)
		}
	})
}

// TestReadSkillDeep: front matter nested 15,000 deep in flow style (60 KiB, under the 64 KiB, the most
// front matter read) is refused at once, in little memory.
func TestReadSkillDeep(t *testing.T) {
	file := filepath.Join(t.TempDir(), "SKILL.md")
	text := "---\nname: x\ndescription: " + strings.Repeat("{a: ", 15_000) + "\n---\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, errs := readSkill(file)
	runtime.ReadMemStats(&after)
	want := file + ":3:410: bad front matter: nesting is too deep (more than 100 levels)"
	if len(errs) != 1 || errs[0].Error() != want {
		t.Fatalf("got %v, want %q", errs, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10<<20 {
		t.Errorf("allocated %d MB, want under 10 MB", alloc>>20)
	}
}
