package verify

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Check is one assertion about a target's behaviour.
type Check struct {
	Name string `json:"name"`
	Pass bool   `json:"pass"`
	// Skipped checks could not run (e.g. no admin DSN); they neither pass nor fail the report.
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// Latency of the request the check is about (zero when it is not about one request).
	Latency time.Duration `json:"latencyNs,omitempty"`
}

// EndpointReport holds the checks of one endpoint key, or of the always-present rules
// ("healthz", "not-found", "connection").
type EndpointReport struct {
	Endpoint string  `json:"endpoint"`
	Checks   []Check `json:"checks"`
}

// Report is the verifier's answer: every check, not only a verdict.
type Report struct {
	BaseURL   string           `json:"baseURL"`
	Endpoints []EndpointReport `json:"endpoints"`
}

// Passed reports whether no check of the endpoint failed.
func (e EndpointReport) Passed() bool {
	for _, c := range e.Checks {
		if !c.Pass && !c.Skipped {
			return false
		}
	}
	return true
}

// Passed reports whether every check passed (skipped ones aside).
func (r Report) Passed() bool {
	for _, e := range r.Endpoints {
		if !e.Passed() {
			return false
		}
	}
	return true
}

// Failures lists the failed checks as "endpoint: check: detail", for error messages.
func (r Report) Failures() []string {
	var out []string
	for _, e := range r.Endpoints {
		for _, c := range e.Checks {
			if !c.Pass && !c.Skipped {
				out = append(out, fmt.Sprintf("%s: %s: %s", e.Endpoint, c.Name, c.Detail))
			}
		}
	}
	return out
}

// Find returns the named check of an endpoint.
func (r Report) Find(endpoint, check string) (Check, bool) {
	for _, e := range r.Endpoints {
		if e.Endpoint != endpoint {
			continue
		}
		for _, c := range e.Checks {
			if c.Name == check {
				return c, true
			}
		}
	}
	return Check{}, false
}

// WriteText prints the report for a person: one block per endpoint, one line per check.
// verbose prints passing checks too; otherwise a passing endpoint is one line.
func (r Report) WriteText(w io.Writer, verbose bool) {
	failed, total := 0, 0
	for _, e := range r.Endpoints {
		verdict := "PASS"
		if !e.Passed() {
			verdict = "FAIL"
		}
		fmt.Fprintf(w, "%s  %s (%d checks)\n", verdict, e.Endpoint, len(e.Checks))
		for _, c := range e.Checks {
			total++
			mark := "ok  "
			switch {
			case c.Skipped:
				mark = "skip"
			case !c.Pass:
				mark = "FAIL"
				failed++
			}
			if !verbose && mark == "ok  " {
				continue
			}
			line := "    " + mark + " " + c.Name
			if c.Latency > 0 {
				line += fmt.Sprintf(" [%s]", roundLatency(c.Latency))
			}
			if c.Detail != "" {
				line += ": " + c.Detail
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintf(w, "%s: %d of %d checks failed\n", strings.TrimSpace(r.BaseURL), failed, total)
}

func roundLatency(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}
