package ctxfile

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestDigest checks what the digest of a context file depends on: every byte ctxlab reads
// of the file and of the files it names (a `file:` fragment, in a reminder too; each
// SKILL.md's front matter; the skills found), and nothing else: not the directory ctxlab
// runs in, nor where the file's folder is, nor the file's own name, nor what ctxlab
// never reads (a SKILL.md's body, a file of the skills folder that is no skill).
func TestDigest(t *testing.T) {
	const context = "system:\n  - role: you help\n  - fragment: {name: notes, file: ./docs/notes.md}\n  - skills: ./skills\n" +
		"reminders:\n  - id: r\n    when: everyNTurns(3)\n    fragment: {fragment: {name: n, file: rem.md}}\n"
	files := map[string]string{
		"c.ctx.yaml":          context,
		"docs/notes.md":       "some notes\n",
		"rem.md":              "a reminder's text\n",
		"skills/one/SKILL.md": "---\nname: one\ndescription: the first skill\n---\nthe body\n",
	}
	// write makes a folder of files, with changes (a path to "" removes the file).
	write := func(t *testing.T, changes map[string]string) string {
		t.Helper()
		dir := t.TempDir()
		all := map[string]string{}
		for k, v := range files {
			all[k] = v
		}
		for k, v := range changes {
			all[k] = v
		}
		for name, text := range all {
			if text == "" {
				continue
			}
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	load := func(t *testing.T, path string) string {
		t.Helper()
		f, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return f.Digest()
	}
	base := load(t, filepath.Join(write(t, nil), "c.ctx.yaml"))
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(base) {
		t.Fatalf("digest %q: want 64 lower-case hexadecimal digits", base)
	}

	tests := []struct {
		name    string
		changes map[string]string
		// open loads the context file of the folder dir another way than by its path
		// (nil: by its path).
		open func(t *testing.T, dir string) string
		same bool
	}{
		{"the same files", nil, nil, true},
		{"from the folder itself", nil, func(t *testing.T, dir string) string {
			t.Chdir(dir)
			return load(t, "c.ctx.yaml")
		}, true},
		{"from the folder's parent", nil, func(t *testing.T, dir string) string {
			t.Chdir(filepath.Dir(dir))
			return load(t, filepath.Join(filepath.Base(dir), "c.ctx.yaml"))
		}, true},
		{"the folder moved", nil, func(t *testing.T, dir string) string {
			moved := filepath.Join(t.TempDir(), "deeper", "moved")
			if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			return load(t, filepath.Join(moved, "c.ctx.yaml"))
		}, true},
		{"the file renamed", map[string]string{"c.ctx.yaml": "", "renamed.ctx.yaml": context}, func(t *testing.T, dir string) string {
			return load(t, filepath.Join(dir, "renamed.ctx.yaml"))
		}, true},
		{"a skill's body edited", map[string]string{"skills/one/SKILL.md": "---\nname: one\ndescription: the first skill\n---\nanother body\n"},
			nil, true},
		{"a file that is no skill added to the skills folder", map[string]string{"skills/README.md": "about the skills\n",
			"skills/notes/other.md": "not a skill\n"}, nil, true},

		{"the context file edited", map[string]string{"c.ctx.yaml": context + "# a comment\n"}, nil, false},
		{"a file: fragment edited", map[string]string{"docs/notes.md": "other notes\n"}, nil, false},
		{"a reminder's file edited", map[string]string{"rem.md": "another text\n"}, nil, false},
		{"a line ending changed", map[string]string{"docs/notes.md": "some notes\r\n"}, nil, false},
		{"a skill's front matter edited", map[string]string{"skills/one/SKILL.md": "---\nname: one\ndescription: the only skill\n---\nthe body\n"},
			nil, false},
		{"a skill added", map[string]string{"skills/two/SKILL.md": "---\nname: two\ndescription: the second skill\n---\n"}, nil, false},
		{"a skill's folder renamed", map[string]string{"skills/one/SKILL.md": "",
			"skills/uno/SKILL.md": files["skills/one/SKILL.md"]}, nil, false},
		{"the contents of two files swapped", map[string]string{"docs/notes.md": "a reminder's text\n", "rem.md": "some notes\n"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, tt.changes)
			var got string
			if tt.open != nil {
				got = tt.open(t, dir)
			} else {
				got = load(t, filepath.Join(dir, "c.ctx.yaml"))
			}
			if same := got == base; same != tt.same {
				t.Errorf("digest %s, first %s: same %v, want %v", got, base, same, tt.same)
			}
		})
	}
	if got := (&File{}).Digest(); got != "" {
		t.Errorf("a File not loaded: digest %q, want none", got)
	}
}
