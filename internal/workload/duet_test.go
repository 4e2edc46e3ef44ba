package workload

import (
	"strings"
	"testing"
	"time"
)

func duetArm(t *testing.T, url, target string) Plan {
	t.Helper()
	p, err := Build(Spec{BaseURL: url, Requests: []Request{{Method: "GET", Path: "/", ExpectStatus: 200, Weight: 1}},
		Load: Load{Model: Open, Rate: 200}, KeepAlive: true, Warmup: time.Second, Measure: 2 * time.Second,
		Tags: Tags{TestID: "run-" + target, Target: target, Scenario: "s", LoadPoint: "200", Repetition: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDuetListsEachArmsURLAndTags(t *testing.T) {
	a, b := duetArm(t, "http://127.0.0.1:1", "a"), duetArm(t, "http://127.0.0.1:2", "b")
	p, err := Duet([]Plan{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Arms) != 2 || p.Arms[0].BaseURL != a.BaseURL || p.Arms[1].BaseURL != b.BaseURL ||
		p.Arms[1].Tags["target"] != "b" || p.Arms[1].Tags["testid"] != "run-b" {
		t.Errorf("arms %+v", p.Arms)
	}
	if p.BaseURL != a.BaseURL || p.Tags["target"] != "a" || p.Rate != 200 || p.MeasureMs != 2000 {
		t.Errorf("the duet's plan is not arm 0's: %+v", p)
	}
}

func TestDuetRefusesArmsThatDifferInTheirLoad(t *testing.T) {
	a, b := duetArm(t, "http://127.0.0.1:1", "a"), duetArm(t, "http://127.0.0.1:2", "b")
	b.Rate = 300
	if _, err := Duet([]Plan{a, b}); err == nil || !strings.Contains(err.Error(), "arm 1") {
		t.Errorf("arms at 200/s and 300/s: %v, want an error naming arm 1", err)
	}
	if _, err := Duet([]Plan{a}); err == nil {
		t.Error("a duet of one arm was accepted")
	}
}

func TestStartVUsCountsEveryArm(t *testing.T) {
	a := duetArm(t, "http://127.0.0.1:1", "a")
	p, err := Duet([]Plan{a, duetArm(t, "http://127.0.0.1:2", "b")})
	if err != nil {
		t.Fatal(err)
	}
	if a.StartVUs() != a.PreAllocatedVUs || p.StartVUs() != 2*a.PreAllocatedVUs {
		t.Errorf("one target %d, a duet of two %d; want %d and %d", a.StartVUs(), p.StartVUs(), a.PreAllocatedVUs, 2*a.PreAllocatedVUs)
	}
}
