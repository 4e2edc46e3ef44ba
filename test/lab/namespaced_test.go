//go:build lab && labfull

package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// The namespaced install beside the cluster-wide one: its release namespace, and the one
// namespace it serves, which the cluster-wide release excludes (testHelmInstall's values).
const (
	teamRelease   = "team"
	teamSystem    = "team-system"
	teamNamespace = "team-runs"
	// teamAgentPort: both releases' wire agents listen on the node's host network.
	teamAgentPort = 9478
)

// testNamespacedInstall: a second release of the chart serves one namespace
// (watchNamespace) from a release namespace of its own, with wire capture, beside the
// cluster-wide release. Two runs there, each on a node pool of its own, at once: both
// Succeed with every row's latency from the wire (the manager lists its agents' pods in its
// release namespace, and compares node pools without listing nodes, which its Role cannot
// grant), and the cluster-wide manager never reconciles them.
func (l *lab) testNamespacedInstall(t *testing.T) {
	helm := strings.TrimSpace(l.command(t, "hack/tools.sh", "helm"))
	system := restrictedNS(teamSystem)
	system.Labels["pod-security.kubernetes.io/enforce"] = "privileged" // the wire agents
	for _, ns := range []*corev1.Namespace{system, restrictedNS(teamNamespace)} {
		if _, err := l.client.CoreV1().Namespaces().Create(ctx(t, time.Minute), ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		un := exec.Command(helm, "uninstall", teamRelease, "--namespace", teamSystem, "--wait", "--timeout", "2m")
		un.Dir, un.Env = l.root, append(os.Environ(), "KUBECONFIG="+filepath.Join(l.root, ".cache/lab/admin.kubeconfig"))
		if out, err := un.CombinedOutput(); err != nil {
			t.Errorf("helm uninstall %s: %v\n%s", teamRelease, err, out)
		}
		for _, ns := range []string{teamNamespace, teamSystem} {
			_ = l.client.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		}
	})
	start := time.Now()
	l.command(t, helm, "install", teamRelease, "charts/gauntlet", "--namespace", teamSystem, "-f", "hack/lab/chart-values.yaml",
		"--set", "watchNamespace="+teamNamespace, "--set", "crds.install=false",
		"--set", fmt.Sprintf("wireCapture.port=%d", teamAgentPort),
		"--set", "history.database.enabled=false", "--set", "history.database.reader.enabled=false", "--set", "metrics.serviceMonitor.enabled=false", "--set", "prometheusRule.enabled=false", "--set", "dashboards.enabled=false",
		"--set", "timeouts.targets="+drillTargetsTimeout.String(), "--wait", "--timeout", "4m")
	t.Logf("namespaced release %s in %s serving %s: Ready in %s", teamRelease, teamSystem, teamNamespace, time.Since(start).Round(time.Second))

	pools := map[string]string{"team-a": "kubernetes.io/os: linux", "team-b": "kubernetes.io/arch: amd64"}
	var wg sync.WaitGroup
	for pool, selector := range pools {
		name := "ns-" + pool
		doc := drillDoc(t, name, "name: go, preset: go-nethttp, nodePool: "+pool, "ping",
			fmt.Sprintf("  nodePools: [{name: %s, nodeSelector: {%s}}]\n", pool, selector))
		spec := doc.Object["spec"].(map[string]any)
		spec["load"].(map[string]any)["duration"] = "15s"
		if _, err := l.dyn.Resource(runGVR).Namespace(teamNamespace).Create(ctx(t, time.Minute), doc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create BenchmarkRun %s: %v", name, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			run, err := l.waitFinished(ctx(t, 9*time.Minute), teamNamespace, name, 3*time.Second, 9*time.Minute)
			if err != nil || run.Status.Phase != benchv1.PhaseSucceeded {
				t.Errorf("run %s: phase %v (%v), want Succeeded: %s", name, phase(run), err, conditionsOf(run))
				return
			}
			checkWire(t, run, nil)
			t.Logf("run %s on node pool %s: Succeeded in %s", name, pool, time.Since(start).Round(time.Second))
		}()
	}
	wg.Wait()
	// Every step's Event there is the namespaced manager's (an Event's reporting instance is
	// its recorder's host name, the manager's pod): the cluster-wide one excludes the namespace.
	events, err := l.client.EventsV1().Events(teamNamespace).List(ctx(t, time.Minute), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ours, others := 0, map[string]int{}
	for _, e := range events.Items {
		switch {
		case e.ReportingController != "gauntlet":
		case strings.HasPrefix(e.ReportingInstance, "gauntlet-"+teamRelease+"-gauntlet-manager-"):
			ours++
		default:
			others[e.ReportingInstance]++
		}
	}
	if ours == 0 || len(others) > 0 {
		t.Errorf("Events in %s: %d from the namespaced manager, others from %v: want some, and none from another", teamNamespace, ours, others)
	}
}

// waitFinished reads a run every so often until it Succeeded or Failed, at most for within;
// it returns the run as last read (nil if never) and the poll's error.
func (l *lab) waitFinished(c context.Context, ns, name string, every, within time.Duration) (*benchv1.BenchmarkRun, error) {
	var run *benchv1.BenchmarkRun
	err := wait.PollUntilContextTimeout(c, every, within, true, func(c context.Context) (bool, error) {
		got, err := l.getRun(c, ns, name)
		if err == nil {
			run = got
		}
		return err == nil && (run.Status.Phase == benchv1.PhaseFailed || run.Status.Phase == benchv1.PhaseSucceeded), nil
	})
	return run, err
}

func phase(run *benchv1.BenchmarkRun) benchv1.Phase {
	if run == nil {
		return ""
	}
	return run.Status.Phase
}

func conditionsOf(run *benchv1.BenchmarkRun) string {
	if run == nil {
		return ""
	}
	return conditions(run.Status.Conditions)
}
