package chart

import (
	"context"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestNotesNativeHistograms: NOTES.txt looks up the cluster's Prometheus objects (a
// server-side dry run, as helm install does) and warns unless one has the remote-write
// receiver with native histograms: the feature flag before Prometheus 3.8, nothing from 3.8
// on (where they are stable and the flag does nothing from 3.9).
func TestNotesNativeHistograms(t *testing.T) {
	// Every prerequisite served: the Prometheus check follows the CRDs' (NOTES.txt).
	env, _, c := startEnvtest(t, "test/crds/k6-operator")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		t.Fatal(err)
	}
	admin := writeKubeconfig(t, env, "admin", []string{"system:masters"})
	prom := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "monitoring.coreos.com/v1", "kind": "Prometheus",
		"metadata": map[string]any{"name": "k8s", "namespace": namespace},
	}}
	const warning = "WARNING: no Prometheus object has spec.enableRemoteWriteReceiver"
	for _, tc := range []struct {
		name string
		spec map[string]any // nil: no Prometheus object
		warn bool
	}{
		{"no Prometheus", nil, true},
		{"2.53 without the flag", map[string]any{"version": "v2.53.0", "enableRemoteWriteReceiver": true}, true},
		{"2.53 with the flag", map[string]any{"version": "v2.53.0", "enableRemoteWriteReceiver": true, "enableFeatures": []any{"native-histograms"}}, false},
		{"3.9 without the flag", map[string]any{"version": "v3.9.0", "enableRemoteWriteReceiver": true}, false},
		{"3.9 without the receiver", map[string]any{"version": "v3.9.0"}, true},
		{"a version that is no semver", map[string]any{"version": "latest", "enableRemoteWriteReceiver": true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = c.Delete(ctx, prom.DeepCopy())
			if tc.spec != nil {
				p := prom.DeepCopy()
				p.Object["spec"] = tc.spec
				if err := c.Create(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			inst := installer(t, admin)
			inst.DryRunStrategy = action.DryRunServer
			rel, err := inst.RunWithContext(ctx, loadChart(t), map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			notes := rel.(*releasev1.Release).Info.Notes
			if got := strings.Contains(notes, warning); got != tc.warn {
				t.Errorf("warning shown: %v, want %v:\n%s", got, tc.warn, notes)
			}
		})
	}
}
