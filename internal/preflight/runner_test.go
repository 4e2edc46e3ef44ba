package preflight

import (
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
)

// TestReportOnChange: an Event on the Pod when a check first fails (Missing or a warning)
// and when it recovers, none while its status stays, none for a check ok from the start;
// the gauge is 0 only while Missing, and a skipped check has no series.
func TestReportOnChange(t *testing.T) {
	rec := events.NewFakeRecorder(10)
	r := &Runner{Recorder: rec, Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "ns"}},
		Gauge: opmetrics.NewPreflightGauge(), Log: logr.Discard()}
	round := func(k6, cnpg string) []string {
		r.report([]Result{{"k6", k6, "d1"}, {"cnpg", cnpg, "d2"}, {"sm", Skipped, "d3"}, {"prometheus", OK, "d4"}})
		var got []string
		for len(rec.Events) > 0 {
			got = append(got, <-rec.Events)
		}
		return got
	}
	gauge := func(check string) float64 { return testutil.ToFloat64(r.Gauge.WithLabelValues(check)) }

	got := round(Missing, Warn)
	if len(got) != 2 || !strings.HasPrefix(got[0], "Warning "+ReasonFailed+" k6: MISSING: d1") || !strings.HasPrefix(got[1], "Warning "+ReasonWarning+" cnpg: warn: d2") {
		t.Errorf("first round: events %q, want PreflightFailed for k6 and PreflightWarning for cnpg", got)
	}
	if gauge("k6") != 0 || gauge("cnpg") != 1 || gauge("prometheus") != 1 {
		t.Errorf("first round: gauge k6 %v cnpg %v prometheus %v, want 0 1 1", gauge("k6"), gauge("cnpg"), gauge("prometheus"))
	}
	if n := testutil.CollectAndCount(r.Gauge); n != 3 {
		t.Errorf("%d series, want 3 (the skipped check has none)", n)
	}
	if got := round(Missing, Warn); len(got) != 0 {
		t.Errorf("same statuses again: events %q, want none", got)
	}
	got = round(OK, Warn)
	if len(got) != 1 || !strings.HasPrefix(got[0], "Normal "+ReasonRecovered+" k6: ok") {
		t.Errorf("k6 recovered: events %q, want one PreflightRecovered", got)
	}
	if gauge("k6") != 1 {
		t.Errorf("k6 recovered: gauge %v, want 1", gauge("k6"))
	}
}
