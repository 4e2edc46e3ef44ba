package api

import (
	"context"
	"testing"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A run no operator has written yet is InProgress to kstatus (Flux's health checks), not
// Current: the API server gives it status.observedGeneration 0 against generation 1. Flux
// checks a run's health right after applying it, before the operator's first pass.
func TestNewRunIsInProgressForFlux(t *testing.T) {
	testenv.Long(t)
	created := createBase(t, newNamespace(t))
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(benchv1.GroupVersion.WithKind("BenchmarkRun"))
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(created), u); err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(u)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.InProgressStatus {
		st, _, _ := unstructured.NestedMap(u.Object, "status")
		t.Errorf("kstatus %s (%s) for a run without the operator's status %v, want %s", res.Status, res.Message, st, status.InProgressStatus)
	}
}
