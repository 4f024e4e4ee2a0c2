package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/predicates"
)

// builtinText computes what a builtin reminder says this turn: its text ("" when it has
// nothing to say) and a trace node explaining why.
func (t *turnEval) builtinText(r *ctxfile.Reminder) (string, predicates.Result) {
	expr := "builtin:" + r.Builtin
	switch r.Builtin {
	case ctxfile.BuiltinLocale:
		return localeText(t.wc, expr)
	case ctxfile.BuiltinSkills:
		return t.skillsText(r, expr)
	}
	loc, err := predicates.ZoneFor(r.TZ, t.wc)
	if err != nil {
		return "", predicates.Result{Expr: expr, Why: "cannot resolve the time zone", Error: err.Error()}
	}
	now := t.wc.Now.In(loc)
	var fields []calField
	var key func(time.Time) string
	switch r.Builtin {
	case ctxfile.BuiltinDate:
		key = func(x time.Time) string { return x.Format("2006-01-02") }
		fields = []calField{{name: "Date"}, {name: "Day of Week"}}
		fill := func(x time.Time) [2]string { return [2]string{x.Format("2006-01-02"), x.Weekday().String()} }
		c := fill(now)
		fields[0].cur, fields[1].cur = c[0], c[1]
		if t.wc.LastMessageAt != nil {
			p := fill(t.wc.LastMessageAt.In(loc))
			fields[0].prev, fields[1].prev = p[0], p[1]
		}
	case ctxfile.BuiltinTime:
		key = func(x time.Time) string { return x.Format("2006-01-02T15") }
		fields = []calField{{name: "Time", cur: now.Format("15:04:05")}}
		if t.wc.LastMessageAt != nil {
			fields[0].prev = t.wc.LastMessageAt.In(loc).Format("15:04:05")
		}
	case ctxfile.BuiltinMonth:
		key = func(x time.Time) string { return x.Format("2006-01") }
		fields = []calField{{name: "Month", cur: now.Month().String()}}
		if t.wc.LastMessageAt != nil {
			fields[0].prev = t.wc.LastMessageAt.In(loc).Month().String()
		}
	case ctxfile.BuiltinYear:
		key = func(x time.Time) string { return x.Format("2006") }
		fields = []calField{{name: "Year", cur: now.Format("2006")}}
		if t.wc.LastMessageAt != nil {
			fields[0].prev = t.wc.LastMessageAt.In(loc).Format("2006")
		}
	case ctxfile.BuiltinSeason:
		key = func(x time.Time) string {
			name, year := predicates.SeasonOf(x, r.Southern)
			return fmt.Sprintf("%s %d", name, year)
		}
		cur, _ := predicates.SeasonOf(now, r.Southern)
		fields = []calField{{name: "Season", cur: cur}}
		if t.wc.LastMessageAt != nil {
			fields[0].prev, _ = predicates.SeasonOf(t.wc.LastMessageAt.In(loc), r.Southern)
		}
	default:
		return "", predicates.Result{Expr: expr, Error: "unknown builtin " + r.Builtin}
	}
	zone := loc.String()
	if t.wc.LastMessageAt == nil {
		res := predicates.Result{Expr: expr, Value: true, Why: fmt.Sprintf("turn 1: %s %s (%s)", strings.ToLower(fields[0].name), fields[0].cur, zone)}
		return currentLines(fields), res
	}
	before, after := key(t.wc.LastMessageAt.In(loc)), key(now)
	if before == after {
		return "", predicates.Result{Expr: expr, Why: fmt.Sprintf("%s unchanged: %s (%s)", r.Builtin, after, zone)}
	}
	var b strings.Builder
	for _, f := range fields {
		if f.prev != f.cur {
			fmt.Fprintf(&b, "%s: %s -> %s\n", strings.ToLower(f.name), f.prev, f.cur)
		}
	}
	if b.Len() > 0 { // the bucket can change while the value shown does not (March 2026 -> March 2027)
		b.WriteString("\n")
	}
	b.WriteString(currentLines(fields))
	res := predicates.Result{Expr: expr, Value: true, Why: fmt.Sprintf("%s changed: %s -> %s (%s)", r.Builtin, before, after, zone)}
	return b.String(), res
}

// calField is one line of a calendar builtin: its name and its current and previous value.
type calField struct{ name, cur, prev string }

func currentLines(fields []calField) string {
	lines := make([]string, len(fields))
	for i, f := range fields {
		lines[i] = f.name + ": " + f.cur
	}
	return strings.Join(lines, "\n")
}

// localeText fires when the user message has a locale that differs from the previous user
// message's, or when there is none before.
func localeText(wc *predicates.WhenContext, expr string) (string, predicates.Result) {
	cur := wc.CurrentMessage.Locale
	if cur == nil || (cur.Language == "" && cur.TimeZone == "") {
		return "", predicates.Result{Expr: expr, Why: "the message has no locale"}
	}
	var prevLang, prevZone string
	hasPrev := false
	if wc.LastMessage != nil && wc.LastMessage.Locale != nil {
		prevLang, prevZone = wc.LastMessage.Locale.Language, wc.LastMessage.Locale.TimeZone
		hasPrev = prevLang != "" || prevZone != ""
	}
	current := func() string {
		var lines []string
		if cur.Language != "" {
			lines = append(lines, "Language: "+cur.Language)
		}
		if cur.TimeZone != "" {
			lines = append(lines, "Timezone: "+cur.TimeZone)
		}
		return strings.Join(lines, "\n")
	}
	desc := fmt.Sprintf("%s/%s", cur.Language, cur.TimeZone)
	if !hasPrev {
		return current(), predicates.Result{Expr: expr, Value: true, Why: "first locale: " + desc}
	}
	if prevLang == cur.Language && prevZone == cur.TimeZone {
		return "", predicates.Result{Expr: expr, Why: "locale unchanged: " + desc}
	}
	var b strings.Builder
	if prevLang != cur.Language {
		fmt.Fprintf(&b, "language: %s -> %s\n", orNone(prevLang), orNone(cur.Language))
	}
	if prevZone != cur.TimeZone {
		fmt.Fprintf(&b, "timezone: %s -> %s\n", orNone(prevZone), orNone(cur.TimeZone))
	}
	b.WriteString("\n")
	b.WriteString(current())
	return b.String(), predicates.Result{Expr: expr, Value: true, Why: fmt.Sprintf("locale changed: %s/%s -> %s", prevLang, prevZone, desc)}
}

// skillsText lists the skills whose BM25 score against the user message passes the
// threshold, best first.
func (t *turnEval) skillsText(r *ctxfile.Reminder, expr string) (string, predicates.Result) {
	matches := t.file.SkillIndex.Rank(t.wc.Content, r.TopN, r.Threshold)
	if len(matches) == 0 {
		return "", predicates.Result{Expr: expr, Why: fmt.Sprintf("no skill scores > %g", r.Threshold)}
	}
	var b strings.Builder
	b.WriteString("Relevant skills:")
	whys := make([]string, len(matches))
	for i, m := range matches {
		s := t.file.Skills[m.Index]
		fmt.Fprintf(&b, "\n- %s (%.2f): %s [%s]", s.Name, m.Score, s.Description, s.Path)
		whys[i] = fmt.Sprintf("%s=%.2f", s.Name, m.Score)
	}
	return b.String(), predicates.Result{Expr: expr, Value: true, Why: "bm25 " + strings.Join(whys, ", ") + fmt.Sprintf(" > %g", r.Threshold)}
}

// orNone shows an unset locale field.
func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
