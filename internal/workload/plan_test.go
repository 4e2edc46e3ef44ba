package workload

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func validSpec() Spec {
	s, _ := Lookup("smart-home")
	return Spec{
		BaseURL:  "http://127.0.0.1:8080/",
		Requests: s.Requests,
		Load:     Load{Model: Open, Rate: 1000},
		Warmup:   30 * time.Second, Measure: 5 * time.Minute,
		KeepAlive: true,
		Tags:      Tags{TestID: "run-a-t1", Target: "node", Scenario: "smart", LoadPoint: "1000", Repetition: "2"},
	}
}

func TestBuildSmartHomePlan(t *testing.T) {
	p, err := Build(validSpec())
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{
		BaseURL: "http://127.0.0.1:8080",
		Requests: []PlanRequest{
			{Method: "GET", Path: "/devices/status", ExpectStatus: 200, CumWeight: 60},
			{Method: "POST", Path: "/devices/{id}/command", Body: `{"action":"set","value":21,"unit":"C"}`,
				ExpectStatus: 200, CumWeight: 90, IDMin: 1, IDSpan: 5, IDStride: 3},
			{Method: "GET", Path: "/events/live?wait=1", ExpectStatus: 200, CumWeight: 100},
		},
		MixTotal: 100, MixStride: 61,
		Model: Open, Rate: 1000, PreAllocatedVUs: 100, MaxVUs: 1000,
		KeepAlive: true, WarmupMs: 30000, MeasureMs: 300000, TimeoutMs: 10000,
		Tags: map[string]string{"testid": "run-a-t1", "target": "node", "bench_scenario": "smart",
			"load_point": "1000", "repetition": "2", "runner": "0"},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("plan\n got %+v\nwant %+v", p, want)
	}
	if p.Measure() != 5*time.Minute || p.Warmup() != 30*time.Second {
		t.Errorf("durations %v %v", p.Warmup(), p.Measure())
	}
}

// The JSON keys are the script's contract: loadgen/bench.js reads exactly these.
func TestPlanJSONKeys(t *testing.T) {
	s := validSpec()
	s.Load = Load{Model: Closed, VUs: 100}
	s.KeepAlive = false
	p, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(p)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	for _, k := range []string{"baseURL", "requests", "mixTotal", "mixStride", "model", "vus", "keepAlive", "warmupMs", "measureMs", "timeoutMs", "tags"} {
		if _, ok := m[k]; !ok {
			t.Errorf("plan JSON lacks %q: %s", k, data)
		}
	}
	for _, k := range []string{"rate", "preAllocatedVUs", "maxVUs"} {
		if _, ok := m[k]; ok {
			t.Errorf("closed plan JSON carries %q", k)
		}
	}
	if m["keepAlive"] != false || m["model"] != "closed" {
		t.Errorf("plan JSON %s", data)
	}
	r1 := m["requests"].([]any)[1].(map[string]any)
	for _, k := range []string{"method", "path", "body", "expectStatus", "cumWeight", "idMin", "idSpan", "idStride"} {
		if _, ok := r1[k]; !ok {
			t.Errorf("request JSON lacks %q: %v", k, r1)
		}
	}
}

func TestDefaultVUs(t *testing.T) {
	for _, c := range []struct{ rate, pre, max int }{{1, 20, 200}, {300, 30, 300}, {1000, 100, 1000}, {50000, 5000, 50000}} {
		if pre, mx := DefaultVUs(c.rate); pre != c.pre || mx != c.max {
			t.Errorf("DefaultVUs(%d) = %d, %d, want %d, %d", c.rate, pre, mx, c.pre, c.max)
		}
	}
	s := validSpec()
	s.Load = Load{Model: Open, Rate: 1000, PreAllocatedVUs: 1600}
	p, err := Build(s)
	if err != nil || p.PreAllocatedVUs != 1600 || p.MaxVUs != 1600 {
		t.Errorf("explicit preAllocatedVUs above the default max: %+v %v", p, err)
	}
}

func TestBuildRejectsBadInput(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Spec)
		field  string
	}{
		{"no url", func(s *Spec) { s.BaseURL = "" }, "baseURL"},
		{"relative url", func(s *Spec) { s.BaseURL = "127.0.0.1:80" }, "baseURL"},
		{"ftp", func(s *Spec) { s.BaseURL = "ftp://h" }, "baseURL"},
		{"query", func(s *Spec) { s.BaseURL = "http://h/?a=1" }, "baseURL"},
		{"no requests", func(s *Spec) { s.Requests = nil }, "requests"},
		{"bad request", func(s *Spec) { s.Requests[2].Weight = 0 }, "requests[2].weight"},
		{"no model", func(s *Spec) { s.Load.Model = "" }, "load.model"},
		{"open no rate", func(s *Spec) { s.Load.Rate = 0 }, "load.rate"},
		{"open with vus", func(s *Spec) { s.Load.VUs = 3 }, "load.vus"},
		{"max below pre", func(s *Spec) { s.Load.PreAllocatedVUs, s.Load.MaxVUs = 10, 5 }, "load.maxVUs"},
		{"negative vus", func(s *Spec) { s.Load.MaxVUs = -1 }, "load.preAllocatedVUs/maxVUs"},
		{"closed no vus", func(s *Spec) { s.Load = Load{Model: Closed} }, "load.vus"},
		{"closed with rate", func(s *Spec) { s.Load = Load{Model: Closed, VUs: 5, Rate: 9} }, "load.rate"},
		{"no measure", func(s *Spec) { s.Measure = 0 }, "measure"},
		{"sub-ms measure", func(s *Spec) { s.Measure = 1500 * time.Microsecond }, "measure"},
		{"negative warmup", func(s *Spec) { s.Warmup = -time.Second }, "warmup"},
		{"negative timeout", func(s *Spec) { s.RequestTimeout = -time.Second }, "requestTimeout"},
		{"no testid", func(s *Spec) { s.Tags.TestID = "" }, "tags.testid"},
		{"no target", func(s *Spec) { s.Tags.Target = "" }, "tags.target"},
		{"no scenario", func(s *Spec) { s.Tags.Scenario = "" }, "tags.bench_scenario"},
		{"no load point", func(s *Spec) { s.Tags.LoadPoint = "" }, "tags.load_point"},
		{"no repetition", func(s *Spec) { s.Tags.Repetition = "" }, "tags.repetition"},
	}
	for _, c := range cases {
		s := validSpec()
		c.mutate(&s)
		_, err := Build(s)
		if err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("%s: error %v, want one starting with %q", c.name, err, c.field)
		}
	}
}

func TestBuildKeepsRunnerAndTimeout(t *testing.T) {
	s := validSpec()
	s.Tags.Runner = "3"
	s.Warmup = 0
	s.RequestTimeout = 2500 * time.Millisecond
	p, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Tags["runner"] != "3" || p.WarmupMs != 0 || p.TimeoutMs != 2500 {
		t.Errorf("plan %+v", p)
	}
}
