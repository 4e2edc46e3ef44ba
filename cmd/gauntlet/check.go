package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
	"github.com/gauntlet-bench/gauntlet/internal/preflight"
)

func init() { subcommands = append(subcommands, newCheckCmd) }

// Statuses of a check (internal/preflight): only Missing fails the command.
const (
	checkOK      = preflight.OK
	checkMissing = preflight.Missing
	checkWarn    = preflight.Warn
	checkSkipped = preflight.Skipped
)

type checkResult = preflight.Result

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
				results = append(results, preflight.Prometheus(ctx, hc, promURL, remoteWrite)...)
			} else {
				results = append(results, checkResult{Check: "prometheus", Status: checkSkipped, Detail: "no --prometheus-url (kubectl port-forward -n monitoring svc/prometheus-operated 9090, then --prometheus-url http://localhost:9090)"})
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

// checkCRDs is preflight.CheckCRDs under the CLI's rule (preflight.ForRuns).
func checkCRDs(cfg *rest.Config, runs []*benchv1.BenchmarkRun) []checkResult {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return []checkResult{{Check: "crds", Status: checkMissing, Detail: err.Error()}}
	}
	return preflight.CheckCRDs(cs.Discovery(), preflight.ForRuns(runs))
}

func checkCPUManager(ctx context.Context, cfg *rest.Config, runs []*benchv1.BenchmarkRun) []checkResult {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return []checkResult{{Check: "cpu manager", Status: checkWarn, Detail: err.Error()}}
	}
	return preflight.CPUManager(ctx, cs, runs)
}
