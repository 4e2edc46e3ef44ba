package controllers

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/testprom"
)

var (
	env      *testenv.Env
	prom     *testprom.Server
	target   *process
	fakes    *world
	urlsMu   sync.Mutex
	urls     = map[string]string{} // "namespace/run/target" → URL; default: the go target
	presets  map[string]*preset.Preset
	k6Binary string
)

// TestMain starts one real API server with the other operators' CRDs, a real Prometheus,
// the real go-nethttp target, the test doubles of the other controllers, and the manager
// for the default namespace.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() { // the tests that need what the setup starts call testenv.Long
		os.Exit(m.Run())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, err); return 1 }
	ctrl.SetLogger(logr.Discard())
	root := testenv.Root()
	for _, script := range []string{"crds.sh", "k6.sh"} {
		if out, err := exec.Command("bash", filepath.Join(root, "hack", script)).CombinedOutput(); err != nil {
			return fail(fmt.Errorf("hack/%s: %v\n%s", script, err, out))
		}
	}
	var err error
	if k6Binary, err = k6.Binary(root); err != nil {
		return fail(err)
	}
	if err := cnpgv1.AddToScheme(scheme.Scheme); err != nil {
		return fail(err)
	}
	crds := filepath.Join(root, "bin", "crds")
	if env, err = testenv.Start(filepath.Join(crds, "cloudnative-pg"), filepath.Join(crds, "prometheus-operator"),
		filepath.Join(root, "test", "crds", "k6-operator")); err != nil {
		return fail(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the API server:", err)
		}
	}()
	if prom, err = testprom.Start(root); err != nil {
		return fail(err)
	}
	defer prom.Stop()
	if target, err = startGoTarget(); err != nil {
		return fail(err)
	}
	defer target.stop()
	all, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		return fail(err)
	}
	presets = map[string]*preset.Preset{}
	for _, p := range all {
		presets[p.Name] = p
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fakes = newWorld(env.Client, k6Binary)
	fakes.promURL, fakes.targetPID = prom.URL, target.pid
	go fakes.loop(ctx)
	stop, err := startManager(env.Config, []string{"default"}, nil)
	if err != nil {
		return fail(err)
	}
	code := m.Run()
	if err := stop(); err != nil {
		return fail(fmt.Errorf("manager: %w", err))
	}
	return code
}

// newReconciler is the reconciler as cmd/manager wires it, pointed at the local services.
func newReconciler(mgr ctrl.Manager) *BenchmarkRunReconciler {
	cfg := specs.NewConfig(mapValues(presets))
	cfg.PrometheusRemoteWriteURL = prom.URL + "/api/v1/write"
	reader, _ := metrics.NewReader(prom.URL)
	reader.ScrapeInterval = time.Second
	return &BenchmarkRunReconciler{
		Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("gauntlet"),
		Config: cfg, Presets: presets, Clock: clock.RealClock{},
		Metrics: PrometheusMeasurer{Reader: reader},
		TargetURL: func(run *benchv1.BenchmarkRun, t benchv1.Target) string {
			urlsMu.Lock()
			defer urlsMu.Unlock()
			if u, ok := urls[run.Namespace+"/"+run.Name+"/"+t.Name]; ok {
				return u
			}
			return target.url
		},
		Timeouts: Timeouts{Database: 8 * time.Second, Targets: 15 * time.Second, Poll: 200 * time.Millisecond,
			Grace: 2 * time.Second, Measure: 10 * time.Second},
	}
}

// startManager runs a manager for the given namespaces; tweak adjusts the reconciler.
// The returned function stops it and waits until it has stopped.
func startManager(cfg *rest.Config, namespaces []string, tweak func(*BenchmarkRunReconciler)) (func() error, error) {
	// The manager's own cache options: a read the label-selected cache cannot answer
	// fails here as it would in a cluster.
	opts := CacheOptions(namespaces...)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:   opts,
	})
	if err != nil {
		return nil, err
	}
	r := newReconciler(mgr)
	if tweak != nil {
		tweak(r)
	}
	// Several managers run in one process (restarts): the name check would refuse them.
	r.skipNameValidation = true
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() error { cancel(); return <-done }, nil
}

func mapValues(m map[string]*preset.Preset) []*preset.Preset {
	out := make([]*preset.Preset, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	return out
}
