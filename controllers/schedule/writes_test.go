package schedule

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// scheduleWrites counts the writes of a schedule through a fake client: its status patches
// (and their types), status updates, and updates or patches of the object itself.
type scheduleWrites struct {
	statusPatches []types.PatchType
	statusUpdates int
	objectWrites  int
}

func isSchedule(obj client.Object) bool {
	_, ok := obj.(*benchv1.BenchmarkSchedule)
	return ok
}

// writesClient is a fake client holding objs that counts the schedule's writes into w;
// createErr, when set, refuses every run's creation.
func writesClient(t *testing.T, w *scheduleWrites, createErr error, objs ...client.Object) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := benchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&benchv1.BenchmarkSchedule{}, &benchv1.BenchmarkRun{}).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				if isSchedule(obj) && sub == "status" {
					w.statusPatches = append(w.statusPatches, patch.Type())
				}
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				if isSchedule(obj) {
					w.statusUpdates++
				}
				return c.SubResource(sub).Update(ctx, obj, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if isSchedule(obj) {
					w.objectWrites++
				}
				return c.Update(ctx, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				if isSchedule(obj) {
					w.objectWrites++
				}
				return c.Patch(ctx, obj, patch, opts...)
			},
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if _, ok := obj.(*benchv1.BenchmarkRun); ok && createErr != nil {
					return createErr
				}
				return c.Create(ctx, obj, opts...)
			},
		}).Build()
}

// A pass that records a run in the history and starts the run of a time due writes the
// schedule's status once, as a merge patch, and never updates it. When the run's creation
// fails, the pass still writes once, with what the history phase recorded, and without the
// time (the retry starts it) or the generation (Ready does not speak for it).
func TestOneStatusPatchPerPass(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)
	due := created.Truncate(time.Hour).Add(time.Hour)
	for _, tc := range []struct {
		name      string
		createErr error
	}{{"run created", nil}, {"run creation fails", errors.New("create refused")}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: "default", UID: "u-once", Generation: 2,
				CreationTimestamp: metav1.NewTime(created)}, Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", Template: pingTemplate()}}
			s.Status.ObservedGeneration = 1
			done := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "once-done", Namespace: "default",
				Labels:          map[string]string{benchv1.LabelSchedule: "once"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkSchedule", Name: "once", UID: "u-once", Controller: ptr.To(true)}},
				Annotations:     map[string]string{benchv1.AnnotationScheduledAt: created.Add(-time.Hour).Format(time.RFC3339)}}, Spec: pingTemplate().Spec}
			done.Status.Phase = benchv1.PhaseSucceeded
			done.Status.Results = []benchv1.ResultRow{{Target: "go", Scenario: "ping", LoadPoint: 200, Repetitions: 1,
				P50Micros: benchv1.Stat{Median: 500}, P99Micros: benchv1.Stat{Median: 900}}}
			w := &scheduleWrites{}
			c := writesClient(t, w, tc.createErr, s, done)
			r := &BenchmarkScheduleReconciler{Client: c, Recorder: events.NewFakeRecorder(100), Clock: clocktesting.NewFakeClock(due.Add(time.Minute))}

			_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(s)})
			if (err != nil) != (tc.createErr != nil) {
				t.Fatalf("Reconcile: %v", err)
			}
			if len(w.statusPatches) != 1 || w.statusPatches[0] != types.MergePatchType || w.statusUpdates != 0 || w.objectWrites != 0 {
				t.Fatalf("status patches %v, status updates %d, schedule writes %d: want one merge patch and nothing else",
					w.statusPatches, w.statusUpdates, w.objectWrites)
			}
			got := &benchv1.BenchmarkSchedule{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(s), got); err != nil {
				t.Fatal(err)
			}
			runs := &benchv1.BenchmarkRunList{}
			if err := c.List(context.Background(), runs, client.InNamespace("default")); err != nil {
				t.Fatal(err)
			}
			st := got.Status
			// The history phase's record is written either way.
			if st.HistoryRuns != 1 || st.LastGoodRun != "once-done" {
				t.Fatalf("history not written: %+v", st)
			}
			if tc.createErr == nil {
				if len(runs.Items) != 2 || st.LastScheduleTime == nil || !st.LastScheduleTime.Time.Equal(due) || len(st.Runs) != 2 || st.ObservedGeneration != 2 {
					t.Fatalf("%d runs, status %+v", len(runs.Items), st)
				}
				return
			}
			if len(runs.Items) != 1 || st.LastScheduleTime != nil || st.ObservedGeneration != 1 {
				t.Fatalf("after a failed creation: %d runs, status %+v", len(runs.Items), st)
			}
		})
	}
}
