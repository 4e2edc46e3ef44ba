package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
)

func init() { subcommands = append(subcommands, newCheckCmd) }

// Statuses of a check: only Missing fails the command.
const (
	checkOK      = "ok"
	checkMissing = "MISSING"
	checkWarn    = "warn"
	checkSkipped = "skipped"
)

type checkResult struct {
	Check  string `json:"check"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

func newCheckCmd() *cobra.Command {
	var cf clusterFlags
	var file, promURL, remoteWrite, httpConfig, output string
	cmd := &cobra.Command{
		Use:   "check [-f RUNS.yaml] [--prometheus-url URL] [--prometheus-http-config FILE]",
		Short: "Say, before any run, what the cluster and its Prometheus lack for Gauntlet",
		Long: "Checks what runs need before one is applied: the other operators' CRDs that are used\n" +
			"(with -f, only those the file's runs use: CloudNativePG only with spec.database), and\n" +
			"with --prometheus-url the remote-write receiver k6 pushes to, native histograms and the\n" +
			"kubelet's cAdvisor series; and each node's CPU manager policy (with -f, the nodes of the\n" +
			"runs' target pools) through the API server's node proxy. Exit status 1 when something\n" +
			"is missing; warnings (a node without the static policy, what could not be read) do not\n" +
			"fail. Reach an in-cluster Prometheus with kubectl port-forward.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Minute)
			defer cancel()
			var runs []*benchv1.BenchmarkRun
			if file != "" {
				var err error
				if runs, err = readRunsFile(file); err != nil {
					return err
				}
			}
			cfg, err := cf.restConfig()
			if err != nil {
				return err
			}
			results := checkCRDs(cfg, runs)
			if promURL != "" {
				hc, err := metrics.HTTPClient(httpConfig)
				if err != nil {
					return err
				}
				if remoteWrite == "" {
					remoteWrite = strings.TrimSuffix(promURL, "/") + "/api/v1/write"
				}
				results = append(results, checkPrometheus(ctx, hc, promURL, remoteWrite)...)
			} else {
				results = append(results, checkResult{"prometheus", checkSkipped, "no --prometheus-url (kubectl port-forward -n monitoring svc/prometheus-operated 9090, then --prometheus-url http://localhost:9090)"})
			}
			results = append(results, checkCPUManager(ctx, cfg, runs)...)
			if err := printChecks(cmd.OutOrStdout(), output, results); err != nil {
				return err
			}
			var missing []string
			for _, r := range results {
				if r.Status == checkMissing {
					missing = append(missing, r.Check)
				}
			}
			if len(missing) > 0 {
				return fmt.Errorf("missing: %s", strings.Join(missing, ", "))
			}
			return nil
		},
	}
	f := cmd.Flags()
	// Of clusterFlags, the kubeconfig and context only: the checks span namespaces.
	f.StringVar(&cf.kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, else ~/.kube/config)")
	f.StringVar(&cf.context, "context", "", "kubeconfig context (default: the current context)")
	f.StringVarP(&file, "file", "f", "", "BenchmarkRuns (YAML): check only what they use and the nodes of their target pools")
	f.StringVar(&promURL, "prometheus-url", "", "the Prometheus the manager reads (its --prometheus-url), reachable from here")
	f.StringVar(&remoteWrite, "prometheus-remote-write-url", "", "where k6 pushes (default: the Prometheus URL's /api/v1/write)")
	f.StringVar(&httpConfig, "prometheus-http-config", "", "Prometheus http_config file for that Prometheus (the manager's --prometheus-http-config)")
	f.StringVarP(&output, "output", "o", "", "json or yaml: print the results as data")
	return cmd
}

func printChecks(w io.Writer, format string, results []checkResult) error {
	if format != "" {
		return printData(w, format, results)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Status, r.Check, r.Detail)
	}
	return tw.Flush()
}

// restConfig is the kubeconfig's REST configuration, as client() reads it.
func (c *clusterFlags) restConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = c.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: c.context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return cfg, nil
}

// readRunsFile is every BenchmarkRun of a YAML file (several documents allowed).
func readRunsFile(file string) ([]*benchv1.BenchmarkRun, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var runs []*benchv1.BenchmarkRun
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		run := &benchv1.BenchmarkRun{}
		if err := yaml.Unmarshal(doc, run); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if run.Kind == "BenchmarkRun" {
			runs = append(runs, run)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no BenchmarkRun", file)
	}
	return runs, nil
}

// crdNeed is a CRD of another operator and which runs use it, as the manager's own check
// (controllers/prerequisites.go) requires them; prometheus-operator is only the chart's
// ServiceMonitor.
type crdNeed struct {
	operator, groupVersion, kind string
	used                         func(*benchv1.BenchmarkRun) bool // nil: no run uses it
	why                          string
}

var crdNeeds = []crdNeed{
	{"k6-operator", "k6.io/v1alpha1", "TestRun", func(*benchv1.BenchmarkRun) bool { return true }, "every trial is a TestRun"},
	{"CloudNativePG", "postgresql.cnpg.io/v1", "Cluster", func(r *benchv1.BenchmarkRun) bool { return r.Spec.Database != nil }, "runs with spec.database"},
	{"CloudNativePG", "postgresql.cnpg.io/v1", "Pooler", func(r *benchv1.BenchmarkRun) bool {
		return r.Spec.Database != nil && r.Spec.Database.ConnectVia != benchv1.ConnectViaDirect
	}, "runs with spec.database through PgBouncer"},
	{"prometheus-operator", "monitoring.coreos.com/v1", "ServiceMonitor", nil, "the chart's ServiceMonitor of the manager's metrics (optional)"},
}

// checkCRDs asks API discovery, which any authenticated user may read, for each CRD. Without
// runs, a CRD any run may use is required; with runs, only one they use.
func checkCRDs(cfg *rest.Config, runs []*benchv1.BenchmarkRun) []checkResult {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return []checkResult{{"crds", checkMissing, err.Error()}}
	}
	var out []checkResult
	for _, n := range crdNeeds {
		name := fmt.Sprintf("%s %s (%s)", n.operator, n.kind, n.groupVersion)
		required := n.used != nil && (len(runs) == 0 || slices.ContainsFunc(runs, n.used))
		served, err := serves(cs, n.groupVersion, n.kind)
		switch {
		case err != nil:
			out = append(out, checkResult{name, checkWarn, "cannot ask the API server: " + err.Error()})
		case served:
			out = append(out, checkResult{name, checkOK, "served"})
		case required:
			out = append(out, checkResult{name, checkMissing, "not served: install " + n.operator + " (" + n.why + ")"})
		case n.used == nil:
			out = append(out, checkResult{name, checkWarn, "not served: " + n.why})
		default:
			out = append(out, checkResult{name, checkSkipped, "not served, and no run of the file uses it (" + n.why + ")"})
		}
	}
	return out
}

func serves(cs kubernetes.Interface, groupVersion, kind string) (bool, error) {
	list, err := cs.Discovery().ServerResourcesForGroupVersion(groupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Kind == kind }), nil
}

// checkPrometheus probes what the runs need of their Prometheus, as the runs would use it.
func checkPrometheus(ctx context.Context, hc *http.Client, promURL, remoteWrite string) []checkResult {
	base := strings.TrimSuffix(promURL, "/")
	var out []checkResult
	var build struct {
		Data struct {
			Version string `json:"version"`
		} `json:"data"`
	}
	if err := getJSON(ctx, hc, base+"/api/v1/status/buildinfo", &build); err != nil {
		return append(out, checkResult{"prometheus", checkMissing, fmt.Sprintf("cannot read %s: %v", promURL, err)})
	}
	out = append(out, checkResult{"prometheus", checkOK, "version " + build.Data.Version})

	// A remote write with no series: Prometheus answers 404 with its "needs to be enabled"
	// message when the receiver is off, and a 4xx about the empty body (or 204) when it is
	// on; nothing is written either way.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, remoteWrite, bytes.NewReader(nil))
	if err != nil {
		return append(out, checkResult{"remote-write receiver", checkMissing, err.Error()})
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	resp, err := hc.Do(req)
	switch {
	case err != nil:
		out = append(out, checkResult{"remote-write receiver", checkMissing, fmt.Sprintf("%s: %v", remoteWrite, err)})
	default:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound:
			out = append(out, checkResult{"remote-write receiver", checkMissing, fmt.Sprintf("%s answers 404 (%s): enableRemoteWriteReceiver: true on the Prometheus resource (--web.enable-remote-write-receiver)", remoteWrite, strings.TrimSpace(string(body)))})
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			out = append(out, checkResult{"remote-write receiver", checkMissing, fmt.Sprintf("%s answers %d: k6 pushes without credentials", remoteWrite, resp.StatusCode)})
		case resp.StatusCode >= 500:
			out = append(out, checkResult{"remote-write receiver", checkWarn, fmt.Sprintf("%s answers %d: %s", remoteWrite, resp.StatusCode, strings.TrimSpace(string(body)))})
		default:
			out = append(out, checkResult{"remote-write receiver", checkOK, fmt.Sprintf("%s accepts remote writes", remoteWrite)})
		}
	}

	// Native histograms: stable from Prometheus 3.8; before, a feature flag.
	if atLeast(build.Data.Version, 3, 8) {
		out = append(out, checkResult{"native histograms", checkOK, "stable in Prometheus " + build.Data.Version})
	} else {
		var flags struct {
			Data map[string]string `json:"data"`
		}
		if err := getJSON(ctx, hc, base+"/api/v1/status/flags", &flags); err != nil {
			out = append(out, checkResult{"native histograms", checkWarn, "cannot read the flags to tell: " + err.Error()})
		} else if slices.Contains(strings.Split(flags.Data["enable-feature"], ","), "native-histograms") {
			out = append(out, checkResult{"native histograms", checkOK, "--enable-feature=native-histograms"})
		} else {
			out = append(out, checkResult{"native histograms", checkMissing, fmt.Sprintf("Prometheus %s without --enable-feature=native-histograms (enableFeatures: [native-histograms]): k6's latency histograms would be dropped", build.Data.Version)})
		}
	}

	// cAdvisor: the targets' and runners' CPU and memory.
	var q struct {
		Data struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	query := `count(container_cpu_usage_seconds_total{container!=""})`
	if err := getJSON(ctx, hc, base+"/api/v1/query?query="+url.QueryEscape(query), &q); err != nil {
		out = append(out, checkResult{"cAdvisor series", checkWarn, "cannot query: " + err.Error()})
	} else if len(q.Data.Result) == 0 {
		out = append(out, checkResult{"cAdvisor series", checkMissing, "no container_cpu_usage_seconds_total with a container label: the kubelet's /metrics/cadvisor is not scraped (kube-prometheus-stack's kubelet ServiceMonitor does)"})
	} else {
		out = append(out, checkResult{"cAdvisor series", checkOK, "container_cpu_usage_seconds_total present"})
	}
	return out
}

func getJSON(ctx context.Context, hc *http.Client, address string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s: %s", address, resp.Status, strings.TrimSpace(string(body)))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// atLeast is whether a Prometheus version ("3.9.1", "2.42.0+ds") is major.minor or later.
func atLeast(version string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(version, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

// checkCPUManager reads each node's kubelet configuration through the API server's node
// proxy (configz): targets get whole cores to themselves only under the static policy.
// With runs, only the nodes their targets' pools select.
func checkCPUManager(ctx context.Context, cfg *rest.Config, runs []*benchv1.BenchmarkRun) []checkResult {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return []checkResult{{"cpu manager", checkWarn, err.Error()}}
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return []checkResult{{"cpu manager", checkWarn, "cannot list nodes: " + err.Error()}}
	}
	var selectors []labels.Selector
	for _, r := range runs {
		for _, t := range r.Spec.Targets {
			selectors = append(selectors, labels.SelectorFromSet(r.Spec.Pool(t.NodePool).NodeSelector))
		}
	}
	var out []checkResult
	for _, n := range nodes.Items {
		if len(runs) > 0 && !slices.ContainsFunc(selectors, func(s labels.Selector) bool { return s.Matches(labels.Set(n.Labels)) }) {
			continue
		}
		name := "cpu manager " + n.Name
		raw, err := cs.CoreV1().RESTClient().Get().Resource("nodes").Name(n.Name).SubResource("proxy").Suffix("configz").DoRaw(ctx)
		if err != nil {
			out = append(out, checkResult{name, checkWarn, "cannot read the kubelet's configz (nodes/proxy): " + err.Error()})
			continue
		}
		var cz struct {
			KubeletConfig struct {
				CPUManagerPolicy string `json:"cpuManagerPolicy"`
			} `json:"kubeletconfig"`
		}
		if err := json.Unmarshal(raw, &cz); err != nil {
			out = append(out, checkResult{name, checkWarn, "configz: " + err.Error()})
			continue
		}
		policy := cz.KubeletConfig.CPUManagerPolicy
		if policy == "" {
			policy = "none" // the kubelet's default
		}
		if policy == "static" {
			out = append(out, checkResult{name, checkOK, "static: whole-core targets get their cores to themselves"})
		} else {
			out = append(out, checkResult{name, checkWarn, "policy " + policy + ": targets share the node's cores and CFS throttling shows in the p99 (docs/cluster.md, section 3)"})
		}
	}
	if len(out) == 0 {
		out = append(out, checkResult{"cpu manager", checkWarn, "no node matches the runs' target pools"})
	}
	return out
}
