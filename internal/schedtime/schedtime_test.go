package schedtime

import (
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// "0 3 * * *" in Europe/Berlin is 02:00 UTC in winter and 01:00 UTC in summer, across the
// change to summer time; unset, the zone is UTC whatever the process's local zone is.
func TestNextTimeInAZone(t *testing.T) {
	t.Setenv("TZ", "America/New_York") // robfig/cron's own default is time.Local
	for _, c := range []struct{ zone, after, want string }{
		{"Europe/Berlin", "2026-01-10T12:00:00Z", "2026-01-11T02:00:00Z"},
		{"Europe/Berlin", "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z"}, // summer time from 29 March
		{"Europe/Berlin", "2026-07-01T00:00:00Z", "2026-07-01T01:00:00Z"},
		{"Asia/Kolkata", "2026-07-01T00:00:00Z", "2026-07-01T21:30:00Z"},
		{"", "2026-07-01T00:00:00Z", "2026-07-01T03:00:00Z"},
	} {
		sched, err := Parse("0 3 * * *", c.zone)
		if err != nil {
			t.Fatalf("%s: %v", c.zone, err)
		}
		if got := sched.Next(at(c.after)); !got.Equal(at(c.want)) {
			t.Errorf("%q after %s: %s, want %s", c.zone, c.after, got.UTC().Format(time.RFC3339), c.want)
		}
	}
}

// What the controller and gauntlet validate refuse, each naming its field.
func TestCheckRefuses(t *testing.T) {
	now := at("2026-01-01T00:00:00Z")
	for _, c := range []struct {
		name, schedule, zone string
		field, says          string
	}{
		{"n", "CRON_TZ=Europe/Paris 0 3 * * *", "", "spec.schedule", "set spec.timeZone"},
		{"n", "TZ=UTC @daily", "", "spec.schedule", "set spec.timeZone"},
		{"n", "0 3 * * *", "Mars/Olympus_Mons", "spec.timeZone", "not in the time zone database"},
		{"n", "0 3 * * *", "Local", "spec.timeZone", "not Local"},
		{"n", "0 3 * * *", "../../etc/passwd", "spec.timeZone", "not an IANA time zone name"},
		{"n", "0 3 * * *", "/etc/localtime", "spec.timeZone", "not an IANA time zone name"},
		{"n", "every tuesday", "Europe/Berlin", "spec.schedule", "expected exactly 5 fields"},
		{"n", "@every 29s", "", "spec.schedule", "at least 30s"},
		{strings.Repeat("n", 64), "@daily", "", "metadata.name", "at most 63"},
	} {
		_, errs := Check(c.name, &benchv1.BenchmarkScheduleSpec{Schedule: c.schedule, TimeZone: c.zone}, now)
		if len(errs) != 1 || errs[0].Field != c.field || !strings.Contains(errs[0].Error(), c.says) {
			t.Errorf("%q in %q: %v, want one error on %s saying %q", c.schedule, c.zone, errs, c.field, c.says)
		}
	}
	for _, ok := range []struct{ schedule, zone string }{{"* * * * *", "UTC"}, {"@every 30s", ""}, {"@daily", "America/Argentina/Buenos_Aires"},
		{"0 0 1 1 *", "Etc/GMT+5"}} {
		if _, errs := Check("ok", &benchv1.BenchmarkScheduleSpec{Schedule: ok.schedule, TimeZone: ok.zone}, now); len(errs) > 0 {
			t.Errorf("%q in %q refused: %v", ok.schedule, ok.zone, errs)
		}
	}
}

// With a starting deadline, the times more than it late are missed and counted, the latest
// runs only when it is not one of them; without one the latest runs however late.
func TestDueAndMissed(t *testing.T) {
	sched, err := Parse("0 * * * *", "")
	if err != nil {
		t.Fatal(err)
	}
	last := at("2026-01-01T00:00:00Z")
	for _, c := range []struct {
		name     string
		now      string
		deadline *time.Duration
		want     Due
	}{
		{"nothing due", "2026-01-01T00:59:00Z", ptr.To(5 * time.Minute), Due{}},
		{"no deadline, five hours down", "2026-01-01T05:30:00Z", nil,
			Due{Latest: at("2026-01-01T05:00:00Z"), Run: at("2026-01-01T05:00:00Z")}},
		{"within the deadline", "2026-01-01T05:04:00Z", ptr.To(5 * time.Minute),
			Due{Latest: at("2026-01-01T05:00:00Z"), Run: at("2026-01-01T05:00:00Z"), Missed: 4, LastMissed: at("2026-01-01T04:00:00Z")}},
		{"at the deadline", "2026-01-01T01:05:00Z", ptr.To(5 * time.Minute),
			Due{Latest: at("2026-01-01T01:00:00Z"), Run: at("2026-01-01T01:00:00Z")}},
		{"past the deadline", "2026-01-01T05:06:00Z", ptr.To(5 * time.Minute),
			Due{Latest: at("2026-01-01T05:00:00Z"), Missed: 5, LastMissed: at("2026-01-01T05:00:00Z")}},
	} {
		if got := DueAt(sched, last, at(c.now), c.deadline); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
