package fragment

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/yamlx"
)

// Skill is one skill of a skills folder: the name and description from the front matter of
// its SKILL.md, and the path of that file relative to the base directory (slash-separated,
// for example "skills/sql/SKILL.md").
type Skill struct {
	Name        string
	Description string
	Path        string
}

// SkillsFragmentName is the name of the fragment that lists the available skills.
const SkillsFragmentName = "available_skills"

// skillsInstructions tells the model how to use the listed skills (progressive disclosure:
// only the metadata is in the prompt, the model reads SKILL.md when a skill is relevant).
const skillsInstructions = `When a request matches one of the skills listed here, read that skill's SKILL.md file (at its path) before you answer: it holds the detailed instructions and workflow for the task.

To use a skill:
1. Check whether the request matches the skill's description.
2. Read the SKILL.md file at the skill's path.
3. Follow its guidance to complete the task.

Read a skill file only when it is relevant.`

// maxFrontMatter caps the front matter read from a SKILL.md.
const maxFrontMatter = 64 << 10

// LoadSkills reads a skills folder: every immediate sub-folder holding a SKILL.md whose YAML
// front matter has a name and a description. A relative dir is resolved against
// opt.BaseDir. Folders without SKILL.md and hidden folders are skipped; a folder with no
// skill at all, a missing folder, bad front matter and duplicate names are errors
// (*diag.Error or diag.List, positioned inside SKILL.md where possible). The skills are
// sorted by name, then path.
func LoadSkills(dir string, opt DecodeOptions) ([]Skill, error) {
	skills, msg, errs := loadSkills(dir, opt)
	if msg != "" {
		return nil, &diag.Error{File: dir, Msg: msg}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return skills, nil
}

// loadSkills returns the skills of dir, a message when the folder itself is unusable, and
// the problems found in SKILL.md files.
func loadSkills(dir string, opt DecodeOptions) ([]Skill, string, diag.List) {
	full := opt.resolve(dir)
	opt.read(full)
	fi, err := os.Stat(full)
	if err != nil {
		return nil, fsMessage(err, "directory"), nil
	}
	if !fi.IsDir() {
		return nil, "not a directory", nil
	}
	entries, err := os.ReadDir(full)
	if err != nil {
		return nil, fsMessage(err, "directory"), nil
	}
	var (
		skills []Skill
		errs   diag.List
		where  = map[string]string{} // name -> path of its first SKILL.md
	)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := filepath.Join(full, e.Name())
		if st, err := os.Stat(sub); err != nil || !st.IsDir() {
			continue
		}
		file := filepath.Join(sub, "SKILL.md")
		if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
			continue
		}
		opt.read(file)
		fm, msg := frontMatter(file)
		if msg == "" {
			opt.content(path.Join(writtenName(dir), e.Name(), "SKILL.md"), fm)
		}
		s, nameAt, ferrs := parseSkill(file, fm, msg)
		if len(ferrs) > 0 {
			errs = append(errs, ferrs...)
			continue
		}
		s.Path = relPath(opt.baseDir(), file)
		if first, dup := where[s.Name]; dup {
			errs = append(errs, diag.Errorf(file, nameAt[0], nameAt[1], "duplicate skill name %q (also in %s)", s.Name, first))
			continue
		}
		where[s.Name] = s.Path
		skills = append(skills, s)
	}
	if len(skills) == 0 && len(errs) == 0 {
		return nil, "no */SKILL.md file in this folder", nil
	}
	sort.Slice(skills, func(i, j int) bool {
		if skills[i].Name != skills[j].Name {
			return skills[i].Name < skills[j].Name
		}
		return skills[i].Path < skills[j].Path
	})
	return skills, "", errs
}

// relPath returns path relative to base, slash-separated, or path itself when it cannot be
// made relative.
func relPath(base, path string) string {
	if ab, err := filepath.Abs(base); err == nil {
		if ap, err := filepath.Abs(path); err == nil {
			if r, err := filepath.Rel(ab, ap); err == nil {
				return filepath.ToSlash(r)
			}
		}
	}
	return filepath.ToSlash(path)
}

// readSkill reads the front matter of a SKILL.md. nameAt is the line and column of its name.
// The front matter starts on line 2, after the opening ---: its line n is line n+1 of the file.
func readSkill(file string) (s Skill, nameAt [2]int, errs diag.List) {
	fm, msg := frontMatter(file)
	return parseSkill(file, fm, msg)
}

// parseSkill is readSkill on the front matter fm of file, as frontMatter returned it with
// msg.
func parseSkill(file string, fm []byte, msg string) (s Skill, nameAt [2]int, errs diag.List) {
	fail := func(line, col int, format string, args ...any) (Skill, [2]int, diag.List) {
		return Skill{}, [2]int{}, diag.List{diag.Errorf(file, line, col, format, args...)}
	}
	if msg != "" {
		return fail(1, 1, "%s", msg)
	}
	m, err := yamlx.Parse(file, fm)
	if err != nil {
		line, col, text := 1, 1, err.Error()
		var de *diag.Error
		if errors.As(err, &de) {
			line, col, text = de.Line, de.Col, strings.TrimPrefix(de.Msg, "invalid YAML: ")
		}
		return fail(line+1, col, "bad front matter: %s", text)
	}
	if m == nil {
		return fail(2, 1, "front matter is empty: it needs name and description")
	}
	if m.Kind != yaml.MappingNode {
		return fail(m.Line+1, m.Column, "front matter must be a mapping with name and description, got %s", describe(m))
	}
	var found [2]bool
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		idx := -1
		switch k.Value {
		case "name":
			idx = 0
		case "description":
			idx = 1
		default:
			continue // other keys (license, allowed-tools, metadata...) are not ours
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode || isNull(v) || strings.TrimSpace(v.Value) == "" {
			errs = append(errs, diag.Errorf(file, v.Line+1, v.Column, "front matter %s must be a non-empty text, got %s", k.Value, describe(v)))
			found[idx] = true
			continue
		}
		found[idx] = true
		text := strings.TrimSpace(v.Value)
		if idx == 0 {
			if strings.ContainsAny(text, "\n\r") {
				errs = append(errs, diag.Errorf(file, v.Line+1, v.Column, "front matter name must be one line"))
				continue
			}
			s.Name, nameAt = text, [2]int{v.Line + 1, v.Column}
		} else {
			s.Description = text
		}
	}
	for i, key := range []string{"name", "description"} {
		if !found[i] {
			errs = append(errs, diag.Errorf(file, m.Line+1, m.Column, "front matter is missing %q", key))
		}
	}
	if len(errs) > 0 {
		return Skill{}, [2]int{}, errs
	}
	return s, nameAt, nil
}

// frontMatter returns the YAML between the opening `---` line and the closing `---` (or
// `...`) line of a SKILL.md, or a message saying what is wrong.
func frontMatter(file string) ([]byte, string) {
	if fi, err := os.Stat(file); err == nil && !fi.Mode().IsRegular() {
		return nil, diag.FileKind(fi.Mode()) + ", not a file"
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fsMessage(err, "file")
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, maxFrontMatter+4096))
	first, err := r.ReadString('\n')
	first = strings.TrimPrefix(first, "\uFEFF")
	if strings.TrimRight(first, " \t\r\n") != "---" {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err.Error()
		}
		return nil, "missing front matter: SKILL.md must start with a --- line"
	}
	var buf bytes.Buffer
	for {
		line, err := r.ReadString('\n')
		t := strings.TrimRight(line, " \t\r\n")
		if t == "---" || t == "..." {
			return buf.Bytes(), ""
		}
		buf.WriteString(line)
		if buf.Len() > maxFrontMatter {
			return nil, fmt.Sprintf("front matter is longer than %d KiB", maxFrontMatter>>10)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, "front matter is not closed by a --- line"
			}
			return nil, err.Error()
		}
	}
}

// SkillsFragment renders skills into the system prompt as the reference does: an
// `available_skills` fragment holding an `instructions` child and one `skill` child (name,
// path, description) per skill. No skills gives a fragment that renders nothing.
func SkillsFragment(skills []Skill) Fragment {
	if len(skills) == 0 {
		return Fragment{Name: SkillsFragmentName}
	}
	l := make(List, 0, len(skills)+1)
	l = append(l, Text("instructions", skillsInstructions))
	for _, s := range skills {
		l = append(l, New("skill", object(Field{"name", String(s.Name)}, Field{"path", String(s.Path)},
			Field{"description", String(s.Description)})))
	}
	return Fragment{Name: SkillsFragmentName, Data: l}
}

// Skills returns the skills listed by the skills fragments among frags (those made by
// SkillsFragment or decoded from `skills:`), in order. The per-turn `builtin: skills`
// reminder scores the user message against them.
func Skills(frags ...Fragment) []Skill {
	var out []Skill
	for _, f := range frags {
		s, _ := SkillsOf(f)
		out = append(out, s...)
	}
	return out
}

// SkillsOf returns the skills listed by f and true when f is a skills fragment (made by
// SkillsFragment or decoded from `skills:`), else nil and false.
func SkillsOf(f Fragment) ([]Skill, bool) {
	if f.Name != SkillsFragmentName {
		return nil, false
	}
	var out []Skill
	for _, c := range f.Children() {
		o, ok := c.Data.(Object)
		if c.Name != "skill" || !ok {
			continue
		}
		var s Skill
		if v, ok := o.Get("name").(String); ok {
			s.Name = string(v)
		}
		if v, ok := o.Get("description").(String); ok {
			s.Description = string(v)
		}
		if v, ok := o.Get("path").(String); ok {
			s.Path = string(v)
		}
		out = append(out, s)
	}
	return out, true
}
