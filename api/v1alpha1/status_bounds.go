package v1alpha1

import (
	"fmt"
	"unicode/utf8"
)

// Bounds that keep a run's status inside one etcd object (about 1.5 MiB) whatever the spec:
// the schema bounds every list the status grows from (MaxTrials through a CEL rule on the
// spec), and Bound cuts every free text to these lengths before the status is written, saying
// how long it was. test/bounds holds the status of every accepted spec, at its worst, under
// 1 MiB.
const (
	// MaxTrials is the most trials a spec may plan: targets x scenarios x load points x
	// repetitions, plus one generator-floor (calibration) trial per scenario and load point,
	// plus a capacity search's steps. 180, not more: with wire figures, floors and baseline
	// verdicts in every row, 192 rows already took the worst status past 1 MiB.
	MaxTrials = 180
	// MaxMessageLength bounds a trial's message, a result row's message and the headline.
	MaxMessageLength = 512
	// MaxComparisonMessageLength bounds a result row's comparison with the baseline.
	MaxComparisonMessageLength = 256
	// MaxSearchMessageLength bounds a capacity search's message, MaxStepReasonLength a step's reason.
	MaxSearchMessageLength = 256
	MaxStepReasonLength    = 128
	// MaxVerdictLength bounds status.verdict, a printer column.
	MaxVerdictLength = 256
	// MaxConditionMessageLength bounds a condition's message.
	MaxConditionMessageLength = 1024
	// MaxFailedChecks and MaxFailedCheckLength bound a target's failed contract checks.
	MaxFailedChecks      = 10
	MaxFailedCheckLength = 256
	// MaxConditions bounds status.conditions (the operator sets 12 types).
	MaxConditions = 16
	// MaxFlags bounds a result row's flags: 9 exist (results.ValidityFlags), a row carries at
	// most 8, since GeneratorLimited is the closed model's and RateShortfall the open model's
	// (test/bounds fills a row with the other 8).
	MaxFlags = 8
)

// Bound cuts the status's free text to the lengths above and its failed checks to
// MaxFailedChecks. Lists planned from the spec are bounded by the schema, not here: dropping
// a trial would lose a measurement.
func (s *BenchmarkRunStatus) Bound() {
	for i := range s.Conditions {
		s.Conditions[i].Message = Clip(s.Conditions[i].Message, MaxConditionMessageLength)
	}
	s.Headline = Clip(s.Headline, MaxMessageLength)
	if s.Placement != nil {
		s.Placement.Message = Clip(s.Placement.Message, MaxMessageLength)
	}
	s.Capacity = Clip(s.Capacity, MaxMessageLength)
	s.Verdict = Clip(s.Verdict, MaxVerdictLength)
	if s.Baseline != nil {
		s.Baseline.Pairs = Clip(s.Baseline.Pairs, MaxMessageLength)
	}
	for i := range s.Search {
		s.Search[i].Message = Clip(s.Search[i].Message, MaxSearchMessageLength)
		for j := range s.Search[i].Steps {
			s.Search[i].Steps[j].Reason = Clip(s.Search[i].Steps[j].Reason, MaxStepReasonLength)
		}
	}
	for i := range s.Targets {
		t := &s.Targets[i]
		t.FailedChecks = t.FailedChecks[:min(len(t.FailedChecks), MaxFailedChecks)]
		for j := range t.FailedChecks {
			t.FailedChecks[j] = Clip(t.FailedChecks[j], MaxFailedCheckLength)
		}
		if l := t.Limits; l != nil {
			l.Cgroup, l.Message = Clip(l.Cgroup, MaxMessageLength), Clip(l.Message, MaxMessageLength)
		}
	}
	for i := range s.Trials {
		s.Trials[i].Message = Clip(s.Trials[i].Message, MaxMessageLength)
	}
	for i := range s.Results {
		s.Results[i].Message = Clip(s.Results[i].Message, MaxMessageLength)
		if c := s.Results[i].Baseline; c != nil {
			c.Message = Clip(c.Message, MaxComparisonMessageLength)
		}
	}
}

// Clip cuts s to at most limit bytes on a UTF-8 boundary, ending in "... (N bytes)".
func Clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := fmt.Sprintf("... (%d bytes)", len(s))
	cut := max(limit-len(note), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note
}
