// Package testenv starts the real kube-apiserver and etcd (envtest) for tests, with the
// project's CRDs installed. The binaries come from hack/envtest-binaries.sh.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Root is the repository root, found from this file's location.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Env is a running API server with a client for it.
type Env struct {
	env    *envtest.Environment
	Config *rest.Config
	Client client.Client
}

// Start starts etcd and kube-apiserver with extra CRD directories installed besides ours.
func Start(extraCRDDirs ...string) (*Env, error) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		// Fall back to what hack/envtest-binaries.sh builds, so `go test` works without make.
		matches, _ := filepath.Glob(filepath.Join(Root(), "bin", "k8s", "*", "kube-apiserver"))
		if len(matches) == 0 {
			return nil, fmt.Errorf("no kube-apiserver: run hack/envtest-binaries.sh (make test does) or set KUBEBUILDER_ASSETS")
		}
		assets = filepath.Dir(matches[len(matches)-1])
	}
	if err := benchv1.AddToScheme(scheme.Scheme); err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     append([]string{filepath.Join(Root(), "config", "crd", "bases")}, extraCRDDirs...),
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest with binaries from %s: %w", assets, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &Env{env: env, Config: cfg, Client: c}, nil
}

// Stop stops the API server and etcd.
func (e *Env) Stop() error { return e.env.Stop() }
