package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/testprom"
)

// fakeAPIServer answers what gauntlet check asks of a kube-apiserver, as one answers: API
// discovery per group version (404 for one not served), the node list, and each node's
// kubelet configuration through the node proxy (configz; "" stands for a kubelet that writes
// no cpuManagerPolicy, whose default is none).
func fakeAPIServer(t *testing.T, served map[string]string, policies map[string]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/apis/"):
			gv := strings.TrimPrefix(p, "/apis/")
			kind, ok := served[gv]
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
				return
			}
			fmt.Fprintf(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":%q,"resources":[{"name":%q,"namespaced":true,"kind":%q,"verbs":["get","list"]}]}`,
				gv, strings.ToLower(kind)+"s", kind)
		case p == "/api/v1/nodes":
			var items []string
			for name := range policies {
				items = append(items, fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"kubernetes.io/arch":"amd64","pool":%q}}}`, name, name))
			}
			fmt.Fprintf(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[%s]}`, strings.Join(items, ","))
		case strings.HasPrefix(p, "/api/v1/nodes/") && strings.HasSuffix(p, "/proxy/configz"):
			name := strings.TrimSuffix(strings.TrimPrefix(p, "/api/v1/nodes/"), "/proxy/configz")
			policy, ok := policies[name]
			if !ok {
				http.NotFound(w, r)
				return
			}
			cfg := map[string]any{"kind": "KubeletConfiguration", "staticPodPath": "/etc/kubernetes/manifests"}
			if policy != "" {
				cfg["cpuManagerPolicy"] = policy
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"kubeletconfig": cfg})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: %q}}]
users: [{name: fake, user: {token: x}}]
contexts: [{name: fake, context: {cluster: fake, user: fake}}]
current-context: fake
`, srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// runCheck runs `gauntlet check args...` and returns its output and error.
func runCheck(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := &cobra.Command{Use: "gauntlet", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(newCheckCmd())
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"check"}, args...))
	err := root.Execute()
	return out.String(), err
}

// line is the output line of one check.
func line(out, check string) string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			if rest := strings.Join(f[1:], " "); strings.HasPrefix(rest, check+" ") {
				return l
			}
		}
	}
	return ""
}

// TestCheckRequiresOnlyWhatIsUsed: k6-operator is served, CloudNativePG and
// prometheus-operator are not. A run without a database passes (CloudNativePG skipped, the
// ServiceMonitor a warning); seed 001, with databases through PgBouncer, fails naming
// both CloudNativePG CRDs; with no file every CRD a run may use is required.
func TestCheckRequiresOnlyWhatIsUsed(t *testing.T) {
	kc := fakeAPIServer(t, map[string]string{"k6.io/v1alpha1": "TestRun"}, map[string]string{"n1": "static"})
	samples := filepath.Join(testenv.Root(), "config", "samples")

	out, err := runCheck(t, "--kubeconfig", kc, "-f", filepath.Join(samples, "quickstart.yaml"))
	if err != nil {
		t.Fatalf("quickstart: %v\n%s", err, out)
	}
	for check, status := range map[string]string{
		"k6-operator TestRun":                checkOK,
		"CloudNativePG Cluster":              checkSkipped,
		"prometheus-operator ServiceMonitor": checkWarn,
		"prometheus":                         checkSkipped,
	} {
		if l := line(out, check); !strings.HasPrefix(l, status+" ") {
			t.Errorf("quickstart: %s: %q, want %s\n%s", check, l, status, out)
		}
	}

	out, err = runCheck(t, "--kubeconfig", kc, "-f", filepath.Join(samples, "seed-001-rest-api.yaml"))
	if err == nil || !strings.Contains(err.Error(), "CloudNativePG Cluster") || !strings.Contains(err.Error(), "CloudNativePG Pooler") {
		t.Errorf("seed 001 (databases): %v, want missing CloudNativePG Cluster and Pooler\n%s", err, out)
	}
	if l := line(out, "CloudNativePG Cluster"); !strings.HasPrefix(l, checkMissing) || !strings.Contains(l, "install CloudNativePG") {
		t.Errorf("seed 001: %q", l)
	}

	if _, err := runCheck(t, "--kubeconfig", kc); err == nil || !strings.Contains(err.Error(), "CloudNativePG") {
		t.Errorf("no file: %v, want CloudNativePG missing (any run may use it)", err)
	}
}

// TestCheckCPUManagerPolicy: a node under the static policy passes, one under none (or the
// kubelet's default, no policy written) is a warning naming the node; with -f only the
// nodes of the runs' target pools are read.
func TestCheckCPUManagerPolicy(t *testing.T) {
	kc := fakeAPIServer(t, map[string]string{"k6.io/v1alpha1": "TestRun"}, map[string]string{"pinned": "static", "shared": "none", "default": ""})
	out, err := runCheck(t, "--kubeconfig", kc)
	if err != nil && !strings.Contains(err.Error(), "CloudNativePG") {
		t.Fatal(err)
	}
	if l := line(out, "cpu manager pinned"); !strings.HasPrefix(l, checkOK) {
		t.Errorf("pinned: %q\n%s", l, out)
	}
	for _, n := range []string{"shared", "default"} {
		if l := line(out, "cpu manager "+n); !strings.HasPrefix(l, checkWarn) || !strings.Contains(l, "policy none") {
			t.Errorf("%s: %q, want a warning naming policy none\n%s", n, l, out)
		}
	}
	// A run whose targets' pool selects pool=pinned reads that node only.
	run := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(run, []byte(`apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: r}
spec:
  nodePools: [{name: p, nodeSelector: {pool: pinned}}]
  targets: [{name: go, preset: go-nethttp, nodePool: p}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = runCheck(t, "--kubeconfig", kc, "-f", run)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if line(out, "cpu manager shared") != "" || line(out, "cpu manager pinned") == "" {
		t.Errorf("with -f, the nodes outside the run's pools were read:\n%s", out)
	}
}

func TestCheckPrometheus3(t *testing.T) {
	kc := fakeAPIServer(t, map[string]string{"k6.io/v1alpha1": "TestRun"}, map[string]string{"n1": "static"})
	out, err := runCheck(t, "--kubeconfig", kc, "-f", filepath.Join(testenv.Root(), "config", "samples", "quickstart.yaml"),
		"--prometheus-url", testprom.Fake3(t))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, check := range []string{"prometheus", "remote-write receiver", "native histograms", "cAdvisor series"} {
		if l := line(out, check); !strings.HasPrefix(l, checkOK) {
			t.Errorf("%s: %q\n%s", check, l, out)
		}
	}
	if l := line(out, "native histograms"); !strings.Contains(l, "stable in Prometheus 3.9.1") {
		t.Errorf("native histograms on 3.9 without the flag: %q", l)
	}
}

// TestCheckRealPrometheus runs the check against real Prometheus servers (hack/prometheus.sh):
// one started as the tests' (receiver and native histograms on) passes both, one started
// bare fails naming the receiver (its own 404) and native histograms. Neither scrapes a
// kubelet, so cAdvisor series are missing from both.
func TestCheckRealPrometheus(t *testing.T) {
	testenv.Long(t)
	kc := fakeAPIServer(t, map[string]string{"k6.io/v1alpha1": "TestRun"}, map[string]string{"n1": "static"})
	quickstart := filepath.Join(testenv.Root(), "config", "samples", "quickstart.yaml")
	for _, tc := range []struct {
		name    string
		flags   []string
		status  string
		missing []string
	}{
		{"as the runs need it", testprom.Features, checkOK, []string{"cAdvisor series"}},
		{"bare", nil, checkMissing, []string{"remote-write receiver", "native histograms", "cAdvisor series"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prom, err := testprom.StartWith(testenv.Root(), tc.flags...)
			if err != nil {
				t.Fatal(err)
			}
			defer prom.Stop()
			out, err := runCheck(t, "--kubeconfig", kc, "-f", quickstart, "--prometheus-url", prom.URL)
			t.Logf("gauntlet check, Prometheus %s:\n%s", tc.name, out)
			if err == nil || err.Error() != "missing: "+strings.Join(tc.missing, ", ") {
				t.Errorf("error %v, want missing %v", err, tc.missing)
			}
			for _, check := range []string{"remote-write receiver", "native histograms"} {
				if l := line(out, check); !strings.HasPrefix(l, tc.status) {
					t.Errorf("%s: %q, want %s", check, l, tc.status)
				}
			}
			if tc.status == checkMissing && !strings.Contains(line(out, "remote-write receiver"), "404") {
				t.Errorf("the receiver's line does not quote Prometheus's 404: %q", line(out, "remote-write receiver"))
			}
		})
	}
}
