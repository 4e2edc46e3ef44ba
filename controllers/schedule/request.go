package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A run asked for by hand: the schedule's gauntlet.dev/run-now annotation. Each new value
// starts one run; status.lastRunRequest records the value acted on, and the run carries
// the value too, so neither a re-applied manifest nor a status write lost to a restart
// starts a second.

// maxRequestKey is status.lastRunRequest's bound (MaxLength).
const maxRequestKey = 128

// requestKey is what status.lastRunRequest holds for value: the value, or its SHA-256 when
// longer than the field's bound.
func requestKey(value string) string {
	if len(value) <= maxRequestKey {
		return value
	}
	sum := sha256.Sum256([]byte(value))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// findRequest returns the annotation's value when it asks for a run not yet started, and
// records it as handled when a run already carries it, or when the schedule is first seen
// (first: a schedule restored from Git into a new cluster does not run an old request
// again).
func findRequest(s *benchv1.BenchmarkSchedule, runs []*benchv1.BenchmarkRun, first bool) string {
	value := s.Annotations[benchv1.AnnotationRunNow]
	st := &s.Status
	if value == "" || requestKey(value) == st.LastRunRequest {
		return ""
	}
	if first || slices.ContainsFunc(runs, func(r *benchv1.BenchmarkRun) bool { return r.Annotations[benchv1.AnnotationRunNow] == value }) {
		st.LastRunRequest = requestKey(value)
		return ""
	}
	return value
}
