package plan

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

var presets = map[string][]string{
	"go-nethttp": {"ping", "db-ping"},
	"nginx":      {"ping"},
}

func spec() *benchv1.BenchmarkRunSpec {
	return &benchv1.BenchmarkRunSpec{
		Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}, {Name: "ngx", Preset: "nginx"}, {Name: "own", Image: "x", Port: new(int32)}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}, {Name: "db", Workload: "db-ping"},
			{Name: "mix", Requests: []benchv1.Request{{Method: "GET", Path: "/a", Weight: 2, ExpectStatus: 200}}}},
		Load: benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{100, 200}, Repetitions: 2},
	}
}

func TestBuildInterleavesRepetitionsAcrossTargets(t *testing.T) {
	trials, err := Build(spec(), presets)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 2*3*2*3 {
		t.Fatalf("got %d trials, want 36", len(trials))
	}
	var got []string
	for i, tr := range trials {
		if tr.Index != int32(i) {
			t.Fatalf("trial %d has index %d", i, tr.Index)
		}
		got = append(got, tr.Name)
	}
	// ABCABC: every target runs a load point before any target repeats it.
	want := "go.ping.100.r1 ngx.ping.100.r1 own.ping.100.r1 go.ping.200.r1 ngx.ping.200.r1 own.ping.200.r1"
	if s := strings.Join(got[:6], " "); s != want {
		t.Errorf("first trials = %s\nwant %s", s, want)
	}
	if trials[18].Name != "go.ping.100.r2" {
		t.Errorf("second repetition starts with %s", trials[18].Name)
	}
	seen := map[string]bool{}
	for _, tr := range trials {
		if seen[tr.Name] {
			t.Fatalf("duplicate trial name %s", tr.Name)
		}
		seen[tr.Name] = true
	}
}

func TestBuildSkipsWhatAPresetDoesNotImplement(t *testing.T) {
	trials, _ := Build(spec(), presets)
	skipped := map[string]string{}
	for _, tr := range trials {
		if tr.Skip != "" {
			skipped[tr.Name] = tr.Skip
		}
	}
	// nginx lacks db-ping: 2 load points x 2 repetitions skipped; the image and the custom mix never.
	if len(skipped) != 4 {
		t.Fatalf("skipped = %v", skipped)
	}
	if r := skipped["ngx.db.100.r1"]; !strings.Contains(r, "nginx does not implement db-ping") {
		t.Errorf("reason = %q", r)
	}
	st := trials[0].Status()
	if st.Phase != benchv1.TrialPending {
		t.Errorf("phase %s", st.Phase)
	}
	for _, tr := range trials {
		if tr.Skip != "" && tr.Status().Phase != benchv1.TrialSkipped {
			t.Errorf("%s not Skipped", tr.Name)
		}
	}
}

func TestBuildClosedModelUsesConnections(t *testing.T) {
	s := spec()
	s.Load = benchv1.Load{Model: benchv1.LoadModelClosed, Connections: []int32{10}, Repetitions: 1}
	trials, err := Build(s, presets)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 9 || trials[0].LoadPoint != 10 {
		t.Fatalf("got %d trials, first %+v", len(trials), trials[0])
	}
}

func TestBuildErrors(t *testing.T) {
	s := spec()
	s.Targets[0].Preset = "rust-actix"
	if _, err := Build(s, presets); err == nil || !strings.Contains(err.Error(), "spec.targets[go].preset") {
		t.Errorf("unknown preset: %v", err)
	}
	s = spec()
	s.Load.Rates = nil
	if _, err := Build(s, presets); err == nil || !strings.Contains(err.Error(), "spec.load") {
		t.Errorf("no load points: %v", err)
	}
}

func TestRequests(t *testing.T) {
	reqs, err := Requests(spec(), "mix")
	if err != nil || len(reqs) != 1 || reqs[0].Weight != 2 || reqs[0].Path != "/a" {
		t.Fatalf("custom mix: %+v %v", reqs, err)
	}
	reqs, err = Requests(spec(), "db")
	if err != nil || fmt.Sprint(reqs[0].Path) != "/api/db/ping" {
		t.Fatalf("catalogue: %+v %v", reqs, err)
	}
	if _, err := Requests(spec(), "nope"); err == nil {
		t.Fatal("unknown scenario accepted")
	}
}

// Targets go and go-fast with scenarios fast-ping and ping joined with "-" both gave
// go-fast-ping-100-r1; the status then refused the duplicate key and the run sat in Pending.
func TestTrialNamesAreDistinct(t *testing.T) {
	s := &benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "go", Image: "x"}, {Name: "go-fast", Image: "y"}},
		Scenarios: []benchv1.Scenario{{Name: "fast-ping", Workload: "ping"}, {Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{100, 1}, Repetitions: 11},
	}
	trials, err := Build(s, presets)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]Trial{}
	for _, tr := range trials {
		if prev, ok := seen[tr.Name]; ok {
			t.Fatalf("%+v and %+v are both named %q", prev, tr, tr.Name)
		}
		seen[tr.Name] = tr
	}
	if len(seen) != 2*2*2*11 {
		t.Errorf("%d names for %d trials", len(seen), len(trials))
	}
	if got := TrialName("go-fast", "ping", 100, 1); got != "go-fast.ping.100.r1" {
		t.Errorf("TrialName = %q", got)
	}
}

// InFlight is one request per virtual user k6Plan gives the trial: the closed model's load
// point, maxVUs, or the default size for the rate.
func TestInFlightIsTheTrialsVirtualUsers(t *testing.T) {
	s := spec()
	s.Load.Duration = "10s"
	tr := Trial{Target: "go", Scenario: "ping", LoadPoint: 200}
	plan, err := K6Plan(s, tr, "http://t:8080", workload.Tags{TestID: "t", Target: "go", Scenario: "ping", LoadPoint: "200", Repetition: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := InFlight(s, tr); got != int64(plan.MaxVUs) || got == 0 {
		t.Errorf("open model, default VUs: %d, k6 plan maxVUs %d", got, plan.MaxVUs)
	}
	s.Load.MaxVUs = ptr.To[int32](7)
	if got := InFlight(s, tr); got != 7 {
		t.Errorf("maxVUs 7: %d", got)
	}
	s.Load.Model, s.Load.MaxVUs = benchv1.LoadModelClosed, nil
	if got := InFlight(s, Trial{LoadPoint: 12}); got != 12 {
		t.Errorf("closed model at 12 VUs: %d", got)
	}
}
