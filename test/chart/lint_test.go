package chart

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

func TestHelmLintStrict(t *testing.T) {
	testenv.Long(t)
	if out, err := helm(t, "lint", "--strict", chartDir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestTemplateValidatesWithKubeconform renders the chart as an install on a cluster with
// prometheus-operator (so the ServiceMonitor and PrometheusRule are in) and validates every
// object, the CRDs (templates, not crds/) included, with kubeconform against the schemas of a real kube-apiserver.
func TestTemplateValidatesWithKubeconform(t *testing.T) {
	testenv.Long(t)
	manifests, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "gauntlet-system",
		"--api-versions", "monitoring.coreos.com/v1", "--set", "prometheusRule.enabled=true")
	if err != nil {
		t.Fatal(err)
	}
	kinds := kubeconform(t, manifests)
	for _, want := range []string{"CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
		"Role", "RoleBinding", "Deployment", "Service", "ServiceMonitor", "PrometheusRule"} {
		if kinds[want] == 0 {
			t.Errorf("helm template rendered no %s (kinds: %v)", want, kinds)
		}
	}
}

// TestKubeconformSchemasAreStrict: the generated schemas refuse a misspelt field, so a chart
// template with a typo cannot pass the test above.
func TestKubeconformSchemasAreStrict(t *testing.T) {
	testenv.Long(t)
	bad := `apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  replica: 1
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec: {containers: [{name: c, image: i}]}
`
	out := kubeconformRun(t, bad)
	if out.err == nil || !strings.Contains(out.text, "replica") {
		t.Fatalf("kubeconform accepted spec.replica: %s", out.text)
	}
}

// TestSamplesValidateAgainstTheCRDSchema: the BenchmarkRun samples pass the CRD's own
// openAPIV3Schema (as the API server publishes it), and a run with a wrong type does not.
func TestSamplesValidateAgainstTheCRDSchema(t *testing.T) {
	testenv.Long(t)
	samples, err := filepath.Glob(filepath.Join(root, "config", "samples", "*.yaml"))
	if err != nil || len(samples) == 0 {
		t.Fatalf("no samples (%v)", err)
	}
	var all []string
	for _, s := range samples {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, string(data))
	}
	manifests := strings.Join(all, "\n---\n")
	kinds := kubeconform(t, manifests)
	if want := count(decode(t, manifests), "BenchmarkRun"); want == 0 || kinds["BenchmarkRun"] != want {
		t.Errorf("validated %d BenchmarkRuns, the samples hold %d", kinds["BenchmarkRun"], want)
	}
	bad := `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: bad}
spec:
  targets: [{name: go, preset: go-nethttp}]
  scenarios: [{name: ping, workload: ping}]
  load: {rates: ["fast"]}
`
	if out := kubeconformRun(t, bad); out.err == nil || !strings.Contains(out.text, "/spec/load/rates/0") {
		t.Fatalf("kubeconform did not refuse spec.load.rates[0]=\"fast\" with its path: %s", out.text)
	}
}

// TestBadValuesRefusedWithTheirPath: values.schema.json refuses each bad value at render
// time, naming where it is.
func TestBadValuesRefusedWithTheirPath(t *testing.T) {
	testenv.Long(t)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"negative replicas", []string{"--set", "replicas=-1"}, []string{"/replicas", "minimum"}},
		{"unknown top-level key", []string{"--set", "replcas=2"}, []string{"replcas", "additional properties"}},
		{"unknown nested key", []string{"--set", "metrics.prot=9090"}, []string{"/metrics", "prot"}},
		{"wrong type", []string{"--set-string", "replicas=two"}, []string{"/replicas", "want integer"}},
		{"port out of range", []string{"--set", "probes.port=70000"}, []string{"/probes/port", "maximum"}},
		{"unknown preset", []string{"--set", "presetImages.rust-actix=example/rust:1"}, []string{"/presetImages", "rust-actix"}},
		{"empty k6 image", []string{"--set", "k6.image="}, []string{"/k6/image"}},
		{"replicas without leader election", []string{"--set", "replicas=2", "--set", "leaderElection.enabled=false"},
			[]string{"/leaderElection/enabled"}},
		{"timeout not a duration", []string{"--set", "timeouts.targets=soon"}, []string{"/timeouts/targets"}},
		{"unknown timeout", []string{"--set", "timeouts.trial=1m"}, []string{"/timeouts", "trial"}},
		{"watch namespace not a name", []string{"--set", "watchNamespace=Team_A"}, []string{"/watchNamespace"}},
		{"no reconciles", []string{"--set", "maxConcurrentReconciles=0"}, []string{"/maxConcurrentReconciles", "minimum"}},
		{"negative kept TestRuns", []string{"--set", "keepFinishedTestRuns=-1"}, []string{"/keepFinishedTestRuns", "minimum"}},
		{"registry list in one item", []string{"--set-json", `allowedRegistries=["a.example,b.example"]`}, []string{"/allowedRegistries/0"}},
		{"extra arg not a flag", []string{"--set-json", `extraArgs=["zap-devel"]`}, []string{"/extraArgs/0"}},
		{"unknown crds key", []string{"--set", "crds.kep=false"}, []string{"/crds", "kep"}},
		{"unknown networkPolicy key", []string{"--set", "networkPolicy.enable=false"}, []string{"/networkPolicy", "enable"}},
		{"unknown prometheusRule key", []string{"--set", "prometheusRule.enable=true"}, []string{"/prometheusRule", "enable"}},
		{"image registry with a scheme", []string{"--set", "imageRegistry=http://mirror.example"}, []string{"/imageRegistry"}},
		{"security context not an object", []string{"--set", "securityContext=none"}, []string{"/securityContext"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := helm(t, append([]string{"template", "gauntlet", chartDir}, tc.args...)...)
			if err == nil {
				t.Fatalf("helm template %v succeeded, want a schema error", tc.args)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not name %q:\n%v", w, err)
				}
			}
		})
	}
	// The opposite case: good values pass, so the refusals above are the schema's doing.
	if _, err := helm(t, "template", "gauntlet", chartDir, "--set", "replicas=3", "--set", "presetImages.go-nethttp=registry.example/go:1"); err != nil {
		t.Fatal(err)
	}
}

// TestTemplateContents checks what the values turn into: the manager's arguments, the
// ServiceMonitor only where prometheus-operator is served, one dashboard ConfigMap per JSON
// file dropped into dashboards/.
func TestTemplateContents(t *testing.T) {
	testenv.Long(t)
	plain, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "bench",
		"--set", "presetImages.go-nethttp=registry.example/go:1", "--set", "k6.image=registry.example/k6:1")
	if err != nil {
		t.Fatal(err)
	}
	objs := decode(t, plain)
	if n := count(objs, "ServiceMonitor"); n != 0 {
		t.Errorf("ServiceMonitor rendered without monitoring.coreos.com/v1")
	}
	args := managerArgs(t, objs)
	for _, want := range []string{"--image=go-nethttp=registry.example/go:1", "--k6-image=registry.example/k6:1",
		"--leader-elect=true", "--leader-election-namespace=bench", "--metrics-bind-address=:8080", "--metrics-secure=true",
		"--null-responder-image=ghcr.io/gauntlet-bench/gauntlet:" + chartAppVersion(t)} {
		if !contains(args, want) {
			t.Errorf("manager args %v lack %s", args, want)
		}
	}
	for _, a := range args {
		if strings.Contains(a, "-timeout=") {
			t.Errorf("manager args carry %s with no timeouts set: the manager's defaults must stand", a)
		}
	}
	// One value moves every image of the release to a mirror; the third-party images keep theirs.
	mirrored, err := helm(t, "template", "gauntlet", chartDir, "--set", "imageRegistry=10.0.0.5:5000/mirror",
		"--set", "presetImages.go-nethttp=registry.example/go:1", "--set", "presetImages.nginx=acme/nginx:2")
	if err != nil {
		t.Fatal(err)
	}
	mirroredObjs := decode(t, mirrored)
	mirroredArgs := managerArgs(t, mirroredObjs)
	manager := "10.0.0.5:5000/mirror/gauntlet-bench/gauntlet:" + chartAppVersion(t)
	for _, want := range []string{"--image=go-nethttp=10.0.0.5:5000/mirror/go:1", "--image=nginx=10.0.0.5:5000/mirror/acme/nginx:2",
		"--image=cpp-epoll=10.0.0.5:5000/mirror/gauntlet-bench/target-cpp-epoll:" + chartAppVersion(t),
		"--null-responder-image=" + manager, "--k6-image=grafana/k6:1.8.1"} {
		if !contains(mirroredArgs, want) {
			t.Errorf("with imageRegistry, manager args %v lack %s", mirroredArgs, want)
		}
	}
	if !strings.Contains(mirrored, "image: "+manager+"\n") {
		t.Errorf("with imageRegistry, no container runs %s", manager)
	}
	if strings.Contains(mirrored, "ghcr.io/") {
		t.Errorf("with imageRegistry, the rendered chart still names ghcr.io")
	}

	timed, err := helm(t, "template", "gauntlet", chartDir, "--set", "timeouts.targets=2m", "--set", "timeouts.trialFinish=90s", "--set", "timeouts.unschedulable=3m")
	if err != nil {
		t.Fatal(err)
	}
	timedArgs := managerArgs(t, decode(t, timed))
	for _, want := range []string{"--targets-timeout=2m", "--trial-finish-timeout=90s", "--unschedulable-timeout=3m"} {
		if !contains(timedArgs, want) {
			t.Errorf("manager args %v lack %s", timedArgs, want)
		}
	}
	if contains(timedArgs, "--database-timeout=") || strings.Contains(strings.Join(timedArgs, " "), "--verify-timeout") {
		t.Errorf("manager args %v carry timeouts that were not set", timedArgs)
	}

	// With prometheus-operator: the ServiceMonitor keeps the rows' namespace label and
	// scrapes the secure endpoint with its token; the manager may review tokens.
	monitored, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "bench", "--api-versions", "monitoring.coreos.com/v1",
		"--set", "metrics.readers[0].name=prometheus-k8s", "--set", "metrics.readers[0].namespace=monitoring")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"honorLabels: true", "scheme: https", "bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token",
		"name: gauntlet-metrics-auth", "tokenreviews", "name: gauntlet-metrics-reader", "name: prometheus-k8s"} {
		if !strings.Contains(monitored, want) {
			t.Errorf("rendered chart with monitoring lacks %q", want)
		}
	}
	if n := count(decode(t, monitored), "ServiceMonitor"); n != 1 {
		t.Errorf("%d ServiceMonitors with monitoring.coreos.com/v1, want 1", n)
	}
	// With a certificate of the user's CA the ServiceMonitor verifies whom it sends its
	// token to: the CA and the Service's DNS name, never insecureSkipVerify.
	verified, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "bench", "--api-versions", "monitoring.coreos.com/v1",
		"--set", "metrics.certSecret=gauntlet-metrics-tls")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(verified, "insecureSkipVerify") {
		t.Error("metrics.certSecret set, yet the ServiceMonitor skips verifying the manager's certificate")
	}
	for _, want := range []string{"serverName: gauntlet-metrics.bench.svc", "name: gauntlet-metrics-tls\n          key: ca.crt",
		"secretName: gauntlet-metrics-tls", "mountPath: /etc/gauntlet/metrics-certs"} {
		if !strings.Contains(verified, want) {
			t.Errorf("rendered chart with metrics.certSecret lacks %q", want)
		}
	}
	if !contains(managerArgs(t, decode(t, verified)), "--metrics-cert-path=/etc/gauntlet/metrics-certs") {
		t.Error("metrics.certSecret set, yet the manager is not told to serve it")
	}
	if plainHTTP, err := helm(t, "template", "gauntlet", chartDir, "--api-versions", "monitoring.coreos.com/v1", "--set", "metrics.secure=false",
		"--set", "generatorFloor.enabled=false"); err != nil {
		t.Fatal(err)
	} else if strings.Contains(plainHTTP, "scheme: https") || strings.Contains(plainHTTP, "metrics-auth") ||
		!strings.Contains(plainHTTP, "--metrics-secure=false") || strings.Contains(plainHTTP, "--null-responder-image") {
		t.Error("metrics.secure=false / generatorFloor.enabled=false still render https scraping, the auth role or the null responder flag")
	}

	// A copy of the chart with a dashboard in it, as the dashboards' owner drops them.
	dir := filepath.Join(t.TempDir(), "gauntlet")
	if err := exec.Command("cp", "-r", chartDir, dir).Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "dashboards"), 0o755); err != nil {
		t.Fatal(err)
	}
	dashboard := `{"title": "Probe", "panels": []}`
	if err := os.WriteFile(filepath.Join(dir, "dashboards", "zz-probe.json"), []byte(dashboard), 0o644); err != nil {
		t.Fatal(err)
	}
	withDashboard, err := helm(t, "template", "gauntlet", dir, "--namespace", "bench", "--set", "dashboards.namespace=monitoring")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range decode(t, withDashboard) {
		if o.Kind != "ConfigMap" || o.Data["zz-probe.json"] == "" {
			continue
		}
		found = true
		if o.Metadata.Labels["grafana_dashboard"] != "1" || o.Metadata.Namespace != "monitoring" {
			t.Errorf("dashboard ConfigMap labels %v in %q, want grafana_dashboard: \"1\" in monitoring", o.Metadata.Labels, o.Metadata.Namespace)
		}
		var parsed map[string]any
		if err := json.Unmarshal([]byte(o.Data["zz-probe.json"]), &parsed); err != nil || parsed["title"] != "Probe" {
			t.Errorf("dashboard JSON came out as %q (%v)", o.Data["zz-probe.json"], err)
		}
	}
	if !found {
		t.Error("no ConfigMap for dashboards/zz-probe.json")
	}
	off, err := helm(t, "template", "gauntlet", dir, "--set", "dashboards.enabled=false")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(off, "zz-probe.json") {
		t.Error("dashboards.enabled=false still renders the dashboard")
	}
}

// object is what the tests read of a rendered manifest.
type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
	Raw  []byte            `json:"-"`
}

func decode(t *testing.T, manifests string) []object {
	t.Helper()
	var out []object
	for _, doc := range strings.Split(manifests, "\n---") {
		if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
			continue
		}
		var o object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("rendered YAML does not parse: %v\n%s", err, doc)
		}
		if o.Kind == "" {
			continue // a document of comments only
		}
		o.Raw = []byte(doc)
		out = append(out, o)
	}
	return out
}

func count(objs []object, kind string) int {
	n := 0
	for _, o := range objs {
		if o.Kind == kind {
			n++
		}
	}
	return n
}

// managerArgs is the manager container's args in the rendered Deployment.
func managerArgs(t *testing.T, objs []object) []string {
	t.Helper()
	for _, o := range objs {
		if o.Kind != "Deployment" {
			continue
		}
		var d struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name string   `json:"name"`
							Args []string `json:"args"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(o.Raw, &d); err != nil {
			t.Fatal(err)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "manager" {
				return c.Args
			}
		}
	}
	t.Fatal("no manager container rendered")
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// chartAppVersion is Chart.yaml's appVersion: the manager image's default tag.
func chartAppVersion(t *testing.T) string {
	t.Helper()
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	readYAML(t, filepath.Join(chartDir, "Chart.yaml"), &chart)
	return chart.AppVersion
}
