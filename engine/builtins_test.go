package engine

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// bturn is one turn of a builtin scenario and what the builtin decides on it: its text
// when it fires, or its reason.
type bturn struct {
	at     time.Time
	locale *chat.Locale
	text   string // the user message ("hello" when empty)
	want   string // the reminder text, or "-" + reason when it does not fire
}

func utc(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, time.UTC)
}

func TestBuiltins(t *testing.T) {
	tokyo := &chat.Locale{Language: "Japanese", TimeZone: "Asia/Tokyo"}
	london := &chat.Locale{Language: "English", TimeZone: "Europe/London"}
	tests := []struct {
		name  string
		src   string
		id    string
		turns []bturn
	}{
		{name: "date", src: `reminders: [{builtin: date}]`, id: "builtin:date", turns: []bturn{
			{at: t0, want: "Date: 2026-03-27\nDay of Week: Friday"},
			{at: utc(2026, 3, 27, 23, 59), want: "-predicate_false"},
			{at: utc(2026, 3, 28, 0, 1), want: "date: 2026-03-27 -> 2026-03-28\nday of week: Friday -> Saturday\n\nDate: 2026-03-28\nDay of Week: Saturday"},
			{at: utc(2026, 4, 4, 9, 0), want: "date: 2026-03-28 -> 2026-04-04\n\nDate: 2026-04-04\nDay of Week: Saturday"},
		}},
		{name: "date in tz", src: `reminders: [{builtin: date, tz: Asia/Tokyo}]`, id: "builtin:date", turns: []bturn{
			{at: t0, want: "Date: 2026-03-27\nDay of Week: Friday"}, // 23:30 in Tokyo
			{at: utc(2026, 3, 27, 15, 30), want: "date: 2026-03-27 -> 2026-03-28\nday of week: Friday -> Saturday\n\nDate: 2026-03-28\nDay of Week: Saturday"},
			{at: utc(2026, 3, 27, 23, 0), want: "-predicate_false"},
		}},
		{name: "time, 24-hour, 00 after midnight", src: `reminders: [{builtin: time}]`, id: "builtin:time", turns: []bturn{
			{at: t0, want: "Time: 14:30:00"},
			{at: utc(2026, 3, 27, 14, 59), want: "-predicate_false"},
			// OLD is the previous user message's time, not the last time the builtin fired.
			{at: utc(2026, 3, 27, 23, 45), want: "time: 14:59:00 -> 23:45:00\n\nTime: 23:45:00"},
			{at: utc(2026, 3, 28, 0, 5), want: "time: 23:45:00 -> 00:05:00\n\nTime: 00:05:00"},
		}},
		{name: "time zone from the user's locale", src: `reminders: [{builtin: time}]`, id: "builtin:time", turns: []bturn{
			{at: t0, locale: tokyo, want: "Time: 23:30:00"},
			// No locale now: the previous user message's zone.
			{at: utc(2026, 3, 27, 15, 45), want: "time: 23:30:00 -> 00:45:00\n\nTime: 00:45:00"},
		}},
		{name: "tz wins over the locale", src: `reminders: [{builtin: time, tz: UTC}]`, id: "builtin:time", turns: []bturn{
			{at: t0, locale: tokyo, want: "Time: 14:30:00"},
		}},
		{name: "zone from the current locale first", src: `reminders: [{builtin: time}]`, id: "builtin:time", turns: []bturn{
			{at: t0, locale: tokyo, want: "Time: 23:30:00"},
			{at: utc(2026, 3, 27, 16, 0), locale: london, want: "time: 14:30:00 -> 16:00:00\n\nTime: 16:00:00"},
		}},
		{name: "month", src: `reminders: [{builtin: month}]`, id: "builtin:month", turns: []bturn{
			{at: t0, want: "Month: March"},
			{at: utc(2026, 3, 31, 23, 0), want: "-predicate_false"},
			{at: utc(2026, 4, 1, 0, 0), want: "month: March -> April\n\nMonth: April"},
		}},
		{name: "year", src: `reminders: [{builtin: year}]`, id: "builtin:year", turns: []bturn{
			{at: t0, want: "Year: 2026"},
			{at: utc(2026, 12, 31, 23, 59), want: "-predicate_false"},
			{at: utc(2027, 1, 1, 0, 0), want: "year: 2026 -> 2027\n\nYear: 2027"},
		}},
		{name: "season", src: `reminders: [{builtin: season}]`, id: "builtin:season", turns: []bturn{
			{at: utc(2026, 2, 28, 12, 0), want: "Season: Winter"},
			{at: utc(2026, 3, 1, 12, 0), want: "season: Winter -> Spring\n\nSeason: Spring"},
			{at: utc(2026, 6, 1, 12, 0), want: "season: Spring -> Summer\n\nSeason: Summer"},
			{at: utc(2026, 9, 1, 12, 0), want: "season: Summer -> Fall\n\nSeason: Fall"},
			{at: utc(2026, 12, 1, 12, 0), want: "season: Fall -> Winter\n\nSeason: Winter"},
			{at: utc(2027, 1, 15, 12, 0), want: "-predicate_false"}, // December and January: the same winter
		}},
		{name: "season south", src: `reminders: [{builtin: season, hemisphere: south}]`, id: "builtin:season", turns: []bturn{
			{at: utc(2026, 1, 10, 12, 0), want: "Season: Summer"},
			{at: utc(2026, 3, 10, 12, 0), want: "season: Summer -> Fall\n\nSeason: Fall"},
			{at: utc(2026, 7, 10, 12, 0), want: "season: Fall -> Winter\n\nSeason: Winter"},
			{at: utc(2026, 10, 10, 12, 0), want: "season: Winter -> Spring\n\nSeason: Spring"},
		}},
		{name: "locale", src: `reminders: [{builtin: locale}]`, id: "builtin:locale", turns: []bturn{
			{at: t0, want: "-predicate_false"},
			{at: at(2), locale: tokyo, want: "Language: Japanese\nTimezone: Asia/Tokyo"},
			{at: at(3), locale: tokyo, want: "-predicate_false"},
			{at: at(4), locale: london, want: "language: Japanese -> English\ntimezone: Asia/Tokyo -> Europe/London\n\nLanguage: English\nTimezone: Europe/London"},
			{at: at(5), locale: &chat.Locale{Language: "French", TimeZone: "Europe/London"}, want: "language: English -> French\n\nLanguage: French\nTimezone: Europe/London"},
			{at: at(6), want: "-predicate_false"},
		}},
		{name: "locale on turn 1", src: `reminders: [{builtin: locale}]`, id: "builtin:locale", turns: []bturn{
			{at: t0, locale: &chat.Locale{TimeZone: "Asia/Tokyo"}, want: "Timezone: Asia/Tokyo"},
		}},
		{name: "skills", src: "system: [{skills: ./skills}]\nreminders: [{builtin: skills}]", id: "builtin:skills", turns: []bturn{
			{at: t0, text: "the deploy of the release failed", want: "Relevant skills:\n- deploy (3.42): Deploy a release to production with the rollout checklist. [skills/deploy/SKILL.md]"},
			{at: at(2), text: "good morning", want: "-predicate_false"},
			{at: at(3), text: "chart the sql query results", want: "Relevant skills:\n" +
				"- charts (3.03): Draw charts and plots of query results. [skills/charts/SKILL.md]\n" +
				"- sql (1.98): Write and debug read-only SQL queries against the warehouse. [skills/sql/SKILL.md]"},
		}},
		{name: "skills top_n", src: "system: [{skills: ./skills}]\nreminders: [{builtin: skills, top_n: 1}]", id: "builtin:skills", turns: []bturn{
			{at: t0, text: "chart the sql query results", want: "Relevant skills:\n- charts (3.03): Draw charts and plots of query results. [skills/charts/SKILL.md]"},
		}},
		{name: "skills threshold", src: "system: [{skills: ./skills}]\nreminders: [{builtin: skills, threshold: 2}]", id: "builtin:skills", turns: []bturn{
			{at: t0, text: "chart the sql query results", want: "Relevant skills:\n- charts (3.03): Draw charts and plots of query results. [skills/charts/SKILL.md]"},
			{at: at(2), text: "sql", want: "-predicate_false"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.src)
			for i, bt := range tc.turns {
				text := bt.text
				if text == "" {
					text = "hello"
				}
				res := h.sendIn(UserInput{Text: text, At: bt.at, Locale: bt.locale}, &Scripted{Text: "ok"})
				d := decision(t, res.Plan.Decisions, tc.id)
				got := d.Text
				if !d.Fired {
					got = "-" + d.Reason
				}
				if got != bt.want {
					t.Errorf("turn %d: got %q, want %q (%s)", i+1, got, bt.want, summary(d))
				}
				if d.Fired && !strings.HasSuffix(res.Plan.User.Parts[0].Text, tag(bt.want)) {
					t.Errorf("turn %d: got user %q, want the builtin injected", i+1, res.Plan.User.Parts[0].Text)
				}
				if d.Trace == nil || d.Trace.Why == "" || d.Trace.Value != d.Fired {
					t.Errorf("turn %d: got trace %+v, want a node with a why and value %v", i+1, d.Trace, d.Fired)
				}
			}
		})
	}
}

// TestTemporalIsFiveReminders checks that builtin: temporal is five reminders, each its
// own block, in order, sharing tz and hemisphere.
func TestTemporalIsFiveReminders(t *testing.T) {
	h := newHarness(t, `reminders: [{builtin: temporal, tz: Australia/Sydney, hemisphere: south, placement: part}]`)
	res := h.send("hello", t0) // 2026-03-28 01:30 in Sydney (UTC+11)
	want := []string{"hello",
		tag("Date: 2026-03-28\nDay of Week: Saturday"),
		tag("Time: 01:30:00"),
		tag("Month: March"),
		tag("Year: 2026"),
		tag("Season: Fall"),
	}
	var got []string
	for _, p := range res.Plan.User.Parts {
		got = append(got, p.Text)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got parts %q, want %q", got, want)
	}
	if ids := firedIDs(res.Plan.Decisions); !reflect.DeepEqual(ids, []string{"builtin:date", "builtin:time", "builtin:month", "builtin:year", "builtin:season"}) {
		t.Errorf("got fired %v", ids)
	}
	// An hour later only the time changed.
	res2 := h.send("again", t0.Add(time.Hour))
	if ids := firedIDs(res2.Plan.Decisions); !reflect.DeepEqual(ids, []string{"builtin:time"}) {
		t.Errorf("got fired %v, want only builtin:time", ids)
	}
}

// TestCalendarBuiltinUnchangedField checks a builtin whose bucket changed while its shown
// value did not (the same month a year later, the same clock time a day later): the text is
// the current value, without an empty list of changes before it.
func TestCalendarBuiltinUnchangedField(t *testing.T) {
	tests := []struct {
		src    string
		id     string
		first  time.Time
		second time.Time
		want   string
	}{
		{src: `reminders: [{builtin: month}]`, id: "builtin:month", first: t0, second: t0.AddDate(1, 0, 0), want: "Month: March"},
		{src: `reminders: [{builtin: time}]`, id: "builtin:time", first: t0, second: t0.AddDate(0, 0, 1), want: "Time: 14:30:00"},
		{src: `reminders: [{builtin: season}]`, id: "builtin:season", first: t0, second: t0.AddDate(1, 0, 0), want: "Season: Spring"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			h := newHarness(t, tc.src)
			h.send("a", tc.first)
			d := decision(t, h.send("b", tc.second).Plan.Decisions, tc.id)
			if !d.Fired || d.Text != tc.want {
				t.Errorf("got %s %q, want fired %q", summary(d), d.Text, tc.want)
			}
		})
	}
}
