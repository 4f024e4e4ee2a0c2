package predicates

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // the zone database, for machines without /usr/share/zoneinfo

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/engine/diag"
)

//go:generate go run ./internal/zonelist zones.txt

// zoneList holds the names of the zone database time/tzdata embeds, one a line.
//
//go:embed zones.txt
var zoneList string

// zoneNames returns the known zone names, for "did you mean".
var zoneNames = sync.OnceValue(func() []string { return strings.Fields(zoneList) })

// zones caches the locations loaded by name.
var zones sync.Map

// LoadZone returns the location of an IANA zone name ("" and "UTC" are UTC). "Local" is
// refused: a context file must not depend on the machine. Errors wrap ErrUnknownZone.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if v, ok := zones.Load(name); ok {
		return v.(*time.Location), nil
	}
	if name == "Local" {
		return nil, fmt.Errorf("%w %q (name an IANA zone: the machine's own is not portable)", ErrUnknownZone, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%w %q%s", ErrUnknownZone, name, diag.DidYouMeanNearest(name, zoneNames()))
	}
	zones.Store(name, loc)
	return loc, nil
}

// localeZone returns the time zone of a message's locale, or "".
func localeZone(m *chat.Message) string {
	if m == nil || m.Locale == nil {
		return ""
	}
	return m.Locale.TimeZone
}

// ZoneFor returns the zone of the temporal predicates and builtins: tz if given, else the
// zone of the current user message's locale, else the previous user message's, else UTC.
// The first zone found is used: an unknown one is an error (wrapping ErrUnknownZone), not a
// reason to fall back.
func ZoneFor(tz string, c *WhenContext) (*time.Location, error) {
	if tz == "" && c != nil {
		tz = localeZone(c.CurrentMessage)
		if tz == "" {
			tz = localeZone(c.LastMessage)
		}
	}
	return LoadZone(tz)
}

// SeasonOf returns the meteorological season of t (in t's location) and its season-year:
// December belongs to the winter (summer in the south) of the next year, so December and
// the following January are the same season. Names: Winter, Spring, Summer, Fall.
func SeasonOf(t time.Time, southern bool) (name string, seasonYear int) {
	y, m, _ := t.Date()
	if m == time.December {
		y++
	}
	q := int(m) % 12 / 3 // 0 Dec-Feb, 1 Mar-May, 2 Jun-Aug, 3 Sep-Nov
	if southern {
		q = (q + 2) % 4
	}
	return [...]string{"Winter", "Spring", "Summer", "Fall"}[q], y
}

// Calendar buckets of the *Changed predicates.
type bucket int

const (
	bucketDay bucket = iota
	bucketHour
	bucketWeek
	bucketMonth
	bucketYear
	bucketSeason
)

var bucketNames = [...]string{"day", "hour", "week", "month", "year", "season"}

// key returns the bucket of t, as text.
func (b bucket) key(t time.Time, southern bool) string {
	switch b {
	case bucketDay:
		return t.Format("2006-01-02")
	case bucketHour:
		return t.Format("2006-01-02T15")
	case bucketWeek:
		y, w := t.ISOWeek()
		ws := strconv.Itoa(w)
		if w < 10 {
			ws = "0" + ws
		}
		return strconv.Itoa(y) + "-W" + ws
	case bucketMonth:
		return t.Format("2006-01")
	case bucketYear:
		return strconv.Itoa(t.Year())
	default:
		name, y := SeasonOf(t, southern)
		return name + " " + strconv.Itoa(y)
	}
}

type changed struct {
	b        bucket
	tz       string
	loc      *time.Location // nil: ZoneFor at run time
	southern bool
	expr     string
}

func newChanged(b bucket, tz string, southern bool) Predicate {
	fn := bucketNames[b] + "Changed"
	var args []string
	if southern {
		args = append(args, "hemisphere='south'")
	}
	if tz != "" {
		args = append(args, "tz="+quote(tz))
	}
	expr := fn + "(" + joinStrings(args) + ")"
	p := &changed{b: b, tz: tz, southern: southern, expr: expr}
	if tz != "" {
		loc, err := LoadZone(tz)
		if err != nil {
			return newInvalid(expr, fn+": "+err.Error())
		}
		p.loc = loc
	}
	return p
}

// joinStrings joins with ", ".
func joinStrings(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// DayChanged fires when now and the previous user message fall on different days
// (Y-M-D) in the zone (see ZoneFor); always on turn 1. An unknown tz makes it invalid.
func DayChanged(tz string) Predicate { return newChanged(bucketDay, tz, false) }

// HourChanged is DayChanged for hours (Y-M-D-H, 24-hour clock).
func HourChanged(tz string) Predicate { return newChanged(bucketHour, tz, false) }

// WeekChanged is DayChanged for ISO weeks (ISO week-year and week number).
func WeekChanged(tz string) Predicate { return newChanged(bucketWeek, tz, false) }

// MonthChanged is DayChanged for months (Y-M).
func MonthChanged(tz string) Predicate { return newChanged(bucketMonth, tz, false) }

// YearChanged is DayChanged for years.
func YearChanged(tz string) Predicate { return newChanged(bucketYear, tz, false) }

// SeasonChanged is DayChanged for meteorological seasons with their season-year (see
// SeasonOf); southern swaps the names for the southern hemisphere.
func SeasonChanged(tz string, southern bool) Predicate {
	return newChanged(bucketSeason, tz, southern)
}

func (p *changed) String() string { return p.expr }

func (p *changed) Eval(c *WhenContext) Result {
	if c == nil || c.LastMessageAt == nil {
		return leaf(p.expr, true, "no previous user message")
	}
	loc := p.loc
	if loc == nil {
		var err error
		if loc, err = ZoneFor("", c); err != nil {
			return Result{Expr: p.expr, Why: "cannot resolve the time zone", Error: err.Error()}
		}
	}
	now := p.b.key(c.Now.In(loc), p.southern)
	prev := p.b.key(c.LastMessageAt.In(loc), p.southern)
	zone := loc.String()
	if p.b == bucketSeason {
		if p.southern {
			zone += ", south"
		} else {
			zone += ", north"
		}
	}
	name := bucketNames[p.b]
	if now != prev {
		return leaf(p.expr, true, name+" "+now+" != "+prev+" ("+zone+")")
	}
	return leaf(p.expr, false, name+" "+now+" == "+prev+" ("+zone+")")
}
