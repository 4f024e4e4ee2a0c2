package predicates

import (
	"errors"
	"testing"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

func withLocale(c *WhenContext, current, last string) *WhenContext {
	if current != "" {
		c.CurrentMessage = &chat.Message{Role: chat.RoleUser, Locale: &chat.Locale{TimeZone: current}}
	}
	if last != "" {
		c.LastMessage = &chat.Message{Role: chat.RoleUser, Locale: &chat.Locale{TimeZone: last}}
	}
	return c
}

func TestTemporalPredicates(t *testing.T) {
	// 14:00Z and 15:30Z on 2026-03-27: the same day in UTC, two days in Tokyo (23:00, 00:30)
	tokyo := at("2026-03-27T15:30:00Z", "2026-03-27T14:00:00Z")
	runEval(t, []evalCase{
		{"turn 1 day", "dayChanged()", turn(1), true, "no previous user message", false},
		{"turn 1 season", "seasonChanged(hemisphere='south')", turn(1), true, "no previous user message", false},
		{"turn 1 unknown locale", "dayChanged()", withLocale(turn(1), "Mars/Base", ""), true, "", false},
		{"day utc same", "dayChanged()", tokyo, false, "day 2026-03-27 == 2026-03-27 (UTC)", false},
		{"day tokyo", "dayChanged(tz='Asia/Tokyo')", tokyo, true, "day 2026-03-28 != 2026-03-27 (Asia/Tokyo)", false},
		{"day from current locale", "dayChanged()", withLocale(at("2026-03-27T15:30:00Z", "2026-03-27T14:00:00Z"), "Asia/Tokyo", "UTC"), true, "day 2026-03-28 != 2026-03-27 (Asia/Tokyo)", false},
		{"day from last locale", "dayChanged()", withLocale(at("2026-03-27T15:30:00Z", "2026-03-27T14:00:00Z"), "", "Asia/Tokyo"), true, "day 2026-03-28 != 2026-03-27 (Asia/Tokyo)", false},
		{"tz beats locale", "dayChanged(tz='UTC')", withLocale(at("2026-03-27T15:30:00Z", "2026-03-27T14:00:00Z"), "Asia/Tokyo", ""), false, "", false},
		{"unknown zone at run time", "dayChanged()", withLocale(at("2026-03-27T15:30:00Z", "2026-03-27T14:00:00Z"), "Mars/Base", "UTC"), false, "cannot resolve the time zone", true},
		{"hour after midnight", "hourChanged()", at("2026-03-27T00:05:00Z", "2026-03-26T23:55:00Z"), true, "hour 2026-03-27T00 != 2026-03-26T23 (UTC)", false},
		{"hour same", "hourChanged()", at("2026-03-27T10:59:59Z", "2026-03-27T10:00:00Z"), false, "hour 2026-03-27T10 == 2026-03-27T10 (UTC)", false},
		{"hour next day same hour", "hourChanged()", at("2026-03-28T10:00:00Z", "2026-03-27T10:00:00Z"), true, "", false},
		{"week iso year same", "weekChanged()", at("2027-01-01T09:00:00Z", "2026-12-28T09:00:00Z"), false, "week 2026-W53 == 2026-W53 (UTC)", false},
		{"week iso year new", "weekChanged()", at("2027-01-04T09:00:00Z", "2027-01-03T09:00:00Z"), true, "week 2027-W01 != 2026-W53 (UTC)", false},
		{"month", "monthChanged()", at("2026-04-01T00:00:00Z", "2026-03-31T23:59:59Z"), true, "month 2026-04 != 2026-03 (UTC)", false},
		{"month same", "monthChanged()", at("2026-03-31T00:00:00Z", "2026-03-01T00:00:00Z"), false, "", false},
		{"year", "yearChanged()", at("2027-01-01T00:00:00Z", "2026-12-31T23:00:00Z"), true, "year 2027 != 2026 (UTC)", false},
		{"year in zone", "yearChanged(tz='America/New_York')", at("2027-01-01T02:00:00Z", "2026-12-31T23:00:00Z"), false, "year 2026 == 2026 (America/New_York)", false},
		{"season dec to jan same winter", "seasonChanged()", at("2027-01-05T00:00:00Z", "2026-12-20T00:00:00Z"), false, "season Winter 2027 == Winter 2027 (UTC, north)", false},
		{"season nov to dec", "seasonChanged()", at("2026-12-01T00:00:00Z", "2026-11-30T00:00:00Z"), true, "season Winter 2027 != Fall 2026 (UTC, north)", false},
		{"season feb to mar", "seasonChanged()", at("2026-03-01T00:00:00Z", "2026-02-28T00:00:00Z"), true, "season Spring 2026 != Winter 2026 (UTC, north)", false},
		{"season south", "seasonChanged(hemisphere='south')", at("2026-03-01T00:00:00Z", "2026-02-28T00:00:00Z"), true, "season Fall 2026 != Summer 2026 (UTC, south)", false},
		{"season jan to feb", "seasonChanged(hemisphere='north')", at("2026-02-01T00:00:00Z", "2026-01-31T00:00:00Z"), false, "", false},
	})
}

func TestSeasonOf(t *testing.T) {
	north := []string{"Winter", "Winter", "Spring", "Spring", "Spring", "Summer", "Summer", "Summer", "Fall", "Fall", "Fall", "Winter"}
	south := []string{"Summer", "Summer", "Fall", "Fall", "Fall", "Winter", "Winter", "Winter", "Spring", "Spring", "Spring", "Summer"}
	for m := 1; m <= 12; m++ {
		tm := time.Date(2026, time.Month(m), 15, 12, 0, 0, 0, time.UTC)
		wantYear := 2026
		if m == 12 {
			wantYear = 2027
		}
		if name, y := SeasonOf(tm, false); name != north[m-1] || y != wantYear {
			t.Errorf("SeasonOf(month %d, north): got %s %d, want %s %d", m, name, y, north[m-1], wantYear)
		}
		if name, y := SeasonOf(tm, true); name != south[m-1] || y != wantYear {
			t.Errorf("SeasonOf(month %d, south): got %s %d, want %s %d", m, name, y, south[m-1], wantYear)
		}
	}
}

func TestZoneFor(t *testing.T) {
	tests := []struct {
		tz      string
		c       *WhenContext
		want    string
		wantErr bool
	}{
		{"", nil, "UTC", false},
		{"", turn(1), "UTC", false},
		{"Europe/Paris", withLocale(turn(2), "Asia/Tokyo", ""), "Europe/Paris", false},
		{"", withLocale(turn(2), "Asia/Tokyo", "Europe/Paris"), "Asia/Tokyo", false},
		{"", withLocale(turn(2), "", "Europe/Paris"), "Europe/Paris", false},
		{"", withLocale(turn(2), "Mars/Base", "Europe/Paris"), "", true},
		{"Local", nil, "", true},
		{"../etc/passwd", nil, "", true},
	}
	for _, tc := range tests {
		loc, err := ZoneFor(tc.tz, tc.c)
		if tc.wantErr {
			if !errors.Is(err, ErrUnknownZone) {
				t.Errorf("ZoneFor(%q): got %v, want ErrUnknownZone", tc.tz, err)
			}
			continue
		}
		if err != nil || loc.String() != tc.want {
			t.Errorf("ZoneFor(%q): got %v %v, want %s", tc.tz, loc, err, tc.want)
		}
	}
}
