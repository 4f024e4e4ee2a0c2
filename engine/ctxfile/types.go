// Package ctxfile loads and validates context files (*.ctx.yaml): the system prompt
// fragments, classifiers, modes, instructions, reminders, tools and model defaults. Every
// problem is reported as FILE:LINE:COL: message before anything runs.
package ctxfile

import (
	"encoding/json"
	"text/template"

	"github.com/ctxlab/ctxlab/engine/fragment"
	"github.com/ctxlab/ctxlab/predicates"
)

// File is a loaded, validated context file.
type File struct {
	// Path is the file as given; Dir is the folder relative paths resolve against.
	Path string
	Dir  string

	Version              int
	Renderer             string // xml, markdown, toml or toon
	GroupFragments       bool
	ExplainReminders     bool
	ReminderBudgetTokens int

	Model        ModelDefaults
	System       []fragment.Fragment
	Skills       []fragment.Skill
	SkillIndex   *predicates.Classifier // nil without a skills folder
	Classifiers  map[string]*predicates.Classifier
	Modes        []Mode
	Instructions []Instruction
	Reminders    []Reminder
	Tools        []Tool

	// sources are the paths the file was loaded from (see Sources).
	sources []string
	// digest sums up what they held (see Digest).
	digest string
}

// Digest sums up the context file as it was loaded: the SHA-256, in lower-case hex
// (chat.ContextDigestLen digits), of its
// bytes and of what was read of each file it names (the bytes of a `file:` fragment, the
// front matter of each SKILL.md of the skills folder, which is all ctxlab reads of it),
// each under its path as the context file writes it. Two loads give the same digest
// exactly when they read the same bytes: whatever the directory ctxlab runs in, wherever
// the context file's folder is moved, and whatever the context file is named. It is
// computed once, while the file loads; a turn records the digest of the file it was sent
// with (chat.Turn.ContextDigest). A File not made by Load or Parse (a plain chat, with no
// context file) has none: "".
func (f *File) Digest() string { return f.digest }

// Sources returns the paths the file was loaded from: the context file itself, then each
// file a `file:` fragment read, the skills folder and each SKILL.md in it, in the order
// they were read (relative paths resolved against Dir). A watcher of the context file
// watches these. A File not made by Load or Parse has none.
func (f *File) Sources() []string { return append([]string(nil), f.sources...) }

// ModelDefaults are the context file's `model:` block; flags, environment and the config
// file override them.
type ModelDefaults struct {
	Name        string
	Temperature *float64
	TopP        *float64
	MaxTokens   int
	Seed        *int
}

// Mode is an instruction scope, active while its condition holds.
type Mode struct {
	Name string
	If   predicates.Predicate
}

// Instruction kinds.
const (
	KindMust   = "must"
	KindNever  = "never"
	KindShould = "should"
)

// Instruction is a rule rendered into the system prompt's instructions block.
type Instruction struct {
	ID      string
	Kind    string // must, never or should
	Mode    string // "" for a global instruction
	Prompt  string
	When    []string               // model-judged conditions; "!…" are exclusions
	If      []predicates.Predicate // code-checked conditions, all must hold
	Enabled bool
}

// Placements of a reminder.
const (
	PlaceInline   = "inline"
	PlacePart     = "part"
	PlaceSystem   = "system"
	PlaceRunStart = "run-start"
)

// Tiers of a reminder.
const (
	TierSafety   = "safety"
	TierGuidance = "guidance"
)

// Builtin reminder names.
const (
	BuiltinDate   = "date"
	BuiltinTime   = "time"
	BuiltinMonth  = "month"
	BuiltinYear   = "year"
	BuiltinSeason = "season"
	BuiltinLocale = "locale"
	BuiltinSkills = "skills"
)

// Reminder is a conditional text injected into the turn.
type Reminder struct {
	ID string
	// Exactly one source of text: Text (static, also the rendered `fragment:`), Template,
	// or Builtin.
	Text     string
	Template *template.Template
	Builtin  string

	// Builtin options.
	TZ        string  // date, time, month, year, season: fixed zone
	Southern  bool    // season: southern hemisphere
	TopN      int     // skills
	Threshold float64 // skills

	When            predicates.Predicate // nil: every turn
	Placement       string
	Tier            string
	MaxPerChat      int
	MinTurnsBetween int
	Enabled         bool
}

// Tool is a tool offered to the model, answered with a canned result or error.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema, keys in file order
	Result      string
	Error       string
	IsError     bool
}

// Tool returns the tool named name, or nil.
func (f *File) Tool(name string) *Tool {
	for i := range f.Tools {
		if f.Tools[i].Name == name {
			return &f.Tools[i]
		}
	}
	return nil
}
