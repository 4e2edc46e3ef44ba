//go:build lab && labfull

package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/report/reporttest"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

var runGVR = schema.GroupVersionResource{Group: "gauntlet.dev", Version: "v1alpha1", Resource: "benchmarkruns"}

// installNamespace is where the chart goes: the privileged Pod Security level, for the wire
// agents on the host network; the manager's pod still meets the restricted standard.
const installNamespace = "gauntlet-system"

// command runs name with args from the repository root and fails the test with its output.
func (l *lab) command(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := l.cmd(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(string(out), 60))
	}
	return string(out)
}

// cmd is a command run at the repository's root with the lab's admin kubeconfig.
func (l *lab) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = l.root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(l.root, ".cache/lab/admin.kubeconfig"))
	return cmd
}

// testHelmInstall: the chart installed as a user installs a release, from an OCI registry
// (the lab's) by digest, with the release's images pulled from it and only the third-party
// images this lab cannot pull replaced (hack/lab/chart-values.yaml). hack/lab/stack.sh
// installed this tree's chart: the release goes back to the previous one and up again, and
// each CRD change must reach the API server. The manager becomes Ready in a namespace that
// admits the wire agents (privileged), beside the agents, ready on every node.
func (l *lab) testHelmInstall(t *testing.T) {
	helm := strings.TrimSpace(l.command(t, "hack/tools.sh", "helm"))
	chart := l.pushCharts(t, helm)
	values := []string{"--namespace", installNamespace, "--plain-http", "-f", "hack/lab/chart-values.yaml",
		// The drills wait this out (drills_test.go); every preset here starts within 14 s.
		"--set", "timeouts.targets=" + drillTargetsTimeout.String(),
		// The starter drill waits this out; a seed's pod queued behind a drill's for CPU gets
		// a minute more than the manager's default before its trial fails.
		"--set", "timeouts.unschedulable=" + drillUnschedulableTimeout.String(),
		// A namespaced release of its own serves this namespace (testNamespacedInstall).
		"--set-json", `excludedNamespaces=["` + teamNamespace + `"]`,
		"--wait", "--timeout", "5m"}
	start := time.Now()
	if cols := l.printerColumns(t); !slices.Contains(cols, chart.dropped) {
		t.Fatalf("hack/lab/stack.sh installed a CRD without column %s (%v)", chart.dropped, cols)
	}
	l.command(t, helm, append([]string{"upgrade", "gauntlet", chart.byDigest(chart.previousDigest)}, values...)...)
	if cols := l.printerColumns(t); slices.Contains(cols, chart.dropped) {
		t.Fatalf("after helm upgrade to the previous release the BenchmarkRun CRD still has column %s (%v): the CRDs did not change", chart.dropped, cols)
	}
	l.verifySigned(t, labRegistry+"/charts/gauntlet@"+chart.digest)
	l.command(t, helm, append([]string{"upgrade", "gauntlet", chart.byDigest(chart.digest)}, values...)...)
	if cols := l.printerColumns(t); !slices.Contains(cols, chart.dropped) {
		t.Errorf("after helm upgrade to %s the BenchmarkRun CRD's columns are %v, without %s: the CRDs did not upgrade", chart.version, cols, chart.dropped)
	}
	var releases []struct{ Name, Chart, Status string }
	list := l.command(t, helm, "list", "--namespace", installNamespace, "-o", "json")
	if err := json.Unmarshal([]byte(list), &releases); err != nil || len(releases) != 1 ||
		releases[0].Chart != "gauntlet-"+chart.version || releases[0].Status != "deployed" {
		t.Errorf("helm list after the upgrade by digest %s: %v, want gauntlet-%s deployed:\n%s", chart.digest, err, chart.version, list)
	}
	t.Logf("helm upgrade to %s and back to %s by digest: manager Ready in %s", previousChartVersion, chart.byDigest(chart.digest), time.Since(start).Round(time.Second))
	deps, err := l.client.AppsV1().Deployments(installNamespace).List(ctx(t, time.Minute), metav1.ListOptions{})
	if err != nil || len(deps.Items) != 1 || !available(&deps.Items[0]) {
		t.Fatalf("after helm install: deployments %v (%v), want the manager available", deps, err)
	}
	agents, err := l.client.AppsV1().DaemonSets(installNamespace).Get(ctx(t, time.Minute), "gauntlet-wire-agent", metav1.GetOptions{})
	if err != nil || agents.Status.DesiredNumberScheduled == 0 || agents.Status.NumberReady != agents.Status.DesiredNumberScheduled {
		t.Fatalf("after helm install: wire agents %+v (%v), want one ready on every node", agents, err)
	}
	l.checkPulledFromRegistry(t)
	// The release's manager image too, by the digest containerd pulled.
	pods, err := l.client.CoreV1().Pods(installNamespace).List(ctx(t, time.Minute), metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=manager"})
	if err != nil || len(pods.Items) == 0 || len(pods.Items[0].Status.ContainerStatuses) == 0 {
		t.Fatalf("the manager's pod: %v", err)
	}
	l.verifySigned(t, pods.Items[0].Status.ContainerStatuses[0].ImageID)
}

func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == "True"
		}
	}
	return false
}

// seedCase is one sample document run through the installed operator, fitted to this node
// by gauntlet fit (recorded in the run's annotations as the local mode records --scale).
type seedCase struct {
	file, name string
	fit        []string
	errors     []string // rows ("target/scenario") that must show errors; every other row none
	// rows must all be present ("target/scenario"); skipped are the trials planned Skipped.
	rows, skipped []string
	// restartManager deletes the manager's pod while a target's trial runs: the run must
	// still succeed, and no TestRun may be created twice.
	restartManager bool
	// edit changes the fitted document before it is applied (what the lab adds, said there).
	edit func(*unstructured.Unstructured)
	// dashboards runs every dashboard's panels against the lab's Prometheus once the run
	// succeeded, with the run's first target and scenario picked.
	dashboards bool
}

// testSeed applies the fitted document, waits for Succeeded, and checks every row: measured,
// percentiles ordered, CPU and memory read from cAdvisor, errors only where the seed has them;
// kubectl get br shows the run's columns.
func (l *lab) testSeed(t *testing.T, sc seedCase) {
	ns := l.restrictedNamespace(t, "seed-"+strings.TrimPrefix(sc.name, "seed-"))
	args := append([]string{"run", "./cmd/gauntlet", "fit", "-f", sc.file, "--name", sc.name}, sc.fit...)
	fitted := l.command(t, "go", args...)
	var u unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(fitted), &u.Object); err != nil {
		t.Fatalf("gauntlet fit printed: %v\n%s", err, fitted)
	}
	u.SetNamespace(ns)
	if sc.edit != nil {
		sc.edit(&u)
	}
	l.keepApplied(t, &u)
	var restart *managerRestart
	if sc.restartManager {
		restart = l.watchTestRuns(t, ns)
	}
	start := time.Now()
	if _, err := l.dyn.Resource(runGVR).Namespace(ns).Create(ctx(t, time.Minute), &u, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkRun: %v", err)
	}
	if restart != nil {
		go l.restartManagerMidTrial(t, ns, sc.name, restart)
	}
	var run benchv1.BenchmarkRun
	err := wait.PollUntilContextTimeout(ctx(t, 30*time.Minute), 5*time.Second, 25*time.Minute, true, func(c context.Context) (bool, error) {
		got, err := l.dyn.Resource(runGVR).Namespace(ns).Get(c, sc.name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(got.Object, &run); err != nil {
			return false, err
		}
		return run.Status.Phase == benchv1.PhaseSucceeded || run.Status.Phase == benchv1.PhaseFailed, nil
	})
	t.Logf("%s: %s in %s (trials %s) %s", sc.name, run.Status.Phase, time.Since(start).Round(time.Second), run.Status.Progress, run.Status.Headline)
	if err != nil || run.Status.Phase != benchv1.PhaseSucceeded {
		// The cause last: CI keeps the tail of a failing test's output, and the events are long.
		t.Logf("events:\n%s", l.command(t, l.kubectl(), "-n", ns, "get", "events", "--sort-by=.lastTimestamp"))
		for _, tr := range run.Status.Trials {
			t.Logf("trial %s %s: %s", tr.Name, tr.Phase, tr.Message)
		}
		t.Fatalf("phase %q (%v), want Succeeded; conditions:\n%s", run.Status.Phase, err, conditions(run.Status.Conditions))
	}
	l.keepStatus(t, &run)
	l.logNodeLoad(t, &run)
	checkRows(t, &run, sc.errors)
	checkWire(t, &run, sc.errors)
	l.checkBeside(t, &run)
	if run.Status.Headline == "" || run.Status.Summary == "" {
		t.Errorf("headline %q, summary %q: kubectl get br would show an empty result column", run.Status.Headline, run.Status.Summary)
	}
	checkPresent(t, &run, sc.rows, sc.skipped)
	if restart != nil {
		restart.check(t)
	}
	if sc.dashboards {
		l.checkDashboards(t, &run)
	}
	if t.Failed() {
		for _, tr := range run.Status.Trials {
			t.Logf("trial %s %s: %s", tr.Name, tr.Phase, tr.Message)
		}
	}
	table := l.command(t, l.kubectl(), "-n", ns, "get", "br")
	t.Logf("kubectl get br:\n%s", table)
	for _, col := range []string{"PHASE", "READY", "PROGRESS", "RESULT", sc.name, run.Status.Summary} {
		if !strings.Contains(table, col) {
			t.Errorf("kubectl get br shows no %s:\n%s", col, table)
		}
	}
	if strings.Contains(table, "TARGETS") { // the long columns are -o wide's
		t.Errorf("kubectl get br shows TARGETS without -o wide:\n%s", table)
	}
	wide := l.command(t, l.kubectl(), "-n", ns, "get", "br", "-o", "wide")
	for _, col := range []string{"TARGETS", "CAPACITY", "ETA", "HEADLINE"} {
		if !strings.Contains(wide, col) {
			t.Errorf("kubectl get br -o wide shows no %s:\n%s", col, wide)
		}
	}
	l.checkCLI(t, ns, &run)
}

// checkCLI reads the finished run with gauntlet status, wait and report through the lab's
// kubeconfig: the status as data, wait's exit status equal to the one status states, and
// the HTML report holding every row's target.
func (l *lab) checkCLI(t *testing.T, ns string, run *benchv1.BenchmarkRun) {
	bin := filepath.Join(t.TempDir(), "gauntlet")
	l.command(t, "go", "build", "-o", bin, "./cmd/gauntlet")
	var st struct {
		Phase    benchv1.Phase       `json:"phase"`
		ExitCode *int                `json:"exitCode"`
		Results  []benchv1.ResultRow `json:"results"`
	}
	out := l.command(t, bin, "status", run.Name, "-n", ns, "-o", "json")
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Phase != benchv1.PhaseSucceeded || st.ExitCode == nil ||
		len(st.Results) != len(run.Status.Results) {
		t.Errorf("gauntlet status -o json: %v\n%s", err, out)
		return
	}
	cmd := exec.Command(bin, "wait", run.Name, "-n", ns, "--timeout", "1m")
	cmd.Dir = l.root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(l.root, ".cache/lab/admin.kubeconfig"))
	waited, _ := cmd.CombinedOutput()
	want := checkConclusive(t, run)
	if code := cmd.ProcessState.ExitCode(); code != *st.ExitCode || code != want || (code != 0 && code != 3 && code != 4 && code != 7) {
		t.Errorf("gauntlet wait: exit status %d, status says %d, its conditions %d (0, 3, 4 or 7 for a run that succeeded):\n%s", code, *st.ExitCode, want, waited)
	}
	report := filepath.Join(t.TempDir(), run.Name+".html")
	l.command(t, bin, "report", run.Name, "-n", ns, "--out", report)
	html, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range run.Status.Results {
		if !strings.Contains(string(html), ">"+r.Target+"<") {
			t.Errorf("gauntlet report has no row of %s", r.Target)
		}
	}
	if !strings.Contains(string(html), "<svg") {
		t.Errorf("gauntlet report has no chart")
	}
	l.screenshot(t, report, filepath.Join(l.root, ".cache/lab/applied", run.Name+".report.png"))
}

// screenshot opens the report in headless Chromium and keeps what it drew as shot: a real
// browser renders the cluster run's report, with more than a handful of colours (charts,
// not a blank or error page). docs/cluster.md shows one.
func (l *lab) screenshot(t *testing.T, page, shot string) {
	t.Helper()
	reporttest.Chromium(t, page, "--window-size=1200,2400", "--screenshot="+shot)
	if colours, _ := reporttest.Colours(t, shot, 4); len(colours) < 20 {
		t.Errorf("screenshot %s has %d colours: the report did not render", shot, len(colours))
	}
}

func (l *lab) kubectl() string { return filepath.Join(l.root, "bin/lab/k8s", kubeVersion, "kubectl") }

func conditions(cs []metav1.Condition) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	return b.String()
}

// checkRows: every planned row measured in the cluster as it is locally.
func checkRows(t *testing.T, run *benchv1.BenchmarkRun, errRows []string) {
	t.Helper()
	if len(run.Status.Results) == 0 {
		t.Fatal("no result rows")
	}
	for _, r := range run.Status.Results {
		row := fmt.Sprintf("%s/%s@%d", r.Target, r.Scenario, r.LoadPoint)
		t.Logf("%s: %d reps, %d mRPS, p50 %dµs p99 %dµs (%s), errors %dppm, cpu %v, memory %v, flags %v",
			row, r.Repetitions, r.AchievedMilliRPS.Median, r.P50Micros.Median, r.P99Micros.Median, r.LatencySource,
			r.ErrorRatePPM.Median, r.CPUMillicores, r.MemoryBytes, r.Flags)
		if r.Repetitions == 0 {
			t.Errorf("%s: not measured: %s", row, r.Message)
			continue
		}
		ordered := []int64{r.P50Micros.Median, r.P90Micros.Median, r.P99Micros.Median, r.P999Micros.Median, r.MaxMicros.Median}
		if !slices.IsSorted(ordered) || ordered[0] <= 0 {
			t.Errorf("%s: percentiles p50..max %v not ordered and positive", row, ordered)
		}
		if r.CPUMillicores == nil || r.CPUMillicores.Median <= 0 || r.MemoryBytes == nil || r.MemoryBytes.Median <= 0 {
			t.Errorf("%s: cpu %v, memory %v: want both from cAdvisor", row, r.CPUMillicores, r.MemoryBytes)
		}
		if want, got := slices.Contains(errRows, rowID(r.Target, r.Scenario)), r.ErrorRatePPM.Median > 0; got != want {
			t.Errorf("%s: error rate %d ppm; the seed has errors only on %v", row, r.ErrorRatePPM.Median, errRows)
		}
	}
}

// checkPresent: each named row is in the results, and each named trial was planned Skipped
// (a target that does not implement the endpoint), so a row lost on the way fails here.
func checkPresent(t *testing.T, run *benchv1.BenchmarkRun, rows, skipped []string) {
	t.Helper()
	have := map[string]bool{}
	for _, r := range run.Status.Results {
		have[rowID(r.Target, r.Scenario)] = true
	}
	for _, want := range rows {
		if !have[want] {
			t.Errorf("no result row %s (rows: %v)", want, slices.Sorted(maps.Keys(have)))
		}
	}
	phases := map[string][]benchv1.TrialPhase{}
	for _, tr := range run.Status.Trials {
		id := rowID(tr.Target, tr.Scenario)
		phases[id] = append(phases[id], tr.Phase)
	}
	for _, want := range skipped {
		got := phases[want]
		if len(got) == 0 || slices.ContainsFunc(got, func(p benchv1.TrialPhase) bool { return p != benchv1.TrialSkipped }) {
			t.Errorf("trials of %s: phases %v, want planned and all Skipped", want, got)
		}
	}
}

// rowID names a row or trial as the seed cases list them: "target/scenario".
func rowID(target, scenario string) string { return target + "/" + scenario }

// keepApplied writes the document the lab applies to .cache/lab/applied/<name>.yaml, so the
// same spec can be run by the local mode beside it (docs/lab.md).
func (l *lab) keepApplied(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	dir := filepath.Join(l.root, ".cache/lab/applied")
	doc, err := yaml.Marshal(u.Object)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, u.GetName()+".yaml"), doc, 0o644)
	}
	if err != nil {
		t.Errorf("keep the applied document: %v", err)
	}
}

// keepStatus writes the finished run, status included, to
// .cache/lab/applied/<name>.status.yaml: hack/modes reads it beside the local mode's run of
// the same document.
func (l *lab) keepStatus(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	run.APIVersion, run.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
	doc, err := yaml.Marshal(run)
	if err == nil {
		err = os.WriteFile(filepath.Join(l.root, ".cache/lab/applied", run.Name+".status.yaml"), doc, 0o644)
	}
	if err != nil {
		t.Errorf("keep the run's status: %v", err)
	}
}

// seedCases are the seeds run through the installed operator, each fitted to the node's two
// cores (what the operators, Prometheus and the control plane leave of them). Windows of 30 s:
// the kubelet's cAdvisor stamps its samples every 10-15 s (its housekeeping), however often
// Prometheus scrapes, and CPU needs two of them inside the window (measured: with 12 s
// windows and a 5 s scrape, no target's CPU could be read).
var seedCases = []seedCase{{
	// Seed 001's finding on a real PgBouncer that a real CloudNativePG deploys: pgx's and
	// asyncpg's prepared statements fail behind transaction pooling, libpq's and pg's do not.
	// The seed measured that table on /db/ping alone; the lab adds its ping scenario and the
	// nginx ceiling (which has no database endpoints: its db-ping is planned Skipped). 150m a
	// pod: five targets, the runner and the null responder fit beside the lab's standing pods
	// and a drill (docs/lab.md, the lab tier's CPU requests).
	file: "config/samples/seed-001-rest-api.yaml", name: "seed-001-pgbouncer-transaction",
	fit:            []string{"--scale", "0.1", "--warmup", "2s", "--duration", "30s", "--repetitions", "1", "--cpu", "150m", "--memory", "512Mi"},
	edit:           addCeilingAndPing,
	errors:         []string{"go/db-ping", "python/db-ping"},
	rows:           []string{"nginx/ping", "apostol/ping", "python/ping", "nodejs/ping", "go/ping", "apostol/db-ping", "python/db-ping", "nodejs/db-ping", "go/db-ping"},
	skipped:        []string{"nginx/db-ping"},
	restartManager: true,
}, {
	// Seed 000: Fastify against Starlette on the smart-home mix, open model. The lab prices
	// the targets' pool (0.17 USD an hour, an example figure) so that the rows, and the
	// dashboards' cost panel, carry a cost per million requests.
	file: "config/samples/seed-000-smart-home.yaml", name: "seed-000-smart-home",
	fit: []string{"--scale", "0.1", "--warmup", "2s", "--duration", "30s", "--repetitions", "1", "--cpu", "200m", "--memory", "512Mi",
		"--workers", "1"},
	edit:       setPools(map[string]map[string]any{"amd": {"hourlyPrice": "0.17"}}),
	dashboards: true,
}, {
	// Seed 004: FastAPI, Express and NestJS at a fixed arrival rate (50,000/s there, 100/s
	// here). Its pools name Graviton and c7i instance types; the lab's one amd64 node carries
	// neither, so they are pointed at the lab's labels (tolerations kept, as the seed has them).
	file: "config/samples/seed-004-50k-rps.yaml", name: "seed-004-50k-rps",
	fit: []string{"--scale", "0.002", "--warmup", "2s", "--duration", "30s", "--repetitions", "1", "--cpu", "200m", "--memory", "512Mi",
		"--workers", "1"},
	edit: setPools(map[string]map[string]any{
		"c7g":     {"nodeSelector": map[string]any{"kubernetes.io/arch": "amd64"}},
		"loadgen": {"nodeSelector": map[string]any{"gauntlet.dev/pool": "loadgen"}},
	}),
}}

// addCeilingAndPing puts seed 001's nginx ceiling first among the targets (the fitted
// apostol entry with its name and preset changed, so it gets the same caps) and its ping
// scenario before db-ping.
func addCeilingAndPing(u *unstructured.Unstructured) {
	targets, _, _ := unstructured.NestedSlice(u.Object, "spec", "targets")
	for _, tg := range targets {
		if m, ok := tg.(map[string]any); ok && m["name"] == "apostol" {
			nginx := runtime.DeepCopyJSONValue(m).(map[string]any)
			nginx["name"], nginx["preset"] = "nginx", "nginx"
			targets = append([]any{nginx}, targets...)
			break
		}
	}
	_ = unstructured.SetNestedSlice(u.Object, targets, "spec", "targets")
	scenarios, _, _ := unstructured.NestedSlice(u.Object, "spec", "scenarios")
	ping := map[string]any{"name": "ping", "workload": "ping"}
	_ = unstructured.SetNestedSlice(u.Object, append([]any{ping}, scenarios...), "spec", "scenarios")
}

// setPools sets fields on the named node pools of a fitted document (pool name: field: value).
func setPools(fields map[string]map[string]any) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		pools, _, _ := unstructured.NestedSlice(u.Object, "spec", "nodePools")
		for i, p := range pools {
			if m, ok := p.(map[string]any); ok {
				name, _ := m["name"].(string)
				for k, v := range fields[name] {
					m[k] = v
				}
				pools[i] = m
			}
		}
		_ = unstructured.SetNestedSlice(u.Object, pools, "spec", "nodePools")
	}
}

// checkWire: the wire agents captured every trial of every row without errors: the wire
// count equals k6's measured count, the row's latency of record is the wire's, and the
// run's WireCapture condition is True. (A row with errors may have timed-out requests,
// which have no wire latency: it may fall back to k6's figures, as its message says.)
func checkWire(t *testing.T, run *benchv1.BenchmarkRun, errRows []string) {
	t.Helper()
	clean := func(target, scenario string) bool { return !slices.Contains(errRows, rowID(target, scenario)) }
	for _, tr := range run.Status.Trials {
		if tr.Calibration || tr.Phase != benchv1.TrialSucceeded || tr.Result == nil || !clean(tr.Target, tr.Scenario) {
			continue // the generator floor is k6's own timing against the null responder
		}
		// The same count: every request k6 counted, answered on the wire, nothing dropped
		// (results.WireComplete: one k6 abandoned as the window ended may show unanswered).
		if w := tr.Result.Wire; w == nil || !results.WireComplete(*tr.Result) {
			t.Errorf("trial %s: wire %+v, k6 counted %d measured requests: want the same count, nothing dropped or unanswered (%s)",
				tr.Name, w, tr.Result.Requests, tr.Message)
		} else {
			t.Logf("trial %s: wire %d requests (%d unanswered) = k6's %d; wire p50 %dµs p99 %dµs, k6 p50 %dµs p99 %dµs",
				tr.Name, w.Requests, w.Unanswered, tr.Result.Requests, w.P50Micros, w.P99Micros, tr.Result.P50Micros, tr.Result.P99Micros)
		}
	}
	for _, r := range run.Status.Results {
		if clean(r.Target, r.Scenario) && (r.LatencySource != benchv1.LatencyWire || r.Wire == nil) {
			t.Errorf("%s/%s@%d: latencySource %s, want Wire (%s)", r.Target, r.Scenario, r.LoadPoint, r.LatencySource, r.Message)
		}
	}
	if len(errRows) == 0 {
		if c := meta.FindStatusCondition(run.Status.Conditions, "WireCapture"); c == nil || c.Status != metav1.ConditionTrue {
			t.Errorf("WireCapture condition %+v, want True", c)
		}
	}
}

// checkBeside: the lab has one node, so every trial's runner ran beside its target; the
// operator must say so on each trial and row (and nowhere name another node).
func (l *lab) checkBeside(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	nodes, err := l.client.CoreV1().Nodes().List(ctx(t, time.Minute), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 1 {
		t.Fatalf("the lab's nodes: %v (%d)", err, len(nodes.Items))
	}
	node := nodes.Items[0].Name
	for _, tr := range run.Status.Trials {
		if tr.Phase != benchv1.TrialSucceeded || tr.Result == nil {
			continue
		}
		// A calibration trial's message is fixed ("generator floor: ..."); its nodes still count.
		if !slices.Equal(tr.Result.SharedNodes, []string{node}) || !tr.Calibration && !strings.Contains(tr.Message, "beside target pod") {
			t.Errorf("trial %s: sharedNodes %v, message %q; want [%s] and the pods named", tr.Name, tr.Result.SharedNodes, tr.Message, node)
		}
	}
	for _, r := range run.Status.Results {
		if r.Repetitions > 0 && !strings.Contains(r.Message, "k6 ran beside the target on node "+node) {
			t.Errorf("%s/%s@%d: message %q does not say k6 ran beside the target on %s", r.Target, r.Scenario, r.LoadPoint, r.Message, node)
		}
	}
}
