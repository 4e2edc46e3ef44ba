package schedule

import (
	"context"
	"fmt"
	"slices"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// refuseProtected stops a schedule in a namespace the operator runs no benchmark in
// (ProtectedNamespaces, the runs' --protected-namespaces): every run it created would be
// refused, so it would only fill the namespace with failed runs, one per tick.
func (r *BenchmarkScheduleReconciler) refuseProtected(_ context.Context, sc *scope) error {
	s := sc.schedule
	if !slices.Contains(r.ProtectedNamespaces, s.Namespace) {
		return nil
	}
	msg := fmt.Sprintf("namespace %s is protected (--protected-namespaces): the operator starts no run there; create the schedule in a namespace of your own", s.Namespace)
	r.Recorder.Eventf(s, nil, "Warning", benchv1.ReasonProtectedNamespace, "Schedule", "%s", msg)
	setScheduleConditions(s, false, benchv1.ReasonProtectedNamespace, msg)
	sc.stop = true
	return nil
}
