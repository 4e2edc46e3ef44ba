package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Specs the CRD accepts but that reach beyond the run are refused before anything is
// deployed or any node pool locked, naming the field: a database volume that never binds
// (it held the pool for the database timeout) and a request path that is a database
// route to the target's router without spec.database.
func TestSpecBeyondTheCRDIsRefused(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	storage := pingRun("bounds-storage")
	q := resource.MustParse("-10Gi")
	storage.Spec.Database = &benchv1.Database{Storage: &q}
	storage.Spec.Scenarios = []benchv1.Scenario{{Name: "db", Workload: "db-ping"}}
	dotted := pingRun("bounds-dotted")
	dotted.Spec.Scenarios = []benchv1.Scenario{{Name: "mix", Requests: []benchv1.Request{{Method: "GET", Path: "/./api/db/ping", Weight: 1}}}}
	for run, field := range map[*benchv1.BenchmarkRun]string{storage: "spec.database.storage", dotted: "spec.scenarios[0].requests[0].path"} {
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatalf("%s: the API server refused it (%v): the CRD has the bound now, this test is moot", run.Name, err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
		got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, finished)
		c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionAccepted)
		if got.Status.Phase != benchv1.PhaseFailed || c == nil || c.Reason != benchv1.ReasonInvalidSpec || !strings.Contains(c.Message, field) {
			t.Errorf("%s: phase %s, Accepted %+v: want Failed, InvalidSpec naming %s", run.Name, got.Status.Phase, c, field)
		}
		if left := createdObjects(t, got); len(left) > 0 {
			t.Errorf("%s: created %v before refusing", run.Name, left)
		}
	}
}
