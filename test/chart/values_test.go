package chart

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
)

// TestCRDsRenderedFromEveryFile: templates/crds.yaml renders each file of files/crds (a
// second CRD dropped there included) unchanged but for the release's labels and, by default,
// helm.sh/resource-policy: keep; crds.keep=false drops the policy, crds.install=false the CRDs.
func TestCRDsRenderedFromEveryFile(t *testing.T) {
	dir := copyChart(t)
	// A second CRD as another API's controller-gen output would add it.
	src, err := os.ReadFile(filepath.Join(dir, "files", "crds", "gauntlet.dev_benchmarkruns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	second := strings.NewReplacer("benchmarkruns.gauntlet.dev", "probes.gauntlet.dev", "plural: benchmarkruns", "plural: probes",
		"kind: BenchmarkRun\n", "kind: Probe\n", "listKind: BenchmarkRunList", "listKind: ProbeList",
		"singular: benchmarkrun", "singular: probe").Replace(string(src))
	if err := os.WriteFile(filepath.Join(dir, "files", "crds", "gauntlet.dev_probes.yaml"), []byte(second), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := helm(t, "template", "gauntlet", dir, "--namespace", "bench")
	if err != nil {
		t.Fatal(err)
	}
	crds := renderedCRDs(t, out)
	files, err := filepath.Glob(filepath.Join(dir, "files", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		want = append(want, crd.Metadata.Name)
	}
	slices.Sort(want)
	if got := keys(crds); !slices.Contains(got, "probes.gauntlet.dev") || !slices.Equal(got, want) {
		t.Fatalf("rendered CRDs %v, want every file of files/crds: %v", got, want)
	}
	for name, file := range map[string]string{"benchmarkruns.gauntlet.dev": string(src), "probes.gauntlet.dev": second} {
		var want map[string]any
		if err := yaml.Unmarshal([]byte(file), &want); err != nil {
			t.Fatal(err)
		}
		got := crds[name]
		// The spec as controller-gen wrote it, every number and rule intact.
		if !reflect.DeepEqual(got["spec"], want["spec"]) {
			t.Errorf("%s: rendered spec differs from files/crds", name)
		}
		meta := got["metadata"].(map[string]any)
		annotations, _ := meta["annotations"].(map[string]any)
		if annotations["helm.sh/resource-policy"] != "keep" || annotations["controller-gen.kubebuilder.io/version"] == nil {
			t.Errorf("%s annotations %v, want controller-gen's and helm.sh/resource-policy: keep", name, annotations)
		}
		if labels, _ := meta["labels"].(map[string]any); labels["app.kubernetes.io/instance"] != "gauntlet" {
			t.Errorf("%s labels %v lack the release's", name, labels)
		}
	}
	notKept, err := helm(t, "template", "gauntlet", dir, "--set", "crds.keep=false")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(renderedCRDs(t, notKept)); n != len(want) || strings.Contains(notKept, "helm.sh/resource-policy") {
		t.Errorf("crds.keep=false: %d CRDs, resource policy still rendered: %v", n, strings.Contains(notKept, "helm.sh/resource-policy"))
	}
	none, err := helm(t, "template", "gauntlet", dir, "--set", "crds.install=false")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(renderedCRDs(t, none)); n != 0 {
		t.Errorf("crds.install=false still renders %d CRDs", n)
	}
}

// TestManagerFlagValues: each value reaches its manager flag; unset ones leave the manager's
// default alone; extraArgs come last.
func TestManagerFlagValues(t *testing.T) {
	defaults := managerArgs(t, render(t))
	for _, want := range []string{"--max-concurrent-reconciles=1", "--network-policy=true"} {
		if !contains(defaults, want) {
			t.Errorf("default args %v lack %s", defaults, want)
		}
	}
	for _, unset := range []string{"--watch-namespace", "--allowed-registries", "--keep-finished-testruns", "--prometheus-namespace", "--excluded-namespaces"} {
		for _, a := range defaults {
			if strings.HasPrefix(a, unset+"=") {
				t.Errorf("default args carry %s: the manager's default must stand", a)
			}
		}
	}
	args := managerArgs(t, render(t, "--set", "watchNamespace=team-a", "--set", "maxConcurrentReconciles=4",
		"--set", "keepFinishedTestRuns=0", "--set-json", `allowedRegistries=["registry.example","ghcr.io/acme"]`,
		"--set", "networkPolicy.enabled=false", "--set", "networkPolicy.prometheusNamespace=observability",
		"--set-json", `extraArgs=["--zap-devel=true","--zap-stacktrace-level=panic"]`))
	for _, want := range []string{"--watch-namespace=team-a", "--max-concurrent-reconciles=4", "--keep-finished-testruns=0",
		"--allowed-registries=registry.example,ghcr.io/acme", "--network-policy=false", "--prometheus-namespace=observability"} {
		if !contains(args, want) {
			t.Errorf("manager args %v lack %s", args, want)
		}
	}
	if tail := args[len(args)-2:]; !slices.Equal(tail, []string{"--zap-devel=true", "--zap-stacktrace-level=panic"}) {
		t.Errorf("manager args end %v, want extraArgs last", tail)
	}
}

// TestExcludedNamespaces: a cluster-wide install passes its excluded namespaces to the
// manager; with watchNamespace they are refused, naming both values; a name that is not a
// namespace's is refused by the schema.
func TestExcludedNamespaces(t *testing.T) {
	args := managerArgs(t, render(t, "--set-json", `excludedNamespaces=["team-a","team-b"]`))
	if !contains(args, "--excluded-namespaces=team-a,team-b") {
		t.Errorf("manager args %v lack --excluded-namespaces=team-a,team-b", args)
	}
	_, err := helm(t, "template", "gauntlet", chartDir, "--set", "watchNamespace=team-a", "--set-json", `excludedNamespaces=["team-b"]`)
	if err == nil || !strings.Contains(err.Error(), "excludedNamespaces is for a cluster-wide install: with watchNamespace") {
		t.Errorf("excludedNamespaces with watchNamespace: %v", err)
	}
	_, err = helm(t, "template", "gauntlet", chartDir, "--set-json", `excludedNamespaces=["Team_A"]`)
	if err == nil || !strings.Contains(err.Error(), "/excludedNamespaces/0") {
		t.Errorf("excludedNamespaces [Team_A]: %v", err)
	}
}

// TestSecurityContextValues: restricted pod and container security by default; each can be
// replaced from the values.
func TestSecurityContextValues(t *testing.T) {
	pod, container := securityContexts(t, render(t))
	if pod["runAsNonRoot"] != true || pod["runAsUser"] != float64(65532) || !reflect.DeepEqual(pod["seccompProfile"], map[string]any{"type": "RuntimeDefault"}) {
		t.Errorf("default pod securityContext %v is not the restricted one", pod)
	}
	if container["allowPrivilegeEscalation"] != false || container["readOnlyRootFilesystem"] != true ||
		!reflect.DeepEqual(container["capabilities"], map[string]any{"drop": []any{"ALL"}}) {
		t.Errorf("default container securityContext %v is not the restricted one", container)
	}
	pod, container = securityContexts(t, render(t, "--set", "podSecurityContext.runAsUser=1001", "--set", "podSecurityContext.fsGroup=2000",
		"--set", "securityContext.readOnlyRootFilesystem=false"))
	if pod["runAsUser"] != float64(1001) || pod["fsGroup"] != float64(2000) || pod["runAsNonRoot"] != true {
		t.Errorf("pod securityContext %v, want runAsUser 1001 and fsGroup 2000 over the defaults", pod)
	}
	if container["readOnlyRootFilesystem"] != false || container["allowPrivilegeEscalation"] != false {
		t.Errorf("container securityContext %v, want readOnlyRootFilesystem false over the defaults", container)
	}
}

// TestNamespacedModeRendersRoles: with watchNamespace the manager's rules are a Role and
// RoleBinding in that namespace, bound to the release's ServiceAccount, and no ClusterRole
// carries them.
func TestNamespacedModeRendersRoles(t *testing.T) {
	cluster := render(t, "--namespace", "gauntlet-system")
	if o := find(cluster, "ClusterRole", "gauntlet-manager"); o == nil {
		t.Fatal("cluster-wide install renders no ClusterRole gauntlet-manager")
	}
	scoped := render(t, "--namespace", "gauntlet-system", "--set", "watchNamespace=team-a")
	if o := find(scoped, "ClusterRole", "gauntlet-manager"); o != nil {
		t.Error("namespaced install still renders the manager's ClusterRole")
	}
	if o := find(scoped, "ClusterRoleBinding", "gauntlet-manager"); o != nil {
		t.Error("namespaced install still renders the manager's ClusterRoleBinding")
	}
	role := find(scoped, "Role", "gauntlet-manager")
	binding := find(scoped, "RoleBinding", "gauntlet-manager")
	if role == nil || binding == nil {
		t.Fatal("namespaced install renders no Role/RoleBinding gauntlet-manager")
	}
	if role.Metadata.Namespace != "team-a" || binding.Metadata.Namespace != "team-a" {
		t.Errorf("Role in %q, RoleBinding in %q, want team-a", role.Metadata.Namespace, binding.Metadata.Namespace)
	}
	var rb struct {
		RoleRef  struct{ Kind, Name string } `json:"roleRef"`
		Subjects []struct{ Kind, Name, Namespace string }
	}
	if err := yaml.Unmarshal(binding.Raw, &rb); err != nil {
		t.Fatal(err)
	}
	if rb.RoleRef.Kind != "Role" || len(rb.Subjects) != 1 || rb.Subjects[0].Name != "gauntlet" || rb.Subjects[0].Namespace != "gauntlet-system" {
		t.Errorf("RoleBinding %+v, want the Role bound to gauntlet-system/gauntlet", rb)
	}
	var clusterRules, roleRules struct{ Rules []map[string]any }
	_ = yaml.Unmarshal(find(cluster, "ClusterRole", "gauntlet-manager").Raw, &clusterRules)
	_ = yaml.Unmarshal(role.Raw, &roleRules)
	if len(roleRules.Rules) == 0 || !reflect.DeepEqual(roleRules.Rules, clusterRules.Rules) {
		t.Errorf("the Role's rules differ from the cluster-wide install's")
	}
}

// TestAggregatedRolesRendered: the edit and view ClusterRoles carry the aggregation labels of
// the built-in roles and name both gauntlet.dev resources; rbac.aggregateClusterRoles=false
// renders neither.
func TestAggregatedRolesRendered(t *testing.T) {
	objs := render(t)
	for name, labels := range map[string][]string{
		"gauntlet-edit": {"rbac.authorization.k8s.io/aggregate-to-admin", "rbac.authorization.k8s.io/aggregate-to-edit"},
		"gauntlet-view": {"rbac.authorization.k8s.io/aggregate-to-view"},
	} {
		o := find(objs, "ClusterRole", name)
		if o == nil {
			t.Errorf("no ClusterRole %s", name)
			continue
		}
		for _, l := range labels {
			if o.Metadata.Labels[l] != "true" {
				t.Errorf("ClusterRole %s lacks %s: \"true\"", name, l)
			}
		}
		for _, r := range []string{"benchmarkruns", "benchmarkschedules"} {
			if !strings.Contains(string(o.Raw), r) {
				t.Errorf("ClusterRole %s does not name %s", name, r)
			}
		}
	}
	if find(objs, "ClusterRole", "gauntlet-view") != nil && strings.Contains(string(find(objs, "ClusterRole", "gauntlet-view").Raw), "create") {
		t.Error("the view ClusterRole grants create")
	}
	off := render(t, "--set", "rbac.aggregateClusterRoles=false")
	if find(off, "ClusterRole", "gauntlet-edit") != nil || find(off, "ClusterRole", "gauntlet-view") != nil {
		t.Error("rbac.aggregateClusterRoles=false still renders the aggregated ClusterRoles")
	}
}

// TestPrometheusRuleAlerts: the PrometheusRule is off by default and needs prometheus-operator;
// its alerts, run by promtool's rule unit tests over series named as internal/opmetrics names
// them, fire for a Failed run, a Slower row, a Missed SLO, a schedule's recent Slower
// change point (not a Faster one, not an old one) and a preflight check at 0 for 10
// minutes (not before, not one at 1, not one at 0 for 5 minutes), and not for a healthy run.
func TestPrometheusRuleAlerts(t *testing.T) {
	if find(render(t, "--api-versions", "monitoring.coreos.com/v1"), "PrometheusRule", "gauntlet") != nil {
		t.Error("PrometheusRule rendered by default")
	}
	if find(render(t, "--set", "prometheusRule.enabled=true"), "PrometheusRule", "gauntlet") != nil {
		t.Error("PrometheusRule rendered without monitoring.coreos.com/v1")
	}
	rule := find(render(t, "--api-versions", "monitoring.coreos.com/v1", "--set", "prometheusRule.enabled=true",
		"--set", "prometheusRule.labels.release=monitoring", "--set", "prometheusRule.alertLabels.team=perf"), "PrometheusRule", "gauntlet")
	if rule == nil {
		t.Fatal("prometheusRule.enabled with monitoring.coreos.com/v1 renders no PrometheusRule")
	}
	if rule.Metadata.Labels["release"] != "monitoring" {
		t.Errorf("PrometheusRule labels %v lack release: monitoring", rule.Metadata.Labels)
	}
	var pr struct {
		Spec json.RawMessage `json:"spec"`
	}
	if err := yaml.Unmarshal(rule.Raw, &pr); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rules, err := yaml.JSONToYAML(pr.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	row := func(metric, run, verdict string) string {
		return metric + `{namespace="bench",run="` + run + `",target="go",preset="go-nethttp",scenario="ping",load_point="1000",verdict="` + verdict + `"}`
	}
	change := func(schedule, direction string) string {
		return opmetrics.MetricChangePointRecent + `{namespace="bench",schedule="` + schedule + `",target="go",scenario="ping",load_point="1000",figure="p50",direction="` +
			direction + `",run="` + schedule + `-29443680"}`
	}
	tests := `rule_files: [rules.yaml]
evaluation_interval: 1m
tests:
- interval: 1m
  input_series:
  - {series: '` + opmetrics.MetricPhase + `{namespace="bench",run="bad",phase="Failed"}', values: '1x5'}
  - {series: '` + opmetrics.MetricPhase + `{namespace="bench",run="good",phase="Failed"}', values: '0x5'}
  - {series: '` + opmetrics.MetricPhase + `{namespace="bench",run="good",phase="Succeeded"}', values: '1x5'}
  - {series: '` + row(opmetrics.MetricBaseline, "bad", "Slower") + `', values: '1x5'}
  - {series: '` + row(opmetrics.MetricBaseline, "good", "Slower") + `', values: '0x5'}
  - {series: '` + row(opmetrics.MetricBaseline, "good", "NoChange") + `', values: '1x5'}
  - {series: '` + row(opmetrics.MetricSLO, "bad", "Missed") + `', values: '1x5'}
  - {series: '` + row(opmetrics.MetricSLO, "good", "Missed") + `', values: '0x5'}
  - {series: '` + row(opmetrics.MetricSLO, "good", "Met") + `', values: '1x5'}
  - {series: '` + change("nightly", "Slower") + `', values: '1x5'}
  - {series: '` + change("nightly", "Faster") + `', values: '1x5'}
  - {series: '` + change("weekly", "Slower") + `', values: '0x5'}
  - {series: '` + opmetrics.MetricScheduleAlert + `{namespace="bench",schedule="nightly",target="go",scenario="ping",load_point="1000",figure="p50",run="nightly-29443680"}', values: '0.1x5'}
  - {series: '` + opmetrics.MetricScheduleMissed + `{namespace="bench",schedule="nightly"}', values: '0 0 1 1 1 1'}
  - {series: '` + opmetrics.MetricScheduleMissed + `{namespace="bench",schedule="weekly"}', values: '3x5'}
  - {series: '` + opmetrics.MetricPreflightOK + `{namespace="gauntlet-system",pod="gauntlet-abc",check="k6-operator TestRun (k6.io/v1alpha1)"}', values: '0x20'}
  - {series: '` + opmetrics.MetricPreflightOK + `{namespace="gauntlet-system",pod="gauntlet-abc",check="prometheus"}', values: '1x20'}
  - {series: '` + opmetrics.MetricPreflightOK + `{namespace="gauntlet-system",pod="gauntlet-abc",check="cAdvisor series"}', values: '1x10 0x10'}
  alert_rule_test:
  - eval_time: 5m
    alertname: GauntletPreflightFailed
  - eval_time: 15m
    alertname: GauntletPreflightFailed
    exp_alerts:
    - exp_labels: {severity: warning, team: perf, namespace: gauntlet-system, pod: gauntlet-abc, check: "k6-operator TestRun (k6.io/v1alpha1)"}
      exp_annotations:
        summary: Gauntlet's preflight finds k6-operator TestRun (k6.io/v1alpha1) missing.
        description: "The manager gauntlet-system/gauntlet-abc finds k6-operator TestRun (k6.io/v1alpha1) missing, which runs need: they wait or fail until it is fixed. The PreflightFailed event on that Pod says what to do (kubectl describe pod -n gauntlet-system gauntlet-abc), as does gauntlet check."
  - eval_time: 5m
    alertname: GauntletScheduleMissedRuns
    exp_alerts:
    - exp_labels: {severity: warning, team: perf, namespace: bench, schedule: nightly}
      exp_annotations:
        summary: BenchmarkSchedule bench/nightly skipped scheduled runs.
        description: "Scheduled times in the last day came later than spec.startingDeadlineSeconds allows and were skipped (status.missedScheduleTimes, the MissedSchedule events): the manager was down, or runs held back by concurrencyPolicy Forbid waited too long. The history has a gap there."
  - eval_time: 2m
    alertname: GauntletBenchmarkRunFailed
    exp_alerts:
    - exp_labels: {severity: warning, team: perf, namespace: bench, run: bad}
      exp_annotations:
        summary: BenchmarkRun bench/bad failed.
        description: "The run ended Failed; its Ready and Stalled conditions and events say why (kubectl describe benchmarkrun -n bench bad)."
  - eval_time: 2m
    alertname: GauntletBenchmarkRunRegressed
    exp_alerts:
    - exp_labels: {severity: warning, team: perf, namespace: bench, run: bad, target: go, scenario: ping, load_point: "1000"}
      exp_annotations:
        summary: BenchmarkRun bench/bad is slower than its baseline.
        description: "Target go, scenario ping at load point 1000 is Slower than the same row of spec.baseline's run (the Regressed condition)."
  - eval_time: 2m
    alertname: GauntletBenchmarkRunSLOMissed
    exp_alerts:
    - exp_labels: {severity: warning, team: perf, namespace: bench, run: bad, target: go, scenario: ping, load_point: "1000"}
      exp_annotations:
        summary: BenchmarkRun bench/bad missed its SLO.
        description: "Target go, scenario ping at load point 1000 missed spec.slo (the SLOMet condition)."
  - eval_time: 2m
    alertname: GauntletScheduleChangePointSlower
    exp_alerts:
    - exp_labels: {severity: warning, team: perf, namespace: bench, schedule: nightly, target: go, scenario: ping, load_point: "1000", figure: p50, run: nightly-29443680}
      exp_annotations:
        summary: BenchmarkSchedule bench/nightly got slower from run nightly-29443680.
        description: "The p50 of target go, scenario ping at load point 1000 stepped to a worse level (10%) from run nightly-29443680, confirmed over the runs since (status.alerts, the Regressing condition). It fires until the step is undone or triaged in the schedule's spec.triage."
`
	if err := os.WriteFile(filepath.Join(dir, "tests.yaml"), []byte(tests), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tool("prometheus.sh"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("promtool", "test", "rules", "tests.yaml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
	// The opposite case, so the pass above means something: a healthy run's series alone
	// must not satisfy an expectation of an alert.
	healthy := strings.NewReplacer(`run="bad",phase="Failed"}', values: '1x5'`, `run="bad",phase="Failed"}', values: '0x5'`).Replace(tests)
	if err := os.WriteFile(filepath.Join(dir, "tests.yaml"), []byte(healthy), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("promtool", "test", "rules", "tests.yaml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "GauntletBenchmarkRunFailed") {
		t.Errorf("promtool passed the Failed alert with the run's Failed series at 0:\n%s", out)
	}
}

func render(t *testing.T, args ...string) []object {
	t.Helper()
	out, err := helm(t, append([]string{"template", "gauntlet", chartDir}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, out)
}

func find(objs []object, kind, name string) *object {
	for i := range objs {
		if objs[i].Kind == kind && objs[i].Metadata.Name == name {
			return &objs[i]
		}
	}
	return nil
}

// copyChart copies the chart into a temporary folder a test may add files to.
func copyChart(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "gauntlet")
	if out, err := exec.Command("cp", "-r", chartDir, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return dir
}

// renderedCRDs is every CustomResourceDefinition of a rendered chart, by name.
func renderedCRDs(t *testing.T, manifests string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, o := range decode(t, manifests) {
		if o.Kind != "CustomResourceDefinition" {
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal(o.Raw, &m); err != nil {
			t.Fatal(err)
		}
		out[o.Metadata.Name] = m
	}
	return out
}

func securityContexts(t *testing.T, objs []object) (pod, container map[string]any) {
	t.Helper()
	for _, o := range objs {
		if o.Kind != "Deployment" {
			continue
		}
		var d struct {
			Spec struct {
				Template struct {
					Spec struct {
						SecurityContext map[string]any `json:"securityContext"`
						Containers      []struct {
							SecurityContext map[string]any `json:"securityContext"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(o.Raw, &d); err != nil {
			t.Fatal(err)
		}
		return d.Spec.Template.Spec.SecurityContext, d.Spec.Template.Spec.Containers[0].SecurityContext
	}
	t.Fatal("no Deployment rendered")
	return nil, nil
}
