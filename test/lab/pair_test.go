//go:build lab && labfull

package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// testSameRunPair: two go-nethttp targets on the one node, v2 judged against v1 within the
// run (spec.targets[].baselineTarget), v2 burning 300 µs more CPU per request, as a duet
// (spec.load.pairing Duet): through the real operators both arms' TestRuns load at once (in
// at least four of six rounds: on a loaded node one runner can start a window late), v2's
// row is Slower, `kubectl get br -o wide` shows the verdict, status
// records the node the pair ran on, and `gauntlet wait` exits 3 (Regressed). The
// interleaved pairing's path in the cluster is every run's; the duet's is its own.
func (l *lab) testSameRunPair(t *testing.T) {
	name := "same-run-pair"
	ns := l.restrictedNamespace(t, name)
	c := ctx(t, 18*time.Minute)
	doc := drillDoc(t, name, "name: v1, preset: go-nethttp", "ping", "  baseline: {minEffect: \"0.1\"}\n")
	spec := doc.Object["spec"].(map[string]any)
	// Both arms' targets and runners at once ask the node's CPU requests for what an
	// interleaved pair's two targets and one runner did: 2 x 50m + 2 x 100m.
	res := map[string]any{"cpu": "50m", "memory": "64Mi"}
	spec["targets"] = []any{
		map[string]any{"name": "v1", "preset": "go-nethttp", "resources": res},
		map[string]any{"name": "v2", "preset": "go-nethttp", "resources": res, "baselineTarget": "v1",
			"env": []any{map[string]any{"name": "EXTRA_CPU_MICROS", "value": "300"}}},
	}
	// Six rounds: with four, the interval of a rank test spans every round's figure, so one
	// round the node starved (seeds run beside this lane) left the pair Inconclusive; with
	// six it leaves the extremes out. Shorter windows pay for the two rounds added.
	load := spec["load"].(map[string]any)
	load["duration"], load["repetitions"], load["pairing"] = "7s", int64(6), "Duet"
	l.keepApplied(t, doc)
	if _, err := l.dyn.Resource(runGVR).Namespace(ns).Create(c, doc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkRun: %v", err)
	}
	run, err := l.waitFinished(c, ns, name, 3*time.Second, 17*time.Minute)
	if err != nil || run.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phase %v (%v), want Succeeded", run, err)
	}
	rounds := map[int32][]benchv1.Trial{}
	for _, tr := range run.Status.Trials {
		if !tr.Calibration && tr.Phase == benchv1.TrialSucceeded {
			rounds[tr.Repetition] = append(rounds[tr.Repetition], tr)
			// The node's wire agent read its CPUs' steal over the capture (a share of them).
			if m := tr.Result; m.Wire != nil && (m.HostCPUs < 1 || m.HostStealMillicores > int64(m.HostCPUs)*1000) {
				t.Errorf("trial %s: steal %dm over %d CPUs, want the node's CPUs read by its wire agent", tr.Name, m.HostStealMillicores, m.HostCPUs)
			}
		}
	}
	duets := 0
	for _, arms := range rounds {
		if len(arms) == 2 && arms[0].MeasureStart != nil && arms[1].MeasureStart != nil && arms[0].MeasureEnd != nil && arms[1].MeasureEnd != nil &&
			!arms[0].MeasureStart.After(arms[1].MeasureEnd.Time) && !arms[1].MeasureStart.After(arms[0].MeasureEnd.Time) &&
			strings.HasPrefix(arms[0].Message, "duet: loaded at the same time as "+arms[1].Name) {
			duets++
		}
	}
	if duets < 4 {
		t.Errorf("%d of 6 rounds loaded both arms at once: %+v", duets, run.Status.Trials)
	}
	for _, r := range run.Status.Results {
		if r.Target == "v2" && (r.Baseline == nil || r.Baseline.Verdict != benchv1.VerdictSlower || r.Baseline.BaselineTarget != "v1") {
			t.Errorf("v2 against v1: %+v", r.Baseline)
		}
	}
	if e := run.Status.Environment; e == nil || len(e.Nodes) == 0 || e.Nodes[0].Kernel == "" || len(e.Images) != 2 {
		t.Errorf("status.environment %+v", e)
	}
	wide := l.command(t, l.kubectl(), "-n", ns, "get", "br", name, "-o", "wide")
	if !strings.Contains(wide, "VERDICT") || !strings.Contains(wide, "v2/ping@50 vs v1: Slower +") {
		t.Errorf("kubectl get br -o wide:\n%s", wide)
	}
	t.Logf("%s\norder seed %d; environment %+v", wide, run.Status.OrderSeed, run.Status.Environment.Nodes)
	bin := filepath.Join(t.TempDir(), "gauntlet")
	l.command(t, "go", "build", "-o", bin, "./cmd/gauntlet")
	cmd := exec.Command(bin, "wait", name, "-n", ns, "--timeout", "1m")
	cmd.Dir = l.root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(l.root, ".cache/lab/admin.kubeconfig"))
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("gauntlet wait: exit status %d, want 3 (Regressed):\n%s", code, out)
	}
}
