package api

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// guideRow is a row of docs/cluster.md's sizing table: `| \`file\` | pools | CPU | nodes |`.
var guideRow = regexp.MustCompile("(?m)^\\| `([a-z0-9-]+\\.yaml)` \\|[^|]*\\| ([0-9.+ ]+) \\|")

// TestClusterGuideSizesEverySample: docs/cluster.md's table gives, for every sample, the CPU
// its pods request at once: the targets, the generator floor's null responder (the builder's
// own request) and the runners of the largest load point (sizing.Runners, as the TestRuns
// get them). A sample whose sizes change without the guide fails here, so the node counts
// the guide derives from that figure are read again.
func TestClusterGuideSizesEverySample(t *testing.T) {
	root := testenv.Root()
	guide, err := os.ReadFile(filepath.Join(root, "docs", "cluster.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]float64{}
	for _, m := range guideRow.FindAllStringSubmatch(string(guide), -1) {
		sum := 0.0
		for _, part := range strings.Split(m[2], "+") {
			v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
			if err != nil {
				t.Fatalf("docs/cluster.md, %s: CPU %q is not a sum of numbers", m[1], m[2])
			}
			sum += v
		}
		documented[m[1]] = sum
	}
	files, _ := filepath.Glob(filepath.Join(root, "config", "samples", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no samples in config/samples")
	}
	for _, file := range files {
		name := filepath.Base(file)
		var millicores int64
		for _, run := range readRuns(t, file) {
			millicores += requestedAtOnce(t, run)
		}
		want, ok := documented[name]
		switch {
		case !ok:
			t.Errorf("docs/cluster.md's sizing table has no row for config/samples/%s (it requests %gm CPU at once)", name, float64(millicores))
		case int64(want*1000+0.5) != millicores:
			t.Errorf("docs/cluster.md says config/samples/%s requests %g CPUs at once; its pods request %gm", name, want, float64(millicores))
		}
	}
}

// TestSamplesNameNoNamespace: the guides apply samples with -n, which kubectl refuses for a
// document that names another namespace.
func TestSamplesNameNoNamespace(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.Root(), "config", "samples", "*.yaml"))
	for _, file := range files {
		for _, run := range readRuns(t, file) {
			if run.Namespace != "" {
				t.Errorf("config/samples/%s: %s names namespace %q; the docs place samples with -n", filepath.Base(file), run.Name, run.Namespace)
			}
		}
	}
}

// requestedAtOnce is the CPU, in millicores, that a run's pods request at their peak: every
// target, the null responder on the first target's pool, and the most runners of any load
// point.
func requestedAtOnce(t *testing.T, run *benchv1.BenchmarkRun) int64 {
	t.Helper()
	var total int64
	for _, tg := range run.Spec.Targets {
		cpu := tg.Resources.CPUOrDefault()
		total += cpu.MilliValue()
	}
	if len(run.Spec.Targets) > 0 {
		dep := specs.NullResponderDeployment(run, run.Spec.Targets[0].NodePool, specs.Config{NullResponderImage: "null"})
		cpu := dep.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
		total += cpu.MilliValue()
	}
	var runners int64
	for _, p := range plan.LoadPoints(run.Spec.Load) {
		c, err := sizing.Runners(run, p)
		if err != nil {
			t.Fatalf("%s: %v", run.Name, err)
		}
		runners = max(runners, int64(c.Runners)*c.RunnerMillicores)
	}
	return total + runners
}

func readRuns(t *testing.T, file string) []*benchv1.BenchmarkRun {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var runs []*benchv1.BenchmarkRun
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		run := &benchv1.BenchmarkRun{}
		if err := yaml.UnmarshalStrict(doc, run); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if run.Kind == "BenchmarkRun" {
			runs = append(runs, run)
		}
	}
	return runs
}
