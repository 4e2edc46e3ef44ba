// Command manager is the Gauntlet operator.
package main

import (
	"flag"
	"fmt"
	"strings"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/controllers"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// imageFlag collects --image preset=image overrides.
type imageFlag map[string]string

func (f imageFlag) String() string { return fmt.Sprint(map[string]string(f)) }

func (f imageFlag) Set(v string) error {
	name, image, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want preset=image, got %q", v)
	}
	f[name] = image
	return nil
}

func main() {
	var metricsAddr, probeAddr, leaderNamespace string
	var leaderElect bool
	var promURL, targetsDir, k6Image, remoteWrite, postgresImage string
	images := imageFlag{}
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "address the metrics endpoint binds to; 0 disables it")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address the health and ready probes bind to")
	flag.BoolVar(&leaderElect, "leader-elect", false, "elect a leader, so only one replica reconciles at a time")
	flag.StringVar(&leaderNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease; empty is the pod's own namespace (in-cluster only)")
	flag.StringVar(&promURL, "prometheus-url", "http://prometheus-operated.monitoring.svc:9090", "Prometheus HTTP API the trial figures are read from")
	flag.StringVar(&remoteWrite, "prometheus-remote-write-url", specs.DefaultPrometheusRemoteWriteURL, "where k6 runners remote-write their metrics")
	flag.StringVar(&targetsDir, "targets-dir", "/targets", "directory holding targets/<preset>/target.yaml")
	flag.StringVar(&k6Image, "k6-image", specs.DefaultK6Image, "k6 image of the load generators")
	flag.StringVar(&postgresImage, "postgres-image", "", "PostgreSQL image; empty leaves CloudNativePG's default")
	flag.Var(images, "image", "preset=image override, repeatable (for example a private registry's copy)")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(benchv1.AddToScheme(scheme))
	utilruntime.Must(cnpgv1.AddToScheme(scheme))

	presets, err := preset.LoadAll(targetsDir)
	if err != nil {
		log.Error(err, "unable to read the target presets", "dir", targetsDir)
		os.Exit(1)
	}
	cfg := specs.NewConfig(presets)
	if err := cfg.OverrideImages(images); err != nil {
		log.Error(err, "bad --image")
		os.Exit(1)
	}
	cfg.K6Image, cfg.PrometheusRemoteWriteURL, cfg.PostgresImage = k6Image, remoteWrite, postgresImage
	reader, err := metrics.NewReader(promURL)
	if err != nil {
		log.Error(err, "bad --prometheus-url")
		os.Exit(1)
	}
	byName := map[string]*preset.Preset{}
	for _, p := range presets {
		byName[p.Name] = p
	}

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress:  probeAddr,
		LeaderElection:          leaderElect,
		LeaderElectionID:        "gauntlet-manager.gauntlet.dev",
		LeaderElectionNamespace: leaderNamespace,
	})
	if err != nil {
		log.Error(err, "unable to create the manager")
		os.Exit(1)
	}
	if err := (&controllers.BenchmarkRunReconciler{
		Client:   mgr.GetClient(),
		Recorder: mgr.GetEventRecorder("gauntlet"),
		Config:   cfg,
		Presets:  byName,
		Metrics:  controllers.PrometheusMeasurer{Reader: reader},
	}).SetupWithManager(mgr); err != nil {
		log.Error(err, "unable to set up the BenchmarkRun controller")
		os.Exit(1)
	}
	utilruntime.Must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	utilruntime.Must(mgr.AddReadyzCheck("readyz", healthz.Ping))

	log.Info("starting the manager")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "the manager stopped")
		os.Exit(1)
	}
}
