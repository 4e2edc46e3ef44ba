package schedule

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A schedule in a protected namespace starts no run, says why in Ready and an event; the
// same schedule elsewhere runs at its time.
func TestScheduleInProtectedNamespaceStartsNothing(t *testing.T) {
	created := utc("2026-01-01T00:30:00Z")
	for _, protected := range []bool{true, false} {
		s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "nightly"}, Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *"}}
		h := newFakeHarness(t, s, created)
		h.r.ProtectedNamespaces = []string{"kube-system"}
		if protected {
			h.r.ProtectedNamespaces = append(h.r.ProtectedNamespaces, "default") // the harness's namespace
		}
		got, _ := h.at(utc("2026-01-01T01:00:10Z"))
		runs, ev := h.runs(), h.drain()
		ready := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionReady)
		if !protected {
			if len(runs) != 1 || strings.Contains(ev, benchv1.ReasonProtectedNamespace) {
				t.Fatalf("unprotected: %d runs, events:\n%s", len(runs), ev)
			}
			continue
		}
		if len(runs) != 0 || ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != benchv1.ReasonProtectedNamespace ||
			!strings.Contains(ready.Message, "namespace default is protected") || !strings.Contains(ev, "Warning ProtectedNamespace") {
			t.Fatalf("protected: %d runs, Ready %+v, events:\n%s", len(runs), ready, ev)
		}
	}
}
