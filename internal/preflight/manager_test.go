package preflight

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/testprom"
)

// TestManagerPreflight starts a manager with the preflight as cmd/manager adds it, against
// an API server without k6-operator's CRD: a PreflightFailed Event on the manager's Pod
// names it and its gauge is 0, while the Prometheus checks are at 1. Once the CRD is
// installed, the next round records PreflightRecovered and the gauge goes to 1.
func TestManagerPreflight(t *testing.T) {
	testenv.Long(t)
	env, err := testenv.Start() // Gauntlet's CRDs only
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctrl.SetLogger(logr.Discard())
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	prom := testprom.Fake3(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gauntlet-7d9f-x2x", Namespace: "default", UID: "0b5c1c49-preflight"}}
	gauge := opmetrics.NewPreflightGauge()
	if err := mgr.Add(&Runner{
		Config: mgr.GetConfig(), PrometheusURL: prom, RemoteWriteURL: prom + "/api/v1/write", HTTPClient: http.DefaultClient,
		Recorder: mgr.GetEventRecorder("gauntlet"), Pod: pod, Gauge: gauge, Log: logr.Discard(),
		Interval: time.Second, Timeout: 5 * time.Second,
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	const k6 = "k6-operator TestRun (k6.io/v1alpha1)"
	// event waits for an Event on the Pod with the reason, about the k6-operator check.
	event := func(reason string) *eventsv1.Event {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			var list eventsv1.EventList
			if err := env.Client.List(ctx, &list, client.InNamespace(pod.Namespace)); err != nil {
				t.Fatal(err)
			}
			for i, e := range list.Items {
				if e.Reason == reason && e.Regarding.Kind == "Pod" && e.Regarding.Name == pod.Name && e.Regarding.UID == pod.UID &&
					strings.HasPrefix(e.Note, k6+": ") {
					return &list.Items[i]
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("no %s Event on the Pod about %s within 30s", reason, k6)
		return nil
	}
	failed := event(ReasonFailed)
	if failed.Type != corev1.EventTypeWarning || !strings.Contains(failed.Note, "install k6-operator") {
		t.Errorf("PreflightFailed: %s %q, want a Warning saying to install k6-operator", failed.Type, failed.Note)
	}
	if v := testutil.ToFloat64(gauge.WithLabelValues(k6)); v != 0 {
		t.Errorf("gauge %s = %v with the CRD missing, want 0", k6, v)
	}
	for _, check := range []string{"prometheus", "remote-write receiver", "native histograms", "cAdvisor series"} {
		if v := testutil.ToFloat64(gauge.WithLabelValues(check)); v != 1 {
			t.Errorf("gauge %s = %v, want 1", check, v)
		}
	}

	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(testenv.Root(), "test", "crds", "k6-operator")}, ErrorIfPathMissing: true,
	}); err != nil {
		t.Fatal(err)
	}
	if e := event(ReasonRecovered); e.Type != corev1.EventTypeNormal {
		t.Errorf("PreflightRecovered is %s, want Normal", e.Type)
	}
	if v := testutil.ToFloat64(gauge.WithLabelValues(k6)); v != 1 {
		t.Errorf("gauge %s = %v after the CRD was installed, want 1", k6, v)
	}
}
