// Command manager is the Gauntlet operator.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
	// spec.timeZone of a BenchmarkSchedule is read in Go's own time zone database, whatever
	// the image holds.
	_ "time/tzdata"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/controllers"
	"github.com/gauntlet-bench/gauntlet/controllers/schedule"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
	"github.com/gauntlet-bench/gauntlet/internal/preflight"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
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
	var leaderElect, metricsSecure, networkPolicy bool
	var scrapeInterval, preflightInterval time.Duration
	var promHTTPConfig string
	var metricsCertPath string
	var promURL, targetsDir, k6Image, k6StarterImage, remoteWrite, postgresImage, watchNamespace, registries, insecureRegistries, nullImage string
	var maxReconciles, maxVerifications, maxVerificationsPerNS, keepTestRuns, wirePort int
	var wireSelector, wireSecret, wireTokenFile, wireNamespace, protected, excluded, historyURLFile string
	var historyRetention time.Duration
	var analysisWorkers int
	var timeouts controllers.Timeouts
	images := imageFlag{}
	np := specs.DefaultNetworkPolicy()
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		np.OperatorNamespace = ns // config/manager passes it through the downward API
	}
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8443", "address the metrics endpoint binds to; 0 disables it")
	flag.StringVar(&metricsCertPath, "metrics-cert-path", "", "folder holding tls.crt and tls.key for the metrics endpoint; empty serves a self-signed certificate")
	flag.BoolVar(&metricsSecure, "metrics-secure", true, "serve metrics over HTTPS, only to callers the API server authenticates and authorizes (get on /metrics)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address the health and ready probes bind to")
	flag.BoolVar(&leaderElect, "leader-elect", false, "elect a leader, so only one replica reconciles at a time")
	flag.StringVar(&watchNamespace, "watch-namespace", "", "serve only this namespace (a namespaced install, with a Role instead of a ClusterRole); empty serves all")
	flag.IntVar(&maxReconciles, "max-concurrent-reconciles", 1, "how many BenchmarkRuns are reconciled at once")
	flag.IntVar(&maxVerifications, "max-concurrent-verifications", 8,
		"how many targets' contract checks run at once, across every run (the others wait their turn; while other namespaces wait, a namespace holding its fair share, this divided among the namespaces holding or waiting for slots, takes no more); 0 is no cap")
	flag.IntVar(&maxVerificationsPerNS, "max-concurrent-verifications-per-namespace", controllers.DefaultMaxVerificationsPerNamespace,
		"how many of those one namespace's runs may hold at once, so one tenant's runs leave slots to the others; 0 is no cap")
	flag.IntVar(&keepTestRuns, "keep-finished-testruns", controllers.DefaultKeepTestRuns, "finished TestRuns (with their pods) each run keeps for debugging; older ones are deleted once read; 0 keeps none")
	flag.StringVar(&protected, "protected-namespaces", strings.Join(controllers.DefaultProtectedNamespaces, ","),
		"comma-separated namespaces whose BenchmarkRuns a cluster-wide install refuses (Accepted=False, reason ProtectedNamespace); the operator's own namespace is always among them")
	flag.StringVar(&excluded, "excluded-namespaces", "",
		"comma-separated namespaces a cluster-wide install neither watches nor reconciles, so that a namespaced install of their own can serve them; none by default")
	flag.StringVar(&registries, "allowed-registries", "", "comma-separated registries (host or host/path) bring-your-own images must come from; empty allows any")
	flag.StringVar(&insecureRegistries, "insecure-registries", "", "comma-separated registry hosts (host[:port]) a schedule's image-digest trigger may reach over plain HTTP; none by default")
	flag.BoolVar(&networkPolicy, "network-policy", true, "give every run a NetworkPolicy that fences its targets in")
	flag.StringVar(&np.OperatorNamespace, "operator-namespace", np.OperatorNamespace, "namespace of the operator's pods, allowed to reach targets (they verify them)")
	flag.StringVar(&np.PrometheusNamespace, "prometheus-namespace", np.PrometheusNamespace, "namespace of the Prometheus pods allowed to reach targets")
	flag.StringVar(&np.DNSNamespace, "dns-namespace", np.DNSNamespace, "namespace of the cluster's DNS pods (label k8s-app=kube-dns), the only DNS targets may reach")
	flag.DurationVar(&timeouts.Database, "database-timeout", 0, "how long a run waits for its database (default 15m)")
	flag.DurationVar(&timeouts.Targets, "targets-timeout", 0, "how long a target may take to become available, from its creation (default 10m)")
	flag.DurationVar(&timeouts.Verify, "verify-timeout", 0, "how long one target's contract checks may take (default 5m)")
	flag.DurationVar(&timeouts.TrialStart, "trial-start-timeout", 0, "how long k6-operator may take to start a trial's runners (default 10m)")
	flag.DurationVar(&timeouts.Run, "max-run-duration", controllers.DefaultMaxRunDuration, "the longest a run may take from its start; past it the run fails and frees its node pools")
	flag.DurationVar(&timeouts.TrialFinish, "trial-finish-timeout", 0, "how long after its measured window a trial's TestRun may take to finish (default 5m)")
	flag.DurationVar(&timeouts.Unschedulable, "unschedulable-timeout", 0, "how long a pod of a trial's TestRun (initializer, runner, starter) may stay unschedulable (default 2m)")
	flag.StringVar(&leaderNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease; empty is the pod's own namespace (in-cluster only)")
	flag.StringVar(&promURL, "prometheus-url", "http://prometheus-operated.monitoring.svc:9090", "Prometheus HTTP API the trial figures are read from")
	flag.StringVar(&promHTTPConfig, "prometheus-http-config", "", "file in Prometheus's http_config format (authorization, basic_auth, oauth2, tls_config, http_headers such as X-Scope-OrgID, proxy_url), or sigv4 as in remote_write for Amazon Managed Prometheus, for the reads from --prometheus-url; empty: no authentication")
	flag.DurationVar(&scrapeInterval, "cadvisor-scrape-interval", metrics.DefaultScrapeInterval,
		"the scrape interval of the kubelet's cAdvisor job in that Prometheus: CPU is read over it, and a measured window must span two")
	flag.StringVar(&remoteWrite, "prometheus-remote-write-url", specs.DefaultPrometheusRemoteWriteURL, "where k6 runners remote-write their metrics")
	flag.StringVar(&targetsDir, "targets-dir", "/targets", "directory holding targets/<preset>/target.yaml")
	flag.StringVar(&k6Image, "k6-image", specs.DefaultK6Image, "k6 image of the load generators")
	flag.StringVar(&k6StarterImage, "k6-starter-image", "", "image of k6-operator's starter pod (a shell and curl); empty keeps k6-operator's default")
	flag.StringVar(&postgresImage, "postgres-image", "", "PostgreSQL image; empty leaves CloudNativePG's default")
	flag.StringVar(&nullImage, "null-responder-image", "", "image with /gauntlet (the operator's own) that runs the null responder for the generator-floor trials; empty: no floor is measured")
	flag.StringVar(&wireNamespace, "wire-agent-namespace", "", "namespace of the wire agents and their token Secret; empty is --operator-namespace")
	flag.StringVar(&wireSelector, "wire-agent-selector", "", "label selector of the wire agents (the chart's DaemonSet, in --wire-agent-namespace): with it, each trial's target pods are captured on their nodes and the wire figures are the latency of record; empty leaves k6's")
	flag.IntVar(&wirePort, "wire-agent-port", wireagent.DefaultPort, "port the wire agents listen on, on their nodes")
	flag.StringVar(&wireSecret, "wire-agent-tls-secret", "gauntlet-wire-agent-tls", "Secret in --wire-agent-namespace holding the wire agents' CA and serving certificate; the operator creates it when missing and renews it")
	flag.StringVar(&wireTokenFile, "wire-agent-token-file", "/var/run/secrets/gauntlet-wire/token", "the manager's projected service-account token for audience "+wireagent.Audience+", presented to the wire agents and re-read on each call")
	flag.DurationVar(&preflightInterval, "preflight-interval", preflight.DefaultInterval,
		"how often the manager checks what runs need (k6-operator's CRD, the Prometheus); it reports on its own Pod's Events, the gauntlet_preflight_ok gauge and its log, never on its readiness")
	flag.StringVar(&historyURLFile, "history-database-url-file", "",
		"file holding a PostgreSQL URL (the chart mounts CloudNativePG's <release>-history-app Secret, key uri): BenchmarkSchedule histories are kept there, every row of every run, instead of in <schedule>-history ConfigMaps; read again when connecting, so a rotated password is used. Empty: ConfigMaps")
	flag.DurationVar(&historyRetention, "history-retention", schedule.DefaultHistoryRetention, "how long the history database keeps a run, by its scheduled time; older runs are deleted after each append")
	flag.IntVar(&analysisWorkers, "history-analysis-workers", 1, "BenchmarkSchedule change-point analyses run at once, off the reconcile workers")
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
	cfg.NullResponderImage = nullImage
	cfg.K6StarterImage = k6StarterImage
	np.Enabled = networkPolicy
	cfg.NetworkPolicy = np
	for _, r := range strings.Split(registries, ",") {
		if r = strings.TrimSpace(r); r != "" {
			cfg.AllowedRegistries = append(cfg.AllowedRegistries, r)
		}
	}
	reader, err := metrics.NewReaderWithHTTPConfig(promURL, promHTTPConfig)
	if err != nil {
		log.Error(err, "bad --prometheus-url or --prometheus-http-config")
		os.Exit(1)
	}
	if scrapeInterval <= 0 {
		log.Error(nil, "--cadvisor-scrape-interval must be positive", "value", scrapeInterval)
		os.Exit(1)
	}
	reader.ScrapeInterval = scrapeInterval
	if preflightInterval <= 0 {
		log.Error(nil, "--preflight-interval must be positive", "value", preflightInterval)
		os.Exit(1)
	}
	byName := map[string]*preset.Preset{}
	for _, p := range presets {
		byName[p.Name] = p
	}

	if wireNamespace == "" {
		wireNamespace = np.OperatorNamespace
	}
	wireAgents, wireClient, err := wireAgents(wireSelector, wirePort, wireNamespace, wireSecret, wireTokenFile, scheme)
	if err != nil {
		log.Error(err, "wire agents")
		os.Exit(1)
	}

	// A namespaced install serves the one namespace it was given: nothing is protected or
	// excluded there.
	var protectedNamespaces []string
	if watchNamespace == "" {
		protectedNamespaces = append(splitList(protected), np.OperatorNamespace)
	} else if excluded != "" {
		log.Error(nil, "--excluded-namespaces is for a cluster-wide install; a namespaced one (--watch-namespace) serves only its namespace", "excluded-namespaces", excluded)
		os.Exit(1)
	}
	for _, ns := range splitList(excluded) {
		if errs := k8svalidation.IsDNS1123Label(ns); len(errs) > 0 {
			log.Error(nil, "--excluded-namespaces: not a namespace name", "namespace", ns, "why", strings.Join(errs, "; "))
			os.Exit(1)
		}
	}

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 WithMetricsCert(MetricsOptions(metricsAddr, metricsSecure), metricsCertPath),
		Cache:                   CacheOptions(watchNamespace, splitList(excluded)),
		HealthProbeBindAddress:  probeAddr,
		LeaderElection:          leaderElect,
		LeaderElectionID:        "gauntlet-manager.gauntlet.dev",
		LeaderElectionNamespace: leaderNamespace,
	})
	if err != nil {
		log.Error(err, "unable to create the manager")
		os.Exit(1)
	}
	if wireAgents != nil {
		if err := mgr.Add(keepWireTLS{c: wireClient, namespace: wireNamespace, name: wireSecret, agents: wireAgents}); err != nil {
			log.Error(err, "wire agents")
			os.Exit(1)
		}
	}
	// Every run's results, phase and progress, on the manager's metrics endpoint.
	resultMetrics := opmetrics.NewStore()
	crmetrics.Registry.MustRegister(resultMetrics)
	if err := (&controllers.BenchmarkRunReconciler{
		Client:   mgr.GetClient(),
		Recorder: mgr.GetEventRecorder("gauntlet"),
		Config:   cfg,
		Presets:  byName,
		Metrics:  controllers.PrometheusMeasurer{Reader: reader},

		ResultMetrics: resultMetrics,
		Timeouts:      timeouts,

		WatchNamespace:               watchNamespace,
		ProtectedNamespaces:          protectedNamespaces,
		MaxConcurrentReconciles:      maxReconciles,
		MaxVerifications:             maxVerifications,
		MaxVerificationsPerNamespace: maxVerificationsPerNS,
		KeepTestRuns:                 keepTests(keepTestRuns),
		Wire:                         wireAgents,
	}).SetupWithManager(mgr); err != nil {
		log.Error(err, "unable to set up the BenchmarkRun controller")
		os.Exit(1)
	}
	// Each schedule's change points and newest figures, beside the runs' metrics.
	scheduleMetrics := opmetrics.NewScheduleStore()
	crmetrics.Registry.MustRegister(scheduleMetrics)
	historyDB, err := historyDatabase(historyURLFile, historyRetention)
	if err != nil {
		log.Error(err, "bad --history-database-url-file or --history-retention")
		os.Exit(1)
	}
	if analysisWorkers < 1 {
		log.Error(nil, "--history-analysis-workers must be at least 1", "value", analysisWorkers)
		os.Exit(1)
	}
	if err := (&schedule.BenchmarkScheduleReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("gauntlet"),
		APIReader: mgr.GetAPIReader(), Images: cfg.Images, Metrics: scheduleMetrics,
		AllowedRegistries: cfg.AllowedRegistries, InsecureRegistries: splitList(insecureRegistries),
		ProtectedNamespaces: protectedNamespaces, Database: historyDB,
		Analyzer: &schedule.Analyzer{Workers: analysisWorkers}}).SetupWithManager(mgr); err != nil {
		log.Error(err, "unable to set up the BenchmarkSchedule controller")
		os.Exit(1)
	}
	// The preflight, before any run: a report, never a readiness failure (helm --wait would
	// hang on a cluster still missing an operator).
	preflightOK := opmetrics.NewPreflightGauge()
	crmetrics.Registry.MustRegister(preflightOK)
	promClient, err := metrics.HTTPClient(promHTTPConfig)
	if err != nil {
		log.Error(err, "bad --prometheus-http-config")
		os.Exit(1)
	}
	utilruntime.Must(mgr.Add(&preflight.Runner{
		Config: mgr.GetConfig(), PrometheusURL: promURL, RemoteWriteURL: remoteWrite, HTTPClient: promClient,
		Recorder: mgr.GetEventRecorder("gauntlet"), Pod: ownPod(), Gauge: preflightOK,
		Log: ctrl.Log.WithName("preflight"), Interval: preflightInterval,
	}))
	utilruntime.Must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	utilruntime.Must(mgr.AddReadyzCheck("readyz", healthz.Ping))

	log.Info("starting the manager")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "the manager stopped")
		os.Exit(1)
	}
}

// ownPod is the manager's Pod as the downward API names it (POD_NAME, POD_NAMESPACE,
// POD_UID: config/manager and the chart set them), what the preflight's Events are about;
// nil out of a cluster.
func ownPod() *corev1.Pod {
	name, ns := os.Getenv("POD_NAME"), os.Getenv("POD_NAMESPACE")
	if name == "" || ns == "" {
		return nil
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(os.Getenv("POD_UID"))}}
}

// keepTests maps the flag to the reconciler's field, where zero means the default.
func keepTests(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// MetricsOptions serves metrics the way kubebuilder now scaffolds it: HTTPS with
// controller-runtime's generated certificate, each request's bearer token checked with a
// TokenReview and a SubjectAccessReview (config/rbac/metrics_*_role.yaml), so the figures
// are not readable by every pod that can reach the manager.
func MetricsOptions(addr string, secure bool) metricsserver.Options {
	o := metricsserver.Options{BindAddress: addr, SecureServing: secure}
	if secure {
		o.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return o
}

// WithMetricsCert serves the metrics with the certificate in dir (tls.crt and tls.key, a
// kubernetes.io/tls Secret mounted there) instead of a self-signed one, so Prometheus can
// verify whom it sends its token to; controller-runtime reloads it when it changes.
func WithMetricsCert(o metricsserver.Options, dir string) metricsserver.Options {
	if dir != "" {
		o.CertDir, o.CertName, o.KeyName = dir, "tls.crt", "tls.key"
	}
	return o
}

// CacheOptions restricts the manager's cache (and so its watches and the RBAC it needs)
// to one namespace in a namespaced install, or to every namespace but the excluded ones in
// a cluster-wide install, and to the objects the operator created (controllers.CacheOptions).
func CacheOptions(namespace string, excluded []string) cache.Options {
	if namespace == "" {
		return controllers.WithoutNamespaces(controllers.CacheOptions(), excluded...)
	}
	return controllers.CacheOptions(namespace)
}

// splitList is a comma-separated flag's non-empty entries.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
