package chart

import (
	"path/filepath"
	"testing"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// startEnvtest starts a kube-apiserver and etcd with CloudNativePG's and prometheus-operator's
// CRDs (and those of extraCRDs, folders under the repository), stopped when the test ends,
// and returns it, its config and a client that knows the BenchmarkRun types.
func startEnvtest(t *testing.T, extraCRDs ...string) (*envtest.Environment, *rest.Config, client.Client) {
	t.Helper()
	testenv.Long(t)
	crds, err := tool("crds.sh")
	if err != nil {
		t.Fatal(err)
	}
	assets, err := tool("envtest-binaries.sh")
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{filepath.Join(crds, "cloudnative-pg"), filepath.Join(crds, "prometheus-operator")}
	for _, d := range extraCRDs {
		dirs = append(dirs, filepath.Join(root, d))
	}
	env := &envtest.Environment{CRDDirectoryPaths: dirs, ErrorIfCRDPathMissing: true, BinaryAssetsDirectory: assets}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	if err := benchv1.AddToScheme(scheme.Scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return env, cfg, c
}
