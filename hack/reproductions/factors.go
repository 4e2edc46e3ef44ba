package main

import (
	"fmt"
	"strings"
)

// factor is how much one target's figure changed between two sides of a check, as a spread
// over the repetitions: from the smallest (to's min over from's max) to the largest.
type factor struct {
	who    string
	lo, hi float64
	n      int32
	ev     string
}

// factorOf reads target's figure on both sides of c: (Doc, Point, Metric) and (ToDoc or Doc,
// ToPoint, ToMetric or Metric). up reads a rise (to over from), otherwise a drop (from over
// to). A bound on either side gives no factor: a factor between bounds is no figure.
func factorOf(c check, runs map[string]*run, target string, up bool) (factor, string, string) {
	toDoc, toMetric := c.ToDoc, c.ToMetric
	if toDoc == "" {
		toDoc = c.Doc
	}
	if toMetric == "" {
		toMetric = c.Metric
	}
	f := factor{who: target, n: MinRepetitions}
	var vs [2]value
	for i, s := range []struct {
		doc, metric string
		point       int
	}{{c.Doc, c.Metric, c.Point}, {toDoc, toMetric, c.ToPoint}} {
		r, row, verdict, why := pick(runs, c.Scenario, side{s.doc, target, s.point})
		if verdict != "" {
			return f, verdict, why
		}
		v, why := valueOf(r, row, s.metric)
		if why != "" {
			return f, NotComparable, why
		}
		if v.atLeast {
			return f, NotComparable, fmt.Sprintf("%s's %s is a lower bound (%s): a factor between bounds is no figure", target, s.metric, spread(s.metric, v))
		}
		if v.stat.Min <= 0 {
			return f, NotComparable, target + " has no " + s.metric
		}
		vs[i] = v
		f.n = min(f.n, v.n)
	}
	from, to := vs[0], vs[1]
	if !up {
		from, to = to, from
	}
	f.lo = float64(to.stat.Min) / float64(from.stat.Max)
	f.hi = float64(to.stat.Max) / float64(from.stat.Min)
	f.ev = fmt.Sprintf("%s %s to %s: %.1f×–%.1f×", target, spread(c.Metric, vs[0]), spread(toMetric, vs[1]), f.lo, f.hi)
	return f, "", ""
}

// factorsOf reads the factor of every target named, in order, or the verdict that one cannot
// be read.
func factorsOf(c check, runs map[string]*run, up bool, names ...string) ([]factor, []string, int32, string, string) {
	var fs []factor
	var ev []string
	n := int32(MinRepetitions)
	for _, t := range names {
		f, verdict, why := factorOf(c, runs, t, up)
		if verdict != "" {
			return nil, nil, 0, verdict, why
		}
		fs = append(fs, f)
		ev = append(ev, f.ev)
		n = min(n, f.n)
	}
	return fs, ev, n, "", ""
}

// decideSteadiest: A is the steadiest when its largest factor (from Point to ToPoint, a rise)
// is below every other's smallest.
func decideSteadiest(c check, runs map[string]*run) (string, string) {
	fs, ev, n, verdict, why := factorsOf(c, runs, true, append([]string{c.A}, c.Targets...)...)
	if verdict != "" {
		return verdict, why
	}
	if n < MinRepetitions {
		return Inconclusive, fmt.Sprintf("%d repetition(s), %d needed: %s", n, MinRepetitions, strings.Join(ev, "; "))
	}
	verdict, how := Reproduced, "its factor is below every other's over every repetition"
	for _, f := range fs[1:] {
		switch {
		case fs[0].lo > f.hi:
			return NotReproduced, "another's factor is below it over every repetition: " + strings.Join(ev, "; ")
		case fs[0].hi >= f.lo:
			verdict, how = Inconclusive, "the factors' spreads overlap"
		}
	}
	return verdict, how + ": " + strings.Join(ev, "; ")
}

// decideSteeper: each of Targets changed more than each of Than when its smallest factor is
// above the other's largest over every repetition; not when its largest is below the other's
// smallest.
func decideSteeper(c check, runs map[string]*run) (string, string) {
	if len(c.Targets) == 0 || len(c.Than) == 0 {
		return NotComparable, "a steeper check needs targets and than"
	}
	fs, ev, n, verdict, why := factorsOf(c, runs, c.Up, append(append([]string{}, c.Targets...), c.Than...)...)
	if verdict != "" {
		return verdict, why
	}
	if n < MinRepetitions {
		return Inconclusive, fmt.Sprintf("%d repetition(s), %d needed: %s", n, MinRepetitions, strings.Join(ev, "; "))
	}
	steep, than := fs[:len(c.Targets)], fs[len(c.Targets):]
	verdict, how := Reproduced, "each factor above every other's over every repetition"
	for _, s := range steep {
		for _, o := range than {
			switch {
			case s.hi < o.lo:
				return NotReproduced, fmt.Sprintf("%s's factor is below %s's over every repetition: %s", s.who, o.who, strings.Join(ev, "; "))
			case s.lo <= o.hi:
				verdict, how = Inconclusive, "the factors' spreads overlap"
			}
		}
	}
	return verdict, how + ": " + strings.Join(ev, "; ")
}
