package workload

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Model is how load is applied.
type Model string

const (
	// Open is a fixed arrival rate (k6 constant-arrival-rate, like wrk2): a slow server
	// cannot slow the load down.
	Open Model = "open"
	// Closed is a fixed number of virtual users looping (k6 constant-vus, like wrk -c).
	Closed Model = "closed"
)

// Load is one load point.
type Load struct {
	Model Model
	// Open model: arrivals per second, and the VUs k6 starts with and may grow to.
	// Zero VU counts take DefaultVUs(Rate).
	Rate            int
	PreAllocatedVUs int
	MaxVUs          int
	// Closed model: concurrent virtual users (each holds one connection with keep-alive).
	VUs int
}

// Tags label every sample of a trial. Keys are fixed; "scenario" is k6's own system tag
// (the k6 scenario: warmup or measure), so the benchmark scenario is bench_scenario.
type Tags struct {
	TestID     string // unique per trial; k6-operator and Prometheus queries select on it
	Target     string
	Scenario   string
	LoadPoint  string // the rate or VU count, as text
	Repetition string
	// Runner tells parallel k6 runners apart so their Prometheus series do not collide;
	// at run time the GAUNTLET_RUNNER environment variable overrides it (one plan, N pods).
	Runner string
}

// RunnerEnv is the environment variable that overrides the runner tag (see Tags.Runner).
const RunnerEnv = "GAUNTLET_RUNNER"

// Spec is everything a trial's load needs; Build turns it into the Plan k6 reads.
type Spec struct {
	BaseURL        string
	Requests       []Request
	Load           Load
	KeepAlive      bool
	Warmup         time.Duration // may be 0: no warmup scenario
	Measure        time.Duration
	RequestTimeout time.Duration // 0 = DefaultRequestTimeout
	Tags           Tags
}

// DefaultRequestTimeout is shorter than k6's 60 s: a request slower than this is an error.
const DefaultRequestTimeout = 10 * time.Second

// Plan is the JSON loadgen/bench.js reads (via __ENV.PLAN). Durations are milliseconds.
type Plan struct {
	BaseURL   string        `json:"baseURL"`
	Requests  []PlanRequest `json:"requests"`
	MixTotal  int           `json:"mixTotal"`
	MixStride int           `json:"mixStride"`

	Model           Model `json:"model"`
	Rate            int   `json:"rate,omitempty"`
	PreAllocatedVUs int   `json:"preAllocatedVUs,omitempty"`
	MaxVUs          int   `json:"maxVUs,omitempty"`
	VUs             int   `json:"vus,omitempty"`

	// KeepAlive false sets k6's noConnectionReuse, which k6 1.8.1 maps to Go's
	// Transport.DisableKeepAlives: a new connection per request, sent with Connection: close.
	KeepAlive bool  `json:"keepAlive"`
	WarmupMs  int64 `json:"warmupMs"`
	MeasureMs int64 `json:"measureMs"`
	TimeoutMs int64 `json:"timeoutMs"`

	Tags map[string]string `json:"tags"`

	// Arms, when set, are the targets of a duet that this one k6 loads together (Duet):
	// each at the whole load point, their arrivals in turns. BaseURL and Tags are the first
	// arm's.
	Arms []PlanArm `json:"arms,omitempty"`
}

// PlanArm is one target of a duet's plan: where its requests go and how its samples are
// tagged.
type PlanArm struct {
	BaseURL string            `json:"baseURL"`
	Tags    map[string]string `json:"tags"`
}

// PlanRequest is a Request with its mix slice and {id} rule precomputed for the script.
type PlanRequest struct {
	Method string `json:"method"`
	// Path is the template; Name (its tag) is the same template, so one series per
	// endpoint rather than one per id.
	Path         string `json:"path"`
	Body         string `json:"body,omitempty"`
	ExpectStatus int    `json:"expectStatus"`
	CumWeight    int    `json:"cumWeight"`
	// {id} = IDMin + ((iteration mod IDSpan) × IDStride mod IDSpan); IDSpan 0: no {id}.
	IDMin    int `json:"idMin,omitempty"`
	IDSpan   int `json:"idSpan,omitempty"`
	IDStride int `json:"idStride,omitempty"`
}

// DefaultVUs sizes the open model's VU pool for a rate: k6 starts with 100 ms worth of
// arrivals (at least 20) and may grow tenfold. Pre-allocation matters: k6 drops arrivals
// while it initialises an extra VU, so a short stall of the target must not need one.
func DefaultVUs(rate int) (preAllocated, maxVUs int) {
	preAllocated = max(20, (rate+9)/10)
	return preAllocated, 10 * preAllocated
}

// Build validates a spec and returns its plan. Errors name the offending field.
func Build(s Spec) (Plan, error) {
	base, err := checkBaseURL(s.BaseURL)
	if err != nil {
		return Plan{}, err
	}
	if err := ValidateRequests("requests", s.Requests); err != nil {
		return Plan{}, err
	}
	p := Plan{BaseURL: base, KeepAlive: s.KeepAlive}
	if err := p.setLoad(s.Load); err != nil {
		return Plan{}, err
	}
	if err := p.setDurations(s); err != nil {
		return Plan{}, err
	}
	if p.Tags, err = s.Tags.asMap(); err != nil {
		return Plan{}, err
	}
	mix := NewMix(s.Requests)
	p.MixTotal, p.MixStride = mix.Total, mix.Stride
	for i, r := range s.Requests {
		pr := PlanRequest{Method: r.Method, Path: r.Path, Body: r.Body, ExpectStatus: r.ExpectStatus,
			CumWeight: mix.CumWeights[i]}
		if strings.Contains(r.Path, IDPlaceholder) {
			ids := r.idRange()
			pr.IDMin, pr.IDSpan, pr.IDStride = ids.Min, ids.Span(), SpreadStride(ids.Span())
		}
		p.Requests = append(p.Requests, pr)
	}
	return p, nil
}

func checkBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("baseURL: %q must be an absolute http:// or https:// URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("baseURL: %q must not carry a query, fragment or credentials", raw)
	}
	return strings.TrimSuffix(raw, "/"), nil
}

func (p *Plan) setLoad(l Load) error {
	switch l.Model {
	case Open:
		if l.Rate <= 0 {
			return fmt.Errorf("load.rate: the open model needs a rate > 0 requests per second, got %d", l.Rate)
		}
		if l.VUs != 0 {
			return fmt.Errorf("load.vus: only for the closed model; the open model sizes VUs with preAllocatedVUs and maxVUs")
		}
		pre, mx := DefaultVUs(l.Rate)
		if l.PreAllocatedVUs < 0 || l.MaxVUs < 0 {
			return fmt.Errorf("load.preAllocatedVUs/maxVUs: must not be negative")
		}
		if l.PreAllocatedVUs > 0 {
			pre, mx = l.PreAllocatedVUs, max(mx, l.PreAllocatedVUs)
		}
		if l.MaxVUs > 0 {
			mx = l.MaxVUs
		}
		if mx < pre {
			return fmt.Errorf("load.maxVUs: %d is below preAllocatedVUs %d", mx, pre)
		}
		p.Model, p.Rate, p.PreAllocatedVUs, p.MaxVUs = Open, l.Rate, pre, mx
	case Closed:
		if l.VUs <= 0 {
			return fmt.Errorf("load.vus: the closed model needs vus > 0, got %d", l.VUs)
		}
		if l.Rate != 0 || l.PreAllocatedVUs != 0 || l.MaxVUs != 0 {
			return fmt.Errorf("load.rate: rate, preAllocatedVUs and maxVUs are only for the open model")
		}
		p.Model, p.VUs = Closed, l.VUs
	default:
		return fmt.Errorf("load.model: %q is not %q or %q", l.Model, Open, Closed)
	}
	return nil
}

func (p *Plan) setDurations(s Spec) error {
	timeout := s.RequestTimeout
	if timeout == 0 {
		timeout = DefaultRequestTimeout
	}
	for _, d := range []struct {
		field string
		v     time.Duration
		min   time.Duration
	}{{"warmup", s.Warmup, 0}, {"measure", s.Measure, time.Millisecond}, {"requestTimeout", timeout, time.Millisecond}} {
		if d.v < d.min || d.v%time.Millisecond != 0 {
			return fmt.Errorf("%s: %v must be a whole number of milliseconds, at least %v", d.field, d.v, d.min)
		}
	}
	p.WarmupMs, p.MeasureMs, p.TimeoutMs = s.Warmup.Milliseconds(), s.Measure.Milliseconds(), timeout.Milliseconds()
	return nil
}

func (t Tags) asMap() (map[string]string, error) {
	runner := t.Runner
	if runner == "" {
		runner = "0"
	}
	m := map[string]string{"testid": t.TestID, "target": t.Target, "bench_scenario": t.Scenario,
		"load_point": t.LoadPoint, "repetition": t.Repetition, "runner": runner}
	for _, k := range []string{"testid", "target", "bench_scenario", "load_point", "repetition"} {
		if m[k] == "" {
			return nil, fmt.Errorf("tags.%s: must not be empty", k)
		}
	}
	return m, nil
}

// Measure is the measured window as a duration.
func (p Plan) Measure() time.Duration { return time.Duration(p.MeasureMs) * time.Millisecond }

// Warmup is the warmup as a duration.
func (p Plan) Warmup() time.Duration { return time.Duration(p.WarmupMs) * time.Millisecond }
