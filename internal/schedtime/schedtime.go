// Package schedtime is a BenchmarkSchedule's times: its cron read in its time zone, the
// checks the controller and `gauntlet validate` both apply to it, and which scheduled time
// is due or missed at a moment. Pure: no clock, no client.
package schedtime

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// MinInterval is the shortest time between a schedule's times; MaxNameLength is the longest
// schedule name (a label value, 63 characters; the run and history ConfigMap names built
// from it then fit too).
const (
	MinInterval   = 30 * time.Second
	MaxNameLength = 63
)

// Check is what the schedule's name, spec.schedule and spec.timeZone must be: the name a
// label value, the cron readable without a CRON_TZ=/TZ= prefix, the zone one the time zone
// database knows, times at least MinInterval apart (looked at after now). Each is checked
// whatever else is wrong; the schedule is returned when there is no error.
func Check(name string, spec *benchv1.BenchmarkScheduleSpec, now time.Time) (cron.Schedule, field.ErrorList) {
	var errs field.ErrorList
	if len(name) > MaxNameLength {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, fmt.Sprintf(
			"%d characters, at most %d (it is the %s label value on each run)", len(name), MaxNameLength, benchv1.LabelSchedule)))
	}
	zone := spec.TimeZone
	if zone != "" {
		if err := CheckZone(zone); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "timeZone"), zone, err.Error()))
			zone = "" // the cron's own errors are still worth saying
		}
	}
	sched, err := Parse(spec.Schedule, zone)
	if err != nil {
		return nil, append(errs, err)
	}
	if gap := ClosestGap(sched, now); gap < MinInterval {
		errs = append(errs, field.Invalid(field.NewPath("spec", "schedule"), spec.Schedule,
			fmt.Sprintf("times %s apart, at least %s (a run takes longer; faster would only pile up runs)", gap, MinInterval)))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return sched, nil
}

// Parse reads schedule in the IANA zone timeZone ("" is UTC), as the CronJob controller
// does: the zone is given to robfig/cron as its CRON_TZ= prefix, so the library's own
// location handling (daylight saving included) decides the times.
func Parse(schedule, timeZone string) (cron.Schedule, *field.Error) {
	if strings.Contains(schedule, "TZ") {
		return nil, field.Invalid(field.NewPath("spec", "schedule"), schedule, "CRON_TZ= and TZ= are not supported: set spec.timeZone")
	}
	if timeZone == "" {
		timeZone = "UTC" // not robfig/cron's default, the manager's local zone
	}
	if err := CheckZone(timeZone); err != nil {
		return nil, field.Invalid(field.NewPath("spec", "timeZone"), timeZone, err.Error())
	}
	sched, err := cron.ParseStandard("CRON_TZ=" + timeZone + " " + schedule)
	if err != nil {
		return nil, field.Invalid(field.NewPath("spec", "schedule"), schedule, err.Error())
	}
	return sched, nil
}

// zonePart is one /-separated element of a zone name, as Kubernetes' CronJob validation
// reads it (no path traversal reaches time.LoadLocation).
var zonePart = regexp.MustCompile(`^[A-Za-z0-9_+][A-Za-z0-9_+.-]{0,13}$`)

// CheckZone says why name is not an explicit IANA time zone of the time zone database.
func CheckZone(name string) error {
	for _, part := range strings.Split(name, "/") {
		if part == "." || part == ".." || !zonePart.MatchString(part) {
			return fmt.Errorf("not an IANA time zone name (element %q)", part)
		}
	}
	if strings.EqualFold(name, "Local") {
		return fmt.Errorf("an explicit IANA time zone, not Local (the manager's own)")
	}
	if _, err := time.LoadLocation(name); err != nil {
		return fmt.Errorf("not in the time zone database (%v)", err)
	}
	return nil
}

// ClosestGap is the shortest time between sched's next 1,000 times after now: a whole day of
// a per-minute cron, or @every's delay.
func ClosestGap(sched cron.Schedule, now time.Time) time.Duration {
	if d, ok := sched.(cron.ConstantDelaySchedule); ok {
		return d.Delay
	}
	gap := time.Duration(1<<63 - 1)
	prev := sched.Next(now)
	for i := 0; i < 1000 && !prev.IsZero(); i++ {
		next := sched.Next(prev)
		if next.IsZero() {
			break
		}
		gap = min(gap, next.Sub(prev))
		prev = next
	}
	return gap
}

// maxSteps bounds a walk over scheduled times: a schedule every minute a year behind is
// 525,600 steps, well under a second.
const maxSteps = 1_000_000

// Due is what the scheduled times in (last, now] come to. Latest is the latest of them
// (zero when none). Without a deadline it is Run. With one, times more than deadline before
// now are Missed (counted; LastMissed the latest of them) and Latest is Run only when it is
// not one of them.
type Due struct {
	Latest, Run, LastMissed time.Time
	Missed                  int64
}

// DueAt walks sched's times in (last, now]; deadline nil is no starting deadline.
func DueAt(sched cron.Schedule, last, now time.Time, deadline *time.Duration) Due {
	var d Due
	for i, t := 0, sched.Next(last); i < maxSteps && !t.IsZero() && !t.After(now); i, t = i+1, sched.Next(t) {
		d.Latest = t
		if deadline != nil && Late(t, now, *deadline) {
			d.Missed++
			d.LastMissed = t
		}
	}
	if !d.Latest.Equal(d.LastMissed) {
		d.Run = d.Latest
	}
	return d
}

// Late: scheduled time t can no longer start at now, deadline after it.
func Late(t, now time.Time, deadline time.Duration) bool {
	return now.Sub(t) > deadline
}
