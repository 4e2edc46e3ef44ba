//go:build lab && labfull

package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

var scheduleGVR = schema.GroupVersionResource{Group: "gauntlet.dev", Version: "v1alpha1", Resource: "benchmarkschedules"}

// Runs of the schedule demo at each level: before the slowdown, and from it on (at least).
// With 5 at one level and 4 at the other, the most extreme split is 1 of C(9,4) = 126
// arrangements, significant at the change-point test's 0.01; with 3 after, 1 of 56 is not.
const (
	// The alert reads the old level from at least 8 runs (internal/history.MinBefore).
	scheduleRunsBefore = 8
	scheduleRunsAfter  = 4
)

// testScheduleChangePoint: a BenchmarkSchedule runs a small benchmark every 30 s (Forbid:
// the next tick after each run). After scheduleRunsBefore runs, the template's target is
// slowed by 3 ms a request (go-nethttp's EXTRA_WAIT_MICROS), as a GitOps commit would change
// it: the change itself starts a run (trigger TemplateChange). The schedule must report the
// p50 change point at that run, Slower, with Regressing True, no alert at any other run and,
// at the end, no change point at another run; its history (in the chart's database) keeps
// runs the history limits deleted. Then the slowdown is accepted, and Regressing ends.
func (l *lab) testScheduleChangePoint(t *testing.T) {
	name := "schedule-demo"
	ns := l.restrictedNamespace(t, name)
	c := ctx(t, 40*time.Minute)
	doc := fmt.Sprintf(`
apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkSchedule
metadata: {name: %s}
spec:
  schedule: "@every 30s"
  concurrencyPolicy: Forbid
  successfulRunsHistoryLimit: 2
  triggers: {templateChanges: true}
  template:
    spec:
      targets:
      - {name: go, preset: go-nethttp, resources: {cpu: 50m, memory: 64Mi}, env: [{name: EXTRA_WAIT_MICROS, value: "0"}]}
      loadGenerator: {resources: {cpu: 100m, memory: 256Mi}}
      scenarios: [{name: ping, workload: ping}]
      load: {model: Open, rates: [50], warmup: 2s, duration: 12s, repetitions: 1, maxVUs: 20}
`, name)
	var u unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := l.dyn.Resource(scheduleGVR).Namespace(ns).Create(c, &u, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkSchedule: %v", err)
	}
	start := time.Now()
	var slowRun string
	seen := map[string]bool{} // every run name and change point seen, to tell "never before"
	var early, transient []string
	poll := func(until func(*benchv1.BenchmarkSchedule) bool, timeout time.Duration) *benchv1.BenchmarkSchedule {
		t.Helper()
		var s *benchv1.BenchmarkSchedule
		err := wait.PollUntilContextTimeout(c, 5*time.Second, timeout, true, func(c context.Context) (bool, error) {
			got, err := l.dyn.Resource(scheduleGVR).Namespace(ns).Get(c, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			s = &benchv1.BenchmarkSchedule{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(got.Object, s); err != nil {
				return false, err
			}
			for _, r := range s.Status.Runs {
				seen[r.Name] = true
			}
			// An alert anywhere but at the slowed run is a false alarm a user would see. A
			// change point elsewhere may come and go as the history grows (it is re-segmented
			// at every run): logged here, and refused if it is still there at the end.
			for _, a := range s.Status.Alerts {
				if a.Run != slowRun && !slices.Contains(early, a.Run) {
					early = append(early, a.Run)
				}
			}
			for _, cp := range s.Status.ChangePoints {
				if cp.Figure == "p50" && cp.Run != slowRun && !slices.Contains(transient, cp.Run) {
					transient = append(transient, cp.Run)
				}
			}
			return until(s), nil
		})
		if err != nil {
			t.Fatalf("schedule %s after %s: %v; status %+v", name, time.Since(start).Round(time.Second), err, s)
		}
		return s
	}
	succeeded := func(s *benchv1.BenchmarkSchedule) int32 { return s.Status.HistoryRuns }
	s := poll(func(s *benchv1.BenchmarkSchedule) bool { return succeeded(s) >= scheduleRunsBefore }, 20*time.Minute)
	t.Logf("%d runs at the first level after %s; change points %+v", succeeded(s), time.Since(start).Round(time.Second), s.Status.ChangePoints)

	// The slowdown, as a GitOps tool applies a commit: the template's target changes.
	patch := `{"spec":{"template":{"spec":{"targets":[{"name":"go","preset":"go-nethttp","resources":{"cpu":"50m","memory":"64Mi"},` +
		`"env":[{"name":"EXTRA_WAIT_MICROS","value":"3000"}]}]}}}}`
	if _, err := l.dyn.Resource(scheduleGVR).Namespace(ns).Patch(c, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	changed := time.Now()
	// The change starts a run of its own, annotated with its trigger.
	// Under Forbid a run in progress holds it back to the next scheduled time after that run.
	err := wait.PollUntilContextTimeout(c, 2*time.Second, 5*time.Minute, true, func(c context.Context) (bool, error) {
		runs, err := l.dyn.Resource(runGVR).Namespace(ns).List(c, metav1.ListOptions{LabelSelector: benchv1.LabelSchedule + "=" + name})
		if err != nil {
			return false, nil
		}
		for _, r := range runs.Items {
			if r.GetAnnotations()[benchv1.AnnotationTrigger] == benchv1.TriggerTemplateChange {
				slowRun = r.GetName()
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no run triggered by the template change within 5 minutes: %v", err)
	}
	t.Logf("the template change started run %s after %s", slowRun, time.Since(changed).Round(time.Second))
	// Until the change point is found (the permutation test needs about 4 runs at the new
	// level: see scheduleRunsAfter) and Regressing says so; a run of the old template that
	// was under way when the template changed finishes first, at the old level.
	s = poll(func(s *benchv1.BenchmarkSchedule) bool {
		return atRun(s, slowRun) != nil && meta.IsStatusConditionTrue(s.Status.Conditions, benchv1.ConditionRegressing)
	}, time.Duration(scheduleRunsAfter+3)*3*time.Minute)
	t.Logf("%d runs in the history after %s; change points %+v", succeeded(s), time.Since(start).Round(time.Second), s.Status.ChangePoints)
	found := atRun(s, slowRun)
	if found == nil || found.Direction != "Slower" || found.ChangePPM < 1_000_000 {
		t.Errorf("p50 change point at %s: %+v, want Slower by more than 100%% (3 ms added)", slowRun, found)
	}
	if len(early) > 0 {
		t.Errorf("alerts at runs other than the slowed one (%s): %v", slowRun, early)
	}
	for _, cp := range s.Status.ChangePoints {
		if cp.Figure == "p50" && cp.Run != slowRun {
			t.Errorf("a p50 change point at %s, not the slowed run %s: %+v", cp.Run, slowRun, cp)
		}
	}
	if len(transient) > 0 {
		t.Logf("p50 change points seen for a while at other runs, gone at the end: %v", transient)
	}
	cond := meta.FindStatusCondition(s.Status.Conditions, benchv1.ConditionRegressing)
	t.Logf("Regressing: %+v; runs seen %d, history %d, kept %d", cond, len(seen), s.Status.HistoryRuns, len(s.Status.Runs))
	if int(s.Status.HistoryRuns) <= len(s.Status.Runs) {
		t.Errorf("the history holds %d runs and %d runs remain: the history limits kept them all, so the store proves nothing", s.Status.HistoryRuns, len(s.Status.Runs))
	}
	l.checkHistoryInDatabase(t, ns, name, s.Status.HistoryRuns)
	// The schedule history dashboard (figures over the runs, change points as annotations)
	// has data for this schedule's row, from the manager's metrics as the lab scrapes them.
	time.Sleep(11 * time.Second) // range queries step every 5 s: let the scrape cover two steps
	// A fixed-rate schedule has no capacity; CPU per request only where cAdvisor's CPU was
	// read for the newest run's row.
	rep := l.dashboardsHaveData(t, map[string]string{"namespace": ns, "schedule": name, "target": "go", "scenario": "ping",
		"__rate_interval": "30s", "__interval": "5s"}, start, "Capacity over scheduled runs", "CPU per request over scheduled runs")
	for _, q := range rep.QuietAnnotations {
		if strings.Contains(q, "Slower") {
			t.Errorf("%s marked nothing: the Slower change point is not on the dashboard", q)
		}
	}
	// Triage as a user does: the slowdown accepted as the new normal (gauntlet schedule
	// triage --accept writes spec.triage). The alert ends, Regressing goes False, and the
	// next run at the new level raises nothing (the poll refuses an alert at any other run).
	accepted := s.Status.HistoryRuns
	out := l.command(t, filepath.Join(l.root, "bin/gauntlet"), "schedule", "triage", name, slowRun, "--accept", "-n", ns,
		"--note", "the lab's deliberate slowdown")
	s = poll(func(s *benchv1.BenchmarkSchedule) bool {
		return s.Status.HistoryRuns > accepted && len(s.Status.Alerts) == 0 &&
			meta.IsStatusConditionFalse(s.Status.Conditions, benchv1.ConditionRegressing)
	}, 8*time.Minute)
	t.Logf("accepted %s (%s): %d runs in the history, Regressing %+v, alerts %v, after %s", slowRun, strings.TrimSpace(out),
		s.Status.HistoryRuns, meta.FindStatusCondition(s.Status.Conditions, benchv1.ConditionRegressing), s.Status.Alerts,
		time.Since(start).Round(time.Second))
	if len(early) > 0 {
		t.Errorf("alerts at runs other than the slowed one (%s), after the accept: %v", slowRun, early)
	}
	// Suspended, it starts nothing more, so the namespace's deletion does not race a run.
	_, _ = l.dyn.Resource(scheduleGVR).Namespace(ns).Patch(context.Background(), name, types.MergePatchType, []byte(`{"spec":{"suspend":true}}`), metav1.PatchOptions{})
}

// atRun is the schedule's p50 change point of the go target at run, or nil.
func atRun(s *benchv1.BenchmarkSchedule, run string) *benchv1.ScheduleChangePoint {
	for i, cp := range s.Status.ChangePoints {
		if cp.Figure == "p50" && cp.Target == "go" && cp.Run == run {
			return &s.Status.ChangePoints[i]
		}
	}
	return nil
}

// checkHistoryInDatabase: the chart's history database (hack/lab/chart-values.yaml) holds the
// schedule's runs, as many as its status counts, and no history ConfigMap was written.
func (l *lab) checkHistoryInDatabase(t *testing.T, ns, name string, runs int32) {
	t.Helper()
	query := fmt.Sprintf("SELECT count(*) FROM history.runs WHERE namespace = '%s' AND schedule = '%s'", ns, name)
	out := strings.TrimSpace(l.command(t, l.kubectl(), "exec", "-n", installNamespace, "gauntlet-history-1", "-c", "postgres", "--",
		"psql", "-d", "gauntlet_history", "-Atc", query))
	// The analysis (off the worker) may not have counted the newest append yet.
	if n, err := strconv.Atoi(out); err != nil || runs == 0 || n < int(runs) {
		t.Errorf("runs of %s/%s in the history database: %q, status.historyRuns %d", ns, name, out, runs)
	}
	if _, err := l.client.CoreV1().ConfigMaps(ns).Get(ctx(t, time.Minute), name+"-history", metav1.GetOptions{}); err == nil {
		t.Errorf("ConfigMap %s-history exists: the history went to the ConfigMap store, not the database", name)
	}
	t.Logf("the history database holds %s runs of %s/%s", out, ns, name)
	l.checkHistoryReader(t, query, out)
}

// checkHistoryReader: the chart's read-only login (history.database.reader), with the
// password of its Secret, over TCP as Grafana connects, reads what the manager wrote and
// may write nothing.
func (l *lab) checkHistoryReader(t *testing.T, query, want string) {
	t.Helper()
	s, err := l.client.CoreV1().Secrets(installNamespace).Get(ctx(t, time.Minute), "gauntlet-history-reader", metav1.GetOptions{})
	if err != nil {
		t.Errorf("the reader's Secret: %v", err)
		return
	}
	psql := func(sql string) (string, error) {
		out, err := l.cmd(l.kubectl(), "exec", "-n", installNamespace, "gauntlet-history-1", "-c", "postgres", "--",
			"env", "PGPASSWORD="+string(s.Data["password"]), "psql", "-h", "localhost", "-U", string(s.Data["username"]),
			"-d", "gauntlet_history", "-v", "ON_ERROR_STOP=1", "-Atc", sql).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	// CloudNativePG creates the role after the Cluster is ready; the schedule ran for minutes.
	// The schedule may append a run between the two counts.
	out, err := psql(query)
	n, _ := strconv.Atoi(out)
	if m, _ := strconv.Atoi(want); err != nil || n < m || m == 0 {
		t.Errorf("as %s: %q (%v), want the %s runs the database's owner counted", s.Data["username"], out, err, want)
	}
	if out, err := psql("DELETE FROM history.figures WHERE false"); err == nil || !strings.Contains(out, "permission denied") {
		t.Errorf("as %s, a DELETE: %q (%v), want permission denied", s.Data["username"], out, err)
	}
}
