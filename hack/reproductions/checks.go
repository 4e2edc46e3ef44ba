package main

import (
	"fmt"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// check is how a claim is decided from the runs. Every kind reads one figure (Metric) of the
// named targets at one load point (Point) of one document (Doc), and breaks down into pairs
// "big ≥ Ratio × small" (see pairsOf):
//   - ratio: A beats B on Metric by at least Ratio (1 = any margin, but a margin that holds
//     over every repetition).
//   - order: Targets ranked best first, each beating the next (Ratios per step, default 1).
//   - best: A beats every one of Targets.
//   - similar: A and B within Tolerance of each other (0.1 = 10%).
//   - change: each of Targets, from (Doc, Point) to (ToDoc or Doc, ToPoint), rises (Up) or
//     falls by at least Ratio; with Tolerance instead, stays within it.
//   - errors: Targets fail (every repetition at least 1% errors) and Clean have none.
//   - steadiest: A's Metric changes least, as a factor, from (Doc, Point) to (Doc, ToPoint)
//     of A and Targets (a "tightest" tail across load levels).
//   - steeper: each of Targets changes more, as a factor, than each of Than, from (Doc, Point,
//     Metric) to (ToDoc, ToPoint, ToMetric), each defaulting to the first; a rise with Up,
//     else a drop ("lost more without keep-alive", "more latency variance": p50 to p99).
//   - holds: each of Targets serves the offered rate (every repetition at least 99% of it)
//     with no errors: open model only.
type check struct {
	Kind     string    `json:"kind"`
	Doc      string    `json:"doc"`
	Scenario string    `json:"scenario"`
	Metric   string    `json:"metric,omitempty"`
	Point    int       `json:"point"` // the load point by index, lowest first; -1 is the highest
	ToDoc    string    `json:"toDoc,omitempty"`
	ToPoint  int       `json:"toPoint,omitempty"`
	Up       bool      `json:"up,omitempty"`
	A        string    `json:"a,omitempty"`
	B        string    `json:"b,omitempty"`
	Targets  []string  `json:"targets,omitempty"`
	Clean    []string  `json:"clean,omitempty"`
	Than     []string  `json:"than,omitempty"`
	ToMetric string    `json:"toMetric,omitempty"`
	Ratio    float64   `json:"ratio,omitempty"`
	Ratios   []float64 `json:"ratios,omitempty"`
	// MaxRatio (MaxRatios per step of an order) is the upper end of a stated factor: "slightly
	// faster" or "almost twice" is contradicted by 4x as much as by no margin at all.
	MaxRatio  float64   `json:"maxRatio,omitempty"`
	MaxRatios []float64 `json:"maxRatios,omitempty"`
	Tolerance float64   `json:"tolerance,omitempty"`
	// The setup's limits. TargetCPUs: the claim is about what workers or cores add, and needs
	// the targets to have had at least this many CPUs (status.placement). MinLoad: a claim
	// about holding a load needs each target to have used at least this share of its CPUs in
	// every repetition, or the scaled load tested nothing. MinRequests: every row needs at
	// least this many requests in every window (a share of timeouts, a tail). AtLeast: the
	// targets whose figure the sample's setup can only lower (fewer workers or CPUs than the
	// article's), so it is a lower bound on what the article's setup would give.
	TargetCPUs  int      `json:"targetCPUs,omitempty"`
	MinLoad     float64  `json:"minLoad,omitempty"`
	MinRequests int64    `json:"minRequests,omitempty"`
	AtLeast     []string `json:"atLeast,omitempty"`
}

// Verdicts of a claim.
const (
	Reproduced    = "reproduced"
	NotReproduced = "not reproduced"
	Inconclusive  = "inconclusive"
	NotComparable = "not comparable"
	NotRun        = "not run"
)

// MinRepetitions: a verdict either way needs at least this many repetitions of every row it
// reads; with fewer, one noisy window could decide it, so the claim is inconclusive.
const MinRepetitions = 3

// FailThresholdPPM: a target "fails" when every repetition has at least 1% errors.
const FailThresholdPPM = 10_000

// lowerIsBetter says which way a metric's "better" points.
func lowerIsBetter(metric string) bool { return metric != "rps" }

// pair is one comparison a claim makes: big ≥ k × small, and at most kMax × small when
// kMax is set (or, with tol, the two within tol).
type pair struct {
	big, small   value
	k, kMax, tol float64
}

// judge decides one pair from the spreads over the repetitions: reproduced only when the
// worst repetition of the one that should be bigger still clears the threshold against the
// best of the other; not reproduced only when even its best falls short of the other's
// worst; anything between is inconclusive. A lower bound can only decide in its own favour.
func judge(p pair) (string, string) {
	b, s := p.big.stat, p.small.stat
	if p.tol > 0 {
		hi := 1 + p.tol
		switch {
		case float64(b.Min) > hi*float64(s.Max) && !p.small.atLeast:
			return NotReproduced, "apart by more than the tolerance"
		case float64(s.Min) > hi*float64(b.Max) && !p.big.atLeast:
			return NotReproduced, "apart by more than the tolerance"
		case p.big.atLeast || p.small.atLeast:
			return NotComparable, "a rate that is only a lower bound cannot show two rates alike"
		case float64(b.Max) <= hi*float64(s.Min) && float64(s.Max) <= hi*float64(b.Min):
			return Reproduced, "within the tolerance over every repetition"
		}
		return Inconclusive, "the repetitions' spreads straddle the tolerance"
	}
	clears := float64(b.Min) >= p.k*float64(s.Max)
	if p.k == 1 {
		clears = b.Min > s.Max
	}
	short := float64(b.Max) < p.k*float64(s.Min)
	if p.k == 1 {
		short = b.Max <= s.Min
	}
	if p.kMax > 0 {
		// Two-sided: the bounds can show a ratio too small (a bound on big) or within the
		// upper end (a bound on small), never one too large or one inside both ends.
		within := float64(b.Max) <= p.kMax*float64(s.Min)
		beyond := float64(b.Min) > p.kMax*float64(s.Max)
		switch {
		case beyond && !p.small.atLeast:
			return NotReproduced, "beyond the stated factor over every repetition"
		case short && !p.big.atLeast:
			return NotReproduced, "falls short over every repetition"
		case p.big.atLeast || p.small.atLeast:
			return NotComparable, "a lower bound cannot place a ratio between two ends"
		case clears && within:
			return Reproduced, "within the stated factors over every repetition"
		}
		return Inconclusive, "the repetitions' spreads straddle the stated factors"
	}
	switch {
	case clears && !p.small.atLeast:
		if p.big.atLeast {
			return Reproduced, "the bound alone clears the threshold"
		}
		return Reproduced, "clears the threshold over every repetition"
	case short && !p.big.atLeast:
		if p.small.atLeast {
			return NotReproduced, "falls short even of the bound"
		}
		return NotReproduced, "falls short over every repetition"
	case p.big.atLeast || p.small.atLeast:
		return NotComparable, "a lower bound that does not decide it"
	}
	return Inconclusive, "the repetitions' spreads straddle the threshold"
}

// collapse reduces a value to its median, for what a claim would read on too few repetitions.
func collapse(v value) value {
	v.stat = benchv1.Stat{Median: v.stat.Median, Min: v.stat.Median, Max: v.stat.Median}
	return v
}

// decide returns the verdict and a one-line reason.
func decide(c check, runs map[string]*run) (string, string) {
	if why := setupRefuses(c, runs); why != "" {
		return NotComparable, why
	}
	switch c.Kind {
	case "errors":
		return decideErrors(c, runs)
	case "holds":
		return decideHolds(c, runs)
	case "steadiest":
		return decideSteadiest(c, runs)
	case "steeper":
		return decideSteeper(c, runs)
	}
	pairs, verdict, why := pairsOf(c, runs)
	if verdict != "" {
		return verdict, why
	}
	var ev []string
	verdicts := map[string]string{}
	n := int32(MinRepetitions)
	for _, p := range pairs {
		n = min(n, p.big.n, p.small.n)
		v, how := judge(p)
		if _, seen := verdicts[v]; !seen {
			verdicts[v] = how
		}
		ev = append(ev, describe(c, p))
	}
	v := combine(verdicts)
	if n < MinRepetitions && (v == Reproduced || v == NotReproduced || v == Inconclusive) {
		lean := map[string]string{}
		for _, p := range pairs {
			l, how := judge(pair{collapse(p.big), collapse(p.small), p.k, p.kMax, p.tol})
			lean[l] = how
		}
		return Inconclusive, fmt.Sprintf("%d repetition(s), %d needed; on the medians it would read %s: %s",
			n, MinRepetitions, combine(lean), strings.Join(ev, "; "))
	}
	return v, verdicts[v] + ": " + strings.Join(ev, "; ")
}

// combine: a clear contradiction decides the claim; otherwise the weakest pair does.
func combine(verdicts map[string]string) string {
	for _, v := range []string{NotRun, NotReproduced, NotComparable, Inconclusive} {
		if _, ok := verdicts[v]; ok {
			return v
		}
	}
	return Reproduced
}

// pairsOf expands a check into its pairs, or returns the verdict that none can be read.
func pairsOf(c check, runs map[string]*run) ([]pair, string, string) {
	get := func(doc string, point int, target string) (value, string, string) {
		r, row, verdict, why := pick(runs, c.Scenario, side{doc, target, point})
		if verdict != "" {
			return value{}, verdict, why
		}
		v, why := valueOf(r, row, c.Metric)
		if why != "" {
			return v, NotComparable, why
		}
		if slices.Contains(c.AtLeast, target) {
			v.atLeast = true
		}
		return v, "", ""
	}
	// better orders a pair as big/small by the metric's direction: a beats b by k.
	better := func(a, b value, k, kMax float64) pair {
		if lowerIsBetter(c.Metric) {
			return pair{big: b, small: a, k: k, kMax: kMax}
		}
		return pair{big: a, small: b, k: k, kMax: kMax}
	}
	ratio := c.Ratio
	if ratio == 0 {
		ratio = 1
	}
	var pairs []pair
	switch c.Kind {
	case "ratio", "similar":
		a, v, why := get(c.Doc, c.Point, c.A)
		if v != "" {
			return nil, v, why
		}
		b, v, why := get(c.Doc, c.Point, c.B)
		if v != "" {
			return nil, v, why
		}
		if c.Kind == "similar" {
			return []pair{{big: a, small: b, tol: c.Tolerance}}, "", ""
		}
		return []pair{better(a, b, ratio, c.MaxRatio)}, "", ""
	case "order", "best":
		names := c.Targets
		if c.Kind == "best" {
			names = append([]string{c.A}, c.Targets...)
		}
		vals := make([]value, len(names))
		for i, t := range names {
			v, verdict, why := get(c.Doc, c.Point, t)
			if verdict != "" {
				return nil, verdict, why
			}
			vals[i] = v
		}
		for i := 1; i < len(vals); i++ {
			k, kMax := 1.0, 0.0
			if c.Kind == "order" && i-1 < len(c.Ratios) {
				k = c.Ratios[i-1]
			}
			if c.Kind == "order" && i-1 < len(c.MaxRatios) {
				kMax = c.MaxRatios[i-1]
			}
			if c.Kind == "order" {
				pairs = append(pairs, better(vals[i-1], vals[i], k, kMax))
			} else {
				pairs = append(pairs, better(vals[0], vals[i], k, c.MaxRatio))
			}
		}
	case "change":
		to := c.ToDoc
		if to == "" {
			to = c.Doc
		}
		for _, t := range c.Targets {
			from, verdict, why := get(c.Doc, c.Point, t)
			if verdict != "" {
				return nil, verdict, why
			}
			into, verdict, why := get(to, c.ToPoint, t)
			if verdict != "" {
				return nil, verdict, why
			}
			from.who, into.who = t+" before", t+" after"
			switch {
			case c.Tolerance > 0:
				pairs = append(pairs, pair{big: into, small: from, tol: c.Tolerance})
			case c.Up:
				pairs = append(pairs, pair{big: into, small: from, k: ratio, kMax: c.MaxRatio})
			default:
				pairs = append(pairs, pair{big: from, small: into, k: ratio, kMax: c.MaxRatio})
			}
		}
	default:
		return nil, NotComparable, "unknown check " + c.Kind
	}
	return pairs, "", ""
}

func decideErrors(c check, runs map[string]*run) (string, string) {
	verdicts := map[string]string{}
	var ev []string
	n := int32(MinRepetitions)
	lean := map[string]string{}
	for _, t := range append(append([]string{}, c.Targets...), c.Clean...) {
		r, row, verdict, why := pick(runs, c.Scenario, side{c.Doc, t, c.Point})
		if verdict != "" {
			return verdict, why
		}
		v, why := valueOf(r, row, "errors")
		if why != "" {
			return NotComparable, why
		}
		n = min(n, v.n)
		fail := slices.Contains(c.Targets, t)
		verdict, how := errorVerdict(v.stat, fail)
		verdicts[verdict] = how
		l, how := errorVerdict(collapse(v).stat, fail)
		lean[l] = how
		ev = append(ev, t+" "+spread("errors", v))
	}
	if n < MinRepetitions {
		return Inconclusive, fmt.Sprintf("%d repetition(s), %d needed; on the medians it would read %s: %s",
			n, MinRepetitions, combine(lean), strings.Join(ev, ", "))
	}
	v := combine(verdicts)
	return v, verdicts[v] + ": " + strings.Join(ev, ", ")
}

func errorVerdict(s benchv1.Stat, fail bool) (string, string) {
	switch {
	case fail && s.Min >= FailThresholdPPM, !fail && s.Max == 0:
		return Reproduced, "every repetition as claimed"
	case fail && s.Max < FailThresholdPPM:
		return NotReproduced, "a target said to fail stayed under 1% errors"
	case !fail && s.Min > 0:
		return NotReproduced, "a target said to be clean had errors"
	}
	return Inconclusive, "the repetitions disagree"
}

func decideHolds(c check, runs map[string]*run) (string, string) {
	verdicts := map[string]string{}
	lean := map[string]string{}
	var ev []string
	n := int32(MinRepetitions)
	for _, t := range c.Targets {
		r, row, verdict, why := pick(runs, c.Scenario, side{c.Doc, t, c.Point})
		if verdict != "" {
			return verdict, why
		}
		if r.BR.Spec.Load.Model == benchv1.LoadModelClosed {
			return NotComparable, "a closed model offers no rate to hold"
		}
		if row.Repetitions == 0 {
			return NotComparable, t + " was not measured"
		}
		// A generator that fell behind never offered the rate: the target was not tested.
		for _, f := range row.Flags {
			if f == results.FlagDroppedIterations || f == results.FlagGeneratorBound || f == results.FlagSharedCores {
				return NotComparable, fmt.Sprintf("%s's row is flagged %s: the rate was not offered as planned", t, f)
			}
		}
		n = min(n, row.Repetitions)
		offered := int64(row.LoadPoint) * 1000
		holdVerdict := func(rate, errs benchv1.Stat) (string, string) {
			switch {
			case rate.Min*100 >= offered*99 && errs.Max == 0:
				return Reproduced, "every repetition served at least 99% of the offered rate with no errors"
			case rate.Max*100 < offered*99 || errs.Min > 0:
				return NotReproduced, "short of the offered rate, or errors, in every repetition"
			}
			return Inconclusive, "the repetitions disagree"
		}
		v, how := holdVerdict(row.AchievedMilliRPS, row.ErrorRatePPM)
		verdicts[v] = how
		l, how := holdVerdict(collapse(value{stat: row.AchievedMilliRPS}).stat, collapse(value{stat: row.ErrorRatePPM}).stat)
		lean[l] = how
		ev = append(ev, fmt.Sprintf("%s %s of %s/s offered, %s", t, spread("rps", value{stat: row.AchievedMilliRPS, n: row.Repetitions}),
			rps(offered), spread("errors", value{stat: row.ErrorRatePPM, n: row.Repetitions})))
	}
	if n < MinRepetitions {
		return Inconclusive, fmt.Sprintf("%d repetition(s), %d needed; on the medians it would read %s: %s",
			n, MinRepetitions, combine(lean), strings.Join(ev, ", "))
	}
	v := combine(verdicts)
	return v, verdicts[v] + ": " + strings.Join(ev, ", ")
}

// setupRefuses says why the sample's setup, not the targets, would decide the claim ("" when
// it would not): the targets had fewer CPUs than a claim about workers needs, a target under
// a load claim used too little of its CPU for the load to test it, or a window held too few
// requests.
func setupRefuses(c check, runs map[string]*run) string {
	docs := []string{c.Doc}
	if c.ToDoc != "" && c.ToDoc != c.Doc {
		docs = append(docs, c.ToDoc)
	}
	for _, d := range docs {
		r, ok := runs[d]
		if !ok {
			continue // decided as not run below
		}
		for _, name := range c.targets() {
			_, row, verdict, _ := pick(runs, c.Scenario, side{d, name, c.Point})
			if verdict != "" || row.Repetitions == 0 {
				continue // decided below
			}
			if c.MinLoad > 0 && row.CPUMillicores != nil {
				cpus := 1
				if p := r.BR.Status.Placement; p != nil && cpuCount(p.TargetCPUs) > 0 {
					cpus = cpuCount(p.TargetCPUs)
				}
				if float64(row.CPUMillicores.Min) < c.MinLoad*float64(cpus)*1000 {
					return fmt.Sprintf("%s used %s of its %d CPU at the scaled load, under the %.0f%% the claim needs: a load that saturates nothing cannot show it is handled",
						name, spread("cpu", value{stat: *row.CPUMillicores, n: row.Repetitions}), cpus, c.MinLoad*100)
				}
			}
			if c.MinRequests > 0 {
				for _, m := range measurements(r, row) {
					if m.Requests < c.MinRequests {
						return fmt.Sprintf("%s's windows held %s requests (%d needed): too few for the share the claim names to show",
							name, requestSpread(r, row), c.MinRequests)
					}
				}
			}
		}
		if c.TargetCPUs > 0 {
			n := 0
			if p := r.BR.Status.Placement; p != nil && !p.Shared {
				n = cpuCount(p.TargetCPUs)
			}
			if n < c.TargetCPUs {
				return fmt.Sprintf("a claim about what workers add needs the targets on %d CPUs or more; here they had %s, so the workers took turns on it",
					c.TargetCPUs, placementCPUs(r))
			}
		}
	}
	return ""
}

// targets are every target a check names.
func (c check) targets() []string {
	var names []string
	for _, n := range slices.Concat([]string{c.A, c.B}, c.Targets, c.Clean, c.Than) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func placementCPUs(r *run) string {
	p := r.BR.Status.Placement
	if p == nil || p.TargetCPUs == "" || p.Shared {
		return "the machine's CPUs shared with k6"
	}
	return cpuList(p.TargetCPUs) + " (status.placement)"
}

// requestSpread is a row's requests per window over its repetitions: "10" or "601 (590–612)";
// "" when the run kept no trials.
func requestSpread(r *run, row benchv1.ResultRow) string {
	var n []int64
	for _, m := range measurements(r, row) {
		n = append(n, m.Requests)
	}
	if len(n) == 0 {
		return ""
	}
	s := results.Summarize(n)
	if s.Min == s.Max {
		return fmt.Sprint(s.Median)
	}
	return fmt.Sprintf("%d (%d–%d)", s.Median, s.Min, s.Max)
}
