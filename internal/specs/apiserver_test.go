package specs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// TestObjectsAreAcceptedByTheAPIServer creates every built object in a real API server with
// strict field validation: a field that does not exist in the Kubernetes, CloudNativePG or
// k6-operator schema (or a wrong type) fails the create instead of being dropped.
func TestObjectsAreAcceptedByTheAPIServer(t *testing.T) {
	testenv.Long(t)
	root := testenv.Root()
	crds := filepath.Join(root, "bin", "crds")
	if _, err := os.Stat(filepath.Join(crds, "cloudnative-pg")); err != nil {
		// Idempotent and cached: only the first run downloads the CRD modules.
		if out, err := exec.Command("bash", filepath.Join(root, "hack", "crds.sh")).CombinedOutput(); err != nil {
			t.Fatalf("hack/crds.sh: %v\n%s", err, out)
		}
	}
	if err := cnpgv1.AddToScheme(scheme.Scheme); err != nil {
		t.Fatal(err)
	}
	env, err := testenv.Start(filepath.Join(crds, "cloudnative-pg"), filepath.Join(crds, "prometheus-operator"),
		filepath.Join(root, "test", "crds", "k6-operator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx := context.Background()
	c := env.Client

	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "perf"}}); err != nil {
		t.Fatal(err)
	}
	run := fixtureRun()
	run.UID = ""
	// Every pod builder's pull secrets, the Pooler's template among them, against the schemas.
	run.Spec.ImagePullSecrets = []benchv1.ImagePullSecret{{Name: "ghcr-creds"}}
	if err := c.Create(ctx, run); err != nil {
		t.Fatalf("creating the run: %v", err)
	}
	cfg := fixtureConfig()
	cfg.NetworkPolicy = DefaultNetworkPolicy()
	trial := fixtureTrial
	testRun := TestRun(run, trial, fixturePlan(t), cfg)
	objects := []client.Object{
		TargetDeployment(run, run.Spec.Targets[0], cfg),
		TargetService(run, run.Spec.Targets[0]),
		TargetDeployment(run, run.Spec.Targets[1], cfg),
		TargetService(run, run.Spec.Targets[1]),
		SchemaConfigMap(run, cfg),
		DatabaseCluster(run, cfg),
		DatabasePooler(run),
		PlanConfigMap(run, trial, fixturePlan(t)),
		testRun,
		TargetNetworkPolicy(run, cfg),
	}
	for _, obj := range objects {
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		if err := c.Create(ctx, obj, client.FieldValidation("Strict")); err != nil {
			t.Errorf("creating %s %s: %v", kind, obj.GetName(), err)
			continue
		}
		if refs := obj.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != run.UID {
			t.Errorf("%s %s: owner references %v do not point at the run (uid %s)", kind, obj.GetName(), refs, run.UID)
		}
	}

	// The TestRun comes back with its spec whole (nothing pruned) and its status readable
	// through the mirror once k6-operator (played here) writes it.
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(TestRunGVK)
	if err := c.Get(ctx, client.ObjectKeyFromObject(testRun), got); err != nil {
		t.Fatal(err)
	}
	wantSpec, _, _ := unstructured.NestedMap(TestRun(run, trial, fixturePlan(t), cfg).Object, "spec")
	gotSpec, _, _ := unstructured.NestedMap(got.Object, "spec")
	delete(gotSpec, "quiet") // CRD defaults
	delete(gotSpec, "paused")
	assertObject(t, gotSpec, mustYAML(t, wantSpec))
	if err := unstructured.SetNestedField(got.Object, StageStarted, "status", "stage"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, got, client.FieldValidation("Strict")); err != nil {
		t.Fatalf("writing the TestRun status: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(testRun), got); err != nil {
		t.Fatal(err)
	}
	if st, err := ReadTestRunStatus(got); err != nil || st.Stage != StageStarted {
		t.Errorf("status read back = %+v, %v", st, err)
	}
}
