package fragment

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadSkills(t *testing.T) {
	got, err := LoadSkills("skills", DecodeOptions{BaseDir: "testdata"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Skill{
		{Name: "charts", Description: "Turn query results into clear charts.", Path: "skills/charts/SKILL.md"},
		{Name: "sql", Description: "Write and debug read-only SQL queries against the warehouse.", Path: "skills/sql/SKILL.md"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// an absolute folder gives the same paths, relative to the base directory
	abs, _ := filepath.Abs("testdata/skills")
	got, err = LoadSkills(abs, DecodeOptions{BaseDir: "testdata"})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("absolute: got %+v, %v, want %+v", got, err, want)
	}
	// the accessor reads them back from the fragment
	if back := Skills(Hint("x"), SkillsFragment(want)); !reflect.DeepEqual(back, want) {
		t.Errorf("Skills: got %+v, want %+v", back, want)
	}
	if back := Skills(Hint("x")); back != nil {
		t.Errorf("Skills of no skills fragment: got %+v, want nil", back)
	}
	if back, ok := SkillsOf(SkillsFragment(want)); !ok || !reflect.DeepEqual(back, want) {
		t.Errorf("SkillsOf: got %+v, %v, want %+v, true", back, ok, want)
	}
	if back, ok := SkillsOf(Hint("x")); ok || back != nil {
		t.Errorf("SkillsOf(hint): got %+v, %v, want nil, false", back, ok)
	}
	if out, _ := Render([]Fragment{SkillsFragment(nil)}, "xml", Options{}); out != "" {
		t.Errorf("SkillsFragment(nil) renders %q, want nothing", out)
	}
}

// writeSkill writes dir/name/SKILL.md.
func writeSkill(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSkillsErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // with FILE for the SKILL.md path
	}{
		{"no front matter", "# Title\n", "FILE:1:1: missing front matter: SKILL.md must start with a --- line"},
		{"not closed", "---\nname: a\n", "FILE:1:1: front matter is not closed by a --- line"},
		{"empty", "---\n---\n", "FILE:2:1: front matter is empty: it needs name and description"},
		// syntax errors: the parser's line and column, moved down past the opening --- line
		{"yaml error", "---\nname: a\ndescription: [x\n---\n", "FILE:3:14: bad front matter: sequence end token ']' not found"},
		{"yaml line", "---\nname: a\n  bad: indent\n---\n", "FILE:3:6: bad front matter: mapping value is not allowed in this context"},
		{"yaml quote", "---\nname: a\ndescription: d\nlicense: \"MIT\n---\n", "FILE:4:10: bad front matter: could not find end character of double-quoted text"},
		{"yaml tab", "---\nname: a\n\tdescription: d\n---\n", "FILE:3:1: bad front matter: found character '\t' that cannot start any token"},
		{"yaml with a BOM and CRLF", "\uFEFF---\r\nname: a\r\ndescription: [x\r\n---\r\n", "FILE:3:14: bad front matter: sequence end token ']' not found"},
		{"not mapping", "---\n- a\n---\n", "FILE:2:1: front matter must be a mapping with name and description, got a list"},
		{"missing name", "---\ndescription: d\n---\n", `FILE:2:1: front matter is missing "name"`},
		{"missing both", "---\nlicense: MIT\n---\n", "FILE:2:1: front matter is missing \"name\"\nFILE:2:1: front matter is missing \"description\""},
		{"empty description", "---\nname: a\ndescription: \"  \"\n---\n", "FILE:3:14: front matter description must be a non-empty text, got a text"},
		{"list name", "---\nname: [a]\ndescription: d\n---\n", "FILE:2:7: front matter name must be a non-empty text, got a list"},
		{"two-line name", "---\nname: |\n  a\n  b\ndescription: d\n---\n", "FILE:2:7: front matter name must be one line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSkill(t, dir, "s", tt.text)
			_, err := LoadSkills(dir, DecodeOptions{})
			want := strings.ReplaceAll(tt.want, "FILE", filepath.Join(dir, "s", "SKILL.md"))
			if err == nil || err.Error() != want {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	}
}

func TestLoadSkillsFolder(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "b", "---\nname: same\ndescription: first\n---\n")
	writeSkill(t, dir, "c", "\uFEFF---\r\nname: same\r\ndescription: second\r\n...\r\n")
	_, err := LoadSkills(dir, DecodeOptions{BaseDir: dir})
	want := filepath.Join(dir, "c", "SKILL.md") + `:2:7: duplicate skill name "same" (also in b/SKILL.md)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}

	_, err = LoadSkills(filepath.Join(dir, "nope"), DecodeOptions{})
	if want := filepath.Join(dir, "nope") + ": no such directory"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}

	// a skill folder reached through a symlink is followed; BaseDir resolves a relative dir
	other := t.TempDir()
	writeSkill(t, other, "real", "---\nname: linked\ndescription: via a link\n---\n")
	skills := t.TempDir()
	if err := os.Symlink(filepath.Join(other, "real"), filepath.Join(skills, "link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	got, err := LoadSkills(".", DecodeOptions{BaseDir: skills})
	want2 := []Skill{{Name: "linked", Description: "via a link", Path: "link/SKILL.md"}}
	if err != nil || !reflect.DeepEqual(got, want2) {
		t.Errorf("got %+v, %v, want %+v", got, err, want2)
	}
}

func TestDecodeSkillsErrorPosition(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, filepath.Join(dir, "skills"), "bad", "---\nname: bad\n---\n")
	_, err := Decode(firstItem(t, "- skills: ./skills"), DecodeOptions{File: filepath.Join(dir, "app.ctx.yaml")})
	want := filepath.Join(dir, "skills", "bad", "SKILL.md") + `:2:1: front matter is missing "description"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestLoadSkillsGoccyYAML: front matter is read like a context file, so valid YAML that
// yaml.v3 rejects (a `?` ending a plain scalar in a flow mapping) is accepted.
func TestLoadSkillsGoccyYAML(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "faq", "---\nname: faq\ndescription: Answer questions\nmetadata: {question: What is churn?, answer: x}\n---\n")
	got, err := LoadSkills(dir, DecodeOptions{BaseDir: dir})
	want := []Skill{{Name: "faq", Description: "Answer questions", Path: "faq/SKILL.md"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v, want %+v", got, err, want)
	}
}
