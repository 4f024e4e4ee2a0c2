package ctxfile

import (
	"fmt"
	"github.com/ctxlab/ctxlab/predicates"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/fragment"
	"github.com/ctxlab/ctxlab/engine/yamlx"
)

// TemplateData is what a reminder `template:` sees: the WhenContext of the turn.
type TemplateData struct {
	Turn          int
	Content       string
	Branch        string
	MessageCount  int
	Elapsed       *time.Duration // nil on turn 1
	LastMessageAt *time.Time     // nil on turn 1
	Usage         chat.Usage
	Now           time.Time
}

var reminderKeys = []string{
	"id", "text", "fragment", "template", "builtin", "tz", "hemisphere", "top_n", "threshold",
	"when", "placement", "tier", "max_per_chat", "min_turns_between", "enabled",
}

var builtins = []string{
	BuiltinDate, BuiltinTime, BuiltinMonth, BuiltinYear, BuiltinSeason, BuiltinLocale, "temporal", BuiltinSkills,
}

// temporalBuiltins are what `builtin: temporal` expands to, in order.
var temporalBuiltins = []string{BuiltinDate, BuiltinTime, BuiltinMonth, BuiltinYear, BuiltinSeason}

var placements = []string{PlaceInline, PlacePart, PlaceSystem, PlaceRunStart}

func (l *loader) reminders(n *yaml.Node) {
	items, ok := l.r.Sequence(n, "reminders")
	if !ok {
		return
	}
	seen := make(map[string]int, len(items))
	l.f.Reminders = slices.Grow(l.f.Reminders, len(items))
	for _, it := range items {
		fs, ok := l.r.Fields(it, "reminder", reminderKeys...)
		if !ok && fs.Node == nil {
			continue
		}
		base := Reminder{Placement: PlaceInline, Tier: TierGuidance, Enabled: true}
		l.policy(fs, &base)
		var sources []yamlx.Field
		for _, e := range fs.List {
			if contains([]string{"text", "fragment", "template", "builtin"}, e.Key.Value) && !yamlx.IsNull(e.Value) {
				sources = append(sources, e)
			}
		}
		switch len(sources) {
		case 0:
			l.r.Errorf(it, "a reminder needs one of text, fragment, template or builtin")
			continue
		case 1:
		default:
			l.r.Errorf(sources[1].Key, "a reminder takes one of text, fragment, template or builtin, found %s and %s",
				sources[0].Key.Value, sources[1].Key.Value)
			continue
		}
		if b := fs.Get("builtin"); b != nil {
			for _, r := range l.builtin(fs, b, base) {
				if line, dup := seen[r.ID]; dup {
					l.r.Errorf(b, "duplicate reminder id %q (first at line %d)", r.ID, line)
				} else {
					seen[r.ID] = b.Line
				}
				l.f.Reminders = append(l.f.Reminders, r)
			}
			continue
		}
		for _, k := range []string{"tz", "hemisphere", "top_n", "threshold"} {
			if v := fs.Get(k); v != nil {
				l.r.Errorf(v, "%s only applies to builtin reminders", k)
			}
		}
		r := base
		r.ID = l.id(fs, it, "reminder", seen)
		switch {
		case fs.Has("text"):
			v := fs.Get("text")
			if s, ok := l.r.String(v, "text"); ok {
				if strings.TrimSpace(s) == "" {
					l.r.Errorf(v, "reminder %q has empty text", r.ID)
				}
				r.Text = s
			}
		case fs.Has("fragment"):
			r.Text = l.fragmentText(fs.Get("fragment"))
		case fs.Has("template"):
			r.Template = l.template(fs.Get("template"), r.ID)
		}
		l.f.Reminders = append(l.f.Reminders, r)
	}
}

// policy reads the keys every reminder shares: when, placement, tier, caps, enabled.
func (l *loader) policy(fs yamlx.Fields, r *Reminder) {
	if v := fs.Get("when"); v != nil {
		r.When = l.expr(v, "when")
	}
	if v := fs.Get("placement"); v != nil {
		if s, ok := l.r.String(v, "placement"); ok {
			if !contains(placements, s) {
				l.r.Errorf(v, "unknown placement %q; use inline, part, system or run-start%s", s, diag.DidYouMean(s, placements))
			}
			r.Placement = s
		}
	}
	if v := fs.Get("tier"); v != nil {
		if s, ok := l.r.String(v, "tier"); ok {
			if s != TierSafety && s != TierGuidance {
				l.r.Errorf(v, "unknown tier %q; use safety or guidance%s", s, diag.DidYouMean(s, []string{TierSafety, TierGuidance}))
			}
			r.Tier = s
		}
	}
	if v := fs.Get("max_per_chat"); v != nil {
		if n, ok := l.r.Int(v, "max_per_chat"); ok {
			if n < 0 {
				l.r.Errorf(v, "max_per_chat must be 0 (unlimited) or more, found %d", n)
			}
			r.MaxPerChat = n
		}
	}
	if v := fs.Get("min_turns_between"); v != nil {
		if n, ok := l.r.Int(v, "min_turns_between"); ok {
			switch {
			case n < 0:
				l.r.Errorf(v, "min_turns_between must be 0 (no spacing) or at least 2, found %d", n)
			case n == 1:
				l.r.Errorf(v, "min_turns_between: 1 is meaningless (a reminder can fire at most once a turn anyway); use 0 or at least 2")
			}
			r.MinTurnsBetween = n
		}
	}
	if v := fs.Get("enabled"); v != nil {
		r.Enabled, _ = l.r.Bool(v, "enabled")
	}
}

// builtin expands a `builtin:` reminder (temporal is five reminders).
func (l *loader) builtin(fs yamlx.Fields, b *yaml.Node, base Reminder) []Reminder {
	name, ok := l.r.String(b, "builtin")
	if !ok {
		return nil
	}
	if !contains(builtins, name) {
		l.r.Errorf(b, "unknown builtin %q; use one of %s%s", name, strings.Join(builtins, ", "), diag.DidYouMean(name, builtins))
		return nil
	}
	if v := fs.Get("id"); v != nil {
		l.r.Errorf(v, "builtin reminders are named builtin:%s; id is not allowed", name)
	}
	allowed := map[string][]string{
		BuiltinDate: {"tz"}, BuiltinTime: {"tz"}, BuiltinMonth: {"tz"}, BuiltinYear: {"tz"},
		BuiltinSeason: {"tz", "hemisphere"}, "temporal": {"tz", "hemisphere"},
		BuiltinLocale: {}, BuiltinSkills: {"top_n", "threshold"},
	}[name]
	for _, k := range []string{"tz", "hemisphere", "top_n", "threshold"} {
		if v := fs.Get(k); v != nil && !contains(allowed, k) {
			l.r.Errorf(v, "%s does not apply to builtin: %s", k, name)
		}
	}
	r := base
	r.Builtin = name
	r.TopN = 5
	if v := fs.Get("tz"); v != nil {
		if s, ok := l.r.String(v, "tz"); ok {
			if _, err := predicates.LoadZone(s); err != nil {
				l.r.Errorf(v, "%v", err)
			} else if s == "" {
				l.r.Errorf(v, "unknown time zone %q", s)
			}
			r.TZ = s
		}
	}
	if v := fs.Get("hemisphere"); v != nil {
		if s, ok := l.r.String(v, "hemisphere"); ok {
			if s != "north" && s != "south" {
				l.r.Errorf(v, "hemisphere must be north or south, found %q", s)
			}
			r.Southern = s == "south"
		}
	}
	if v := fs.Get("top_n"); v != nil {
		if n, ok := l.r.Int(v, "top_n"); ok {
			if n < 1 {
				l.r.Errorf(v, "top_n must be at least 1, found %d", n)
			}
			r.TopN = n
		}
	}
	if v := fs.Get("threshold"); v != nil {
		r.Threshold, _ = l.r.Float(v, "threshold")
	}
	if name == BuiltinSkills && l.f.SkillIndex == nil {
		l.r.Errorf(b, "builtin: skills needs a skills folder in system (- skills: ./skills)")
	}
	names := []string{name}
	if name == "temporal" {
		names = temporalBuiltins
	}
	out := make([]Reminder, len(names))
	for i, n := range names {
		out[i] = r
		out[i].Builtin = n
		out[i].ID = "builtin:" + n
	}
	return out
}

// fragmentText renders a reminder's `fragment:` once, with the XML renderer.
func (l *loader) fragmentText(n *yaml.Node) string {
	frag, err := fragment.Decode(n, l.decodeOptions())
	if err != nil {
		l.addErr(err)
		return ""
	}
	text, err := fragment.Render([]fragment.Fragment{frag}, "xml", fragment.Options{})
	if err != nil {
		l.r.Errorf(n, "fragment: %v", err)
		return ""
	}
	if strings.TrimSpace(text) == "" {
		l.r.Errorf(n, "fragment renders to empty text")
	}
	return text
}

// template parses a reminder template and executes it once on sample data, so unknown
// fields are load errors, not surprises on turn 12. An index out of range on the sample
// data is not an error: the real data may be longer.
func (l *loader) template(n *yaml.Node, id string) *template.Template {
	src, ok := l.r.String(n, "template")
	if !ok {
		return nil
	}
	t, err := template.New(id).Option("missingkey=error").Parse(src)
	if err == nil {
		err = t.Execute(&limitedWriter{n: maxTemplateOutput}, sampleTemplateData())
		if err != nil && strings.Contains(err.Error(), "out of range") {
			err = nil
		}
	}
	if err == nil {
		return t
	}
	line, col, msg := l.templateError(n, src, id, err.Error())
	l.r.Errs = append(l.r.Errs, diag.Errorf(l.r.File, line, col, "template: %s", msg))
	return nil
}

// maxTemplateOutput bounds what the sample execution of a template may write.
const maxTemplateOutput = 64 << 10

// limitedWriter fails once more than n bytes are written.
type limitedWriter struct{ n int }

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, fmt.Errorf("renders more than %d KiB", maxTemplateOutput>>10)
	}
	return len(p), nil
}

var (
	tmplPosRE   = regexp.MustCompile(`^(\d+)(?::(\d+))?: (.*)$`)
	tmplExecRE  = regexp.MustCompile(`^executing "(?s:.*?)" at <(.*?)>: (.*)$`)
	tmplFieldRE = regexp.MustCompile(`^can't evaluate field (\w+) in type ctxfile\.TemplateData$`)
	tmplFuncRE  = regexp.MustCompile(`^function "(\w+)" not defined$`)
)

// templateError turns a text/template error ("template: ID:LINE[:COL]: …", the column
// 0-based in bytes, given for execution errors only) into a position in the file and a
// message without the template's name.
func (l *loader) templateError(n *yaml.Node, src, id, msg string) (line, col int, text string) {
	rest, ok := strings.CutPrefix(msg, "template: "+id+":")
	m := tmplPosRE.FindStringSubmatch(rest)
	if !ok || m == nil {
		return n.Line, n.Column, strings.TrimPrefix(msg, "template: ")
	}
	tl, _ := strconv.Atoi(m[1])
	off := templateOffset(src, tl, -1)
	text = m[3]
	if m[2] != "" {
		tc, _ := strconv.Atoi(m[2])
		off = templateOffset(src, tl, tc)
	}
	if e := tmplExecRE.FindStringSubmatch(text); e != nil {
		text = "at <" + e[1] + ">: " + e[2]
		if f := tmplFieldRE.FindStringSubmatch(e[2]); f != nil {
			text = "unknown field ." + f[1] + fieldHint(f[1])
		}
	}
	if f := tmplFuncRE.FindStringSubmatch(text); f != nil {
		// Parse errors give only the line: find the name on it.
		off = findOnLine(src, off, f[1], false)
	}
	if text == "unexpected EOF" {
		off = len(src)
	}
	if text == "unclosed action" {
		off = findOnLine(src, off, "{{", true)
	}
	line, col = yamlx.ValuePosition(l.data, n, off)
	return line, col, text
}

// fieldHint suggests the nearest fields of TemplateData, or lists them all.
func fieldHint(name string) string {
	t := reflect.TypeFor[TemplateData]()
	fields := make([]string, t.NumField())
	for i := range fields {
		fields[i] = "." + t.Field(i).Name
	}
	if s := diag.DidYouMean("."+name, fields); s != "" {
		return s
	}
	return " (fields: " + strings.Join(fields, ", ") + ")"
}

// findOnLine returns the offset of the first (or last) s on the line of src that starts
// at offset start, or start when it is not there.
func findOnLine(src string, start int, s string, last bool) int {
	end := len(src)
	if j := strings.IndexByte(src[start:], '\n'); j >= 0 {
		end = start + j
	}
	i := strings.Index(src[start:end], s)
	if last {
		i = strings.LastIndex(src[start:end], s)
	}
	if i < 0 {
		return start
	}
	return start + i
}

// templateOffset converts a template's line (1-based) and byte column (0-based; -1 when
// unknown) into a byte offset into src.
func templateOffset(src string, line, col int) int {
	off := 0
	for i := 1; i < line; i++ {
		j := strings.IndexByte(src[off:], '\n')
		if j < 0 {
			break
		}
		off += j + 1
	}
	if col > 0 {
		off += col
	}
	return min(off, len(src))
}

func sampleTemplateData() TemplateData {
	d := time.Hour
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	last := now.Add(-d)
	return TemplateData{Turn: 2, Content: "sample", Branch: "main", MessageCount: 3, Elapsed: &d, LastMessageAt: &last, Now: now}
}
